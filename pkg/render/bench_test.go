package render

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// benchInput is the capture the renderer benchmarks run over: 123 events,
// 60 tool calls and their results.
const benchInput = "../../testdata/events/21-sixty-tool-calls.jsonl"

type benchEvent struct {
	ev   *stream.Event
	done []*stream.ToolCall
}

// loadBench decodes a capture once and pairs its calls with a Tracker, so
// that the benchmark measures rendering only.
func loadBench(b *testing.B) ([]benchEvent, *stream.Tracker, int64) {
	input, err := os.ReadFile(benchInput)
	require.NoError(b, err)
	tr := stream.NewTracker(stream.TrackerOptions{})
	dec := stream.NewDecoder(bytes.NewReader(input), stream.DecoderOptions{})
	var evs []benchEvent
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(b, err)
		ev = ev.Clone()
		evs = append(evs, benchEvent{ev, tr.Observe(ev)})
	}
	return evs, tr, int64(len(input))
}

// loopEvents runs iter, one pass that returns how many events it handled,
// under b.Loop, and reports per event what ns/op and allocs/op say per pass.
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

func benchRender(b *testing.B, f Format) {
	evs, tr, size := loadBench(b)
	b.SetBytes(size)
	loopEvents(b, func() int {
		r, err := New(f, io.Discard, Options{Width: 100, Tracker: tr})
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range evs {
			if err := r.Render(Record{Event: e.ev, Calls: e.done}); err != nil {
				b.Fatal(err)
			}
		}
		if err := r.Close(nil); err != nil {
			b.Fatal(err)
		}
		return len(evs)
	})
}

// The renderer benchmarks: one full render of capture 21 per iteration.
func BenchmarkRenderText(b *testing.B)     { benchRender(b, Text) }
func BenchmarkRenderMarkdown(b *testing.B) { benchRender(b, Markdown) }
func BenchmarkRenderNDJSON(b *testing.B)   { benchRender(b, NDJSON) }
func BenchmarkRenderCSV(b *testing.B)      { benchRender(b, CSV) }
func BenchmarkRenderJSON(b *testing.B)     { benchRender(b, JSON) }
