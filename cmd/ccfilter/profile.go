//go:build profile

package main

import (
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// runProfiled runs the command under a CPU or an allocation profile when
// CCFILTER_CPUPROFILE or CCFILTER_MEMPROFILE names a file, or under an
// execution trace (go tool trace: which parts of a run keep one CPU busy
// and the other idle) when CCFILTER_TRACE does (for docs/performance.md:
// one real run profiled without a test harness). Built only with -tags
// profile: runtime/pprof is not in the binary people install
// (docs/otel.md's size figure).
func runProfiled() (code int, profiled bool) {
	runMain := func() int { return run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()) }
	for _, rec := range []struct {
		env   string
		start func(io.Writer) error
		stop  func()
	}{
		{"CCFILTER_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile},
		{"CCFILTER_TRACE", trace.Start, trace.Stop},
	} {
		if f := os.Getenv(rec.env); f != "" {
			if out, err := os.Create(f); err == nil {
				rec.start(out)
				code := runMain()
				rec.stop()
				out.Close()
				return code, true
			}
		}
	}
	if f := os.Getenv("CCFILTER_MEMPROFILE"); f != "" {
		// The allocations of one run (alloc_space).
		runtime.MemProfileRate = 64 << 10
		code := runMain()
		if pf, err := os.Create(f); err == nil {
			runtime.GC() // the profile is as of the last collection: make it this run's whole
			pprof.Lookup("allocs").WriteTo(pf, 0)
			pf.Close()
		}
		return code, true
	}
	return 0, false
}
