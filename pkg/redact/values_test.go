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
