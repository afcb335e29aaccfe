package stream_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// loopReader serves data over and over, so that one Decoder reads the same
// events pass after pass: what a pass allocates is then what the events
// cost, without the decoder's one-time allocations.
type loopReader struct {
	data []byte
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	if r.off == len(r.data) {
		r.off = 0
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	return n, nil
}

// TestClassifierAllocs proves that the classifier path allocates nothing
// per event, at every Check level: on a warmed Decoder, a full pass over
// all captures (Next, then Kind, Type, Subtype and IsSubagent of every
// event) makes no allocation at all. testing.AllocsPerRun runs the first
// pass unmeasured, so the Decoder, its read buffer and the growth of its
// member index are allocated before the measured passes.
//
// It also pins what the string accessors cost: ParentToolUseID and
// Timestamp return a new string (jsonx.Value.Str, in validUTF8's
// string(b)) on every event that has the field, one allocation each, and
// nothing on the others. The test bounds them by that count so that making
// them allocation-free keeps it passing.
//
// Finally a fresh Decoder costs a fixed handful of allocations, not a
// number growing with the events.
func TestClassifierAllocs(t *testing.T) {
	data := allCaptures(t)
	events := 0
	dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{})
	for {
		_, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		events++
	}
	require.Greater(t, events, 500)

	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			dec := stream.NewDecoder(&loopReader{data: data}, stream.DecoderOptions{Check: c.check})
			var sink, withParent, withTimestamp int
			pass := func(strings bool) func() {
				return func() {
					withParent, withTimestamp = 0, 0
					for range events {
						ev, err := dec.Next()
						if err != nil {
							t.Fatal(err)
						}
						sink += int(ev.Kind) + len(ev.Type) + len(ev.Subtype)
						if ev.IsSubagent() {
							sink++
						}
						if strings {
							if p := ev.ParentToolUseID(); p != "" {
								withParent++
							}
							if ts := ev.Timestamp(); ts != "" {
								withTimestamp++
							}
						}
					}
				}
			}
			perPass := testing.AllocsPerRun(3, pass(false))
			t.Logf("Next+Kind/Type/Subtype/IsSubagent: %.0f allocs per pass of %d events (%.4f/event)",
				perPass, events, perPass/float64(events))
			if perPass/float64(events) >= 0.01 {
				t.Errorf("classifier path: %.0f allocs per pass of %d events, want ~0 (go test -run TestClassifierAllocs -memprofile m.out -memprofilerate 1)",
					perPass, events)
			}

			perPass = testing.AllocsPerRun(3, pass(true))
			t.Logf("... +ParentToolUseID/Timestamp: %.0f allocs per pass; %d events have parent_tool_use_id, %d a timestamp",
				perPass, withParent, withTimestamp)
			if perPass > float64(withParent+withTimestamp) {
				t.Errorf("string accessors: %.0f allocs per pass, want at most one per non-empty value (%d)",
					perPass, withParent+withTimestamp)
			}
		})
	}

	// A fresh Decoder: its allocations do not grow with the input (those
	// over the captures twice over, less those over them once, per event).
	fresh := func(data []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{})
			for {
				if _, err := dec.Next(); err == io.EOF {
					break
				}
			}
		})
	}
	once, twice := fresh(data), fresh(bytes.Repeat(data, 2))
	t.Logf("a fresh Decoder: %.0f allocs over %d events, %.0f over %d", once, events, twice, 2*events)
	if (twice-once)/float64(events) >= 0.01 {
		t.Errorf("a fresh Decoder: %.0f allocs over %d events, %.0f over %d: want a fixed few (the Decoder, its buffer, its member index)",
			once, events, twice, 2*events)
	}
}
