// Command ccfilter filters and converts the event stream that
// `claude -p --output-format stream-json --verbose` prints.
package main

import (
	"os"
	"runtime/debug"
	"runtime/pprof"
)

// version is set at build time: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		// A soft limit makes the GC return the buffers of huge lines (tool
		// results of tens of MB) promptly: on a 1 GiB stream with 48 MB lines
		// peak RSS is the longest line plus about 50 MiB. Lower (32 MiB),
		// the batches read ahead by the parallel decoder keep the heap at
		// the limit and the GC runs without pause: text took 2.3 s instead
		// of 1.8 s on that stream.
		debug.SetMemoryLimit(64 << 20)
	}
	if f := os.Getenv("CCFILTER_CPUPROFILE"); f != "" {
		// For docs/performance.md: profile one real run without a test harness.
		if pf, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(pf)
			code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
			pprof.StopCPUProfile()
			pf.Close()
			os.Exit(code)
		}
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}
