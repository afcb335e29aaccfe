package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRepeatedUsageSameAsReadAgain: the tracker reads a usage object that
// repeats the one before it byte for byte (the events of one message, a
// block each) from what it read then (Tracker.lastUsage, and the id
// likewise: lastID); the figures,
// the unfit numbers (with their first line) and every call are those of a
// tracker that reads each usage object again (the plain path: the memory
// cleared before each event). On every capture of testdata/events and on
// hostile variants of them: every assistant line twice in a row, its usage
// with counts that do not fit (so each line's must be noted), a key
// written twice or escaped, cut lines, bad escapes, unknown types, and a
// 2 MB text before the usage. A tracker given the usage its reader read
// ahead (tools' read-ahead, framer.readUsage) has the same figures too.
func TestRepeatedUsageSameAsReadAgain(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	const usageKey = `"usage":{"input_tokens":`
	variants := map[string]func(line string) []string{
		"as is": func(l string) []string { return []string{l} },
		"twice": func(l string) []string { return []string{l, l} },
		"unfit": func(l string) []string {
			u := strings.Replace(l, usageKey, usageKey+`1e400,"output_tokens":99999999999999999999,"x":`, 1)
			return []string{u, u}
		},
		"dup": func(l string) []string {
			u := strings.Replace(l, usageKey, usageKey+`7,"input_tokens":`, 1)
			return []string{u, l, u}
		},
		"escape": func(l string) []string {
			u := strings.Replace(l, usageKey, `"usage":{"input\u005ftokens":`, 1)
			return []string{l, u, u}
		},
		"cut": func(l string) []string { return []string{l, l[:len(l)*2/3], l} },
		"badesc": func(l string) []string {
			return []string{strings.Replace(l, `"usage":{`, `"bad":"\x","usage":{`, 1), l}
		},
		"unknown": func(l string) []string {
			return []string{`{"type":"novel","usage":{"input_tokens":1}}`, l, `{"type":"assistant","message":"text"}`, l}
		},
		"huge": func(l string) []string {
			u := strings.Replace(l, `"content":[`, `"content":[{"type":"text","text":"`+strings.Repeat("é", 1<<20)+`"},`, 1)
			return []string{u, l, u}
		},
	}
	repeats, readAhead := 0, 0
	for name, variant := range variants {
		for i, file := range files {
			if name == "huge" && i%8 != 0 {
				continue // (a few are enough, and 2 MB a line is slow)
			}
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var in bytes.Buffer
			for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				ls := []string{l}
				if strings.HasPrefix(l, `{"type":"assistant"`) && strings.Contains(l, usageKey) {
					ls = variant(l)
				}
				for _, x := range ls {
					in.WriteString(x + "\n")
				}
			}
			cached, cachedCalls, hits := trackUsage(t, in.Bytes(), false)
			plain, plainCalls, _ := trackUsage(t, in.Bytes(), true)
			repeats += hits
			what := name + " " + filepath.Base(file)
			assert.Equal(t, plain.Usage(), cached.Usage(), what)
			assert.Equal(t, plain.Unfit(), cached.Unfit(), what)
			assert.Equal(t, plain.Outcome(), cached.Outcome(), what)
			assert.Equal(t, plainCalls, cachedCalls, what)
			read, readCalls, held := trackAhead(t, in.Bytes())
			readAhead += held
			assert.Equal(t, plain.Usage(), read.Usage(), "read ahead: "+what)
			assert.Equal(t, plain.Unfit(), read.Unfit(), "read ahead: "+what)
			assert.Equal(t, plain.Outcome(), read.Outcome(), "read ahead: "+what)
			assert.Equal(t, plainCalls, readCalls, "read ahead: "+what)
			if name == "unfit" && plain.Usage().Calls > 0 {
				assert.Positive(t, cached.Unfit().Count, what)
			}
		}
	}
	assert.Positive(t, repeats, "some usage is read from the memory")
	assert.Positive(t, readAhead, "some usage is read ahead")
}

// trackAhead runs a tracker over in read from a file as tools reads it
// (NewReader, ValidateAhead, two CPUs): the framer reads the usage of the
// assistant lines it validates (framer.readUsage). held counts the events
// whose usage it read.
func trackAhead(t *testing.T, in []byte) (tr *Tracker, calls []ToolCall, held int) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	path := filepath.Join(t.TempDir(), "in.jsonl")
	require.NoError(t, os.WriteFile(path, in, 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tr = NewTracker(TrackerOptions{})
	eachEvent(t, NewReader(f, DecoderOptions{Check: CheckFraming, ValidateAhead: true}), func(ev *Event) {
		if _, ok := ev.usageAhead(); ok {
			held++
		}
		for _, c := range tr.Observe(ev) {
			calls = append(calls, *c)
		}
	})
	return tr, calls, held
}

// trackUsage runs a tracker over in; plain clears its usage memory before
// each event. hits counts the events whose usage the memory held.
func trackUsage(t *testing.T, in []byte, plain bool) (tr *Tracker, calls []ToolCall, hits int) {
	tr = NewTracker(TrackerOptions{})
	eachEvent(t, NewDecoder(bytes.NewReader(in), DecoderOptions{Check: CheckFraming}), func(ev *Event) {
		if plain {
			tr.lastUsage.raw, tr.lastID.raw = nil, nil
		} else if ev.Type == "assistant" && len(tr.lastUsage.raw) > 0 && bytes.Equal(ev.messageField("usage"), tr.lastUsage.raw) {
			hits++
		}
		for _, c := range tr.Observe(ev) {
			calls = append(calls, *c)
		}
	})
	return tr, calls, hits
}
