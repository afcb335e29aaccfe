package redact

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestValueRedactionLeavesRealRunsByteForByte proves the redaction of
// values changes no line of a real run (every capture, every transcript
// and its subagents' files): they hold no secret, and a line with none
// keeps its bytes (NDJSON echoes it unchanged).
func TestValueRedactionLeavesRealRunsByteForByte(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/events/*.jsonl")
	transcripts, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	subagents, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*/subagents/*.jsonl")
	files = append(append(files, transcripts...), subagents...)
	require.Greater(t, len(files), 60)
	r := New(nil)
	for _, path := range files {
		f, err := os.Open(path)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			out, changed := r.Line(nil, sc.Bytes())
			assert.False(t, changed, "%s:%d: %s", path, n, out)
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	assert.Zero(t, r.Count())
}

// TestValueRedactionReadsStringsAsDecoded proves each string of a line is
// redacted as its reader reads it, and written back with only its secret
// changed: a secret behind JSON escapes (a \u escape, quotes, a
// backslash) is found, the string's other escapes stay as written, and a
// value is read with its key (an "api_key" member is a secret by its
// name; the same value under another key is not); a line whose strings
// cannot be read is redacted as bytes, each secret counted once.
func TestValueRedactionReadsStringsAsDecoded(t *testing.T) {
	gh := Rules[6].Example
	require.Equal(t, "github-token", Rules[6].ID)
	for _, c := range []struct{ name, in, want string }{
		{"a secret in text", `{"text":"see ` + gh + ` here"}`, `{"text":"see [REDACTED:github-token#1] here"}`},
		{"other escapes stay", `{"text":"caf\u00e9 a\/b \"` + gh + `\"\n"}`, `{"text":"caf\u00e9 a\/b \"[REDACTED:github-token#1]\"\n"}`},
		{"a trigger behind a \\u escape", `{"text":"\u0067hp_` + gh[4:] + `"}`, `{"text":"[REDACTED:github-token#1]"}`},
		{"a JSON-escaped key", `{"content":"{\"api_key\": \"Zq8vL2mN7xR4pW9k\"}"}`, `{"content":"{\"api_key\": \"[REDACTED:assigned-secret#1]\"}"}`},
		{"a backslash in a quoted value", `{"command":"export DB_PASSWORD=\"Tr0ub\\4dor&3xyzQ\""}`, `{"command":"export DB_PASSWORD=\"[REDACTED:assigned-secret#1]\""}`},
		{"a member of the event by its key", `{"input":{"api_key":"Zq8vL2mN7xR4pW9k","n":1}}`, `{"input":{"api_key":"[REDACTED:assigned-secret#1]","n":1}}`},
		{"the same value under another key", `{"input":{"note":"Zq8vL2mN7xR4pW9k"}}`, ``},
		{"markup next to it", `{"text":"<b>` + gh + `</b>"}`, `{"text":"<b>[REDACTED:github-token#1]</b>"}`},
		{"a line whose strings cannot be read: as bytes", `{"a":"` + gh + `","b":"\q"}`, `{"a":"[REDACTED:github-token#1]","b":"\q"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := New(nil)
			out, changed := r.Line(nil, []byte(c.in))
			if c.want == "" {
				assert.False(t, changed, "%s", out)
				return
			}
			require.True(t, changed)
			assert.Equal(t, c.want, string(out))
			assert.Equal(t, 1, r.Count(), "one secret, counted once")
		})
	}
}

// TestNoTriggerHidesBehindAnEscape proves what Line's prefilter relies on
// to skip a line by its raw bytes: a pair of bytes a decoded string holds
// but its line does not (one ending in what an escape writes, or starting
// with what only \n, \t and the like write) triggers no rule that the
// line's own pair there (the letter before the escape's backslash) does
// not trigger too.
func TestNoTriggerHidesBehindAnEscape(t *testing.T) {
	set := &triggers.set
	escaped := []byte{'"', '\\'}
	for c := range byte(0x20) {
		escaped = append(escaped, c)
	}
	for x := range 256 {
		for _, y := range escaped {
			if set[uint16(x)|uint16(y)<<8] != 0 {
				assert.Equal(t, set[uint16(x)|'\\'<<8], set[uint16(x)|uint16(y)<<8], "pair %q%q", rune(x), rune(y))
			}
		}
	}
	for c := range 0x20 {
		for y := range 256 {
			assert.Zero(t, set[uint16(c)|uint16(y)<<8], "a trigger starts with control byte %#x", c)
		}
	}
}

// TestScreenSameAsLineByLine proves the Screen, fed an input in buffers
// of any size (lines cut anywhere across them), finds clean exactly the
// lines Line's prefilter finds clean, one by one: on the real capture
// 04-parallel-tools with a GitHub token planted in one line, a line
// longer than a Screen holds (never clean), and a last line without its
// end (not read whole: never clean); and a second pass over the input
// (Screens.Again) takes what the first found.
func TestScreenSameAsLineByLine(t *testing.T) {
	b, err := os.ReadFile("../../testdata/events/04-parallel-tools.jsonl")
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	lines[3] = bytes.Replace(lines[3], []byte(`"type":`), []byte(`"x":"`+Rules[6].Example+`","type":`), 1)
	long := append([]byte(`{"text":"`), bytes.Repeat([]byte("a"), maxScreenLine+10)...)
	lines = append(lines, append(long, `"}`...), []byte(`{"type":"result"`))
	input := bytes.Join(lines, []byte("\n"))
	r := New(nil)
	require.True(t, r.mayHold(lines[3]), "the planted line")
	require.False(t, r.mayHold(lines[0]), "a real line")
	for _, size := range []int{1, 7, 100, 4096, 1 << 20, len(input)} {
		passes := r.Screens()
		s := passes.Screen()
		for k := 0; k < len(input); k += size {
			s.Read(input[k:min(k+size, len(input))])
		}
		// The second pass (a report's, after its glance's) reads nothing
		// and takes what the first found.
		for pass, s := range []stream.Screen{s, func() stream.Screen { passes.Again(); return passes.Screen() }()} {
			var off int64
			for i, l := range lines {
				want := !r.mayHold(l) && len(l) <= maxScreenLine && i < len(lines)-1
				assert.Equal(t, want, s.Clean(off, off+int64(len(l))), "buffers of %d, pass %d: line %d", size, pass+1, i+1)
				off += int64(len(l)) + 1
			}
		}
	}
}

// TestPrefilterScanStopsAtUnicodeEscapes proves the prefilter's one scan
// (escapeTrigger), with the vector kernel and without, stops at every \u
// escape of the real capture 20-unicode-ansi (its terminal colours,
// \u001b, and line separators, \u2028), and that the prefilter then finds
// a line hiding a printable ASCII character behind one exactly where a
// look of its own for `\u00` followed by 2 to 7 (usesASCIIEscape, the
// search it replaced) does: on that capture's lines as they are, and on
// its tool result with its '=' written \u003d, as an encoder escaping
// punctuation writes it (a derived line), its backslash escaped, or the
// escape cut short at the line's end; and on every line of the captures
// and of the real long session.
func TestPrefilterScanStopsAtUnicodeEscapes(t *testing.T) {
	b, err := os.ReadFile("../../testdata/events/20-unicode-ansi.jsonl")
	require.NoError(t, err)
	for _, vector := range []bool{false, true} {
		found, _ := triggersOf(b, vector)
		at := map[int]bool{}
		for _, j := range found {
			at[j] = true
		}
		n := 0
		for j := bytes.Index(b, []byte(`\u`)); j >= 0; j = nextIndex(b, j, `\u`) {
			assert.True(t, at[j], "vector=%v: the \\u escape at %d", vector, j)
			n++
		}
		require.Equal(t, 21, n, "the capture's \\u001b and \\u2028")
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	result := lines[3]
	require.Contains(t, string(result), `\n=equals-first`)
	r := New(nil)
	for _, c := range []struct {
		name string
		line []byte
		want bool
	}{
		{"as captured (\\u001b, \\u2028)", result, false},
		{"= written \\u003d", bytes.Replace(result, []byte(`\n=`), []byte(`\n\u003d`), 1), true},
		{"its backslash escaped", bytes.Replace(result, []byte(`\n=`), []byte(`\n\\u003d`), 1), true},
		{"cut short", append(bytes.Clone(result), `\u00`...), false},
		{"cut after its 7", append(bytes.Clone(result), `\u007`...), true},
		{"\\u0080 is past ASCII", bytes.Replace(result, []byte(`\n=`), []byte(`\n\u0080`), 1), false},
	} {
		assert.Equal(t, c.want, r.mayHold(c.line), c.name)
		assert.Equal(t, usesASCIIEscape(c.line), r.mayHold(c.line), c.name)
	}
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	files = append(files, "../../testdata/real/60-long-session.jsonl")
	var buf [8]match
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, l := range bytes.Split(data, []byte("\n")) {
			want := len(r.find(l, buf[:0])) > 0 || usesASCIIEscape(l)
			require.Equal(t, want, r.mayHold(l), "%s:%d", filepath.Base(f), i+1)
		}
	}
}

func nextIndex(b []byte, j int, s string) int {
	k := bytes.Index(b[j+1:], []byte(s))
	if k < 0 {
		return -1
	}
	return j + 1 + k
}

// usesASCIIEscape is the look for a \u00XX escape of a printable ASCII
// character on its own, byte by byte: the reference.
func usesASCIIEscape(b []byte) bool {
	for j := 0; j+5 < len(b)+1; j++ {
		if bytes.HasPrefix(b[j:], []byte(`\u00`)) && j+4 < len(b) && b[j+4] >= '2' && b[j+4] <= '7' {
			return true
		}
	}
	return false
}

// TestPrefilterAllocatesNothing: the screen's prefilter (mayHold) runs on
// every line of a run, on the lines of the real long session here, and
// allocates nothing: its matches stay on its stack (sort.SliceStable's
// closure made them escape: an allocation a line, and the collector's
// work it brings, issue 41).
func TestPrefilterAllocatesNothing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "60-long-session.jsonl"))
	require.NoError(t, err)
	lines := bytes.Split(data, []byte("\n"))[:200]
	r := New(nil)
	held := 0
	for _, l := range lines {
		if r.mayHold(l) {
			held++
		}
	}
	allocs := testing.AllocsPerRun(3, func() {
		for _, l := range lines {
			r.mayHold(l)
		}
	})
	assert.Zero(t, allocs, "allocations of the prefilter over %d lines (%d may hold a secret)", len(lines), held)
}
