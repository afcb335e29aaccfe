package render

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Limits of the markdown report: what one fenced block shows, and how many
// tool names the closing summary counts separately.
const (
	mdBlockBytes = 8 << 10
	mdBlockLines = 200
	mdMaxModels  = 50
	// mdCalloutWidth caps a one-line callout (errors are usually short;
	// a multi-megabyte one would make an unreadable line).
	mdCalloutWidth = 2000
)

// markdownRenderer writes a report that renders on GitHub: a title with the
// run's model, version, session and directory; a section per turn (one per
// init event) with the transcript in order, each tool call's input and each
// result's content in fenced blocks (results folded in <details>), a section
// per subagent whenever its events start; the result with the final answer;
// and at Close a summary table. Progress events and partial-message deltas
// are not shown (the summary counts them). Its state is bounded: a few
// counters, capped maps and the last result's figures.
type markdownRenderer struct {
	out
	o        Options
	started  bool // the title was written
	haveInit bool // the first init's facts were written
	turn     int
	turnInit bool   // the current turn had its init
	ctx      string // the section written to: "" main agent, an Agent call id, or ctxResult
	level    int    // of the last heading
	describer
	table bool // the tools preset's table is open
	prose *proseChecker

	// the closing summary: the run's facts from the tracker, or, without
	// one, from the events rendered
	records  bool
	reported bool // a preset's report was written (Summary)
	tally    stream.Tally
	hidden   int
	last     stream.Result // StructuredOutput dropped: it aliases the event
}

// outcomeTitle is what a result says happened: its subtype when the run
// did not fail, else "failed (why)": the error subtype, or the terminal
// reason with the last API error's category and HTTP status.
func outcomeTitle(r stream.Result, apiError string) string {
	if !r.IsError {
		return r.Subtype
	}
	return failed(stream.FailureReasons(r, apiError, false))
}

// OutcomeStatus is how a result says the run went, in the words of every
// view's status: "ok (success, completed)", its subtype and terminal
// reason; or "failed (api_error, authentication_failed, HTTP 401)",
// outcomeTitle's reasons with the terminal reason too ("failed
// (error_max_turns, max_turns)"), never a failure's "success" subtype.
func OutcomeStatus(r stream.Result, apiError string) string {
	if r.IsError {
		return failed(stream.FailureReasons(r, apiError, true))
	}
	detail := r.Subtype
	if r.TerminalReason != "" {
		detail += ", " + r.TerminalReason
	}
	return "ok (" + detail + ")"
}

func failed(why []string) string {
	if len(why) == 0 {
		return "failed"
	}
	return "failed (" + strings.Join(why, ", ") + ")"
}

const ctxResult = "\x00result"

func newMarkdown(w io.Writer, o Options) *markdownRenderer {
	return &markdownRenderer{out: newOut(w), o: o,
		describer: newDescriber(" — ", 4*mdBlockBytes, o),
		prose:     newProseChecker()}
}

// anchor writes, before an event the glance links to, the place its link
// lands: an HTML anchor, which GitHub keeps (as user-content-line-N, which
// it resolves).
// (And counts the event for the summary when there is no tracker to.)
func (m *markdownRenderer) anchor(ev *stream.Event) {
	if m.o.Tracker == nil {
		m.tally.Add(ev)
	}
	if m.o.Glance.anchored(ev) {
		m.start()
		m.block(`<a id="` + anchorID(ev.Source, ev.Line) + `"></a>`)
	}
}

// block writes a markdown block and the blank line after it.
func (m *markdownRenderer) block(s string) {
	m.endTable()
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return
	}
	m.str(s)
	m.str("\n\n")
}

func (m *markdownRenderer) start() {
	if !m.started {
		m.started = true
		if m.o.Run != "" {
			m.str("# " + mdInline(m.o.cliName()) + " run: " + mdInline(m.o.Run) + "\n\n")
		} else {
			m.str("# " + mdInline(m.o.cliName()) + " run\n\n")
		}
		if m.o.Glance != nil {
			m.block(glanceMarkdown(m.o.Glance))
		}
		m.level = 1
	}
}

// heading writes a heading of text (escaped), never more than one level
// below the previous one, so the outline has no holes.
func (m *markdownRenderer) heading(level int, text string) {
	m.start()
	if level > m.level+1 {
		level = m.level + 1
	}
	if level < 2 {
		level = 2
	}
	if level > 6 {
		level = 6
	}
	m.block(strings.Repeat("#", level) + " " + mdInline(text))
	m.level = level
}

