package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// renderEvents drives a renderer like the command does over hand-made event
// lines (all preset) and returns the output.
func renderEvents(t testing.TB, f Format, o Options, lines ...string) string {
	t.Helper()
	var out bytes.Buffer
	tr := stream.NewTracker(stream.TrackerOptions{})
	o.Tracker = tr
	r, err := New(f, &out, o)
	require.NoError(t, err)
	for i, l := range lines {
		ev, err := stream.NewEvent([]byte(l), "test", int64(i+1))
		require.NoError(t, err, "line %d", i+1)
		done := tr.Observe(ev)
		require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
	}
	require.NoError(t, r.Close(tr.OpenCalls()))
	return out.String()
}

// TestNew proves that every format has a renderer and that an unknown one
// is an error.
func TestNew(t *testing.T) {
	for _, f := range Formats {
		r, err := New(f, io.Discard, Options{})
		require.NoError(t, err, f)
		require.NotNil(t, r)
		require.NoError(t, r.Close(nil))
	}
	_, err := New("yaml", io.Discard, Options{})
	require.Error(t, err)
}

// TestToolTarget proves what each tool's one-line summary shows.
func TestToolTarget(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"Bash", `{"command":"ls -la","description":"List"}`, "ls -la"},
		{"Read", `{"file_path":"/a/b.go"}`, "/a/b.go"},
		{"Write", `{"file_path":"/a/c","content":"x"}`, "/a/c"},
		{"Edit", `{"file_path":"/a/d","old_string":"x","new_string":"y"}`, "/a/d"},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb"}`, "/n.ipynb"},
		{"Agent", `{"description":"Create alpha file","prompt":"p","subagent_type":"Explore"}`, "Explore: Create alpha file"},
		{"Task", `{"description":"Find it","prompt":"p"}`, "general-purpose: Find it"},
		{"Skill", `{"skill":"simplify"}`, "simplify"},
		{"WebFetch", `{"url":"https://example.com","prompt":"p"}`, "https://example.com"},
		{"WebSearch", `{"query":"go generics"}`, "go generics"},
		{"ToolSearch", `{"query":"select:x","max_results":5}`, "select:x"},
		{"Grep", `{"pattern":"TODO","path":"src"}`, "TODO in src"},
		{"Glob", `{"pattern":"**/*.go"}`, "**/*.go"},
		{"mcp__probe__echo", `{"text": "hello",  "n": 1}`, `{"text":"hello","n":1}`},
		{"Unknown", `{"z":1,"a":[1, 2]}`, `{"z":1,"a":[1,2]}`},
		{"Read", `{"path_typo":"/etc"}`, `{"path_typo":"/etc"}`},
		{"Bash", ``, ``},
	} {
		assert.Equal(t, tc.want, ToolTarget(tc.name, json.RawMessage(tc.input)), "%s %s", tc.name, tc.input)
	}
}

// TestFenceLength proves that a fence is at least three backticks and
// longer than any backtick run inside, so content cannot close it.
func TestFenceLength(t *testing.T) {
	assert.Equal(t, "```", fenceFor("no ticks"))
	assert.Equal(t, "```", fenceFor("a ` b `` c"))
	assert.Equal(t, "````", fenceFor("```go\nx\n```"))
	assert.Equal(t, "``````", fenceFor("`````"))
	assert.Equal(t, "``a`b``", mdCode("a`b"))
	assert.Equal(t, "`` `x ``", mdCode("`x"))
	assert.Equal(t, "`a\\|b`", mdCode("a|b"), "a pipe in a code span is escaped for tables")
}

// TestCell proves the CSV formula-injection guard: a cell starting with
// =, +, -, @, a tab or a CR gets a leading '.
func TestCell(t *testing.T) {
	for in, want := range map[string]string{
		"=HYPERLINK(\"x\")": "'=HYPERLINK(\"x\")",
		"+1":                "'+1",
		"-2":                "'-2",
		"@SUM(A1)":          "'@SUM(A1)",
		"\tx":               "'\tx",
		"\rx":               "'\rx",
		"ls -la":            "ls -la",
		"":                  "",
		"a=b":               "a=b",
	} {
		assert.Equal(t, want, cell(in), "%q", in)
	}
}

