package stream_test

import (
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestClockGivesEachEventTheRunsOwnTime proves the one rule of a run's
// times on real captures, each line's expected time worked out here from
// the capture's own timestamps: a dated event its timestamp; an undated
// one the dated record's before it; those before the first dated record
// not dated yet (the first dated time replaces them, which the views do);
// a run with no dated record laid out from stream.UndatedOrigin by its
// retries' delays (09c-auth-401-killed: 607, 1041, 2064, 4182 ms).
func TestClockGivesEachEventTheRunsOwnTime(t *testing.T) {
	for _, tc := range []struct {
		capture string
		undated int // events before the first dated record
		// laidOut: the times of an undated run, from the origin.
		laidOut []time.Duration
	}{
		{capture: "04-parallel-tools", undated: 1},
		{capture: "07-partial-messages", undated: 18},
		{capture: "11-overloaded-529-retry", undated: 3},
		{capture: "28-midstream-error", undated: 8},
		{capture: "09c-auth-401-killed", undated: 5, laidOut: []time.Duration{0, 607, 1648, 3712, 7894}},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			b, err := os.ReadFile("../../testdata/events/" + tc.capture + ".jsonl")
			require.NoError(t, err)
			var stamps []string
			for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				var v struct{ Timestamp string }
				require.NoError(t, json.Unmarshal([]byte(line), &v))
				stamps = append(stamps, v.Timestamp)
			}
			tr := stream.NewTracker(stream.TrackerOptions{})
			var clock stream.Clock
			var last time.Time
			undated := 0
			observeAll(t, b, func(ev *stream.Event) {
				tr.Observe(ev)
				got := clock.Observe(ev)
				assert.Equal(t, got, tr.Time(), "line %d: the tracker's time is the clock's", ev.Line)
				ts := stamps[ev.Line-1]
				switch {
				case ts != "":
					want, err := time.Parse(time.RFC3339Nano, ts)
					require.NoError(t, err)
					assert.Equal(t, stream.Time{At: want, Dated: true}, got, "line %d: its own time", ev.Line)
					last = want
				case !last.IsZero():
					assert.Equal(t, stream.Time{At: last, Dated: true}, got, "line %d: the dated record's before it", ev.Line)
				default:
					assert.False(t, got.Dated, "line %d: before the first dated record", ev.Line)
					if tc.laidOut != nil {
						assert.Equal(t, stream.UndatedOrigin.Add(tc.laidOut[undated]*time.Millisecond), got.At, "line %d: laid out from the origin", ev.Line)
					}
					undated++
				}
			})
			assert.Equal(t, tc.undated, undated)
		})
	}
}

func observeAll(t *testing.T, b []byte, fn func(*stream.Event)) {
	t.Helper()
	dec := stream.NewDecoder(strings.NewReader(string(b)), stream.DecoderOptions{})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return
		}
		require.NoError(t, err)
		fn(ev)
	}
}
