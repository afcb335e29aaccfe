package jsonx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMembersNestedSameAsTwoWalks holds the framing walk that indexes
// the message on its way (MembersNested, what an event's framing runs)
// to the two walks it replaces: Members of the line, then Members of the
// value Lookup finds under "message": the same top-level members and
// error; the same message members, found exactly when that value is an
// object Members reads without an error. On every line of every capture
// (testdata/events) and of every session transcript (testdata/
// transcripts, subagents' files too), each also cut at a spread of
// places, glued to the next line, spaced out, and with its message
// broken inside balanced brackets; and on crafted lines: a message
// written twice, its key escaped, a message that is no object, one
// nested deeper only.
func TestMembersNestedSameAsTwoWalks(t *testing.T) {
	check := func(what string, b []byte) {
		t.Helper()
		want, wantErr := Members(b, nil)
		top, inner, found, err := MembersNested(b, nil, "message", nil)
		require.Equal(t, wantErr, err, what)
		require.Equal(t, dump(want), dump(top), what)
		var wantInner []Member
		wantFound := false
		if v := Lookup(want, "message"); wantErr == nil && v.Type() == Object {
			ms, err := Members(v, nil)
			wantInner, wantFound = ms, err == nil
		}
		require.Equal(t, wantFound, found, what)
		if found {
			require.Equal(t, dump(wantInner), dump(inner), what)
		}
	}
	var lines [][]byte
	eachCaptureLine(t, func(_ string, _ int, line []byte) { lines = append(lines, line) })
	files, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	subs, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*/subagents/*.jsonl")
	require.Greater(t, len(files)+len(subs), 25)
	for _, f := range append(files, subs...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	var prev []byte
	for n, line := range lines {
		what := fmt.Sprintf("line %d", n)
		check(what, line)
		for _, at := range []int{1, 7, len(line) / 3, len(line) / 2, len(line) - 2, len(line) - 1} {
			if at > 0 && at < len(line) {
				check(fmt.Sprintf("%s cut at %d", what, at), line[:at])
			}
		}
		if prev != nil {
			check(what+" glued to the one before", append(bytes.Clone(prev), line...))
		}
		check(what+" spaced", bytes.ReplaceAll(bytes.ReplaceAll(line, []byte(`":`), []byte(`" : `)), []byte(`,"`), []byte(` , "`)))
		check(what+" message broken inside", bytes.Replace(line, []byte(`"message":{"`), []byte(`"message":{"x" "`), 1))
		check(what+" message emptied of a key", bytes.Replace(line, []byte(`"message":{"`), []byte(`"message":{1,"`), 1))
		prev = line
	}
	for _, b := range []string{
		`{"message":{"a":1},"message":{"b":2}}`,
		`{"message":{"a":1},"message":"text"}`,
		`{"message":"text","message":{"b":2}}`,
		`{"message":{"a" 1},"message":{"b":2}}`,
		`{"message":{"b":2},"message":{"a" 1}}`,
		`{"m\u0065ssage":{"a":1}}`,
		`{"messages":{"a":1},"messag":{"b":2}}`,
		`{"a":{"message":{"b":2}}}`,
		`{"message":{}}`, `{"message": { "a" : [1,{"b":"}"}] } }`, `{"message":{"a":1}`, `{"message":{"a":1}}}`,
		`{"message":[{"a":1}]}`, `{"message":null}`, ``, `{}`, `[{"message":{}}]`,
	} {
		check(b, []byte(b))
	}
}

// dump is a member list as text, for comparison.
func dump(ms []Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Key)+"="+string(m.Val))
	}
	return out
}
