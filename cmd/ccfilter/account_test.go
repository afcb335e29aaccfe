package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// accountInputs are every capture and transcript: testdata's (copies of
// ../shared's) and, outside -short, ../shared's own when it is there. A
// transcript is its session's main file (its subagents' files are joined
// to it).
func accountInputs(t *testing.T) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	add := func(paths []string) {
		for _, p := range paths {
			if name := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(p))))) + "/" + filepath.Base(p); !seen[name] {
				seen[name] = true
				out = append(out, p)
			}
		}
	}
	dirs := []string{"../../testdata"}
	if !testing.Short() {
		dirs = append(dirs, "../../../shared")
	}
	for _, d := range dirs {
		events, _ := filepath.Glob(d + "/events/*.jsonl")
		captures, _ := filepath.Glob(d + "/captures/*.jsonl")
		sessions, _ := filepath.Glob(d + "/transcripts/*/home/.claude/projects/*/*.jsonl")
		real, _ := filepath.Glob(d + "/real/*.jsonl")
		gemini, _ := filepath.Glob(d + "/agents/gemini/*.jsonl")
		// (15-json-output is Gemini's --output-format json: one
		// pretty-printed document, no stream; refused, as
		// TestGeminiJSONOutputIsRefusedWithWhatToDo proves.)
		gemini = slices.DeleteFunc(gemini, func(p string) bool { return strings.HasSuffix(p, "/15-json-output.jsonl") })
		chats, _ := filepath.Glob(d + "/agents/gemini/*.chats/session-*.jsonl")
		// Other agents' CLIs, read by their input kinds (issue 43).
		codex, _ := filepath.Glob(d + "/agents/codex/*.jsonl")
		codexSessions, _ := filepath.Glob(d + "/agents/codex/home/.codex/sessions/*/*/*/*.jsonl")
		for _, l := range [][]string{events, captures, sessions, real, gemini, chats, codex, codexSessions} {
			for i, p := range l {
				l[i] = filepath.ToSlash(p)
			}
			add(l)
		}
	}
	require.NotEmpty(t, out)
	return out
}

// TestEveryFormatShowsTheAccount proves every figure a view shows of a run
// is the account's (the account preset's JSON): the HTML page's facts,
// per-model, per-subagent and per-tool tables, outcome and trouble count,
// the markdown glance and summary, read back from the rendered page and
// markdown (not from the renderers' state); the subagents, usage, tools
// and errors rows; the trace's root span. On every capture and transcript
// (05-subagents-async: the HTML table said 14,778 tokens for "Create
// alpha file", its title and subagents said the CLI's 7,678; the
// 43-nested-subagent transcript and 60-long-session likewise).
func TestEveryFormatShowsTheAccount(t *testing.T) {
	for _, in := range accountInputs(t) {
		t.Run(inputName(in), func(t *testing.T) { checkEveryFormat(t, in) })
	}
}

// checkEveryFormat checks every view of in against its account, and
// returns the account (nil for an input with no run).
func checkEveryFormat(t *testing.T, in string) *stream.Account {
	t.Helper()
	r := runIn(t, []string{"account", "-F", "json", in}, "")
	if strings.Contains(r.Stderr, "empty input") {
		return nil // (no run: 22-missing-verbose, 34-bypass-root)
	}
	require.Equal(t, 0, r.Code, r.Stderr)
	var accs []stream.Account
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &accs))
	require.Len(t, accs, 1)
	a := accs[0]
	for _, m := range append(append([]stream.ModelAccount{}, a.Models...), agentModels(a)...) {
		assert.Equal(t, m.InputTokens+m.OutputTokens+m.CacheCreationInputTokens+m.CacheReadInputTokens, m.TotalTokens, "total_tokens is the sum: %s", m.Model)
	}
	checkRowsAccount(t, a, in)
	checkAccountCSV(t, r.Stdout, runIn(t, []string{"account", "-F", "csv", in}, "").Stdout)
	page := runIn(t, []string{"all", "-F", "html", in}, "").Stdout
	checkHTMLAccount(t, a, page)
	md := runIn(t, []string{"all", "-F", "markdown", in}, "").Stdout
	checkMarkdownAccount(t, a, md)
	checkTroubleWords(t, page, md)
	checkTextAccount(t, a, runIn(t, []string{"all", in}, "").Stdout)
	checkTraceAccount(t, a, runIn(t, []string{"all", "-F", "otlp", in}, "").Stdout)
	return &a
}

