// Command ccfilter filters and converts the event stream that
// `claude -p --output-format stream-json --verbose` prints.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
)

// version is set at build time: -ldflags "-X main.version=$(git describe)".
var version = "dev"

// buildVersion is version, or, when no -ldflags set it (go install, go
// build), what the Go toolchain stamped in the binary.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(version, bi, ok)
}

// versionOf: v when set; else the main module's version (go install
// ...@v1.2.3, or since Go 1.24 the pseudo-version of the checkout built,
// +dirty when it has changes); else the VCS revision; else v.
func versionOf(v string, bi *debug.BuildInfo, ok bool) string {
	if v != "dev" || !ok {
		return v
	}
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		return mv
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev == "" {
		return v
	}
	return v + "-" + rev + dirty
}

func main() {
	exitOnInterrupt()
	limitMemory()
	if code, profiled := runProfiled(); profiled {
		os.Exit(code)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// exitOnInterrupt ends the process at the first Ctrl-C (SIGINT), whatever
// it is doing: blocked on a terminal or a pipe that sends nothing, or deep
// in a file. It says so and exits 130, as a shell reports a process killed
// by SIGINT, without flushing what is buffered: a run cut short claims no
// final answer and no complete report. While an input is followed
// (--follow), the first Ctrl-C ends it instead, as its end would
// (softInterrupt); the next exits at once.
func exitOnInterrupt() {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	go func() {
		for range interrupts {
			if soft := softInterrupt.Swap(nil); soft != nil {
				(*soft)() // a followed input ends, and what was read is printed
				continue
			}
			fmt.Fprintln(os.Stderr, "ccfilter: interrupted")
			os.Exit(exitInterrupted)
		}
	}()
}
