package input

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endsOf is a long line's ends as the Decoder hands them to Want
// (stream.DecoderOptions.Ends): its first EndsHead bytes, then its last
// EndsTail.
func endsOf(line []byte) []byte {
	return append(append([]byte(nil), line[:stream.EndsHead]...), line[len(line)-stream.EndsTail:]...)
}

// longVariants are lines made long from line, as long as the Decoder
// passes over (more than its ends): the line with 20 KB of filler in its
// middle, at its start's end and before its tail's start (the pickers
// must read the same from the ends whatever lies between), and cut
// short, its last byte gone, or ending in a second record's tail.
func longVariants(line []byte) [][]byte {
	fill := bytes.Repeat([]byte("x\\\"y "), 4<<10)
	at := func(i int) []byte {
		i = max(0, min(i, len(line)))
		return append(append(append([]byte(nil), line[:i]...), fill...), line[i:]...)
	}
	out := [][]byte{at(len(line) / 2), at(512), at(len(line) - 1024)}
	for _, l := range out[:3] {
		out = append(out, l[:len(l)-1], append(append([]byte(nil), l...), `{"type":"assistant","timestamp":"2099-01-01T00:00:00Z"}`...))
	}
	return out
}

// TestEndsTellWhatTheWholeLineTells proves EndsTell: wherever it says a
// long line's ends tell, the pickers of a usage account and a listing
// (Unsure, DeclaredType, RecordTime, listed) say of the ends what they
// say of the whole line, on lines made long from every line of every
// real transcript, session file of the three CLIs and capture, whole,
// cut short and merged with the next record; and that it says so of the
// tool results and user records that make most of a tree's bytes.
func TestEndsTellWhatTheWholeLineTells(t *testing.T) {
	lines := realLines(t)
	for _, pat := range []string{"../../testdata/events/*.jsonl", "../../../shared/agents/*/*.home/.*/*/*/*.jsonl", "../../../shared/agents/*/*.home/.*/*/*/*/*/*.jsonl"} {
		files, _ := filepath.Glob(pat)
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			lines = append(lines, bytes.Split(b, []byte("\n"))...)
		}
	}
	told, tools := 0, 0
	for _, line := range lines {
		for _, l := range longVariants(line) {
			if !EndsTell(l[:min(len(l), 64<<10)]) {
				continue
			}
			told++
			e := endsOf(l)
			require.Equal(t, Unsure(l), Unsure(e), "%.300q", l)
			tl, rl := DeclaredType(l)
			te, re := DeclaredType(e)
			require.Equal(t, string(tl), string(te), "%.300q", l)
			require.Equal(t, string(rl[:min(len(rl), 256)]), string(re[:min(len(re), 256)]), "%.300q", l)
			require.Equal(t, string(RecordTime(l)), string(RecordTime(e)), "%.300q", l)
			require.Equal(t, listed(l), listed(e), "%.300q", l)
			if string(tl) == "user" && !listed(l) {
				tools++
			}
		}
	}
	assert.Greater(t, told, 5000, "the ends tell of most lines")
	assert.Greater(t, tools, 1000, "tool results are told by their ends")
	for _, l := range [][]byte{
		// (an assistant record names its type after its message; a
		// line not written as Claude Code writes one; a head too short)
		[]byte(`{"parentUuid":"a","message":{"type":"message","role":"assistant"}` + string(bytes.Repeat([]byte("x"), 600))),
		[]byte(`{ "type":"user"` + string(bytes.Repeat([]byte("x"), 600))),
		[]byte(`{"type":"user"}`),
	} {
		assert.False(t, EndsTell(l), "%.80q", l)
	}
}
