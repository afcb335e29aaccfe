package render

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/stream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	gmtext "github.com/yuin/goldmark/text"
)

// mdOutline is what checkMarkdown found in a report.
type mdOutline struct {
	headings []string // "## Turn 1"
	details  int      // <details> blocks
	anchors  []string // <a id="line-N"></a> blocks
}

// nodeText is the plain text of an inline tree.
func nodeText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for s := t.FirstChild(); s != nil; s = s.NextSibling() {
				if tx, ok := s.(*ast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// unescapeMD removes markdown backslash escapes, as rendering does.
func unescapeMD(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func blockText(n ast.Node, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		s := n.Lines().At(i)
		b.Write(s.Value(src))
	}
	return b.String()
}

// anchorBlock is the one other HTML the renderer writes, a paragraph of
// its own: where a glance's link lands.
var anchorBlock = regexp.MustCompile(`^<a id="l[0-9a-z]+-[1-9][0-9]*"></a>$`)

// checkMarkdown parses a report with goldmark (CommonMark + GFM, as GitHub
// renders it) and fails unless its structure is the renderer's own: one
// title, headings only at the top level and never more than one level
// deeper than the previous one, no HTML but balanced <details> blocks, no
// inline HTML, and every fence closed (checked on the lines, per
// blockquote level, since an unclosed fence is still a code block to the
// parser).
func checkMarkdown(t *testing.T, md string) mdOutline {
	t.Helper()
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(gmtext.NewReader(src))
	var o mdOutline
	level, depth := 0, 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n.Kind() {
		case ast.KindHeading:
			h := n.(*ast.Heading)
			text := nodeText(h, src)
			if level == 0 {
				assert.Equal(t, 1, h.Level, "the report starts with its title")
				assert.Equal(t, "Claude Code run", text)
			} else {
				assert.Greater(t, h.Level, 1, "only one title: %q", text)
				assert.LessOrEqual(t, h.Level, level+1, "heading %q skips a level", text)
			}
			level = h.Level
			o.headings = append(o.headings, strings.Repeat("#", h.Level)+" "+unescapeMD(text))
		case ast.KindParagraph:
			// The anchor is inline HTML, alone in its paragraph
			// (CommonMark reads "<a …></a>" on a line as inline).
			if p := strings.TrimSpace(blockText(n, src)); anchorBlock.MatchString(p) {
				o.anchors = append(o.anchors, p)
			}
		case ast.KindHTMLBlock:
			html := strings.TrimSpace(blockText(n, src))
			switch {
			case strings.HasPrefix(html, "<details><summary>") && strings.HasSuffix(html, "</summary>") && strings.Count(html, "<") == 3:
				depth++
				o.details++
			case html == "</details>":
				depth--
				assert.GreaterOrEqual(t, depth, 0, "</details> without <details>")
			default:
				t.Errorf("HTML block that the renderer did not write: %q", html)
			}
		}
	}
	assert.Zero(t, depth, "every <details> is closed")
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindRawHTML:
			if !anchorBlock.MatchString(strings.TrimSpace(blockText(n.Parent(), src))) {
				t.Errorf("inline HTML in the report: %q", nodeText(n.Parent(), src))
			}
		case ast.KindHeading:
			if n.Parent() != doc {
				t.Errorf("heading inside a %s: %q", n.Parent().Kind(), nodeText(n, src))
			}
		case ast.KindHTMLBlock:
			if n.Parent() != doc {
				t.Errorf("HTML block inside a %s", n.Parent().Kind())
			}
		}
		return ast.WalkContinue, nil
	})
	checkFences(t, md)
	return o
}

// checkFences fails on a fenced code block that is not closed by a fence
// of its own kind at its own blockquote level.
func checkFences(t *testing.T, md string) {
	t.Helper()
	type open struct {
		c     byte
		n     int
		depth int
		line  int
	}
	var cur *open
	for i, l := range strings.Split(md, "\n") {
		d := 0
		for {
			s := strings.TrimLeft(l, " ")
			if len(l)-len(s) > 3 || !strings.HasPrefix(s, ">") {
				break
			}
			l = strings.TrimPrefix(s[1:], " ")
			d++
		}
		if cur != nil {
			if d < cur.depth {
				t.Errorf("fence opened on line %d is cut off by the end of its blockquote on line %d", cur.line, i+1)
				cur = nil
			} else if fenceCloses(l, cur.c, cur.n) {
				cur = nil
			}
			continue
		}
		if c, n, ok := fenceOpen(l); ok {
			cur = &open{c, n, d, i + 1}
		}
	}
	if cur != nil {
		t.Errorf("fence opened on line %d is never closed", cur.line)
	}
}

