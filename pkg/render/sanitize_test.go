package render

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSanitize proves that every class of character that can change a
// terminal's state, hide or reorder text, or end a line unseen is written
// visibly escaped, and that everything else is kept as is.
func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        string
		multiline bool
		want      string
	}{
		{"plain ASCII is kept", "ls -la /tmp", false, "ls -la /tmp"},
		{"ESC of an SGR sequence", "\x1b[31mred\x1b[0m", false, `\x1b[31mred\x1b[0m`},
		{"ESC of an OSC title sequence", "\x1b]0;pwned\x07", true, `\x1b]0;pwned\x07`},
		{"BEL", "ding\a", false, `ding\x07`},
		{"BS", "abc\b\b", false, `abc\x08\x08`},
		{"CR (overwrites the line)", "safe\rEVIL", true, `safe\rEVIL`},
		{"NUL and other C0", "a\x00b\x01c\x1f", false, `a\x00b\x01c\x1f`},
		{"DEL", "a\x7fb", false, `a\x7fb`},
		{"C1 NEL", "a\u0085b", false, `a\u0085b`},
		{"C1 CSI (8-bit escape)", "\u009b31m", false, `\u009b31m`},
		{"bidi embeddings and overrides", "\u202a\u202b\u202c\u202d\u202e", false, `\u202a\u202b\u202c\u202d\u202e`},
		{"bidi isolates", "\u2066\u2067\u2068\u2069", false, `\u2066\u2067\u2068\u2069`},
		{"bidi marks", "\u200e\u200f\u061c", false, `\u200e\u200f\u061c`},
		{"line and paragraph separators", "a\u2028b\u2029c", true, `a\u2028b\u2029c`},
		{"invalid UTF-8 bytes", "a\xffb\xc3", false, `a\xffb\xc3`},
		{"truncated UTF-8 sequence", "\xe4\xb8", false, `\xe4\xb8`},
		{"newline and tab escaped in one-line text", "a\nb\tc", false, `a\nb\tc`},
		{"newline and tab kept in multi-line text", "a\nb\tc", true, "a\nb\tc"},
		{"emoji, CJK, Hangul, accents are kept", "😀 中文 한국어 é ＡＢ", false, "😀 中文 한국어 é ＡＢ"},
		{"backslashes are kept", `C:\dir\x1b`, false, `C:\dir\x1b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Sanitize(tc.in, tc.multiline)
			assert.Equal(t, tc.want, got)
			assert.True(t, utf8.ValidString(got), "the result is valid UTF-8")
		})
	}
}

// TestSanitizeNoAlloc proves the common case costs nothing: a clean string
// is returned without copying.
func TestSanitizeNoAlloc(t *testing.T) {
	s := strings.Repeat("clean text 中文 😀\n", 20)
	n := testing.AllocsPerRun(100, func() { _ = Sanitize(s, true) })
	assert.Zero(t, n)
}

// TestJSONSafe proves that JSON output keeps its meaning while the runes a
// terminal would act on are written as \u escapes.
func TestJSONSafe(t *testing.T) {
	in := []byte("{\"a\":\"x\u2028y\u202e\u0085\x7f\",\"b\":\"\xff\"}")
	got := jsonSafe(in)
	assert.Equal(t, `{"a":"x\u2028y\u202e\u0085\u007f","b":"\ufffd"}`, string(got))
	clean := []byte(`{"a":"中文"}`)
	assert.Equal(t, string(clean), string(jsonSafe(clean)))
}

// TestCapture20TerminalSafe proves on the real capture with ESC[31m, BEL,
// CR (Bash output) and U+2028/U+2029 that no format meant for people (text,
// markdown, json) writes one of those characters raw, and that the text
// shows them escaped.
func TestCapture20TerminalSafe(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/20-unicode-ansi.jsonl")
	require.NoError(t, err)
	for _, f := range []Format{Text, Markdown, JSON, CSV, NDJSON} {
		for _, tools := range []bool{false, true} {
			var out bytes.Buffer
			drive(t, f, input, tools, &out)
			if f == CSV || f == NDJSON {
				// Data formats: JSON escapes keep them out of NDJSON; the
				// CSV holds raw data by design, but it never holds ESC here
				// because claude-code writes no raw control bytes.
				continue
			}
			assertTerminalSafe(t, out.Bytes(), string(f))
		}
	}
	var out bytes.Buffer
	drive(t, Text, input, false, &out)
	s := out.String()
	for _, want := range []string{`\x1b[31mred\x1b[0m`, `\x07bell`, `a\u2028b`, `Line sep:\u2028para sep:\u2029`, "😀🚀", "中文字符"} {
		assert.Contains(t, s, want)
	}
}

// assertTerminalSafe fails on any byte or rune Sanitize escapes, except
// newline and tab.
func assertTerminalSafe(t *testing.T, b []byte, what string) {
	t.Helper()
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			t.Fatalf("%s: raw control byte %#x at %d: %q", what, c, i, context(b, i))
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			t.Fatalf("%s: invalid UTF-8 at %d", what, i)
		}
		if escapedRune(r) {
			t.Fatalf("%s: raw %U at %d: %q", what, r, i, context(b, i))
		}
		i += n
	}
}

func context(b []byte, i int) string {
	lo, hi := max(0, i-20), min(len(b), i+20)
	return string(b[lo:hi])
}

// TestWidth proves the display width function: ASCII 1, CJK, Hangul,
// fullwidth forms and emoji 2, combining marks and joiners 0.
func TestWidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"中文", 4},
		{"日本語", 6},
		{"한국어", 6},
		{"ＡＢ", 4},
		{"😀🚀", 4},
		{"e\u0301", 1},         // e + combining acute
		{"👨\u200d👩\u200d👧", 6}, // ZWJ sequence: the joiners take nothing
		{"✓ ok", 4},
		{"…", 1},
		{"\u2705", 2},
	} {
		assert.Equal(t, tc.want, displayWidth(tc.in), "%q", tc.in)
	}
}

// TestTruncate proves that truncation counts columns, not bytes or runes,
// never exceeds the width, never splits a rune, and marks the cut with "…".
func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 4, "abc…"},
		{"中文字符", 8, "中文字符"},
		{"中文字符", 7, "中文字…"},
		{"中文字符", 6, "中文…"},
		{"😀😀😀", 5, "😀😀…"},
		{"ab 中", 4, "ab…"},
		{"abc", 0, ""},
	} {
		got := truncate(tc.in, tc.w)
		assert.Equal(t, tc.want, got, "truncate(%q, %d)", tc.in, tc.w)
		assert.LessOrEqual(t, displayWidth(got), max(tc.w, 0))
		assert.True(t, utf8.ValidString(got))
	}
}

// TestTextLinesFitWidth proves that one-line summaries built from wide and
// hostile input stay within Options.Width columns.
func TestTextLinesFitWidth(t *testing.T) {
	cmd := strings.Repeat("echo 中文😀 ", 40)
	evs := []string{
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":` + jsonString(cmd) + `}}]},"parent_tool_use_id":null,"timestamp":"2026-01-01T00:00:00.000Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":` + jsonString(strings.Repeat("輸出", 200)+"\n\x1b[31m"+strings.Repeat("x", 300)) + `}]},"parent_tool_use_id":null,"timestamp":"2026-01-01T00:00:01.000Z"}`,
	}
	for _, width := range []int{40, 80, 100} {
		out := renderEvents(t, Text, Options{Width: width}, evs...)
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			assert.LessOrEqual(t, displayWidth(l), width, "line %q", l)
		}
	}
}