func (m *markdownRenderer) openTurn() {
	m.turn++
	m.turnInit = false
	m.heading(2, "Turn "+strconv.Itoa(m.turn))
	m.ctx = ""
}

// section makes the transcript continue in the section of agent ctx ("" for
// the main agent), writing a heading when it changes.
func (m *markdownRenderer) section(ctx, typ, desc string) {
	m.start()
	if m.turn == 0 {
		m.openTurn()
	}
	if ctx == m.ctx {
		return
	}
	if ctx == "" {
		m.ctx = ""
		m.heading(3, "Main agent")
		return
	}
	a := m.lookup(ctx, typ, desc)
	title := "Subagent: " + a.label
	if a.shown {
		title += " (continued)"
	}
	a.shown = true
	m.put(ctx, a)
	m.ctx = ctx
	m.heading(2+a.depth, title)
}

// callout writes "> **label:** text".
func (m *markdownRenderer) callout(label, text string) {
	m.block("> **" + label + ":** " + mdInline(truncate(line(text), mdCalloutWidth)))
}

// note writes an italic one-line remark.
func (m *markdownRenderer) note(text string) {
	m.block("*" + mdInline(text) + "*")
}

// details writes a folded block: an escaped one-line summary and the
// content in a fence (capped).
func (m *markdownRenderer) details(summary, info, content string) {
	var b strings.Builder
	b.WriteString("<details><summary>" + htmlText(summary) + "</summary>\n\n")
	if strings.TrimSpace(content) == "" {
		b.WriteString("*(empty)*\n")
	} else {
		c, cut := capText(content, mdBlockBytes, mdBlockLines)
		b.WriteString(fenced(info, c))
		if cut != "" {
			b.WriteString("\n*" + mdInline(cut) + "*\n")
		}
	}
	b.WriteString("\n</details>")
	m.block(b.String())
}

// code writes a fenced block (capped).
func (m *markdownRenderer) code(info, content string) {
	c, cut := capText(content, mdBlockBytes, mdBlockLines)
	m.fence(info, c, cut)
}

// fence writes the text c in a fence, with the note of what was cut.
func (m *markdownRenderer) fence(info, c, cut string) {
	s := fenced(info, c)
	if cut != "" {
		s += "\n*" + mdInline(cut) + "*\n"
	}
	m.block(s)
}

// json writes JSON text b indented in a fence, cut as code cuts: only the
// part shown is made (indentedCapped).
func (m *markdownRenderer) json(b []byte) {
	c, cut := indentedCapped(b, "  ", false, mdBlockBytes, mdBlockLines)
	m.fence("json", c, cut)
}

func (m *markdownRenderer) Render(rec Record) error {
	if len(rec.Rows) > 0 {
		return errNoRows{}
	}
	ev := rec.Event
	if ev == nil {
		for _, c := range rec.Calls {
			m.callRow(c)
		}
		return m.err
	}
	m.records = true
	m.anchor(ev)
	for i := range m.describe(ev, rec.Calls) {
		m.part(&m.parts[i])
	}
	return m.err
}

// part lays out one part of an event in the section of its agent; a part
// a report does not show is counted for the summary.
func (m *markdownRenderer) part(p *Part) {
	if p.Form == FormHidden || p.Form == FormLine && p.Say == SayHidden {
		m.hidden++
		return
	}
	if p.Form != FormInit && (p.Form != FormOutcome || m.ctx != ctxResult) {
		m.section(p.Agent.ID, p.Agent.Type, p.Agent.Desc)
	}
	switch p.Form {
	case FormLine:
		m.say(p)
	case FormProse:
		m.block(m.prose.safeProse(p.Body))
	case FormPrompt:
		if s := m.prose.safeProse(p.Body); s != "" {
			m.block("**Prompt:**")
			m.block(quote(s))
		}
	case FormFold:
		m.details(p.sentence(), p.Lang, p.Body)
	case FormCall:
		m.toolUse(p.Use, p.Target)
	case FormToolResult:
		m.toolResult(p)
	case FormInit:
		m.init(p.Init)
	case FormOutcome:
		m.outcome(p)
	}
}

// say writes a one-line part as the report states it.
func (m *markdownRenderer) say(p *Part) {
	switch p.Say {
	case SayNote:
		m.note(p.sentence())
	case SayCallout:
		m.callout(p.Label, p.sentence())
	case SayStrong:
		m.block("**" + mdInline(p.sentence()) + "**")
	case SayCode:
		m.block("*" + p.Label + ":* " + mdCode(p.sentence()))
	case SayDivider:
		m.block("---")
		m.note(p.sentence())
	}
}

