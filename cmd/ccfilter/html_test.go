package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
)

var (
	pageLink = regexp.MustCompile(`href="#([^"]*)"`)
	pageID   = regexp.MustCompile(`id="([^"]*)"`)
)

// TestHTMLInPageLinksLandOnThePage proves every in-page link of an HTML
// page (#L12, a trouble's event, a subagent's Agent call in the table of
// where the time went) has its anchor on the page: every preset that
// prints html, and the event presets with each --agent, on the captures
// (a sample with -short, with the subagents of 05, 05b and 37 always,
// whose Agent calls the text, tools and errors pages do not show) and the
// transcripts.
func TestHTMLInPageLinksLandOnThePage(t *testing.T) {
	inputs := capturesAndTranscripts(t, "05-subagents-async", "05b-subagents-foreground", "37-workflow")
	var runs [][]string
	for _, p := range preset.Builtin().List() {
		if !p.Prints(render.HTML) {
			continue
		}
		runs = append(runs, []string{p.Name, "-F", "html"})
		if p.Dot != "" && p.Name != "subagents" && p.Name != "final" {
			for _, a := range []string{"all", "main", "sub"} {
				runs = append(runs, []string{p.Name, "-F", "html", "--agent", a})
			}
		}
	}
	pages, links := 0, 0
	for _, in := range inputs {
		for _, args := range runs {
			r := runIn(t, append(slices.Clone(args), in), "")
			if !strings.Contains(r.Stdout, "</html>") {
				continue // an empty input: no page
			}
			pages++
			ids := map[string]bool{}
			for _, m := range pageID.FindAllStringSubmatch(r.Stdout, -1) {
				ids[m[1]] = true
			}
			for _, m := range pageLink.FindAllStringSubmatch(r.Stdout, -1) {
				links++
				assert.True(t, ids[m[1]], "%s on %s: a link to #%s, which is not on the page", strings.Join(args, " "), filepath.Base(in), m[1])
			}
		}
	}
	assert.Greater(t, pages, 100)
	assert.Greater(t, links, 500)
}

// TestHTMLMarksAFailureInsideASubagent proves a failure inside a subagent
// is marked where the subagent is shown, not in the Trouble list only: its
// block's banner, and the Agent call that started it when the subagent
// ran before the call returned (a foreground subagent; a background one's
// call returns first). No real capture has one: the fixtures are 05b and
// 05, with the subagent's Bash call (echo beta-output; uname -s) made a
// failure ("Exit code 1"), as 03-bash-fail's is.
func TestHTMLMarksAFailureInsideASubagent(t *testing.T) {
	fail := []string{`"content":"beta-output\nLinux","is_error":false`, `"content":"Exit code 1\nbeta: command not found","is_error":true`}
	for _, c := range []struct {
		capture string
		call    string // the Agent call's block, "" when it returned first
	}{
		{"05b-subagents-foreground.jsonl", `<details class="tool warn" id="tr-toolu_01VgLRzf4NrQd7fdcSXrfAff"><summary><span class="mark">!</span> <b>Agent</b> <code>general-purpose: Run beta command</code> <span class="stats">8 lines, 782 B, 556ms · 1 failure inside</span>`},
		{"05-subagents-async.jsonl", ""},
	} {
		t.Run(c.capture, func(t *testing.T) {
			page := runIn(t, []string{"all", "-F", "html", derived(t, c.capture, fail...)}, "").Stdout
			assert.Regexp(t, `<details class="subagent error"><summary>✗ Subagent general-purpose — Run beta command · [^<]* · 1 failure\b`, page, "the banner")
			assert.Regexp(t, `<details class="subagent"><summary>Subagent general-purpose — Create alpha file · completed`, page, "the other subagent is not marked")
			assert.Contains(t, page, `Bash echo beta-output; uname -s failed: Exit code 1</a> <span class="stats">(Subagent general-purpose — Run beta command)`, "in Trouble too, as the subagent's")
			if c.call != "" {
				assert.Contains(t, page, c.call, "the Agent call")
			}
			assert.Contains(t, page, `<details class="tool ok" id="tr-toolu_`, "the other Agent call is not marked")
		})
	}
}

// TestHTMLHeaderAndTablesSayWhatUsageSays proves the page's figures are
// laid out as the usage preset lays them out: where the calls' output
// counts are the stream's placeholder, the page carries usage's note and
// its model row the result's own count, as usage's total does
// (08-thinking; not 07-partial-messages, whose counts are final), and the "Tool calls" fact
// names MCP tools as they are, not with markdown's escapes
// (35-mcp-toolsearch).
func TestHTMLHeaderAndTablesSayWhatUsageSays(t *testing.T) {
	for _, c := range []struct {
		capture string
		has     []string
		hasNot  []string
	}{
		{"08-thinking.jsonl", []string{
			`<td>claude-opus-5-5</td><td class="n">2</td><td class="n">6</td><td class="n">118</td>`,
			`<p class="stats">* output of 2 calls is a placeholder, not the count: the stream&#39;s assistant events carry a placeholder, the final count comes only with --include-partial-messages; the total&#39;s output is the result&#39;s own (modelUsage: 118; the events add up to 2)</p>`,
			`<dt>Tokens</dt><dd>6 in, 118 out,`,
		}, nil},
		{"07-partial-messages.jsonl", nil, []string{"is a placeholder", "*</td>"}},
		{"35-mcp-toolsearch.jsonl", []string{`<dt>Tool calls</dt><dd>3: ToolSearch 1, mcp__probe__echo 1, mcp__probe__fail 1</dd>`}, []string{`mcp\_`}},
	} {
		t.Run(c.capture, func(t *testing.T) {
			page := runIn(t, []string{"all", "-F", "html", "../../testdata/events/" + c.capture}, "").Stdout
			for _, s := range c.has {
				assert.Contains(t, page, s)
			}
			for _, s := range c.hasNot {
				assert.NotContains(t, page, s)
			}
		})
	}
	usage := runIn(t, []string{"usage", "../../testdata/events/08-thinking.jsonl"}, "").Stdout
	assert.Contains(t, usage, "* output of 2 calls is a placeholder, not the count: the stream's assistant events carry a placeholder", "the note is usage's")
}

// TestHTMLUnsafeLinkIsText proves a link the page will not follow (a
// javascript: address, which goldmark's safe mode made <a href="">) is
// shown as the model wrote it, as text, and a safe link stays a link. The
// fixture is 01-plain-text with its answer made markdown with links.
func TestHTMLUnsafeLinkIsText(t *testing.T) {
	path := derived(t, "01-plain-text.jsonl", `"text":"Hello! I am a scripted fake model. 2 + 2 = 4."`,
		`"text":"See [the docs](javascript:alert(1)), <vbscript:msgbox(2)> and [the site](https://example.com)."`)
	page := runIn(t, []string{"all", "-F", "html", path}, "").Stdout
	assert.Contains(t, page, `<p>See [the docs](javascript:alert(1)), &lt;vbscript:msgbox(2)&gt; and <a href="https://example.com">the site</a>.</p>`)
	assert.NotContains(t, page, `href=""`)
}
