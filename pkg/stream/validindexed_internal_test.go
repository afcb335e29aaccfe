package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidateIndexedAsWhole: a tool call's event checked member by
// member, its message indexed on the way (Validate's path for
// KindToolUse), is valid exactly when the whole line's check says so, with
// the same error, and its message's index is the one message() builds:
// on every tool call of testdata/events and
// testdata/real/60-long-session.jsonl, and on variants of each cut short
// (its index then partial), with a bad escape, a raw control character or
// a bad number in a key or value of the message, of its input or of a
// top-level member, a message written twice, spaces around every token,
// an input nested to the depth limit and one past it (its first bracket
// is at depth 5: top, message, content, block, input), and a long input
// (these two on every tenth call: they are slow). A member list that is
// not the line's (one left out, a copy's) is taken for nothing.
func TestValidateIndexedAsWhole(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	files = append(files, "../../testdata/real/60-long-session.jsonl")
	var calls []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, `{"type":"assistant"`) && strings.Contains(l, `"type":"tool_use"`) {
				calls = append(calls, l)
			}
		}
	}
	require.Greater(t, len(calls), 200)
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	variants := []func(string) string{
		func(l string) string { return l },
		func(l string) string { return l[:len(l)*2/3] },
		func(l string) string { return strings.Replace(l, `"input":{`, `"input":{"bad":"\q",`, 1) },
		func(l string) string { return strings.Replace(l, `"input":{`, `"input":{"b\x":1,`, 1) },
		func(l string) string { return strings.Replace(l, `"usage":{`, `"usage":{"n":01,`, 1) },
		func(l string) string { return strings.Replace(l, `"model":"`, "\"model\":\"\x01", 1) },
		func(l string) string { return strings.Replace(l, `"session_id":"`, `"session_id":"\u12`, 1) },
		func(l string) string {
			return strings.Replace(l, `{"type":"assistant",`, `{"type":"assistant","x\y":1,`, 1)
		},
		func(l string) string {
			return strings.Replace(l, `"parent_tool_use_id":`, `"n":-,"parent_tool_use_id":`, 1)
		},
		func(l string) string {
			return strings.TrimSuffix(l, "}") + `,"message":{"id":"m2","usage":{"input_tokens":9}}}`
		},
		func(l string) string { return strings.TrimSuffix(l, "}") + `,"message":{"id":"m2","x":"\q"}}` },
		func(l string) string {
			r := strings.NewReplacer(`":`, `" : `, `,"`, ` , "`, `{"`, `{ "`, `}`, ` } `)
			return r.Replace(l)
		},
		func(l string) string {
			return strings.Replace(l, `"input":{`, `"input":{"deep":`+deep(jsonx.MaxDepth-5)+`,`, 1)
		},
		func(l string) string {
			return strings.Replace(l, `"input":{`, `"input":{"deep":`+deep(jsonx.MaxDepth-4)+`,`, 1)
		},
		func(l string) string {
			return strings.Replace(l, `"input":{`, `"input":{"long":"`+strings.Repeat(`a\"é\n`, 300_000)+`",`, 1)
		},
	}
	valid, invalid, deepValid, deepInvalid := 0, 0, 0, 0
	for n, l := range calls {
		for i, variant := range variants {
			if i >= len(variants)-3 && n%10 != 0 {
				continue
			}
			line := []byte(variant(l))
			want := jsonx.Validate(line)
			if i == len(variants)-3 && want == nil {
				deepValid++
			}
			if i == len(variants)-2 && want != nil {
				deepInvalid++
			}
			var e Event
			e.point(line, "t", 1, 0)
			if e.frame() != nil {
				// (a partial index, as a lookup after CheckEnds leaves)
				assert.Error(t, want, "%.200s", line)
			}
			e.classify()
			e.Kind = KindToolUse // (as a partial index may not say)
			err := e.Validate()
			if want == nil {
				valid++
				require.NoError(t, err, "%.200s", line)
				plain := members(e.field("message"), nil)
				got := e.message()
				require.Equal(t, len(plain), len(got), "%.200s", line)
				for i := range plain {
					assert.Equal(t, string(plain[i].Key), string(got[i].Key))
					assert.Equal(t, string(plain[i].Val), string(got[i].Val))
				}
				// Members that are not the line's (one left out, or a
				// copy's) are not taken for it.
				_, ok := jsonx.ValidIndexed(line, e.top[:len(e.top)-1], nil, nil)
				assert.False(t, ok)
				copied := members(jsonx.Value(bytes.Clone(line)), nil)
				_, ok = jsonx.ValidIndexed(line, copied, nil, nil)
				assert.False(t, ok)
				_, ok = jsonx.ValidIndexed(line, e.top, nil, nil)
				assert.True(t, ok)
			} else {
				invalid++
				require.Error(t, err, "%.200s", line)
				assert.Equal(t, newSyntaxError("t", 1, 0, line, want).Error(), err.Error())
			}
		}
	}
	assert.Greater(t, valid, 500)
	assert.Greater(t, invalid, 500)
	assert.Positive(t, deepValid)
	assert.Positive(t, deepInvalid)
}
