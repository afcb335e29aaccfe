package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// between is how a call's duration was taken before the tracker took it
// from the clock's times: the call's and its result's timestamps, each
// parsed again.
func between(from, to string) (time.Duration, bool) {
	if from == "" || to == "" {
		return 0, false
	}
	a, err1 := time.Parse(time.RFC3339Nano, from)
	b, err2 := time.Parse(time.RFC3339Nano, to)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return b.Sub(a), true
}

// TestCallDurationIsBetweenItsTimestamps: every call's duration, taken
// from the times the clock parsed, is between(its timestamp, its result's),
// on every capture of testdata/events and on variants of them whose calls'
// or results' timestamps are missing, not RFC 3339, escaped, in another
// zone, a number, the same as the line's before (the clock's memory), or
// every other one of them so.
func TestCallDurationIsBetweenItsTimestamps(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	stamp := regexp.MustCompile(`"timestamp":"[^"]*"`)
	variants := map[string]func(n int, line string) string{
		"as is":   func(_ int, l string) string { return l },
		"missing": func(n int, l string) string { return keepIf(n%2 == 0, l, stamp.ReplaceAllString(l, `"x":"y"`)) },
		"bad": func(n int, l string) string {
			return keepIf(n%3 == 0, l, stamp.ReplaceAllString(l, `"timestamp":"yesterday"`))
		},
		"escaped": func(n int, l string) string { return keepIf(n%2 == 1, l, strings.Replace(l, `Z"`, `\u005a"`, 1)) },
		"zone":    func(n int, l string) string { return keepIf(n%2 == 0, l, strings.Replace(l, `Z"`, `+02:00"`, 1)) },
		"number": func(n int, l string) string {
			return keepIf(n%2 == 1, l, stamp.ReplaceAllString(l, `"timestamp":1764000000`))
		},
		"same": func(_ int, l string) string {
			return stamp.ReplaceAllString(l, `"timestamp":"2026-12-02T13:20:36.775Z"`)
		},
	}
	durations := 0
	for name, variant := range variants {
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var in bytes.Buffer
			for n, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				in.WriteString(variant(n, l) + "\n")
			}
			dec := NewDecoder(bytes.NewReader(in.Bytes()), DecoderOptions{Check: CheckFraming})
			tr := NewTracker(TrackerOptions{})
			for {
				ev, err := dec.Next()
				if err != nil {
					break
				}
				for _, c := range tr.Observe(ev) {
					d, ok := between(c.Timestamp, c.ResultTimestamp)
					what := name + " " + filepath.Base(file) + " " + c.ID
					assert.Equal(t, ok, c.HasDuration, what)
					assert.Equal(t, d, c.Duration, what)
					if ok {
						durations++
					}
				}
			}
			dec.Close()
		}
	}
	assert.Greater(t, durations, 100)
}

func keepIf(keep bool, line, changed string) string {
	if keep {
		return line
	}
	return changed
}
