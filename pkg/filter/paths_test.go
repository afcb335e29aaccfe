package filter

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// cutExpressions read a few paths of each event: their trees are cut.
var cutExpressions = []string{
	`select(.type=="user") | .message.content[0].tool_use_id`,
	`.type`,
	`.message.content[0].type, .message.content[1].text`,
	`select(.type == "assistant") | .message.usage.output_tokens`,
	`[.type, .subtype, .session_id]`,
	`{type, id: .uuid, "parent": .parent_tool_use_id}`,
	`.message.content[0] | .type`,
	`.message.content[0].input.command // .message.content[0].input.file_path // "none"`,
	`if .type == "result" then .result else .type end`,
	`try .message.content[0].text catch "bad"`,
	`.message.content[0].text?`,
	`.message | .content | .[0] | .tool_use_id`,
	`.["type"], ."session_id"`,
	`select(.message.content[0].is_error == true) | .message.content[0].content`,
	`.message.content[2]`,
	`.message.content[0].content[0].text`,
	`.type[0]`,              // an index into a string: the error shows the string
	`.message.content.type`, // a key into an array: the error shows the array
	`.message[0]`,           // an index into an object
	`.message.content[0] | length`,
	`.message.content[] | .type`,
	`.message.content[0:1]`,
	`.message.content[-1].type`,
	`select(.type=="result") | .usage | keys`,
	`"\(.type)/\(.subtype)"`,
	`.total_cost_usd * 100 | floor`,
	`select(.is_error) | .result`,
	`.message.content[0].input | tojson`,
	`(.message.content[0] | kind), line, source`, // nothing of the tree
	`tool_uses | length`,
	`.message.content[0].type | test("tool")`,
	`$ENV.HOME == null, .type`,
	`[.message.content[0].id] | .[0]`,
	`select(.type == "assistant") | .message.content[0].input | @json`,
	`.message.content[0].type == "text" and .message.content[0].text`,
	`select(.message.content[0].type? == "tool_use") | .message.content[0].name`,
	`[.message.content[0,1]]`,
	`.message.content | .[0] | .type`,
	`.message.content | map(.type)`,
	`.message.content[0].input | to_entries | length`,
	`.parent_tool_use_id // empty`,
	`.message.content[0].text | ascii_downcase | test("error")`,
	`(.usage.input_tokens // 0) + (.usage.output_tokens // 0)`,
	`.message.content[0].content | if type == "array" then .[0].text else . end`,
	`{"type"}`,
	`{(.type): .subtype}`,
	`{$ENV} | length`,
	`[.message.content[0].text?, .type?] | @csv`,
	`.message.content[0].input.command | split(" ") | .[0]`,
}

// wholeExpressions read the events whole, or in ways readPaths does not
// follow: their trees are not cut.
var wholeExpressions = []string{
	`.`,
	`select(.type=="user")`,
	`if .type == "system" then .subtype end`, // . when it is not
	`.message | select(.role == "user") | .. | numbers`,
	`def f: .type; f`,
	`. as $e | $e.type`,
	`reduce .message.content[] as $b (0; . + 1)`,
	`path(.message.content[0])`,
	`getpath(["message", "id"])`,
	`to_entries[0].key`,
	`.message |= .id`,
	`input`,
	`{@base64}`,
	`.. | .type? // empty`,
	`[paths] | length`,
	`env.HOME`,
}

// TestReadPaths: readPaths cuts the trees of the expressions it can
// follow, and of no other.
func TestReadPaths(t *testing.T) {
	for _, src := range cutExpressions {
		x, err := Compile(src, nil, nil, nil)
		require.NoError(t, err, src)
		assert.NotNil(t, x.Paths(), "%s: cut", src)
	}
	for _, src := range wholeExpressions {
		x, err := Compile(src, nil, nil, nil)
		if err != nil {
			continue // (input is not available to library callers)
		}
		assert.Nil(t, x.Paths(), "%s: whole", src)
	}
}

// TestCutTreesGiveTheSameAnswers proves the cut is exact: every
// expression, cut or not, gives on every event of every capture, cut
// short or glued, the outputs and the errors it gives on the whole tree.
func TestCutTreesGiveTheSameAnswers(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	var evs []*stream.Event
	for _, f := range files {
		evs = append(evs, events(t, filepath.Base(f))...)
	}
	// Shapes the captures lack: keys twice, escaped keys, wrong kinds on
	// the paths, long arrays.
	for i, raw := range []string{
		`{"type":"user","type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"x"}]}}`,
		`{"ty\u0070e":"result","result":"ok","usage":{"b":1,"a":2}}`,
		`{"type":["a","b"],"message":[1,2,3]}`,
		`{"type":"user","message":{"content":"just text"}}`,
		`{"type":"user","message":{"content":[null,1,[2],{"tool_use_id":"t","is_error":true,"content":"bad"}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"tool_use","input":{"command":"ls","file_path":"/x"}}]},"uuid":"u"}`,
		`{"message":{"content":[1,2,3,4,5,6,7,8,9,10,11,12]},"total_cost_usd":0.1234}`,
	} {
		e, err := stream.NewEvent([]byte(raw), "shapes", int64(i+1))
		require.NoError(t, err)
		evs = append(evs, e)
	}
	require.Greater(t, len(evs), 500)
	for _, src := range append(cutExpressions, wholeExpressions...) {
		cut, err := Compile(src, nil, nil, nil)
		if err != nil {
			continue
		}
		whole, err := Compile(src, nil, nil, nil)
		require.NoError(t, err)
		whole.paths = nil // the tree as it was: every event whole
		for _, e := range evs {
			w := run(t, whole, e)
			c := run(t, cut, e)
			require.Equal(t, w, c, "%s on %s:%d", src, e.Source, e.Line)
		}
	}
}
