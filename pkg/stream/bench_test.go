package stream_test

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// benchInput is the file CCFILTER_BENCH_FILE names (a corpus of make
// bench's, say), else the real 246-call session of testdata/real: the shape
// of a real run (p50 line 195 B, p99 34 KB).
func benchInput(b *testing.B) []byte {
	f := os.Getenv("CCFILTER_BENCH_FILE")
	if f == "" {
		f = longSession
	}
	data, err := os.ReadFile(f)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// longSession is a real claude-code 2.1.328 session: 1,568 lines, 246 model
// calls, three subagents (../shared/captures/60-long-session.jsonl).
const longSession = "../../testdata/real/60-long-session.jsonl"

// allCaptures is every capture of testdata/events, concatenated.
func allCaptures(tb testing.TB) []byte {
	var all []byte
	for _, f := range captures(tb) {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

// loopEvents runs iter, one pass that returns how many events it handled,
// under b.Loop, and reports per event what ns/op and allocs/op say per pass.
// allocs/event counts every allocation of the pass, a new Decoder's
// buffer included.
func loopEvents(b *testing.B, iter func() int) {
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs, events := ms.Mallocs, 0
	for b.Loop() {
		events += iter()
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(ms.Mallocs-mallocs)/float64(events), "allocs/event")
}

// benchStream decodes the bench input once per iteration at the given
// Check level, calling the per-run function's result on every event.
func benchStream(b *testing.B, check stream.Check, perRun func() func(*stream.Event)) {
	data := benchInput(b)
	b.SetBytes(int64(len(data)))
	loopEvents(b, func() int {
		dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{Check: check})
		each, n := perRun(), 0
		for {
			ev, err := dec.Next()
			if err == io.EOF {
				return n
			}
			if err == nil {
				each(ev)
				n++
			}
		}
	})
}

func nop() func(*stream.Event) { return func(*stream.Event) {} }

// BenchmarkDecoder measures reading, validating and classifying.
func BenchmarkDecoder(b *testing.B) { benchStream(b, stream.CheckAll, nop) }

// BenchmarkTracker measures decoding plus tracking (pairs, usage, outcome).
func BenchmarkTracker(b *testing.B) {
	benchStream(b, stream.CheckAll, func() func(*stream.Event) {
		tr := stream.NewTracker(stream.TrackerOptions{})
		return func(ev *stream.Event) { tr.Observe(ev) }
	})
}

// BenchmarkValue measures building the full tree (what gojq needs).
func BenchmarkValue(b *testing.B) {
	benchStream(b, stream.CheckAll, func() func(*stream.Event) { return func(ev *stream.Event) { ev.Value() } })
}

// checks are the validation levels: CheckEnds is what the final and types
// presets use, CheckFraming the other presets.
var checks = []struct {
	name  string
	check stream.Check
}{{"All", stream.CheckAll}, {"Framing", stream.CheckFraming}, {"Ends", stream.CheckEnds}}

// BenchmarkDecoderCheck measures reading and classifying at each level of
// validation.
func BenchmarkDecoderCheck(b *testing.B) {
	for _, c := range checks {
		b.Run(c.name, func(b *testing.B) { benchStream(b, c.check, nop) })
	}
}
