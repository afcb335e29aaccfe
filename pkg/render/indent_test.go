package render

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIndentedMatchesReindent holds the streaming re-indenter of the JSON
// format to what it replaced, jsonSafe(reindent(b)) (encoding/json's
// Indent, then the terminal-safe escapes), byte for byte: every line of
// every capture and of the real long session, with two indents, and
// hostile values (empty and nested containers, escapes and backslash runs
// at a string's end, invalid UTF-8, C1 and bidi controls, U+2028, spaces
// between tokens, numbers and literals at every depth).
func TestIndentedMatchesReindent(t *testing.T) {
	lines := []string{
		`{}`, `[]`, `{"a":{}}`, `{"a":[],"b":[{}],"c":[[[]]]}`, `{"a" : [ 1 , 2.5e-3 , -0 ] , "b" : true , "c":null,"d":false}`,
		`{"s":"q\"uote\\\\","t":"\\","u":"\\\""}`, "{\"x\":\"bad \xff\xfe byte\"}", "{\"c1\":\"\u0085 \u202e \u2028 \u00e9 \U0001F600 \x7f\"}",
		`{"deep":[[[[{"a":[1,{"b":[2,[3,{}]]}]}]]]]}`, `{"e":"","f":[""],"g":{"":""}}`, `[1,"two",{"three":3}]`, `"just a string"`, `42`,
	}
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	files = append(files, "../../testdata/real/60-long-session.jsonl")
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	require.Greater(t, len(lines), 2000)
	for _, indent := range []string{"  ", "\t"} {
		for _, l := range lines {
			want, err := reindent([]byte(l), indent)
			require.NoError(t, err, l)
			var buf bytes.Buffer
			o := out{w: bufio.NewWriter(&buf)}
			o.indented([]byte(l), indent)
			require.NoError(t, o.Flush())
			require.Equal(t, string(jsonSafe(want)), buf.String(), "%.200s", l)
		}
	}
}

// TestIndentedCappedMatchesCappingTheWholeText holds what markdown and
// HTML now show of a JSON input (indentedCapped: only the head made) to
// what they showed before, capText over the whole re-indented text (made
// safe for markdown, not for HTML), note included: every line of every
// capture in testdata/events, with caps that cut by bytes, by lines, at a
// multi-byte rune and not at all, and text that is not JSON (shown as it
// is).
func TestIndentedCappedMatchesCappingTheWholeText(t *testing.T) {
	lines := []string{`{}`, `not json {`, "", "{\"c1\":\"\u0085 \u202e \u2028 \u00e9\u00e9\u00e9\u00e9 \U0001F600\"}"}
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	caps := []struct{ bytes, lines int }{{8 << 10, 200}, {64 << 10, 1000}, {100, 1000}, {1 << 20, 3}, {17, 2}, {1 << 30, 1 << 30}}
	for _, verbatim := range []bool{false, true} {
		for _, c := range caps {
			for _, l := range lines {
				whole := indentedWhole([]byte(l), "  ")
				if !verbatim {
					whole = jsonSafe(whole)
				}
				wantText, wantCut := capText(string(whole), c.bytes, c.lines)
				gotText, gotCut := indentedCapped([]byte(l), "  ", verbatim, c.bytes, c.lines)
				require.Equal(t, wantText, gotText, "%v %v %.200s", verbatim, c, l)
				require.Equal(t, wantCut, gotCut, "%v %v %.200s", verbatim, c, l)
			}
		}
	}
}