// TestMarkdownCaptures proves on every capture, for both presets, that the
// markdown report has the renderer's structure only (checkMarkdown), one
// turn section per init event, and a closing summary.
func TestMarkdownCaptures(t *testing.T) {
	for _, file := range captureFiles(t) {
		input, err := os.ReadFile(file)
		require.NoError(t, err)
		inits := bytes.Count(input, []byte(`"subtype":"init"`))
		for _, tools := range []bool{false, true} {
			var out bytes.Buffer
			drive(t, Markdown, input, tools, &out)
			o := checkMarkdown(t, out.String())
			if tools || len(input) == 0 {
				continue
			}
			turns := 0
			for _, h := range o.headings {
				if strings.HasPrefix(h, "## Turn ") {
					turns++
				}
			}
			assert.Equal(t, max(inits, 1), turns, "%s: a section per turn", filepath.Base(file))
			assert.Equal(t, "## Summary", o.headings[len(o.headings)-1], "%s: the summary comes last, outside any block", filepath.Base(file))
		}
	}
}

// hostile is stream content written to break a markdown report out of its
// blocks: fences, </details>, <script>, headings, setext underlines,
// pipes, list-nested fences that a line scanner misreads.
const hostile = "Intro with `code` and <b>bold</b>\n# Injected H1\n## Injected H2\nSetext heading\n===\nAnother\n---\n" +
	"</details>\n<details><summary>fake</summary>\n<script>alert(1)</script>\n<!-- comment\n" +
	"> # quoted heading\n> ```\n> </details>\n- # list heading\n1. ```\n   <script>x</script>\n" +
	"- item\n    ```\n  ```\nafter\n| a | b |\n|---|---|\n| </details> | x |\n" +
	"\x1b]0;title\x07 \u202e reversed\n```\nunclosed fence </details> <script>alert(2)</script>\n# still inside"

// hostileProse is hostile text that mdProse escapes in place (no list
// trick, so it is not fenced as a whole).
const hostileProse = "Intro <b>bold</b>\n# Injected H1\nSetext\n===\n</details>\n<script>alert(5)</script>\n> ## quoted\n```\nunclosed </details>"

func hostileEvents() []string {
	h := jsonString(hostile)
	hp := jsonString(hostileProse)
	return []string{
		`{"type":"system","subtype":"init","model":"m<script>alert(3)</script>","claude_code_version":"2.1.328","cwd":"/tmp/</details>` + "`" + `x","permissionMode":"default","session_id":"s|1","tools":[]}`,
		`{"type":"user","message":{"role":"user","content":` + h + `},"parent_tool_use_id":null,"isReplay":true}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"thinking","thinking":` + h + `}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"text","text":` + h + `}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"text","text":` + hp + `}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"B1","name":"Bash","input":{"command":` + h + `,"description":"</details><script>alert(4)</script># x"}}]},"parent_tool_use_id":null,"timestamp":"2026-01-01T00:00:00.000Z"}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"R1","name":"Read","input":{"file_path":"</summary></details>` + "```" + `"}}]},"parent_tool_use_id":null}`,
		`{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"A1","name":"Agent","input":{"description":"# Sub </details> <script>","prompt":` + h + `,"subagent_type":"gp|x"}}]},"parent_tool_use_id":null}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":` + h + `}]},"parent_tool_use_id":"A1"}`,
		`{"type":"assistant","message":{"id":"m2","model":"x","content":[{"type":"text","text":` + h + `}]},"parent_tool_use_id":"A1"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"B1","is_error":true,"content":` + h + `}]},"parent_tool_use_id":null,"timestamp":"2026-01-01T00:00:01.000Z"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"R1","content":[{"type":"text","text":` + h + `}]}]},"parent_tool_use_id":null}`,
		`{"type":"system","subtype":"permission_denied","tool_name":"</details>","tool_use_id":"x","message":` + h + `}`,
		`{"type":"system","subtype":"task_notification","task_id":"b1","tool_use_id":"B1","status":"completed","summary":` + h + `}`,
		`{"type":"system","subtype":"informational","level":"warning","content":` + h + `}`,
		`{"type":"system","subtype":"hook_response","hook_name":"</details>","outcome":"error","exit_code":2,"stderr":` + h + `}`,
		`{"type":"user","message":{"role":"user","content":` + h + `},"parent_tool_use_id":null,"isSynthetic":true}`,
		`{"type":"system","subtype":"x</details><script>"}`,
		`{"type":"assistant","message":{"id":"m3","model":"<synthetic>","content":[{"type":"text","text":` + h + `}]},"parent_tool_use_id":null,"error":"unknown","is_api_error_message":true}`,
		`{"type":"result","subtype":"success","is_error":false,"result":` + h + `,"num_turns":1,"duration_ms":5,"total_cost_usd":0.01,"structured_output":{"a":` + h + `},"modelUsage":{"m</details>":{"inputTokens":1}}}`,
		`{"type":"result","subtype":"error_max_turns","is_error":true,"errors":[` + h + `],"num_turns":1,"duration_ms":5,"total_cost_usd":0.01}`,
	}
}