// TestCSVFormulaInjection proves, through the renderer and back through
// encoding/csv, that a tool call whose command starts with = reaches the
// file guarded.
func TestCSVFormulaInjection(t *testing.T) {
	out := renderEvents(t, CSV, Options{},
		`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"=cmd|' /C calc'!A0"}}]},"parent_tool_use_id":null}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},"parent_tool_use_id":null}`)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, CSVHeader, rows[0])
	assert.Equal(t, "'=cmd|' /C calc'!A0", rows[1][6], "summary column")
	assert.Equal(t, `{"command":"=cmd|' /C calc'!A0"}`, rows[1][7], "input column starts with { and needs no guard")
	assert.Equal(t, "false", rows[1][8])
	assert.Equal(t, "2", rows[1][9])
	assert.Equal(t, "", rows[1][10], "no timestamps, no duration")
}

// toolUseIDs returns the ids of the tool_use blocks of a capture, found
// with encoding/json alone (independent of pkg/stream).
func toolUseIDs(t *testing.T, input []byte) []string {
	var ids []string
	for _, l := range bytes.Split(input, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(l, &head))
		if head.Type != "assistant" {
			continue
		}
		var ev struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		require.NoError(t, json.Unmarshal(l, &ev))
		var blocks []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(ev.Message.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_use" || b.Type == "server_tool_use" || b.Type == "mcp_tool_use" {
				ids = append(ids, b.ID)
			}
		}
	}
	return ids
}

// TestCSVCaptures proves on every capture, for both presets, that the CSV
// reads back with encoding/csv, has the header and exactly one row per
// tool_use block of the capture (completed or left open), with the same
// ids, and that open calls have empty status columns.
func TestCSVCaptures(t *testing.T) {
	for _, file := range captureFiles(t) {
		input, err := os.ReadFile(file)
		require.NoError(t, err)
		want := toolUseIDs(t, input)
		for _, tools := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tools=%v", captureName(file), tools), func(t *testing.T) {
				var out bytes.Buffer
				drive(t, CSV, input, tools, &out)
				rd := csv.NewReader(&out)
				rows, err := rd.ReadAll()
				require.NoError(t, err)
				require.NotEmpty(t, rows)
				assert.Equal(t, CSVHeader, rows[0])
				require.Len(t, rows[1:], len(want))
				var got []string
				for _, r := range rows[1:] {
					got = append(got, r[4])
					if r[8] == "" {
						assert.Empty(t, r[9], "an open call has no result size")
						assert.Empty(t, r[10], "an open call has no duration")
					}
				}
				assert.ElementsMatch(t, want, got)
			})
		}
	}
}

// TestNDJSONByteForByte proves that the ndjson format passes every event
// of every capture through unchanged: the output is the input.
func TestNDJSONByteForByte(t *testing.T) {
	for _, file := range captureFiles(t) {
		input, err := os.ReadFile(file)
		require.NoError(t, err)
		var out bytes.Buffer
		drive(t, NDJSON, input, false, &out)
		assert.True(t, bytes.Equal(input, out.Bytes()), "%s: output differs from input", captureName(file))
	}
}

// TestNDJSONCallRecords proves that a tool-call record is one compact JSON
// object per line with the CSV's fields, and null status for open calls.
func TestNDJSONCallRecords(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/13-max-budget.jsonl")
	require.NoError(t, err)
	var out bytes.Buffer
	drive(t, NDJSON, input, true, &out)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	require.Len(t, lines, 1)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &rec))
	for _, k := range CSVHeader {
		assert.Contains(t, rec, k)
	}
	assert.Nil(t, rec["is_error"])
	assert.Nil(t, rec["duration_ms"])
	assert.Equal(t, "Bash", rec["tool"])
}