func (m *markdownRenderer) init(in *stream.Init) {
	m.start()
	wrote := false
	if m.turn == 0 || m.turnInit {
		if !m.haveInit && m.turn == 0 {
			m.facts(*in)
			wrote = true
		}
		m.openTurn()
	}
	m.turnInit = true
	if !wrote {
		if !m.haveInit {
			m.facts(*in)
		} else {
			m.note("Init: " + in.Model + ", permission mode " + in.PermissionMode)
		}
	}
}

// facts writes the run's facts from the first init, as a bullet list.
func (m *markdownRenderer) facts(in stream.Init) {
	m.haveInit = true
	var b strings.Builder
	item := func(k, v string) {
		if v != "" {
			b.WriteString("- **" + k + ":** " + v + "\n")
		}
	}
	item("Model", mdInline(in.Model))
	item(stream.CLIOf(in.CLI, "").Name, mdInline(in.Version))
	item("Session", mdCode(in.SessionID))
	item("Working directory", mdCode(in.CWD))
	item("Permission mode", mdInline(in.PermissionMode))
	if len(in.Tools) > 0 {
		item("Tools", strconv.Itoa(len(in.Tools)))
	}
	if len(in.MCPServers) > 0 {
		item("MCP servers", mdInline(strings.Join(in.MCPServers, ", ")))
	}
	m.block(b.String())
}

// toolUse writes a tool call: its name, and its input in a fence (a Bash
// command as a script).
func (m *markdownRenderer) toolUse(b *stream.Block, target string) {
	title := "**→ " + mdInline(b.Name) + "**"
	if cmd, desc, ok := script(b.Name, b.Input); ok {
		if desc != "" {
			title += " — " + mdInline(desc)
		}
		m.block(title)
		m.code("bash", cmd)
	} else {
		if target != "" {
			title += " " + mdCode(truncate(line(target), m.o.Width))
		}
		m.block(title)
		m.json(b.Input)
	}
}

// toolResult writes a tool result folded, with its figures in the summary;
// a failed one is called out first.
func (m *markdownRenderer) toolResult(p *Part) {
	if p.Result.IsError {
		m.callout("Error", p.Sentence)
	}
	m.details(p.Mark+" "+p.Line, "text", p.Body)
}

// outcome writes a result: a heading of how the run ended, its figures,
// its errors, and the final answer unless the main agent just said it.
func (m *markdownRenderer) outcome(p *Part) {
	r := *p.Outcome
	structured := r.StructuredOutput
	r.StructuredOutput = nil
	if len(r.ModelUsage) > mdMaxModels {
		r.ModelUsage = r.ModelUsage[:mdMaxModels]
	}
	m.last = r
	status := p.Mark + " " + p.Line
	title := "Result: " + p.Label
	if r.ResultIndex > 0 {
		title += " (result " + strconv.FormatInt(r.ResultIndex, 10) + ")"
	}
	m.heading(3, title)
	m.ctx = ctxResult
	var b strings.Builder
	b.WriteString("- **Status:** " + mdInline(status) + "\n")
	b.WriteString("- **Turns:** " + strconv.FormatInt(r.NumTurns, 10) + "\n")
	if r.HasDuration { // (none when the result says none: another CLI's)
		b.WriteString("- **Duration:** " + fmtMs(r.DurationMs))
		if r.DurationAPIMs > 0 {
			b.WriteString(" (API " + fmtMs(r.DurationAPIMs) + ")")
		}
		b.WriteString("\n")
	}
	b.WriteString("- **Cost:** " + mdInline(p.Cost) + "\n")
	if r.PermissionDenials > 0 {
		b.WriteString("- **Permission denials:** " + strconv.Itoa(r.PermissionDenials) + "\n")
	}
	m.block(b.String())
	for _, e := range p.Errors {
		m.callout("Error", e)
	}
	if p.Body != "" {
		m.block(m.prose.safeProse(p.Body))
	}
	if len(structured) > 0 && string(structured) != "null" {
		m.block("**Structured output:**")
		m.json(structured)
	}
}

