// Package candidates measures third-party JSON decoders on ccfilter's
// generated stream, one JSON value per line. It is a module of its own so
// the main module's dependencies stay untouched.
package candidates

import (
	"bytes"
	"os"
	"sync"
	"testing"
)

// class is what the classifier needs of an event.
type class struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
}

var (
	loadOnce  sync.Once
	benchData [][]byte
	benchSize int64
	loadErr   error
)

// benchLines is the lines of CCFILTER_BENCH_FILE (default /tmp/b128.jsonl),
// read once per test binary, and the file's size.
func benchLines(b *testing.B) ([][]byte, int64) {
	loadOnce.Do(func() {
		f := os.Getenv("CCFILTER_BENCH_FILE")
		if f == "" {
			f = "/tmp/b128.jsonl"
		}
		data, err := os.ReadFile(f)
		if err != nil {
			loadErr = err
			return
		}
		benchSize = int64(len(data))
		for _, l := range bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")) {
			if len(l) > 0 {
				benchData = append(benchData, l)
			}
		}
	})
	if loadErr != nil {
		b.Fatal(loadErr)
	}
	return benchData, benchSize
}

// candidate is one library's three entry points.
type candidate struct {
	name  string
	valid func([]byte) bool
	tree  func([]byte, *any) error
	struc func([]byte, *class) error
}

// candidates is filled by each library's file (init), so a library that
// fails to build can be left out by its build tag alone.
var candidates []candidate

func register(c candidate) { candidates = append(candidates, c) }

func runValidate(b *testing.B, c candidate) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if !c.valid(l) {
				b.Fatalf("%s: invalid line %.80q", c.name, l)
			}
		}
	}
}

func runTree(b *testing.B, c candidate) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			var v any
			if err := c.tree(l, &v); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
		}
	}
}

func runStruct(b *testing.B, c candidate) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			var v class
			if err := c.struc(l, &v); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			if v.Type == "" {
				b.Fatalf("%s: no type in %.80q", c.name, l)
			}
		}
	}
}

// BenchmarkValidate/<lib>: syntax check only.
func BenchmarkValidate(b *testing.B) {
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) { runValidate(b, c) })
	}
}

// BenchmarkTree/<lib>: each line into any (map[string]any tree).
func BenchmarkTree(b *testing.B) {
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) { runTree(b, c) })
	}
}

// BenchmarkStruct/<lib>: each line into struct{Type, Subtype string}.
func BenchmarkStruct(b *testing.B) {
	for _, c := range candidates {
		b.Run(c.name, func(b *testing.B) { runStruct(b, c) })
	}
}

// TestAgree checks that every candidate classifies the first lines as
// encoding/json does, so the figures compare like with like.
func TestAgree(t *testing.T) {
	lines := sampleLines(t)
	for _, c := range candidates {
		for i, l := range lines {
			var want, got class
			if err := stdStruct(l, &want); err != nil {
				t.Fatal(err)
			}
			if err := c.struc(l, &got); err != nil {
				t.Fatalf("%s line %d: %v", c.name, i, err)
			}
			if got != want {
				t.Fatalf("%s line %d: got %+v, want %+v", c.name, i, got, want)
			}
			if !c.valid(l) {
				t.Fatalf("%s line %d: not valid", c.name, i)
			}
			var v any
			if err := c.tree(l, &v); err != nil {
				t.Fatalf("%s line %d tree: %v", c.name, i, err)
			}
			if _, ok := v.(map[string]any); !ok {
				t.Fatalf("%s line %d tree: %T", c.name, i, v)
			}
		}
		if c.valid([]byte(`{"type":"x",}`)) {
			t.Fatalf("%s: accepts a trailing comma", c.name)
		}
	}
}

// sampleLines is up to 2000 lines of the bench file, or of the main
// module's captures when it is missing.
func sampleLines(t *testing.T) [][]byte {
	f := os.Getenv("CCFILTER_BENCH_FILE")
	if f == "" {
		f = "/tmp/b128.jsonl"
	}
	data, err := os.ReadFile(f)
	if err != nil {
		data, err = os.ReadFile("../../testdata/events/04-parallel-tools.jsonl")
		if err != nil {
			t.Skip(err)
		}
	}
	ls := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(ls) > 2000 {
		ls = ls[:2000]
	}
	return ls
}