// TestJSONEventsKeepKeyOrder proves that the json format re-indents each
// event's raw bytes: compacting the output gives back the input line, keys
// in their order.
func TestJSONEventsKeepKeyOrder(t *testing.T) {
	for _, file := range captureFiles(t) {
		input, err := os.ReadFile(file)
		require.NoError(t, err)
		var out bytes.Buffer
		drive(t, JSON, input, false, &out)
		dec := json.NewDecoder(&out)
		for i, l := range bytes.Split(bytes.TrimRight(input, "\n"), []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			var doc json.RawMessage
			require.NoError(t, dec.Decode(&doc), "%s: document %d", captureName(file), i+1)
			var c bytes.Buffer
			require.NoError(t, json.Compact(&c, doc))
			require.Equal(t, string(l), c.String(), "%s line %d", captureName(file), i+1)
		}
		assert.False(t, dec.More())
	}
}

// TestValues proves values are encoded as jq does: keys sorted, big
// integers exact, integral floats without ".0", HTML characters and
// unicode unescaped; pretty with the indent, one line with Compact; -r and
// -j write strings raw.
func TestValues(t *testing.T) {
	big1, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	v := map[string]any{"b": 1.0, "a": []any{1.5, big1, "<&>", "中文"}, "c": nil, "d": true}
	for _, tc := range []struct {
		name string
		f    Format
		o    Options
		v    any
		want string
	}{
		{"text pretty", Text, Options{}, v, "{\n  \"a\": [\n    1.5,\n    123456789012345678901234567890,\n    \"<&>\",\n    \"中文\"\n  ],\n  \"b\": 1,\n  \"c\": null,\n  \"d\": true\n}\n"},
		{"text compact", Text, Options{Compact: true}, v, `{"a":[1.5,123456789012345678901234567890,"<&>","中文"],"b":1,"c":null,"d":true}` + "\n"},
		{"text tab indent", Text, Options{Indent: "\t"}, []any{1}, "[\n\t1\n]\n"},
		{"text raw string", Text, Options{Raw: true}, "line1\nline2", "line1\nline2\n"},
		{"text raw string sanitized", Text, Options{Raw: true}, "red\x1b[31m", "red\\x1b[31m\n"},
		{"text join", Text, Options{Raw: true, Join: true}, "a", "a"},
		{"text quoted string escapes U+2028", Text, Options{}, "a\u2028b", "\"a\\u2028b\"\n"},
		{"ndjson compact", NDJSON, Options{}, v, `{"a":[1.5,123456789012345678901234567890,"<&>","中文"],"b":1,"c":null,"d":true}` + "\n"},
		{"ndjson raw", NDJSON, Options{Raw: true}, "x", "x\n"},
		{"json pretty", JSON, Options{}, []any{1, "x"}, "[\n  1,\n  \"x\"\n]\n"},
		{"json compact", JSON, Options{Compact: true}, []any{1, "x"}, "[1,\"x\"]\n"},
		{"csv string cell", CSV, Options{}, "=1+1", "'=1+1\n"},
		{"csv json cell", CSV, Options{}, map[string]any{"a": 1}, "\"{\"\"a\"\":1}\"\n"},
		{"markdown fenced", Markdown, Options{}, []any{1}, "# Claude Code run\n\n```json\n[\n  1\n]\n```\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			r, err := New(tc.f, &out, tc.o)
			require.NoError(t, err)
			require.NoError(t, r.Value(tc.v))
			require.NoError(t, r.Flush())
			assert.Equal(t, tc.want, out.String())
		})
	}
}