// checkAccountCSV proves the account's CSV row holds the account's JSON,
// column by column: each cell the JSON of its key's value. Its cells were written over one another
// (the outcome cell began with the turns' JSON), on every input.
func checkAccountCSV(t *testing.T, accountJSON, accountCSV string) {
	t.Helper()
	var objs []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(accountJSON), &objs))
	require.Len(t, objs, 1)
	rows, err := csv.NewReader(strings.NewReader(accountCSV)).ReadAll()
	require.NoError(t, err, accountCSV)
	require.Len(t, rows, 2, "a header and the run's row")
	for i, key := range rows[0] {
		want, ok := objs[0][key]
		require.True(t, ok, "column %s is a key of the JSON", key)
		cell := rows[1][i]
		if cell == "" {
			cell = "null" // (an empty cell: a value the run has not)
		}
		assert.JSONEq(t, string(want), cell, "%s: the CSV cell is the JSON's value", key)
	}
}

// inputName names an input in a subtest: its file, or its transcript's
// folder.
func inputName(in string) string {
	if i := strings.Index(in, "/transcripts/"); i >= 0 {
		return "transcript-" + strings.SplitN(in[i+len("/transcripts/"):], "/", 2)[0]
	}
	return strings.TrimSuffix(filepath.Base(in), ".jsonl")
}

func agentModels(a stream.Account) []stream.ModelAccount {
	var out []stream.ModelAccount
	for _, ag := range a.Agents {
		out = append(out, ag.Models...)
	}
	return out
}

var (
	htmlFact     = regexp.MustCompile(`<dt>([^<]+)</dt><dd>([^<]*)</dd>`)
	htmlRow      = regexp.MustCompile(`<tr><td>(.*?)</td>((?:<td[^>]*>[^<]*</td>)+)</tr>`)
	htmlCell     = regexp.MustCompile(`<td[^>]*>([^<]*)</td>`)
	htmlTagRE    = regexp.MustCompile(`<[^>]+>`)
	htmlCost     = regexp.MustCompile(`<dt>Cost</dt><dd>([^<]*)</dd>`)
	htmlTrouble  = regexp.MustCompile(`<b>Trouble</b> \((\d+)\)`)
	numberRe     = regexp.MustCompile(`\d[\d,]*`)
	leadNumberRe = regexp.MustCompile(`^\d[\d,]*`)
)

// numbers are the figures of a text, in order ("9 in, 89* out" → 9, 89).
func numbers(s string) []int64 {
	var out []int64
	for _, n := range numberRe.FindAllString(s, -1) {
		v, _ := strconv.ParseInt(strings.ReplaceAll(n, ",", ""), 10, 64)
		out = append(out, v)
	}
	return out
}

func leadNumber(t *testing.T, s string) int64 {
	t.Helper()
	n := leadNumberRe.FindString(s)
	require.NotEmpty(t, n, "a figure: %q", s)
	v, err := strconv.ParseInt(strings.ReplaceAll(n, ",", ""), 10, 64)
	require.NoError(t, err)
	return v
}

// section is the part of a page from the heading h to the end of its
// table.
func section(page, h string) string {
	i := strings.Index(page, "<h3>"+h+"</h3>")
	if i < 0 {
		return ""
	}
	s := page[i:]
	return s[:strings.Index(s, "</table>")]
}

// tableRows are a table's rows after its header: each row's first cell
// (its text) and the others.
func tableRows(table string) [][]string {
	var out [][]string
	for _, m := range htmlRow.FindAllStringSubmatch(table, -1) {
		row := []string{html.UnescapeString(htmlTagRE.ReplaceAllString(m[1], ""))}
		for _, c := range htmlCell.FindAllStringSubmatch(m[2], -1) {
			row = append(row, html.UnescapeString(c[1]))
		}
		out = append(out, row)
	}
	return out
}

