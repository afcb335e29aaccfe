//go:build !profile

package main

// runProfiled is profile.go's, which -tags profile builds: without it
// CCFILTER_CPUPROFILE and CCFILTER_MEMPROFILE are not read.
func runProfiled() (code int, profiled bool) { return 0, false }