// sampleReport has a cell of every style, blocks for one format only, an
// entry, and CSV rows of their own.
func sampleReport() *Report {
	long := "a description long enough to be cut in text at forty columns and in markdown at sixty"
	return &Report{
		Title: "Sample",
		Blocks: []Block{
			{Only: Text, Line: "sample: 2 rows"},
			{Table: &Table{
				Columns: []Column{{Name: "Name"}, {Name: "Id"}, {Name: "Count", Right: true}, {Name: "Background", Short: "bg"}, {Name: "Description"}},
				Rows: [][]Cell{
					{{Text: "=alpha|*b*"}, {Text: "x`y", Style: Code}, {Text: "12", Style: Number}, {Text: "no", Style: Strong}, {Text: long, Style: Prose}},
					{{Text: "beta"}, {Text: "", Style: Code}, {Text: "3", Style: Number}, {Text: "yes"}, {Text: "short", Style: Prose}},
				},
			}},
			{Only: Markdown, Line: "Cost: $1.5000"},
			{Only: Text, Entry: &Entry{Title: "model \x1b[31m", Details: []string{"session s1", "2 tools: Bash Read"}}},
		},
		Rows: &RowSet{Columns: []string{"name", "count", "tags"},
			Rows: [][]any{{"=alpha", int64(-12), []string{"x", "y"}}, {"beta, gamma", 3, nil}}},
	}
}

// TestReportInEveryFormat proves how each format renders a Report: text
// and markdown its blocks (each style, the format-only blocks, cut prose),
// CSV, NDJSON and JSON its rows, one set of columns: CSV (formulas
// guarded, numbers as they are, lists joined), NDJSON an object a line,
// JSON an array of the objects.
func TestReportInEveryFormat(t *testing.T) {
	want := map[Format]string{
		Text: "sample: 2 rows\n" +
			"name        id   count  bg   description\n" +
			"=alpha|*b*  x`y     12  no   a description long enough to be cut in…\n" +
			"beta                 3  yes  short\n" +
			"◆ model \\x1b[31m\n" +
			"  session s1\n" +
			"  2 tools: Bash Read\n",
		Markdown: "# Claude Code run\n\n## Sample\n\n" +
			"| Name | Id | Count | Background | Description |\n|---|---|---:|---|---|\n" +
			"| =alpha\\|\\*b\\* | ``x`y`` | 12 | **no** | a description long enough to be cut in text at forty column… |\n" +
			"| beta |  | 3 | yes | short |\n\n" +
			"Cost: \\$1.5000\n\n",
		CSV:    "name,count,tags\n'=alpha,-12,x y\n\"beta, gamma\",3,\n",
		NDJSON: "{\"name\":\"=alpha\",\"count\":-12,\"tags\":[\"x\",\"y\"]}\n{\"name\":\"beta, gamma\",\"count\":3,\"tags\":null}\n",
		JSON:   "[\n  {\n    \"name\": \"=alpha\",\n    \"count\": -12,\n    \"tags\": [\n      \"x\",\n      \"y\"\n    ]\n  },\n  {\n    \"name\": \"beta, gamma\",\n    \"count\": 3,\n    \"tags\": null\n  }\n]\n",
	}
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			var out bytes.Buffer
			r, err := New(f, &out, Options{})
			require.NoError(t, err)
			if slices.Contains(RunOnly, f) {
				assert.Error(t, r.Summary(sampleReport()), "a trace is no report")
				return
			}
			require.NoError(t, r.Summary(sampleReport()))
			require.NoError(t, r.Flush())
			if f == HTML { // a page around the table
				assert.Contains(t, out.String(), "<h2>Sample</h2>\n<table><tr><th>Name</th><th>Id</th><th>Count</th><th>Background</th><th>Description</th></tr>\n"+
					"<tr><td>=alpha|*b*</td><td><code>x`y</code></td><td class=\"n\">12</td><td><b>no</b></td><td>a description long enough to be cut in text at forty columns and in markdown at…</td></tr>\n")
				return
			}
			assert.Equal(t, want[f], out.String())
			if f == Markdown {
				checkMarkdown(t, out.String())
			}
		})
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteErrors proves that a write error reaches the caller from every
// format: at the latest from Flush or Close, and from every call after it.
func TestWriteErrors(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/05b-subagents-foreground.jsonl")
	require.NoError(t, err)
	for _, f := range Formats {
		t.Run(string(f), func(t *testing.T) {
			tr := stream.NewTracker(stream.TrackerOptions{})
			r, err := New(f, failWriter{}, Options{Tracker: tr})
			require.NoError(t, err)
			dec := stream.NewDecoder(bytes.NewReader(input), stream.DecoderOptions{})
			var first error
			for {
				ev, err := dec.Next()
				if err != nil {
					break
				}
				if err := r.Render(Record{Event: ev, Calls: tr.Observe(ev)}); err != nil && first == nil {
					first = err
				}
				if err := r.Flush(); err != nil && first == nil {
					first = err
				}
			}
			require.Error(t, first)
			assert.Contains(t, first.Error(), "disk full")
			assert.Error(t, r.Close(nil))
			assert.Error(t, r.Value(1))
		})
	}
}