// toolCounts says tool calls as the views do: "4: Read 2, Bash 1".
func toolCounts(t *testing.T, s string) (int64, map[string]int64) {
	t.Helper()
	total, rest, _ := strings.Cut(s, ": ")
	n, err := strconv.ParseInt(total, 10, 64)
	require.NoError(t, err, s)
	by := map[string]int64{}
	if rest != "" {
		for _, p := range strings.Split(rest, ", ") {
			i := strings.LastIndex(p, " ")
			v, err := strconv.ParseInt(p[i+1:], 10, 64)
			require.NoError(t, err, p)
			by[strings.ReplaceAll(p[:i], `\`, "")] = v
		}
	}
	return n, by
}

func accountTools(a stream.Account) map[string]int64 {
	by := map[string]int64{}
	for _, f := range a.ToolCalls.ByTool {
		by[f.Name] = int64(f.Calls)
	}
	return by
}

func checkHTMLAccount(t *testing.T, a stream.Account, page string) {
	t.Helper()
	facts := map[string]string{}
	for _, m := range htmlFact.FindAllStringSubmatch(page[strings.LastIndex(page, "<header>"):], -1) {
		facts[m[1]] = html.UnescapeString(m[2])
	}
	switch a.Outcome.Status {
	case "success":
		assert.Contains(t, page, `<div class="outcome ok">`)
	case "failed":
		assert.Contains(t, page, `<div class="outcome failed">`)
	default:
		assert.Contains(t, page, `<div class="outcome none">`)
	}
	if a.Outcome.Results > 0 {
		assert.Equal(t, a.Turns.Count, leadNumber(t, facts["Turns"]), "html Turns")
		if a.Times.ReportedMs != nil {
			assert.True(t, strings.HasPrefix(facts["Duration"], render.Millis(*a.Times.ReportedMs)), "html Duration %q", facts["Duration"])
		} else {
			assert.NotContains(t, facts, "Duration", "no result says a duration: none shown")
		}
	}
	checkHTMLCost(t, a, page, facts["Cost"])
	tk := a.Tokens
	assert.Equal(t, []int64{tk.InputTokens, tk.OutputTokens, tk.CacheReadInputTokens, tk.CacheCreationInputTokens}, numbers(facts["Tokens"]), "html Tokens: %s", facts["Tokens"])
	n, by := toolCounts(t, facts["Tool calls"])
	assert.Equal(t, int64(a.ToolCalls.Calls), n, "html Tool calls")
	assert.Equal(t, accountTools(a), by, "html Tool calls by tool")

	models := tableRows(section(page, "Per model"))
	assert.Len(t, models, len(a.Models), "html Per model")
	for i, m := range a.Models[:min(len(a.Models), len(models))] {
		assert.Equal(t, m.Model, models[i][0])
		assert.Equal(t, []int64{int64(m.Calls), m.InputTokens, m.OutputTokens, m.CacheReadInputTokens, m.CacheCreationInputTokens, m.TotalTokens},
			numbers(strings.Join(models[i][1:], " ")), "html Per model %s", m.Model)
	}
	subs := tableRows(section(page, "Per subagent"))
	for i, row := range subs {
		if i+1 >= len(a.Agents) || len(row) < 5 {
			break // ("and N more")
		}
		ag := a.Agents[i+1]
		assert.Equal(t, int64(ag.ToolCalls), leadNumber(t, row[2]), "html Per subagent calls %s", ag.ID)
		if ag.Tokens != nil {
			assert.Equal(t, ag.Tokens.TotalTokens, leadNumber(t, row[3]), "html Per subagent tokens %s", ag.ID)
		} else {
			assert.True(t, strings.HasPrefix(row[3], "not in the input"), "html Per subagent tokens %s: %q", ag.ID, row[3])
		}
	}
	if len(a.Agents) > 1 {
		assert.NotEmpty(t, subs, "html Per subagent")
	}
	tools := tableRows(section(page, "Per tool"))
	got := map[string][2]int64{}
	times := map[string]string{}
	for _, row := range tools {
		if len(row) == 5 {
			got[row[0]] = [2]int64{leadNumber(t, row[1]), leadNumber(t, row[2])}
			times[row[0]] = row[3]
		}
	}
	for _, f := range a.ToolCalls.ByTool {
		if g, ok := got[f.Name]; ok || len(a.ToolCalls.ByTool) <= len(tools) {
			assert.Equal(t, [2]int64{int64(f.Calls), int64(f.Failures)}, g, "html Per tool %s: calls, errors", f.Name)
			assert.Equal(t, render.Millis(f.DurationMs), times[f.Name], "html Per tool %s: time", f.Name)
		}
	}
	// Every subagent title's figures are its account's (a title before
	// the subagent ended gives none).
	for _, ag := range a.Agents[1:] {
		if ag.Description == "" {
			continue
		}
		titles := regexp.MustCompile(`<summary>(?:✗ )?Subagent [^<]*? — `+regexp.QuoteMeta(html.EscapeString(ag.Description))+` · [^<]*</summary>`).FindAllString(page, -1)
		for _, title := range titles {
			if m := regexp.MustCompile(` · (\d+) calls? · `).FindStringSubmatch(title); m != nil {
				assert.Equal(t, strconv.Itoa(ag.ToolCalls), m[1], "html title of %s: calls", ag.ID)
			}
			m := regexp.MustCompile(` · ([\d,]+) tokens`).FindStringSubmatch(title)
			switch {
			case ag.Tokens != nil && m != nil:
				assert.Equal(t, groupDigitsTest(ag.Tokens.TotalTokens), m[1], "html title of %s: tokens", ag.ID)
			case ag.Tokens == nil:
				assert.Nil(t, m, "html title of %s: no sum it does not have: %s", ag.ID, title)
			}
		}
	}
	troubles := 0
	if m := htmlTrouble.FindStringSubmatch(page); m != nil {
		troubles, _ = strconv.Atoi(m[1])
	}
	assert.Equal(t, a.Troubles.Count, troubles, "html Trouble (a missing result too, as errors lists it)")
}

// checkHTMLCost proves the page's cost, in its facts (fact) and in the last
// result's block, is the account's, an estimate marked "~" (the block
// said "$?" beside the facts' estimate).
func checkHTMLCost(t *testing.T, a stream.Account, page, fact string) {
	t.Helper()
	if a.Outcome.Results == 0 {
		return
	}
	assert.Equal(t, accountCost(a), fact, "html Cost")
	blocks := htmlCost.FindAllStringSubmatch(page[:strings.LastIndex(page, "<header>")], -1)
	require.NotEmpty(t, blocks, "html result block's Cost")
	assert.Equal(t, accountCost(a), html.UnescapeString(blocks[len(blocks)-1][1]), "html result block's Cost")
}

var (
	htmlTroubleItem = regexp.MustCompile(`<li>(?:<a href="[^"]*">)?(.*?)(?:</a>)?(?: <span class="stats">.*?</span>)?</li>`)
	mdTroubleItem   = regexp.MustCompile(`(?m)^\* (?:at the end|\[line \d+\]\([^)]*\))(?: \(.*?\))?: (.*)$`)
	mdEscape        = regexp.MustCompile(`\\([[:punct:]])`)
)

// checkTroubleWords proves a run's troubles read the same in the page's
// trouble list and the markdown glance's (render.TroubleLine): the same
// events, in the same order, in the same words up to the shorter cut (the
// 401 of a Gemini run read "failed (…): failed (…)" on the page and "the
// run failed (…)" in the glance; a failed Bash call "Bash failed: Exit
// code 3" and "✗ Bash ls … failed").
func checkTroubleWords(t *testing.T, page, md string) {
	t.Helper()
	var onPage, inGlance []string
	if i := strings.Index(page, `<nav class="troubles">`); i >= 0 {
		nav := page[i : i+strings.Index(page[i:], "</nav>")]
		for _, m := range htmlTroubleItem.FindAllStringSubmatch(nav, -1) {
			onPage = append(onPage, html.UnescapeString(m[1]))
		}
	}
	if i := strings.Index(md, "\nTrouble ("); i >= 0 {
		for _, m := range mdTroubleItem.FindAllStringSubmatch(md[i:strings.Index(md, "\n## ")], -1) {
			inGlance = append(inGlance, mdEscape.ReplaceAllString(m[1], "$1"))
		}
	}
	require.Len(t, inGlance, len(onPage), "trouble lists: page %q, glance %q", onPage, inGlance)
	cut := func(s string) string {
		r := []rune(strings.TrimSuffix(s, "…"))
		return string(r[:min(len(r), 150)])
	}
	for i := range onPage {
		assert.Equal(t, cut(onPage[i]), cut(inGlance[i]), "trouble %d in the page and in the glance", i+1)
	}
}

// groupDigitsTest writes n with thousands separators, as pages do.
func groupDigitsTest(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var (
	mdGlance     = regexp.MustCompile(`\*\*At a glance:\*\* (.*)`)
	mdResultCost = regexp.MustCompile(`(?m)^- \*\*Cost:\*\* (.*)$`)
	mdTrouble    = regexp.MustCompile(`Trouble \((\d+), each linked`)
	mdRow        = regexp.MustCompile(`(?m)^\| (.+?) \| (.*) \|$`)
)

func checkMarkdownAccount(t *testing.T, a stream.Account, md string) {
	t.Helper()
	glance := mdGlance.FindStringSubmatch(md)
	require.NotNil(t, glance, "the glance")
	figure := func(noun string) int64 {
		m := regexp.MustCompile(`(\d+) ` + noun + `s?\b`).FindStringSubmatch(glance[1])
		if m == nil {
			return 0
		}
		v, _ := strconv.ParseInt(m[1], 10, 64)
		return v
	}
	if a.Outcome.Results > 0 {
		assert.Equal(t, a.Turns.Count, figure("turn"), "glance turns")
		if a.Times.ReportedMs != nil {
			assert.Contains(t, glance[1], " · "+render.Millis(*a.Times.ReportedMs)+" · ", "glance duration")
		} else {
			assert.NotRegexp(t, ` · \d+(ms|s) · `, glance[1], "no result says a duration: none shown")
		}
	}
	assert.Equal(t, a.Tokens.TotalTokens, figure("token"), "glance tokens")
	if a.Outcome.Results > 0 {
		// The run's cost in the glance, the summary and the last result's
		// block: the account's, an estimate marked "~" (the block said
		// "$?" beside the glance's estimate).
		assert.Contains(t, strings.Split(mdEscape.ReplaceAllString(glance[1], "$1"), " · "), accountCost(a), "glance cost: %s", glance[1])
		blocks := mdResultCost.FindAllStringSubmatch(md, -1)
		require.NotEmpty(t, blocks, "markdown result block's Cost")
		assert.Equal(t, accountCost(a), mdEscape.ReplaceAllString(blocks[len(blocks)-1][1], "$1"), "markdown result block's Cost")
	}
	assert.Equal(t, int64(a.ToolCalls.Calls), figure("tool call"), "glance tool calls")
	assert.Equal(t, int64(a.ToolCalls.Failures), figure("failed tool call"), "glance failed tool calls")
	troubles := 0
	if m := mdTrouble.FindStringSubmatch(md); m != nil {
		troubles, _ = strconv.Atoi(m[1])
	}
	assert.Equal(t, a.Troubles.Count, troubles, "glance Trouble (a missing result too, as errors lists it)")

	summary := md[strings.LastIndex(md, "## Summary"):]
	rows := map[string]string{}
	for _, m := range mdRow.FindAllStringSubmatch(summary, -1) {
		rows[m[1]] = m[2]
	}
	if a.Outcome.Results > 0 {
		assert.Equal(t, a.Turns.Count, leadNumber(t, rows["Turns"]), "summary Turns")
		assert.Equal(t, accountCost(a), mdEscape.ReplaceAllString(rows["Cost"], "$1"), "summary Cost")
		if a.Times.ReportedMs != nil {
			assert.True(t, strings.HasPrefix(rows["Duration"], render.Millis(*a.Times.ReportedMs)), "summary Duration %q", rows["Duration"])
		} else {
			assert.NotContains(t, rows, "Duration", "no result says a duration: none shown")
		}
	}
	for _, m := range a.Models {
		v, ok := rows["Tokens: "+strings.ReplaceAll(m.Model, "_", `\_`)]
		if !ok {
			continue // (past the rows a summary lists)
		}
		assert.Equal(t, []int64{m.InputTokens, m.OutputTokens, m.CacheReadInputTokens, m.CacheCreationInputTokens}, numbers(v)[:4], "summary Tokens: %s", m.Model)
	}
	n, by := toolCounts(t, rows["Tool calls"])
	assert.Equal(t, int64(a.ToolCalls.Calls), n, "summary Tool calls")
	assert.Equal(t, accountTools(a), by, "summary Tool calls by tool")
	assert.Equal(t, strconv.Itoa(a.ToolCalls.Failures), rows["Tool errors"], "summary Tool errors")
	assert.Equal(t, strconv.Itoa(a.Troubles.Count), rows["Troubles"], "summary Troubles")
}

var textClosing = regexp.MustCompile(`(?m)^[✓✗] run .* · (?:(\d+) results · )?(\d+) turns? · ([^ \n]+).*$`)

// checkTextAccount reads the text view's closing line: when it sums every
// result of the run (it folds the results that come together), its turns
// and duration are the account's.
func checkTextAccount(t *testing.T, a stream.Account, text string) {
	t.Helper()
	lines := textClosing.FindAllStringSubmatch(text, -1)
	if a.Outcome.Results == 0 {
		assert.Empty(t, lines, "no result, no closing line")
		return
	}
	require.NotEmpty(t, lines, "the closing line")
	last := lines[len(lines)-1]
	results := 1
	if last[1] != "" {
		results, _ = strconv.Atoi(last[1])
	}
	if results != a.Outcome.Results {
		return // (the run's results came apart: each group its line)
	}
	assert.Equal(t, strconv.FormatInt(a.Turns.Count, 10), last[2], "text turns")
	assert.Contains(t, strings.Split(last[0], " · "), accountCost(a), "text cost: %q", last[0])
	if a.Times.ReportedMs == nil {
		// No result says a duration (Codex's stream): the closing line
		// goes from its turns to its cost.
		assert.Equal(t, accountCost(a), last[3], "text: no duration, the cost next")
		return
	}
	assert.Equal(t, render.Millis(*a.Times.ReportedMs), last[3], "text duration")
}

// accountCost is the run's cost as a view shows it beside its outcome:
// the account's, "~" marking an estimate; "$?" when it has none.
func accountCost(a stream.Account) string {
	switch {
	case a.Cost == nil:
		return "$?"
	case a.Cost.Source == "estimated":
		return fmt.Sprintf("~$%.4f", a.Cost.USD)
	}
	return fmt.Sprintf("$%.4f", a.Cost.USD)
}

// jsonRowsOf are a preset's JSON rows on in.
func jsonRowsOf(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	r := runIn(t, append(args, "-F", "json"), "")
	require.Equal(t, 0, r.Code, r.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows), r.Stdout)
	return rows
}

func checkRowsAccount(t *testing.T, a stream.Account, in string) {
	t.Helper()
	// subagents: a row per subagent, its tokens the account's.
	byCall := map[string]stream.AgentAccount{}
	for _, ag := range a.Agents[1:] {
		byCall[ag.ToolUseID] = ag
	}
	subs := jsonRowsOf(t, "subagents", in)
	assert.Len(t, subs, len(a.Agents)-1, "subagents rows")
	for _, s := range subs {
		ag, ok := byCall[s["tool_use_id"].(string)]
		require.True(t, ok, s["tool_use_id"])
		if ag.Tokens != nil {
			assert.Equal(t, float64(ag.Tokens.TotalTokens), s["total_tokens"], "subagents total_tokens %s", ag.ID)
			assert.Equal(t, float64(ag.Tokens.CacheReadInputTokens), s["cache_read_input_tokens"], "subagents cache_read_input_tokens %s", ag.ID)
		} else {
			assert.Nil(t, s["total_tokens"], "subagents total_tokens %s: not in the input", ag.ID)
		}
		if ag.TaskReportedTokens != nil {
			assert.Equal(t, float64(*ag.TaskReportedTokens), s["task_reported_tokens"], "subagents task_reported_tokens %s", ag.ID)
		}
		assert.Equal(t, float64(ag.ToolCalls), s["tool_calls"], "subagents tool_calls %s", ag.ID)
	}
	// usage: its rows by model and side add up to the account's models,
	// its total row to the run's tokens.
	type sums struct{ calls, in, out, cw, cr float64 }
	models := map[string]sums{}
	for _, u := range jsonRowsOf(t, "usage", in) {
		f := func(k string) float64 { v, _ := u[k].(float64); return v }
		switch u["side"] {
		case "main", "subagent":
			s := models[u["model"].(string)]
			models[u["model"].(string)] = sums{s.calls + f("calls"), s.in + f("input_tokens"), s.out + f("output_tokens"), s.cw + f("cache_creation_input_tokens"), s.cr + f("cache_read_input_tokens")}
		case "total":
			tk := a.Tokens
			assert.Equal(t, sums{float64(tk.Calls), float64(tk.InputTokens), float64(tk.OutputTokens), float64(tk.CacheCreationInputTokens), float64(tk.CacheReadInputTokens)},
				sums{f("calls"), f("input_tokens"), f("output_tokens"), f("cache_creation_input_tokens"), f("cache_read_input_tokens")}, "usage total")
			// The run's cost, and where it is from: the account's, an
			// estimate too (the usage rows said null where it estimated).
			if a.Cost != nil {
				assert.Equal(t, []any{a.Cost.USD, a.Cost.Source}, []any{u["cost_usd"], u["cost_source"]}, "usage total cost")
			} else {
				assert.Equal(t, []any{nil, nil}, []any{u["cost_usd"], u["cost_source"]}, "usage total cost: none, as the account")
			}
		}
	}
	for _, m := range a.Models {
		s := models[m.Model]
		if m.OutputFrom == "result" {
			s.out = float64(m.OutputTokens) // (usage's rows keep the calls' placeholders; its total row the result's, checked above)
		}
		assert.Equal(t, sums{float64(m.Calls), float64(m.InputTokens), float64(m.OutputTokens), float64(m.CacheCreationInputTokens), float64(m.CacheReadInputTokens)},
			s, "usage %s", m.Model)
	}
	// tools: a row per call.
	calls := map[string]int64{}
	failed := 0
	for _, c := range jsonRowsOf(t, "tools", in) {
		calls[fmt.Sprint(c["tool"])]++
		if c["is_error"] == true {
			failed++
		}
	}
	assert.Equal(t, accountTools(a), calls, "tools rows by tool")
	assert.Equal(t, a.ToolCalls.Failures, failed, "tools rows that failed")
	// errors: a row per trouble (an event with several failed results has
	// a row for each: counted once, by its line and agent).
	seen := map[string]bool{}
	for _, e := range jsonRowsOf(t, "errors", in) {
		seen[fmt.Sprint(e["line"], e["agent"], e["kind"] == "no_result")] = true
	}
	assert.Equal(t, a.Troubles.Count, len(seen), "errors rows")
}

func checkTraceAccount(t *testing.T, a stream.Account, trace string) {
	t.Helper()
	type kv struct {
		Key   string
		Value struct {
			IntValue    string
			StringValue string
			DoubleValue *float64
		}
	}
	type traceDoc struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []struct {
					ParentSpanID string `json:"parentSpanId"`
					Name         string
					Attributes   []kv
				}
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(trace))
	var root map[string]string
	var rootCost []any // the root's cost and its source: the account's
	calls := 0         // chat spans of calls that did not fail
	for dec.More() {
		var doc traceDoc // (a fresh one: null leaves a field as it was)
		require.NoError(t, dec.Decode(&doc))
		for _, rs := range doc.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					attrs := map[string]string{}
					var cost []any
					for _, at := range sp.Attributes {
						attrs[at.Key] = at.Value.IntValue + at.Value.StringValue
						switch at.Key {
						case "claude_code.cost_usd":
							cost = append(cost, *at.Value.DoubleValue)
						case "claude_code.cost_source":
							cost = append(cost, at.Value.StringValue)
						}
					}
					if attrs["gen_ai.operation.name"] == "chat" && attrs["error.type"] == "" {
						calls++
					}
					if sp.ParentSpanID == "" && root == nil {
						root, rootCost = attrs, cost
					}
				}
			}
		}
	}
	// A chat span is a model call the account counts: a Codex or Gemini
	// stream, which gives only the run's totals, has none (its trace had
	// a "chat <synthetic>" span per message its reader made, its account
	// 0 calls), nor has a message Claude Code writes itself.
	assert.Equal(t, a.Tokens.Calls, calls, "trace chat spans (but failed calls') are the account's model calls")
	if root == nil {
		t.Error("the trace has no root span")
		return
	}
	switch {
	case a.Cost != nil && a.Cost.Source == "estimated":
		assert.Equal(t, []any{a.Cost.USD, a.Cost.Source}, rootCost, "trace root cost and its source")
	case a.Cost != nil:
		assert.Equal(t, []any{a.Cost.USD}, rootCost, "trace root cost (reported: no source, as Claude Code's own)")
	default:
		assert.Empty(t, rootCost, "trace root: no cost, as the account")
	}
	tk := a.Tokens
	assert.Equal(t, strconv.FormatInt(tk.OutputTokens, 10), root["gen_ai.usage.output_tokens"], "trace root output tokens")
	assert.Equal(t, strconv.FormatInt(tk.InputTokens+tk.CacheReadInputTokens+tk.CacheCreationInputTokens, 10), root["gen_ai.usage.input_tokens"], "trace root input tokens")
	assert.Equal(t, strconv.FormatInt(tk.CacheReadInputTokens, 10), root["gen_ai.usage.cache_read.input_tokens"], "trace root cache read")
}