// TestMarkdownHostile proves that hostile content in every place the
// report shows stream text (prompt, thinking, text, tool input, tool
// result, errors, subagent label, notices, result, summary) cannot open or
// close a block: the outline is exactly the renderer's headings, <details>
// blocks are balanced, no HTML reaches the document, fences are closed.
func TestMarkdownHostile(t *testing.T) {
	md := renderEvents(t, Markdown, Options{}, hostileEvents()...)
	o := checkMarkdown(t, md)
	assert.Equal(t, []string{
		"# Claude Code run",
		"## Turn 1",
		"### Subagent: gp|x — # Sub </details> <script>",
		"### Main agent",
		"### Result: success",
		"### Result: failed (error_max_turns)",
		"## Summary",
	}, o.headings)
	assert.Equal(t, 4, o.details, "thinking, two tool results, the synthetic message, and nothing else")
	assert.Contains(t, md, "Intro &lt;b>bold&lt;/b>  \n\\# Injected H1  \nSetext  \n\\===  \n&lt;/details>  \n&lt;script>alert(5)&lt;/script>  \n> \\## quoted\n```\nunclosed </details>\n```\n",
		"prose that can be escaped in place is: headings and HTML neutralized, the open fence closed")
	for _, l := range strings.Split(md, "\n") {
		if strings.Contains(l, "\x1b") || strings.Contains(l, "\u202e") {
			t.Fatalf("raw control character in %q", l)
		}
	}
}

// TestMarkdownTools proves the tools preset's markdown is one table with a
// row per call, open calls included.
func TestMarkdownTools(t *testing.T) {
	input, err := os.ReadFile("../../testdata/events/04-parallel-tools.jsonl")
	require.NoError(t, err)
	var out bytes.Buffer
	drive(t, Markdown, input, true, &out)
	src := out.Bytes()
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(gmtext.NewReader(src))
	var rows int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind().String() == "TableRow" {
			rows++
		}
		return ast.WalkContinue, nil
	})
	assert.Equal(t, 4, rows)
	checkMarkdown(t, out.String())
}

// TestProseEscaping proves mdProse keeps prose markdown while neutralizing
// what would start a heading or HTML, and closes an open fence.
func TestProseEscaping(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain **bold** text", "plain **bold** text\n"},
		{"# heading", "\\# heading\n"},
		{"> ## quoted", "> \\## quoted\n"},
		{"para\n===", "para  \n\\===\n"},
		// The model's line breaks are kept (hard breaks), not in tables,
		// not after a line that has one already.
		{"one\ntwo\n\nthree", "one  \ntwo\n\nthree\n"},
		{"a  \nb\\\nc", "a  \nb\\\nc\n"},
		{"intro\n| a | b |\n|---|---|\n| 1 | 2 |", "intro\n| a | b |\n|---|---|\n| 1 | 2 |\n"},
		{"- x\n- y", "- x  \n- y\n"},
		{"a <b> `<code>` c", "a &lt;b> `<code>` c\n"},
		{"``` go\n<x>\n```\nafter <y>", "``` go\n<x>\n```\nafter &lt;y>\n"},
		{"```\nopen", "```\nopen\n```\n"},
		{"~~~~\nx\n~~~", "~~~~\nx\n~~~\n~~~~\n"},
		{"", ""},
	} {
		assert.Equal(t, tc.want, mdProse(tc.in), "%q", tc.in)
	}
	c := newProseChecker()
	tricky := "- item\n    ```\n  ```\nafter"
	assert.True(t, strings.HasPrefix(c.safeProse(tricky), "````text\n"), "prose the line rules misread is fenced")
	assert.Equal(t, "fine\n", c.safeProse("fine"))
}