// TestColor proves that colors are written only when asked for, and that
// with colors on the only escape sequences are the renderer's own SGR codes.
func TestColor(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/20-unicode-ansi.jsonl")
	require.NoError(t, err)
	render := func(color bool) string {
		var out bytes.Buffer
		tr := stream.NewTracker(stream.TrackerOptions{})
		r, err := New(Text, &out, Options{Color: color, Tracker: tr})
		require.NoError(t, err)
		dec := stream.NewDecoder(bytes.NewReader(input), stream.DecoderOptions{})
		for {
			ev, err := dec.Next()
			if err != nil {
				break
			}
			require.NoError(t, r.Render(Record{Event: ev, Calls: tr.Observe(ev)}))
		}
		require.NoError(t, r.Close(nil))
		return out.String()
	}
	plain := render(false)
	assert.NotContains(t, plain, "\x1b")
	colored := render(true)
	assert.Contains(t, colored, "\x1b[32m✓ \x1b[0m")
	stripped := colored
	for _, st := range []string{stBold, stDim, stRed, stGreen, stYellow, stCyan} {
		stripped = strings.ReplaceAll(stripped, "\x1b["+st+"m", "")
	}
	stripped = strings.ReplaceAll(stripped, "\x1b[0m", "")
	assert.Equal(t, plain, stripped, "colors only wrap text; the stream's ESC stays escaped")
}

// TestSubagentIndent proves that events of a subagent are indented two
// spaces per level under the Agent call that started them, including a
// subagent started by a subagent, with a header when the speaker changes.
func TestSubagentIndent(t *testing.T) {
	out := renderEvents(t, Text, Options{},
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"A","name":"Agent","input":{"description":"outer","prompt":"p","subagent_type":"general-purpose"}}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m2","model":"x","content":[{"type":"text","text":"outer working"}]},"parent_tool_use_id":"A"}`,
		`{"type":"assistant","message":{"id":"m3","model":"x","content":[{"type":"tool_use","id":"B","name":"Agent","input":{"description":"inner","prompt":"p","subagent_type":"Explore"}}]},"parent_tool_use_id":"A"}`,
		`{"type":"assistant","message":{"id":"m4","model":"x","content":[{"type":"text","text":"inner working"}]},"parent_tool_use_id":"B"}`,
		`{"type":"assistant","message":{"id":"m5","model":"x","content":[{"type":"text","text":"outer again"}]},"parent_tool_use_id":"A"}`,
		`{"type":"assistant","message":{"id":"m6","model":"x","content":[{"type":"text","text":"main again"}]},"parent_tool_use_id":null}`,
	)
	assert.Equal(t, strings.Join([]string{
		"→ Agent  general-purpose: outer",
		"  outer working",
		"  → Agent  Explore: inner",
		"    inner working",
		"  ▸ general-purpose: outer",
		"  outer again",
		"main again",
		"○ main  Agent  general-purpose: outer  (no result)",
		"○ A  Agent  Explore: inner  (no result)",
	}, "\n")+"\n", out)
}