// callRow writes a tools-preset record as a row of the calls table.
func (m *markdownRenderer) callRow(c *stream.ToolCall) {
	m.start()
	if !m.table {
		m.str("| Line | Agent | Tool | Target | Status | Duration | Result |\n|---:|---|---|---|---|---:|---:|\n")
		m.table = true
	}
	row := describeCall(c)
	m.str("| " + strconv.FormatInt(c.Line, 10) + " | " + mdInline(row.Agent) + " | " + mdInline(row.Name) + " | " +
		mdCode(truncate(line(row.Target), 60)) + " | " + row.Mark + " " + row.Status + " | " + row.Duration + " | " + row.Size + " |\n")
}

func (m *markdownRenderer) endTable() {
	if m.table {
		m.table = false
		m.str("\n")
	}
}

func (m *markdownRenderer) Value(v any) error {
	m.start()
	if s, ok := v.(string); ok && (m.o.Raw || m.o.Join) {
		m.block(m.prose.safeProse(s))
		return m.err
	}
	b, err := encodeValue(v, m.o.Indent, m.o.Compact)
	if err != nil {
		return err
	}
	m.block(fenced("json", string(jsonSafe(b))))
	return m.err
}

// mdTable writes a table; every cell must already be markdown.
func (m *markdownRenderer) mdTable(header []string, align string, rows [][]string) {
	var b strings.Builder
	b.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for i := range header {
		if i < len(align) && align[i] == 'r' {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteByte('\n')
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	m.block(b.String())
}

func (m *markdownRenderer) Summary(r *Report) error {
	if r.Trouble != "" {
		m.start()
		m.callout("Error", r.Trouble)
		return m.err
	}
	m.reported = true
	m.start()
	m.endTable()
	m.heading(2, r.Title)
	for _, b := range r.Blocks {
		if !b.shows(Markdown) {
			continue
		}
		switch {
		case b.Table != nil:
			rows := b.Table.lines(Markdown)
			m.mdTable(rows[0], b.Table.aligns(), rows[1:])
		case b.Entry != nil:
			var s strings.Builder
			s.WriteString("**" + mdInline(b.Entry.Title) + "**\n\n")
			for _, d := range b.Entry.Details {
				s.WriteString("- " + mdInline(d) + "\n")
			}
			m.block(s.String())
		default:
			m.block(mdInline(b.Line))
		}
	}
	return m.err
}

// Close writes the closing summary of a transcript (when records were
// rendered) and the calls that never got a result.
func (m *markdownRenderer) Close(open []*stream.ToolCall) error {
	if m.table || m.o.ToolCalls {
		started := m.started
		m.start()
		for _, c := range open {
			m.callRow(c)
		}
		if !started && len(open) == 0 {
			m.note("No tool calls.")
		}
		m.endTable()
		return m.Flush()
	}
	if !m.records && len(open) == 0 {
		if !m.started {
			m.start()
			m.note("No events.")
		}
		if m.o.Tracker == nil || m.reported {
			return m.Flush() // nothing seen to sum up, or a preset's report
		}
		// The run's summary all the same: a report of its errors that
		// has none still says how the run ended.
	}
	return m.summary(open)
}

// summary writes the closing summary: the run's facts, and the calls that
// never got a result.
func (m *markdownRenderer) summary(open []*stream.ToolCall) error {
	m.start()
	m.level = 1
	m.heading(2, "Summary")
	rows := [][]string{}
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	f := m.runFacts()
	if f.tally.Results == 0 {
		add("Result", "no result (the stream ended without one)")
	} else {
		r := f.last
		st := "✓ "
		if r.IsError {
			st = "✗ "
		}
		add("Result", mdInline(st+OutcomeStatus(r, m.apiError)))
		if n := f.tally.Results; n > 1 {
			add("Results", strconv.Itoa(n)+" (the last one decides the outcome)")
		}
		add("Turns", perResult(f.tally, i64(f.acc.Turns.Count), func(r stream.ResultFigures) string { return i64(r.Turns) }))
		if ms := f.acc.Times.ReportedMs; ms != nil {
			add("Duration", perResult(f.tally, fmtMs(*ms), func(r stream.ResultFigures) string { return fmtMs(r.DurationMs) }))
		}
		add("Cost", mdInline(f.acc.CostLabel(r)))
	}
	for i, u := range f.acc.Models {
		if i == mdMaxModels {
			break
		}
		v := fmt.Sprintf("%d in, %d out, %d cache read, %d cache write", u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens)
		if r := u.Reported; r != nil && (r.InputTokens != u.InputTokens || r.OutputTokens != u.OutputTokens || r.CacheReadInputTokens != u.CacheReadInputTokens || r.CacheCreationInputTokens != u.CacheCreationInputTokens) {
			v += fmt.Sprintf(" (the result reports %d in, %d out, %d cache read, %d cache write)", r.InputTokens, r.OutputTokens, r.CacheReadInputTokens, r.CacheCreationInputTokens)
		}
		add("Tokens: "+mdInline(u.Model), v)
	}
	add("Tool calls", toolSummary(f.acc.ToolCalls, mdInline))
	add("Tool errors", strconv.Itoa(f.acc.ToolCalls.Failures))
	add("Troubles", strconv.Itoa(f.acc.Troubles.Count))
	for _, k := range []struct{ kind, name string }{{stream.TroubleAPIError, "API errors"}, {stream.TroubleRetry, "Retries"},
		{stream.TroubleDenial, "Permission denials"}, {stream.TroubleHook, "Hook failures"}, {stream.TroubleInterrupt, "Interrupts"}} {
		if n := f.acc.Troubles.ByKind[k.kind]; n > 0 {
			add(k.name, strconv.Itoa(n))
		}
	}
	waiting := strconv.Itoa(max(len(open), f.open))
	if tr := m.o.Tracker; tr != nil && tr.Stats().EvictedCalls > 0 {
		// The report's own numbers must add up: say the ones not listed.
		waiting += fmt.Sprintf(" listed, and %d more forgotten while waiting (at most %d are kept)", tr.Stats().EvictedCalls, tr.Limits().MaxOpenCalls)
	}
	add("Calls without a result", waiting)
	if m.hidden > 0 {
		add("Events not shown", hiddenSaid(m.hidden))
	}
	if m.o.Redacted != nil && m.Flush() == nil {
		if s := m.o.Redacted(); s != "" {
			add("Redacted", mdInline(s)+" in this report")
		}
	}
	m.mdTable([]string{"Item", "Value"}, "ll", rows)
	if len(open) > 0 {
		var b strings.Builder
		b.WriteString("Calls that never got a result:\n\n")
		for _, c := range open {
			row := describeCall(c)
			b.WriteString("- " + mdInline(row.Name) + " " + mdCode(truncate(line(row.Target), m.o.Width)) + " (line " + i64(c.Line) + ", " + mdInline(row.Agent) + ")\n")
		}
		m.block(b.String())
	}
	return m.Flush()
}

// runFacts are what the closing summary states about the run: its
// account's figures (acc), the results' one by one (tally) and the last.
type runFacts struct {
	acc   stream.Account
	tally stream.Tally
	last  stream.Result
	open  int // calls without a result
}

// runFacts are the run's: the tracker's account, which saw every event,
// whatever the report shows of them (text and errors show a few); without
// a tracker, the tally of the events rendered.
func (m *markdownRenderer) runFacts() runFacts {
	tr := m.o.Tracker
	if tr == nil {
		return runFacts{acc: m.tally.Account(), tally: m.tally, last: m.last}
	}
	last := tr.Outcome().Last
	last.StructuredOutput = nil
	return runFacts{acc: tr.Account(), tally: tr.Tally(), last: last, open: len(tr.OpenCalls())}
}

// perResult is a figure summed over the results, with each result's own
// when there are several: "5 (3 + 1 + 1)".
func perResult(t stream.Tally, total string, each func(stream.ResultFigures) string) string {
	if t.Results < 2 {
		return total
	}
	if len(t.PerResult) < t.Results {
		return total + " (over " + strconv.Itoa(t.Results) + " results)"
	}
	parts := make([]string, len(t.PerResult))
	for i, r := range t.PerResult {
		parts[i] = each(r)
	}
	return total + " (" + strings.Join(parts, " + ") + ")"
}

// toolSummary is "4: Agent 2, Bash 1, Write 1" (most used first), each
// name through esc: markdown escapes it; a page escapes the whole line.
func toolSummary(t stream.ToolAccount, esc func(string) string) string {
	l := slices.Clone(t.ByTool)
	sort.SliceStable(l, func(i, j int) bool { return l[i].Calls > l[j].Calls }) // (by name, as the account lists them)
	parts := make([]string, 0, len(l))
	for _, e := range l {
		parts = append(parts, esc(e.Name)+" "+strconv.Itoa(e.Calls))
	}
	if len(parts) == 0 {
		return strconv.Itoa(t.Calls)
	}
	return strconv.Itoa(t.Calls) + ": " + strings.Join(parts, ", ")
}
