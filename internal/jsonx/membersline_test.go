package jsonx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireMembersLine checks MembersLine on the block b (lines that each end
// with '\n') against cutting the first line and calling Members on it, with
// each kernel: when it says ok, the line's length and members must be
// those, and Members must accept the line; wantOK says whether it must say
// ok (for lines where the walk can tell).
func requireMembersLine(t *testing.T, b []byte, wantOK bool) {
	t.Helper()
	n := bytes.IndexByte(b, '\n')
	require.GreaterOrEqual(t, n, 0, "a block ends with a newline")
	want, werr := Members(bytes.TrimRight(b[:n], " \t\r"), nil)
	for _, k := range []struct {
		name   string
		blocks bool
		avx512 bool
	}{{"scalar", false, false}, {"AVX2", true, false}, {"fastest", true, true}} {
		var got []Member
		var gn int
		var ok bool
		withScanner(k.blocks, k.blocks, func() {
			run := func() { got, gn, ok = MembersLine(b, nil) }
			if k.avx512 {
				run()
			} else {
				withoutAVX512(run)
			}
		})
		if ok {
			require.NoError(t, werr, "%s: MembersLine accepted a line Members rejects: %q", k.name, b[:n])
			require.Equal(t, n, gn, "%s: line length of %.200q", k.name, b)
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "%s: members of %.200q", k.name, b)
		} else if wantOK {
			require.Fail(t, "MembersLine gave up", "%s on %.200q (Members: %v)", k.name, b[:n], werr)
		}
	}
}

// TestMembersLineOnCaptures proves that framing the first line of a block
// without cutting it first (MembersLine) gives what cutting it and calling
// Members gives, on every line of every capture followed by the rest of its
// file, and that it does not give up on any of them.
func TestMembersLineOnCaptures(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		if len(data) == 0 || data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		for at := 0; at < len(data); {
			if data[at] == '{' {
				requireMembersLine(t, data[at:], true)
			}
			at += bytes.IndexByte(data[at:], '\n') + 1
		}
	}
}

// TestMembersLineHostile covers lines a walk over the block must not read
// past: a newline inside a string, short or long (where the fused kernel
// sees it), before a long value (between what the kernel takes), or
// between members (pretty-printed), an object closed on the
// next line, garbage or a second object after the first, trailing spaces
// and CR, and strings and values ending at block edges.
func TestMembersLineHostile(t *testing.T) {
	long := strings.Repeat(`ab \"c\" \\ `, 40) // longer than a few blocks
	next := `{"type":"b"}` + "\n"
	cases := []struct {
		line string
		ok   bool
	}{
		{`{"type":"a"}`, true},
		{`{}`, true},
		{`{"type":"a"}  ` + "\r", true},
		{`{"a":{"b":["` + long + `"]},"c":"` + long + `"}`, true},
		{`{"a":"x` + "\n" + `y"}`, false},
		{`{"x":"a` + "\n" + `b","a":{"b":"` + long + `"}}`, false},
		{`{"x":[1,` + "\n" + `2],"a":{"b":"` + long + `"},"c":{"d":"` + long + `"}}`, false},
		{`{"a":{"b":"` + long + "\n" + long + `"}}`, false},
		{`{"a":{"b":"` + long + `"},` + "\n" + `"c":1}`, false},
		{`{"a":{"b":[1,` + "\n" + `2]},"c":"` + long + `"}`, false},
		{`{"a":{"b":"` + long + `"}`, false},
		{`{"a":1} x`, false},
		{`{"a":1}{"b":2}`, false},
		{`{"a":"` + long + `\\"}`, true},
		{`{"a":"` + long + `\"}`, false},
		{`{"a":[` + strings.Repeat(`{"x":"\\"},`, 30) + `1]}`, true},
		{`{"a":\"x"}`, false},
	}
	for _, c := range cases {
		for pad := 0; pad < 70; pad += 13 {
			// Shift the line across block edges.
			line := strings.Replace(c.line, `{"`, `{"`+strings.Repeat("p", pad)+`_":0,"`, 1)
			if c.line == `{}` {
				line = c.line
			}
			for _, after := range []string{next, `"}` + "\n" + next, "]}}\n" + next} {
				requireMembersLine(t, []byte(line+"\n"+after), c.ok)
			}
		}
	}
}

// FuzzMembersLine holds MembersLine to cutting the line and Members on any
// bytes (a newline is appended: a block ends with one).
func FuzzMembersLine(f *testing.F) {
	f.Add([]byte(`{"type":"a","x":{"y":"z\"\\"}}` + "\n" + `{"type":"b"}`))
	f.Add([]byte(`{"a":"x` + "\n" + `y"}`))
	f.Add([]byte(`{"a":{"b":[1,` + "\n" + `2]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		requireMembersLine(t, append(b, '\n'), false)
	})
}
