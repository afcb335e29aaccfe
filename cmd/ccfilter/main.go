// Command ccfilter filters and converts the event stream that
// `claude -p --output-format stream-json --verbose` prints.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
)

// version is set at build time: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func main() {
	exitOnInterrupt()
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		// See softLimit: raised as long lines arrive.
		debug.SetMemoryLimit(memoryBase)
		memory.on = true
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
	if f := os.Getenv("CCFILTER_MEMPROFILE"); f != "" {
		// The allocations of one run (alloc_space), for the same purpose.
		runtime.MemProfileRate = 64 << 10
		code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ())
		if pf, err := os.Create(f); err == nil {
			runtime.GC() // the profile is as of the last collection: make it this run's whole
			pprof.Lookup("allocs").WriteTo(pf, 0)
			pf.Close()
		}
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// exitOnInterrupt ends the process at the first Ctrl-C (SIGINT), whatever
// it is doing: blocked on a terminal or a pipe that sends nothing, or deep
// in a file. It says so and exits 130, as a shell reports a process killed
// by SIGINT, without flushing what is buffered: a run cut short claims no
// final answer and no complete report.
func exitOnInterrupt() {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	go func() {
		<-interrupts
		fmt.Fprintln(os.Stderr, "ccfilter: interrupted")
		os.Exit(exitInterrupted)
	}()
}
