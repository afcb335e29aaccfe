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

// TestEachObjectSameAsEachThenMembers holds EachObject (one walk of an
// array's objects, what a message's blocks are read with) to what it
// replaces: Each, then Members of each element that is an object: the
// same elements, and the same members, also where Members finds an error
// (what it found before it). On the content of every message of every
// capture and session transcript, each also cut, spaced out and broken
// inside an element; and on crafted arrays: elements that are no
// objects, empty ones, strings holding brackets, escapes in keys,
// unbalanced and trailing commas.
func TestEachObjectSameAsEachThenMembers(t *testing.T) {
	check := func(what string, v Value) {
		t.Helper()
		type elem struct {
			v  string
			ms []string
		}
		var want, got []elem
		v.Each(func(_ int, e Value) bool {
			var ms []Member
			if e.Type() == Object {
				ms, _ = Members(e, nil)
			}
			want = append(want, elem{string(e), dump(ms)})
			return true
		})
		var buf [2]Member
		v.EachObject(buf[:0], func(_ int, e Value, ms []Member) bool {
			got = append(got, elem{string(e), dump(ms)})
			return true
		})
		require.Equal(t, want, got, what)
	}
	var contents []Value
	add := func(line []byte) {
		ms, err := Members(line, nil)
		if err != nil {
			return
		}
		if msg := Lookup(ms, "message"); msg.Type() == Object {
			if c := msg.Get("content"); c.Type() == Array {
				contents = append(contents, c)
			}
		}
	}
	eachCaptureLine(t, func(_ string, _ int, line []byte) { add(line) })
	files, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.Greater(t, len(files), 15)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range bytes.Split(data, []byte("\n")) {
			add(line)
		}
	}
	require.Greater(t, len(contents), 500)
	for n, c := range contents {
		what := fmt.Sprintf("content %d", n)
		check(what, c)
		for _, at := range []int{1, 2, len(c) / 2, len(c) - 1} {
			if at > 0 && at < len(c) {
				check(fmt.Sprintf("%s cut at %d", what, at), c[:at])
			}
		}
		check(what+" spaced", Value(bytes.ReplaceAll(bytes.ReplaceAll(c, []byte(`":`), []byte(`" : `)), []byte(`,"`), []byte(` , "`))))
		check(what+" broken inside", Value(bytes.Replace(c, []byte(`{"type":`), []byte(`{"type" `), 1)))
	}
	for _, a := range []string{
		`[]`, `[ ]`, `[{}]`, `[{},{}]`, `[1,"a",null,{"a":1},[{"b":2}]]`, `[{"a":"}]{"},{"b":"\\"}"}]`,
		`[{"t\u0079pe":"x"}]`, `[{"a":1,}]`, `[{"a":1},]`, `[{"a":1}`, `[{"a" 1},{"b":2}]`, `[{"a":{"b":[1,2,{"c":3}]}}]`,
		`[{"a":1}{"b":2}]`, `[{"a":1} , {"b":2} ]`, `[{"a":1,"a":2}]`, `["{",{"a":"]"}]`, `[{"a":1}}]`,
		`[{"a":1,"b":2,"c":3,"d":4,"e":5}]`, `{"a":1}`, `"s"`,
	} {
		check(a, Value(a))
	}
}
