// Command gen writes a large, deterministic, realistic claude-code
// stream-json event stream (see package streamgen) for benchmarks:
//
//	go run ./internal/gen -size 1GiB -seed 1 -o /tmp/ccfilter-bench-1GiB.jsonl
//
// Without -o the stream goes to standard output. Sizes accept a plain byte
// count or a number with one of the suffixes B, K/KB, M/MB, G/GB (powers of
// 1000) or KiB, MiB, GiB (powers of 1024); fractions such as 1.5GiB work.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ccfilter/ccfilter/internal/gen/streamgen"
)

func main() {
	sizeFlag := flag.String("size", "100MiB", "target size (e.g. 4096, 500MB, 100MiB, 1GiB)")
	seed := flag.Int64("seed", 1, "random seed; the same seed and size give the same bytes")
	out := flag.String("o", "", "output file (default: standard output)")
	placeholder := flag.Bool("placeholder-usage", false, "write output_tokens:1 on every assistant event, as claude-code 2.1.328 does (default: final count on the last block of each message)")
	replay := flag.Bool("replay-user-messages", false, "emit each turn's prompt as a user event with string content (isReplay:true)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gen [-size SIZE] [-seed N] [-o FILE]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	size, err := streamgen.ParseSize(*sizeFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	opt := streamgen.Options{Size: size, Seed: *seed, PlaceholderUsage: *placeholder, ReplayUserMessages: *replay}
	if err := streamgen.GenerateOptions(w, opt); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if *out != "" {
		if err := w.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
