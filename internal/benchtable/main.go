// Command benchtable prints issue 41's table from the measurements of one
// run of scripts/bench-table.sh (what `make bench` runs), each figure
// against the goal and against the committed baseline
// (bench/baseline.tsv):
//
//	go run ./internal/benchtable -baseline bench/baseline.tsv MEASUREMENTS.tsv
//	go run ./internal/benchtable -baseline bench/baseline.tsv -update MEASUREMENTS.tsv
//
// A figure more than 10% worse than its baseline is printed as REGRESSION
// and the command exits 1; "worse" follows the figure's direction (a ratio
// against wc -l is worse when larger, "× faster than jq" when smaller).
// -update rewrites the baseline from this run instead, keeping the old
// value of a figure this run did not measure (commit it with a message that
// says why). Exit 2: bad usage or unreadable input.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	flags.SetOutput(stderr)
	baseline := flags.String("baseline", "bench/baseline.tsv", "the committed baseline")
	update := flags.Bool("update", false, "rewrite the baseline from this run instead of comparing with it")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: benchtable [-baseline FILE] [-update] MEASUREMENTS.tsv")
		return 2
	}
	m, err := readFile(flags.Arg(0), ReadMeasurements)
	if err != nil {
		fmt.Fprintf(stderr, "benchtable: %s: %v\n", flags.Arg(0), err)
		return 2
	}
	rows := Rows()
	if *update {
		old, err := readFile(*baseline, ReadBaseline)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stderr, "benchtable: %s: %v\n", *baseline, err)
			return 2
		}
		f, err := os.Create(*baseline)
		if err == nil {
			err = WriteBaseline(f, rows, m, old)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %s: %v\n", *baseline, err)
			return 2
		}
		Write(stdout, rows, m, nil)
		fmt.Fprintf(stdout, "\nbaseline rewritten: %s (commit it with a message that says why)\n", *baseline)
		return 0
	}
	base, err := readFile(*baseline, ReadBaseline)
	if err != nil {
		fmt.Fprintf(stderr, "benchtable: %s: %v\n", *baseline, err)
		return 2
	}
	res := Write(stdout, rows, m, base)
	if len(res.Missing) > 0 {
		fmt.Fprintf(stdout, "\nnot measured in this run: %v\n", res.Missing)
	}
	if len(res.Regressions) > 0 {
		fmt.Fprintf(stdout, "\n%d REGRESSION(S) against %s (more than 10%% worse):\n", len(res.Regressions), *baseline)
		for _, r := range res.Regressions {
			fmt.Fprintf(stdout, "  %s\n", r)
		}
		return 1
	}
	fmt.Fprintf(stdout, "\nno regression against %s\n", *baseline)
	return 0
}

func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}