// TestUnknownEvents proves that events ccfilter does not know are never
// dropped silently: text shows "? type/subtype", markdown names them.
func TestUnknownEvents(t *testing.T) {
	lines := []string{
		`{"type":"system","subtype":"brand_new_thing","x":1}`,
		`{"type":"future_event"}`,
		`{"type":"assistant","message":{"id":"m","model":"x","content":[{"type":"web_search_tool_result","content":[]}]},"parent_tool_use_id":null}`,
	}
	out := renderEvents(t, Text, Options{}, lines...)
	assert.Equal(t, "? system/brand_new_thing\n? future_event\n? assistant/web_search_tool_result\n", out)
	md := renderEvents(t, Markdown, Options{}, lines...)
	assert.Contains(t, md, "*Unknown event:* `system/brand_new_thing`")
	assert.Contains(t, md, "*Unknown event:* `future_event`")
	assert.Contains(t, md, "*Unknown block:* `web_search_tool_result`")
}

// TestBoundedState proves the renderers keep bounded state on endless
// input: 10000 distinct subagents and 10000 distinct tool names leave the
// maps capped.
func TestBoundedState(t *testing.T) {
	var buf bytes.Buffer
	tr := stream.NewTracker(stream.TrackerOptions{MaxOpenCalls: 100, MaxSubagents: 100})
	text := newText(io.Discard, Options{Width: 100, Tracker: tr})
	md := newMarkdown(&buf, Options{Width: 100, Tracker: tr})
	for i := 0; i < 10000; i++ {
		l := fmt.Sprintf(`{"type":"assistant","message":{"id":"m%d","model":"x","content":[{"type":"tool_use","id":"A%d","name":"Agent","input":{"description":"d%d"}}]},"parent_tool_use_id":"A%d"}`, i, i, i, i-1)
		ev, err := stream.NewEvent([]byte(l), "t", int64(i))
		require.NoError(t, err)
		tr.Observe(ev)
		require.NoError(t, text.Render(Record{Event: ev}))
		require.NoError(t, md.Render(Record{Event: ev}))
		l = fmt.Sprintf(`{"type":"assistant","message":{"id":"n%d","model":"x","content":[{"type":"tool_use","id":"T%d","name":"tool%d","input":{}}]},"parent_tool_use_id":null}`, i, i, i)
		ev, err = stream.NewEvent([]byte(l), "t", int64(i))
		require.NoError(t, err)
		tr.Observe(ev)
		require.NoError(t, md.Render(Record{Event: ev}))
		buf.Reset()
	}
	assert.LessOrEqual(t, len(text.agents.cur)+len(text.agents.old), 2*4096)
	assert.LessOrEqual(t, len(md.agents.cur)+len(md.agents.old), 2*4096)
	tally := tr.Tally() // the markdown summary's counts
	assert.LessOrEqual(t, len(tally.Tools), stream.MaxToolNames)
	assert.Equal(t, 20000, tally.ToolCalls)
	assert.Equal(t, tally.ToolCalls, tally.OtherTools+sumValues(tally.Tools), "every call is counted, by name or as other")
}

