// Command gen writes large, deterministic claude-code stream-json inputs
// for benchmarks and memory tests:
//
//	go run ./internal/gen -size 1GiB -seed 1 -o /tmp/gen-1GiB.jsonl           # generated (package streamgen)
//	go run ./internal/gen -real -size 300MB -o /tmp/real-300MB.jsonl FILE...  # real streams concatenated, ids renamed
//	go run ./internal/gen -real -gemini -size 300MB -o /tmp/gemini-300MB.jsonl ../shared/agents/gemini/[01]*.jsonl  # Gemini CLI streams
//	go run ./internal/gen -real -codex -size 300MB -o /tmp/codex-300MB.jsonl ../shared/agents/codex/*.jsonl  # Codex CLI streams
//	go run ./internal/gen -unanswered 1000000 -o /tmp/unanswered.jsonl        # tool calls never answered
//
// Without -o the stream goes to standard output. Sizes accept a plain byte
// count or a number with one of the suffixes B, K/KB, M/MB, G/GB (powers of
// 1000) or KiB, MiB, GiB (powers of 1024); fractions such as 1.5GiB work.
// With -real, the FILE arguments are concatenated in the order given, round
// after round with new ids (package realcorpus), until -size is reached.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ccfilter/ccfilter/internal/gen/realcorpus"
	"github.com/ccfilter/ccfilter/internal/gen/streamgen"
)

func main() {
	sizeFlag := flag.String("size", "100MiB", "target size (e.g. 4096, 500MB, 100MiB, 1GiB)")
	seed := flag.Int64("seed", 1, "random seed; the same seed and size give the same bytes")
	out := flag.String("o", "", "output file (default: standard output)")
	placeholder := flag.Bool("placeholder-usage", false, "write output_tokens:1 on every assistant event, as claude-code 2.1.328 does (default: final count on the last block of each message)")
	replay := flag.Bool("replay-user-messages", false, "emit each turn's prompt as a user event with string content (isReplay:true)")
	real := flag.Bool("real", false, "concatenate the real streams named as arguments, ids renamed per round, to -size")
	gemini := flag.Bool("gemini", false, "with -real: the FILEs are Gemini CLI streams (their tool ids renamed too)")
	codex := flag.Bool("codex", false, "with -real: the FILEs are Codex CLI streams, codex exec --json (their item ids renamed too)")
	unanswered := flag.Int("unanswered", 0, "write this many tool calls that are never answered (ignores -size)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gen [-size SIZE] [-seed N] [-o FILE] [-real FILE... | -unanswered N]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 != *real || *gemini && *codex {
		flag.Usage()
		os.Exit(2)
	}
	size, err := streamgen.ParseSize(*sizeFlag)
	if err != nil {
		fail(2, err)
	}
	var w io.WriteCloser = os.Stdout
	if *out != "" {
		if w, err = os.Create(*out); err != nil {
			fail(1, err)
		}
	}
	switch {
	case *real:
		var sources []*realcorpus.Source
		for _, name := range flag.Args() {
			data, err := os.ReadFile(name)
			if err != nil {
				fail(1, err)
			}
			switch {
			case *gemini:
				sources = append(sources, realcorpus.NewGeminiSource(name, data))
			case *codex:
				sources = append(sources, realcorpus.NewCodexSource(name, data))
			default:
				sources = append(sources, realcorpus.NewSource(name, data))
			}
		}
		_, err = realcorpus.Concat(w, sources, size)
	case *unanswered > 0:
		err = realcorpus.Unanswered(w, *unanswered)
	default:
		opt := streamgen.Options{Size: size, Seed: *seed, PlaceholderUsage: *placeholder, ReplayUserMessages: *replay}
		err = streamgen.GenerateOptions(w, opt)
	}
	if err != nil {
		fail(1, err)
	}
	if err := w.Close(); err != nil {
		fail(1, err)
	}
}

func fail(code int, err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(code)
}
