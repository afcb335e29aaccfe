package stream_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// endsInput is a file of long lines a Want turns down by their ends
// ({"t":"skip",...} ending on '}'), and others around them: long lines
// it takes, short ones, blank ones; skipped lines of every length
// against the 16 KiB buffer and the 256 KiB reads ahead (a few bytes past
// the buffer, a read's size and one more, 3 MB); one cut short (no '}':
// taken, read whole and reported); one past the line limit; and a last
// one without its newline.
func endsInput() (input []byte, longestPassed int) {
	var b strings.Builder
	skip := func(n int, end string) string {
		// (numbers, so that a byte out of place shows)
		var x strings.Builder
		for i := 0; x.Len() < n; i++ {
			x.WriteString(strconv.Itoa(i) + `\"`)
		}
		return `{"t":"skip","x":"` + x.String() + `"` + end
	}
	lines := []string{
		skip(40<<10, "}"), // the first line offered: read whole
		`{"t":"keep","n":1}`,
		skip(16<<10+3, "}"),
		"",
		skip(256<<10, "}"),
		skip(256<<10+1, "}"),
		`{"t":"keep","x":"` + strings.Repeat("k", 100<<10) + `"}`,
		skip(3<<20, "}"),
		skip(500<<10, ""), // cut short
		`{"t":"keep","n":2}`,
		skip(5<<20, "}"), // past MaxLineBytes
		`{"t":"keep","n":3}`,
		skip(300<<10, `,"t2":"x"}`),
		// (ending in blanks: a few are trimmed from the ends, as from
		// the line; more than 64, and the line is read whole)
		skip(20<<10, "}\r"),
		skip(20<<10, "}"+strings.Repeat(" ", 64)),
		skip(20<<10, "}"+strings.Repeat(" ", 65)),
		skip(300<<10, "}"+strings.Repeat(" ", 3500)),
		skip(300<<10, "}"+strings.Repeat("\t", 5000)),
		skip(70<<10, "}"), // no newline
	}
	for i, l := range lines {
		b.WriteString(l)
		if i < len(lines)-1 {
			b.WriteString("\n")
		}
	}
	return []byte(b.String()), 3 << 20 // (the 5 MB line is past the limit)
}

// TestEndsPassOverWhatWantTurnsDown proves DecoderOptions.Ends: a long
// line whose ends Want turns down is passed over, and everything else is
// as without it: the same events, line numbers, offsets and errors, and
// Want offered each line once, seeing the same first EndsHead and last
// EndsTail bytes (less the 64 blanks a line may end in), also of lines
// that end in blanks
// (its ends stand in for the line); from a file and from a pipe (where
// nothing is passed over). And that a passed line is not kept: decoding
// the file allocates less than its longest such line, where without
// Ends it is copied whole into the long lines' buffer.
func TestEndsPassOverWhatWantTurnsDown(t *testing.T) {
	input, longest := endsInput()
	path := filepath.Join(t.TempDir(), "ends.jsonl")
	require.NoError(t, os.WriteFile(path, input, 0o600))
	// Want sees at least the last EndsTail bytes of a line's end less 64
	// (the blanks a line may end in and still be told by its ends).
	const seen = stream.EndsTail - 64
	// (the first line offered is offered whole: its length is said)
	type offer struct {
		First, Last string
		Len         int
	}
	run := func(ends bool, pipe bool) (got []decoded, offers []offer, alloc uint64) {
		var o stream.DecoderOptions
		o.BufferSize, o.MaxLineBytes, o.Check = 16<<10, 4<<20, stream.CheckFraming
		o.Scratch = &stream.Scratch{}
		o.Want = func(l []byte) bool {
			o := offer{First: string(l[:min(len(l), stream.EndsHead)]), Last: string(l[max(0, len(l)-seen):])}
			if len(offers) == 0 {
				o.Len = len(l)
			}
			offers = append(offers, o)
			return !(bytes.HasPrefix(l, []byte(`{"t":"skip"`)) && l[len(l)-1] == '}')
		}
		if ends {
			o.Ends = func(head []byte) bool { return bytes.HasPrefix(head, []byte(`{"t":"skip"`)) }
		}
		var r io.Reader
		fh, err := os.Open(path)
		require.NoError(t, err)
		defer fh.Close()
		r = fh
		if pipe {
			r = struct{ io.Reader }{fh}
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		got = decodeAll(t, r, o)
		runtime.ReadMemStats(&m1)
		return got, offers, m1.TotalAlloc - m0.TotalAlloc
	}
	want, wantOffers, plainAlloc := run(false, false)
	require.Len(t, wantOffers, 17, "every line but the blank one and the one past the limit is offered")
	require.Greater(t, wantOffers[0].Len, 40<<10)
	var errs int
	for _, d := range want {
		if d.Err != "" {
			errs++
		}
	}
	require.Equal(t, 2, errs, "the cut line and the one past the limit are reported")
	for _, pipe := range []bool{false, true} {
		got, offers, alloc := run(true, pipe)
		assert.Equal(t, want, got, "pipe %v", pipe)
		assert.Equal(t, wantOffers, offers, "pipe %v", pipe)
		if !pipe {
			t.Logf("allocated %d bytes with Ends, %d without; the longest line passed over is %d", alloc, plainAlloc, longest)
			assert.Less(t, alloc, uint64(longest), "a passed line is not kept")
			assert.Greater(t, plainAlloc, uint64(longest), "(without Ends it is)")
		}
	}
}