func sumValues(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// TestCSVRecordsAsEncodingCSV proves that the CSV renderer's own record
// writer writes what encoding/csv's Writer writes, byte for byte: fields
// with quotes, commas, CR, LF, leading ASCII and Unicode spaces, `\.`,
// empty ones, and 2000 random records of those pieces.
func TestCSVRecordsAsEncodingCSV(t *testing.T) {
	pieces := []string{"", "a", `"`, `""`, ",", "\r", "\n", "\r\n", " x", "\tx", "\u00a0x", "\u2028", "é", `\.`, `\`, ".", "x y", "'=1"}
	records := [][]string{{""}, {"", ""}, {`\.`}, {`\.x`}, {" "}, {"a", "b,c", `d"e`, "f\ng", "h\ri"}}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		rec := make([]string, 1+r.IntN(5))
		for i := range rec {
			for k := r.IntN(4); k > 0; k-- {
				rec[i] += pieces[r.IntN(len(pieces))]
			}
		}
		records = append(records, rec)
	}
	for _, rec := range records {
		var want bytes.Buffer
		cw := csv.NewWriter(&want)
		require.NoError(t, cw.Write(rec))
		cw.Flush()
		var got bytes.Buffer
		cr := newCSV(&got, Options{})
		cr.write(rec)
		require.NoError(t, cr.Flush())
		require.Equal(t, want.String(), got.String(), "record %q", rec)
	}
}

// TestCSVCellsReusedAsFresh: the CSV writes each call's row from fields
// and compact JSON kept from row to row (Row.cells into csvRenderer's
// cells and scratch), byte for byte as from fields made fresh for each
// row: every call of testdata/real/60-long-session.jsonl, then calls
// whose input is over a megabyte (the scratch let go) between small
// ones, not JSON (compacted by encoding/json, or kept as written), with
// spaces to drop, quotes and commas, and empty.
func TestCSVCellsReusedAsFresh(t *testing.T) {
	calls, _ := trackedCalls(t, "../../testdata/real/60-long-session.jsonl")
	require.Greater(t, len(calls), 100)
	big := `{"content":"` + strings.Repeat("a\\\"b, ", 300_000) + `"}`
	for _, in := range []string{big, `{"a": 1}`, `{ "b" : [ 1 , 2 ] }`, big, `not json`, `{"x":"`, ``, `{"k":"v, \"q\""}`, `  [1, 2]  `} {
		calls = append(calls, &stream.ToolCall{ID: "toolu_x", Name: "Bash", Input: json.RawMessage(in), Line: 7})
	}
	calls = append(calls, calls[:20]...)
	var got, want bytes.Buffer
	r := newCSV(&got, Options{})
	fresh := newCSV(&want, Options{})
	for _, c := range calls {
		r.call(c)
		var scratch []byte
		fresh.write(CallRow(c).cells(nil, &scratch))
	}
	require.NoError(t, r.Flush())
	require.NoError(t, fresh.Flush())
	assert.Equal(t, strings.Join(CSVHeader, ",")+"\n"+want.String(), got.String()) // (r writes the header first)
	assert.Greater(t, strings.Count(want.String(), "\n"), len(calls)-1)
	assert.LessOrEqual(t, cap(r.scratch), maxKeptScratch)
}

// TestCallCellsAreCallRows holds the CSV's typed cells of a call
// (callCells) to CallRow's, the row the JSON writers and --where see: on
// every call of every capture and the long session, done and open (with and without a result,
// a duration, an input), and with a run's name in front (a formula's
// too, which the CSV protects).
func TestCallCellsAreCallRows(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 42)
	n := 0
	for _, f := range append(files, "../../testdata/real/60-long-session.jsonl") {
		calls, tr := trackedCalls(t, f)
		calls = append(calls, tr.OpenCalls()...)
		for _, c := range calls {
			undone, noInput := *c, *c
			undone.Done, undone.HasDuration = false, false
			noInput.Input, noInput.HasDuration = nil, false
			for _, c := range []*stream.ToolCall{c, &undone, &noInput} {
				for _, run := range []string{"", "run-1", "=run"} {
					var s1, s2 []byte
					want := CallRow(c).withSource(run).cells(nil, &s1)
					assert.Equal(t, want, callCellsOf(c).cells(run, []string{"stale"}, &s2), "%s line %d, run %q", filepath.Base(f), c.Line, run)
					n++
				}
			}
		}
	}
	assert.Greater(t, n, 2000)
}

// trackedCalls are the calls a tracker completes over the file's events,
// in order, and the tracker (its open calls); a line that is no event (a
// capture's cut last line) is passed over.
func trackedCalls(t *testing.T, path string) ([]*stream.ToolCall, *stream.Tracker) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := stream.NewDecoder(bytes.NewReader(data), stream.DecoderOptions{})
	tr := stream.NewTracker(stream.TrackerOptions{})
	var calls []*stream.ToolCall
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return calls, tr
		}
		if err == nil {
			calls = append(calls, tr.Observe(ev)...)
		}
	}
}