// TestRunsWithoutAnEventCountTheirMissingResult proves the account counts
// a missing result as the errors preset lists it on inputs that hold no
// event: an empty file (claude -p without --verbose writes nothing), and
// one of blank lines. The errors preset listed "no_result" there while
// the account said 0 troubles (each read the rule its own way; now both
// ask Tracker.ResultMissing).
func TestRunsWithoutAnEventCountTheirMissingResult(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content string }{
		{"empty", ""},
		{"blank lines", "\n\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))
			r := runIn(t, []string{"account", "-F", "json", path}, "")
			var accs []stream.Account
			require.NoError(t, json.Unmarshal([]byte(r.Stdout), &accs), r.Stderr)
			require.Len(t, accs, 1)
			assert.Equal(t, "no_result", accs[0].Outcome.Status)
			er := runIn(t, []string{"errors", "-F", "json", path}, "")
			assert.Equal(t, exitNoResult, er.Code, "no result: exit 4")
			var rows []map[string]any
			require.NoError(t, json.Unmarshal([]byte(er.Stdout), &rows), er.Stderr)
			require.Len(t, rows, 1, "the errors preset's one row")
			assert.Equal(t, "no_result", rows[0]["kind"])
			assert.Equal(t, 1, accs[0].Troubles.Count, "the account's troubles: the errors preset's rows")
			assert.Equal(t, 1, accs[0].Troubles.ByKind[stream.TroubleNoResult])
		})
	}
}
