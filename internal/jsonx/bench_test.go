package jsonx

import (
	"bytes"
	"os"
	"testing"
)

// benchLines is a generated stream's lines (CCFILTER_BENCH_FILE) or a small
// capture, split on LF.
func benchLines(b *testing.B) ([][]byte, int64) {
	f := os.Getenv("CCFILTER_BENCH_FILE")
	if f == "" {
		f = "../../testdata/events/04-parallel-tools.jsonl"
	}
	data, err := os.ReadFile(f)
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")), int64(len(data))
}

// BenchmarkValidate measures full validation, the default path of every line.
func BenchmarkValidate(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if err := Validate(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSkip measures jumping over each line's value without validating.
func BenchmarkSkip(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if skip(l, 0) != len(l) {
				b.Fatal("skip")
			}
		}
	}
}

// BenchmarkDecodeValid measures validating and building each line's tree
// in one pass (what an expression needs), to set beside the candidates in
// bench/candidates.
func BenchmarkDecodeValid(b *testing.B) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := DecodeValid(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}
