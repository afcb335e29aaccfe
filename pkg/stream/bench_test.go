package stream_test

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// benchInput is a generated stream (go run ./internal/gen -size 64MiB) when
// CCFILTER_BENCH_FILE names one, else all captures concatenated.
func benchInput(b *testing.B) []byte {
	if f := os.Getenv("CCFILTER_BENCH_FILE"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	var all []byte
	for _, f := range captures(b) {
		data, _ := os.ReadFile(f)
		all = append(all, data...)
	}
	return all
}

// benchStream decodes the bench input once per iteration, calling the
// per-run function's result on every event.
func benchStream(b *testing.B, perRun func() func(*stream.Event)) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{})
		each := perRun()
		for {
			ev, err := dec.Next()
			if err == io.EOF {
				break
			}
			if err == nil {
				each(ev)
			}
		}
	}
}

// BenchmarkDecoder measures reading, validating and classifying.
func BenchmarkDecoder(b *testing.B) {
	benchStream(b, func() func(*stream.Event) { return func(*stream.Event) {} })
}

// BenchmarkTracker measures decoding plus tracking (pairs, usage, outcome).
func BenchmarkTracker(b *testing.B) {
	benchStream(b, func() func(*stream.Event) {
		tr := stream.NewTracker(stream.TrackerOptions{})
		return func(ev *stream.Event) { tr.Observe(ev) }
	})
}

// BenchmarkValue measures building the full tree (what gojq needs).
func BenchmarkValue(b *testing.B) {
	benchStream(b, func() func(*stream.Event) { return func(ev *stream.Event) { ev.Value() } })
}

// BenchmarkDecoderCheck measures reading and classifying at each level of
// validation (CheckEnds is what the final and types presets use,
// CheckFraming the other presets).
func BenchmarkDecoderCheck(b *testing.B) {
	data := benchInput(b)
	for _, c := range []struct {
		name  string
		check stream.Check
	}{{"All", stream.CheckAll}, {"Framing", stream.CheckFraming}, {"Ends", stream.CheckEnds}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{Check: c.check})
				for {
					if _, err := dec.Next(); err == io.EOF {
						break
					}
				}
			}
		})
	}
}