// TestMarkdownGlanceOpensTheReport proves a glance is written right under
// the title (outcome, cost, tokens, each trouble linked), that every link
// lands on an anchor before its event and nowhere else, that a trouble of
// ccfilter's own (line 0) is listed without a link, and that the report
// stays the renderer's structure (checkMarkdown).
func TestMarkdownGlanceOpensTheReport(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(readCapture(t, "03-bash-fail.jsonl")), "\n")
	ms := int64(275)
	g := &Glance{Account: stream.Account{Outcome: stream.AccountOutcome{Results: 1}, Turns: stream.Turns{Count: 2}, Times: stream.Times{ReportedMs: &ms},
		Tokens: stream.Tokens{TotalTokens: 24775}, ToolCalls: stream.ToolAccount{Calls: 1, Failures: 1}},
		Result: stream.Result{Subtype: "success", HasCost: true, TotalCostUSD: 0.0262}}
	g.AddTrouble(GlanceItem{Source: "test", Line: 3, Agent: "main", Text: "✗ Bash ls failed"})
	id := anchorID("test", 3)
	g.AddTrouble(GlanceItem{Line: 0, Agent: "main", Text: "the run failed: <b>x</b>"})
	md := renderEvents(t, Markdown, Options{Glance: g}, lines...)
	o := checkMarkdown(t, md)
	assert.Equal(t, []string{`<a id="` + id + `"></a>`}, o.anchors, "one anchor, for the event with a line")
	assert.True(t, strings.HasPrefix(md, "# Claude Code run\n\n**At a glance:** ✓ ok (success) · 2 turns · 275ms · \\$0.0262 · 24775 tokens · 1 tool call · 1 failed tool call\n\n"+
		"Trouble (2, each linked to its place below):\n\n* [line 3](#"+id+"): ✗ Bash ls failed\n* at the end: the run failed: \\<b\\>x\\</b\\>\n\n"), "%.500s", md)
	// The troubles are a list of their own, not the first items of the
	// init facts' list after them (as GitHub renders it).
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(gmtext.NewReader([]byte(md)))
	var lists []int
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if n.Kind() == ast.KindList {
			lists = append(lists, n.ChildCount())
		}
	}
	require.GreaterOrEqual(t, len(lists), 2)
	assert.Equal(t, 2, lists[0], "the troubles' list holds the two troubles")
	anchor := strings.Index(md, `<a id="`+id+`"></a>`)
	require.Positive(t, anchor)
	assert.True(t, strings.HasPrefix(md[anchor:], "<a id=\""+id+"\"></a>\n\n> **Error:** Bash failed"), "the anchor sits right before the failed result")
	assert.NotEqual(t, id, anchorID("other", 3), "another input's line 3 has another anchor")

	for i := 0; i < MaxGlanceTrouble+5; i++ {
		g.AddTrouble(GlanceItem{Source: "test", Line: int64(100 + i), Text: "retry"})
	}
	md = renderEvents(t, Markdown, Options{Glance: g}, lines...)
	assert.Contains(t, md, "* and 7 more (see the errors preset)\n", "the list is bounded, the rest counted")
	assert.Equal(t, "# Claude Code run\n\n- **Model:**", renderEvents(t, Markdown, Options{}, lines...)[:len("# Claude Code run\n\n- **Model:**")], "no glance: the report as before")
}

// readCapture is a real capture's text.
func readCapture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/events", name))
	require.NoError(t, err)
	return string(b)
}
