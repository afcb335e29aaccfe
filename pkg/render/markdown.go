package render

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
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
	agentBook
	table bool // the tools preset's table is open
	prose *proseChecker

	// the closing summary: the run's facts from the tracker, or, without
	// one, from the events rendered
	records  bool
	reported bool // a preset's report was written (Summary)
	// said holds the hashes of the main agent's last texts: a result's
	// text that repeats one (the final answer) is not written again.
	said     [16]uint64
	saidN    int
	tally    stream.Tally
	hidden   int
	last     stream.Result // StructuredOutput dropped: it aliases the event
	apiError string        // the error category of an API error that ended the main agent's last turn
}

// outcomeTitle is what a result says happened: its subtype when the run
// did not fail, else "failed (why)": the error subtype, or the terminal
// reason with the last API error's category and HTTP status.
func outcomeTitle(r stream.Result, apiError string) string {
	if !r.IsError {
		return r.Subtype
	}
	var why []string
	switch {
	case r.Subtype != "" && r.Subtype != "success":
		why = append(why, r.Subtype)
	case r.TerminalReason != "":
		why = append(why, r.TerminalReason)
	}
	if apiError != "" && (r.Subtype == "success" || r.Subtype == "error_during_execution" || r.Subtype == "") {
		// The subtype says nothing of why: the API error that ended the
		// last turn does. A subtype that names a reason (max turns,
		// budget) is the reason, whatever error came before it.
		why = append(why, apiError)
	}
	if r.APIErrorStatus != 0 {
		why = append(why, "HTTP "+strconv.Itoa(r.APIErrorStatus))
	}
	if len(why) == 0 {
		return "failed"
	}
	return "failed (" + strings.Join(why, ", ") + ")"
}

const ctxResult = "\x00result"

func newMarkdown(w io.Writer, o Options) *markdownRenderer {
	return &markdownRenderer{out: newOut(w), o: o,
		agentBook: newAgentBook(" — ", o.Tracker),
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
			m.str("# Claude Code run: " + mdInline(m.o.Run) + "\n\n")
		} else {
			m.str("# Claude Code run\n\n")
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

func (m *markdownRenderer) eventSection(ev *stream.Event) {
	ctx := ev.ParentToolUseID()
	if ctx == "" || m.known(ctx) {
		m.section(ctx, "", "")
		return
	}
	m.section(ctx, ev.Str("subagent_type"), ev.Str("task_description"))
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
	s := fenced(info, c)
	if cut != "" {
		s += "\n*" + mdInline(cut) + "*\n"
	}
	m.block(s)
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
	switch ev.Kind {
	case stream.KindInit:
		m.init(ev)
	case stream.KindPrompt, stream.KindSubagentPrompt:
		m.eventSection(ev)
		if p := m.prose.safeProse(ev.Text()); p != "" {
			m.block("**Prompt:**")
			m.block(quote(p))
		}
	case stream.KindSynthetic:
		m.eventSection(ev)
		text := ev.Text()
		l, _ := firstLines(text, 1)
		first := ""
		if len(l) > 0 {
			first = l[0]
		}
		m.details("Synthetic message: "+truncate(line(first), 80), "text", text)
	case stream.KindInterrupt:
		m.eventSection(ev)
		m.callout("Interrupted", ev.Text())
	case stream.KindToolResult:
		m.eventSection(ev)
		m.toolResults(ev, rec.Calls)
	case stream.KindText, stream.KindThinking, stream.KindToolUse, stream.KindAPIError:
		m.assistant(ev)
	case stream.KindRetry:
		m.section("", "", "")
		r := ev.Retry()
		m.callout("Warning", retryText(r.Attempt, r.MaxRetries, r.Error, r.Status, r.DelayMs))
	case stream.KindPermissionDenied:
		m.eventSection(ev)
		s := ev.Str("tool_name")
		if r := ev.Str("decision_reason"); r != "" {
			s += " (" + r + ")"
		}
		m.callout("Permission denied", s+": "+ev.Str("message"))
	case stream.KindHook:
		m.hook(ev)
	case stream.KindTask:
		m.task(ev)
	case stream.KindProgress:
		m.progress(ev)
	case stream.KindCompact:
		m.section("", "", "")
		c := ev.Compaction()
		// A divider: what follows was written from the summary, not from
		// the conversation above.
		m.block("---")
		m.note(fmt.Sprintf("Compacted (%s): %d → %d tokens", c.Trigger, c.PreTokens, c.PostTokens))
	case stream.KindNotice:
		m.notice(ev)
	case stream.KindDelta:
		m.hidden++
	case stream.KindResult:
		m.result(ev)
	case stream.KindInfo:
		m.section("", "", "")
		m.block("*Event:* " + mdCode(typeName(ev)))
	case stream.KindRecord:
		m.hidden++ // a transcript's bookkeeping
	default:
		if ev.Type == "assistant" {
			m.assistant(ev)
			break
		}
		m.eventSection(ev)
		m.block("*Unknown event:* " + mdCode(typeName(ev)))
	}
	return m.err
}

func (m *markdownRenderer) init(ev *stream.Event) {
	in := ev.Init()
	m.start()
	wrote := false
	if m.turn == 0 || m.turnInit {
		if !m.haveInit && m.turn == 0 {
			m.facts(in)
			wrote = true
		}
		m.openTurn()
	}
	m.turnInit = true
	if !wrote {
		if !m.haveInit {
			m.facts(in)
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
	item("Claude Code", mdInline(in.Version))
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

func (m *markdownRenderer) assistant(ev *stream.Event) {
	ctx := ev.ParentToolUseID()
	m.eventSection(ev)
	a := ev.Assistant()
	if ctx == "" {
		// Only an API error that ended the main agent's last turn is a
		// reason for the outcome; one that a later call got past is not.
		m.apiError = ""
		if ev.Kind == stream.KindAPIError {
			m.apiError = a.Error
		}
	}
	if ev.Kind == stream.KindAPIError {
		s := "API error"
		if a.Error != "" {
			s += ": " + a.Error
		}
		if a.APIErrorStatus != 0 {
			s += " (" + strconv.Itoa(a.APIErrorStatus) + ")"
		}
		if t := ev.Text(); t != "" {
			s += ": " + t
		}
		m.callout("Error", s)
		return
	}
	for _, b := range a.Blocks {
		switch b.Type {
		case "text":
			m.block(m.prose.safeProse(b.Text))
			if ctx == "" {
				m.said[m.saidN%len(m.said)] = textHash(b.Text)
				m.saidN++
			}
		case "thinking", "redacted_thinking":
			if strings.TrimSpace(b.Thinking) == "" {
				m.note("Thinking (no text)")
				break
			}
			m.details("Thinking ("+plural(countLines(b.Thinking), "line")+")", "text", b.Thinking)
		case "tool_use", "server_tool_use", "mcp_tool_use":
			m.toolUse(ctx, b)
		default:
			m.block("*Unknown block:* " + mdCode(b.Type))
		}
	}
	if a.Aborted {
		m.callout("Warning", "the response was cut off (interrupted)")
	}
}

func (m *markdownRenderer) toolUse(ctx string, b stream.Block) {
	target := ToolTarget(b.Name, b.Input)
	in := jsonx.Value(b.Input)
	title := "**→ " + mdInline(b.Name) + "**"
	if b.Name == "Bash" && in.Get("command").Type() == jsonx.String {
		if d := in.Get("description").Str(); d != "" {
			title += " — " + mdInline(d)
		}
		m.block(title)
		m.code("bash", in.Get("command").Str())
	} else {
		if target != "" {
			title += " " + mdCode(truncate(line(target), m.o.Width))
		}
		m.block(title)
		pretty, err := reindent(b.Input, "  ")
		if err != nil || len(b.Input) == 0 {
			pretty = b.Input
		}
		m.code("json", string(jsonSafe(pretty)))
	}
	if isAgentTool(b.Name) {
		m.spawned(b.ID, ctx, b.Name, target)
	}
}

func (m *markdownRenderer) toolResults(ev *stream.Event, calls []*stream.ToolCall) {
	for _, r := range ev.ToolResults() {
		c := findCall(calls, r.ToolUseID)
		text := m.o.shownText(r, 4*mdBlockBytes)
		name, size := "Tool", len(text)
		if c != nil {
			name, size = c.Name, c.ResultBytes
		}
		stats := plural(countLines(text), "line") + ", " + fmtBytes(size)
		if d, ok := durationOf(c); ok {
			stats += ", " + fmtDuration(d)
		}
		if c != nil && isAgentTool(c.Name) {
			text = stream.HandBackReport(text)
		}
		summary := "✓ " + name + " result: " + stats
		if r.IsError {
			summary = "✗ " + name + " error: " + stats
			first := ""
			if l, _ := firstLines(text, 1); len(l) > 0 {
				first = ": " + l[0]
			}
			m.callout("Error", name+" failed"+first)
		}
		m.details(summary, "text", text)
	}
}

func (m *markdownRenderer) hook(ev *stream.Event) {
	name := ev.Str("hook_name")
	if ev.Subtype != "hook_response" {
		m.hidden++
		return
	}
	m.section("", "", "")
	out := ev.Str("output")
	switch outcome := ev.Str("outcome"); outcome {
	case "success", "":
		m.note("Hook " + name + ": ok")
	case "error":
		s := "hook " + name + " failed"
		if ev.Has("exit_code") {
			s += " (exit " + strconv.FormatInt(ev.Int("exit_code"), 10) + ")"
		}
		if e := ev.Str("stderr"); e != "" {
			out = e
		}
		if l, _ := firstLines(out, 1); len(l) > 0 {
			s += ": " + l[0]
		}
		m.callout("Error", s)
	default:
		m.callout("Warning", "hook "+name+" "+outcome)
	}
}

func (m *markdownRenderer) task(ev *stream.Event) {
	task := ev.Task()
	if ev.Subtype == "background_tasks_changed" {
		// The list of what runs in the background repeats the task
		// notes; placed in the main agent's part, each made a heading
		// of its own between the subagents' sections.
		m.hidden++
		return
	}
	ctx, desc := m.taskAgent(task)
	m.section(ctx, task.SubagentType, desc)
	switch ev.Subtype {
	case "task_started":
		s := "Task started: " + task.TaskType
		if task.SubagentType != "" {
			s += " " + task.SubagentType
		}
		s += " — " + desc
		if task.IsBackgrounded {
			s += " (background)"
		}
		m.note(s)
	case "task_updated":
		s := "Task updated: " + desc
		if task.Status != "" {
			s += ": " + task.Status
		}
		if task.Error != "" {
			m.callout("Error", s+": "+task.Error)
			return
		}
		m.note(s)
	case "task_notification":
		// A subagent's summary is its report, which its Agent result or its
		// forwarded text shows; other tasks' summaries say how they ended.
		s := "Task " + task.Status + ": " + desc
		if l, _ := firstLines(task.Summary, 1); ctx == "" && len(l) > 0 {
			s = "Task " + task.Status + ": " + l[0]
		}
		if task.HasUsage {
			if u := taskStats(task.Usage); u != "" {
				s += " (" + u + ")"
			}
		}
		switch task.Status {
		case "failed", "killed", "stopped":
			m.callout("Error", s)
		default:
			m.block("**" + mdInline(s) + "**")
		}
	default:
		m.note("Task " + ev.Subtype + ": " + desc)
	}
}

func (m *markdownRenderer) progress(ev *stream.Event) {
	switch {
	case ev.Subtype == "task_progress":
		task := ev.Task()
		activity := task.Description
		task.Description = "" // task_progress describes the current activity, not the task
		ctx, desc := m.taskAgent(task)
		m.section(ctx, task.SubagentType, desc)
		task.Description = activity
		s := "Progress: " + task.Description
		if u := taskStats(task.Usage); u != "" {
			s += " (" + u + ")"
		}
		m.note(s)
	case ev.Type == "tool_progress" && jsonx.Value(ev.Get("subagent_retry")).Type() == jsonx.Object:
		r := jsonx.Value(ev.Get("subagent_retry"))
		m.eventSection(ev)
		m.callout("Warning", retryText(r.Get("attempt").Int(), r.Get("max_retries").Int(), "subagent "+r.Get("error_category").Str(), r.Get("error_status").Int(), r.Get("retry_delay_ms").Int()))
	case ev.Subtype == "status" && ev.Str("compact_error") != "":
		m.section("", "", "")
		m.callout("Error", "compaction failed: "+ev.Str("compact_error"))
	default:
		m.hidden++
	}
}

func (m *markdownRenderer) notice(ev *stream.Event) {
	m.section("", "", "")
	content := ev.Str("content")
	switch ev.Subtype {
	case "informational":
		if ev.Str("level") == "warning" {
			m.callout("Warning", content)
		} else {
			m.callout("Note", content)
		}
	case "model_fallback":
		s := fmt.Sprintf("model fallback: %s → %s", ev.Str("original_model"), ev.Str("fallback_model"))
		if tr := ev.Str("trigger"); tr != "" {
			s += " (" + tr + ")"
		}
		m.callout("Warning", s)
	case "model_refusal_fallback", "model_refusal_no_fallback":
		m.callout("Warning", "refusal: "+content)
	case "notification":
		m.callout("Note", ev.Str("text"))
	case "local_command_output", "local_command":
		m.block(m.prose.safeProse(content))
	default:
		m.callout("Note", ev.Subtype+": "+content)
	}
}

// wasSaid reports whether the main agent's text s was written lately.
func (m *markdownRenderer) wasSaid(s string) bool {
	h := textHash(s)
	for i := range min(m.saidN, len(m.said)) {
		if m.said[i] == h {
			return true
		}
	}
	return false
}

func (m *markdownRenderer) result(ev *stream.Event) {
	r := ev.Result()
	structured := r.StructuredOutput
	r.StructuredOutput = nil
	if len(r.ModelUsage) > mdMaxModels {
		r.ModelUsage = r.ModelUsage[:mdMaxModels]
	}
	m.last = r
	if m.ctx != ctxResult {
		m.section("", "", "")
	}
	status := "✓ ok"
	if r.IsError {
		status = "✗ failed"
	}
	detail := r.Subtype
	if r.TerminalReason != "" {
		detail += ", " + r.TerminalReason
	}
	title := "Result: " + outcomeTitle(r, m.apiError)
	if r.ResultIndex > 0 {
		title += " (result " + strconv.FormatInt(r.ResultIndex, 10) + ")"
	}
	m.heading(3, title)
	m.ctx = ctxResult
	var b strings.Builder
	b.WriteString("- **Status:** " + mdInline(status+" ("+detail+")") + "\n")
	b.WriteString("- **Turns:** " + strconv.FormatInt(r.NumTurns, 10) + "\n")
	b.WriteString("- **Duration:** " + fmtMs(r.DurationMs))
	if r.DurationAPIMs > 0 {
		b.WriteString(" (API " + fmtMs(r.DurationAPIMs) + ")")
	}
	b.WriteString("\n- **Cost:** " + mdInline(r.CostLabel()) + "\n")
	if r.PermissionDenials > 0 {
		b.WriteString("- **Permission denials:** " + strconv.Itoa(r.PermissionDenials) + "\n")
	}
	m.block(b.String())
	for _, e := range r.Errors {
		m.callout("Error", e)
	}
	switch {
	case r.IsError && r.Text != "":
		m.callout("Error", r.Text)
	case r.Text != "" && !m.wasSaid(r.Text):
		m.block(m.prose.safeProse(r.Text))
	}
	if len(structured) > 0 && string(structured) != "null" {
		m.block("**Structured output:**")
		pretty, err := reindent(structured, "  ")
		if err != nil {
			pretty = structured
		}
		m.code("json", string(jsonSafe(pretty)))
	}
}

// callRow writes a tools-preset record as a row of the calls table.
func (m *markdownRenderer) callRow(c *stream.ToolCall) {
	m.start()
	if !m.table {
		m.str("| Line | Agent | Tool | Target | Status | Duration | Result |\n|---:|---|---|---|---|---:|---:|\n")
		m.table = true
	}
	status, dur, size := "✓ ok", "", ""
	switch {
	case !c.Done:
		status = "○ no result"
	case c.IsError:
		status = "✗ error"
	}
	if d, ok := durationOf(c); ok {
		dur = fmtDuration(d)
	}
	if c.Done {
		size = fmtBytes(c.ResultBytes)
	}
	m.str("| " + strconv.FormatInt(c.Line, 10) + " | " + mdInline(c.AgentLabel()) + " | " + mdInline(c.Name) + " | " +
		mdCode(truncate(line(ToolTarget(c.Name, c.Input)), 60)) + " | " + status + " | " + dur + " | " + size + " |\n")
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
		st := "✓ ok"
		if r.IsError {
			st = "✗ failed"
		}
		detail := r.Subtype
		if r.TerminalReason != "" {
			detail += ", " + r.TerminalReason
		}
		add("Result", mdInline(st+" ("+detail+")"))
		if n := f.tally.Results; n > 1 {
			add("Results", strconv.Itoa(n)+" (the last one decides the outcome)")
		}
		add("Turns", perResult(f.tally, i64(f.tally.Turns), func(r stream.ResultFigures) string { return i64(r.Turns) }))
		add("Duration", perResult(f.tally, fmtMs(f.tally.DurationMs), func(r stream.ResultFigures) string { return fmtMs(r.DurationMs) }))
		add("Cost", mdInline(r.CostLabel()))
		for _, u := range r.ModelUsage {
			add("Tokens: "+mdInline(u.Model), fmt.Sprintf("%d in, %d out, %d cache read, %d cache write", u.InputTokens, u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens))
		}
	}
	t := f.tally
	add("Tool calls", toolSummary(t))
	add("Tool errors", strconv.Itoa(t.ToolErrors))
	errs := t.ToolErrors + t.APIErrors + t.HookFailures
	if t.Results > 0 && f.last.IsError {
		errs++
	}
	add("Errors", strconv.Itoa(errs))
	if t.APIErrors > 0 {
		add("API errors", strconv.Itoa(t.APIErrors))
	}
	if t.Retries > 0 {
		add("Retries", strconv.Itoa(t.Retries))
	}
	if t.Denials > 0 {
		add("Permission denials", strconv.Itoa(t.Denials))
	}
	if t.HookFailures > 0 {
		add("Hook failures", strconv.Itoa(t.HookFailures))
	}
	if t.Interrupts > 0 {
		add("Interrupts", strconv.Itoa(t.Interrupts))
	}
	waiting := strconv.Itoa(max(len(open), f.open))
	if tr := m.o.Tracker; tr != nil && tr.Stats().EvictedCalls > 0 {
		// The report's own numbers must add up: say the ones not listed.
		waiting += fmt.Sprintf(" listed, and %d more forgotten while waiting (at most %d are kept)", tr.Stats().EvictedCalls, tr.Limits().MaxOpenCalls)
	}
	add("Calls without a result", waiting)
	if m.hidden > 0 {
		add("Events not shown", strconv.Itoa(m.hidden)+" (progress, hook starts, partial-message deltas)")
	}
	m.mdTable([]string{"Item", "Value"}, "ll", rows)
	if len(open) > 0 {
		var b strings.Builder
		b.WriteString("Calls that never got a result:\n\n")
		for _, c := range open {
			b.WriteString("- " + mdInline(c.Name) + " " + mdCode(truncate(line(ToolTarget(c.Name, c.Input)), m.o.Width)) + " (line " + i64(c.Line) + ", " + mdInline(c.AgentLabel()) + ")\n")
		}
		m.block(b.String())
	}
	return m.Flush()
}

// runFacts are what the closing summary states about the run.
type runFacts struct {
	tally stream.Tally
	last  stream.Result
	open  int // calls without a result
}

// runFacts are the run's: the tracker's, which saw every event, whatever the
// report shows of them (text and errors show a few); without a tracker,
// those of the events rendered.
func (m *markdownRenderer) runFacts() runFacts {
	tr := m.o.Tracker
	if tr == nil {
		return runFacts{tally: m.tally, last: m.last}
	}
	last := tr.Outcome().Last
	last.StructuredOutput = nil
	if len(last.ModelUsage) > mdMaxModels {
		last.ModelUsage = last.ModelUsage[:mdMaxModels]
	}
	return runFacts{tally: tr.Tally(), last: last, open: len(tr.OpenCalls())}
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

// toolSummary is "4: Agent 2, Bash 1, Write 1" (most used first).
func toolSummary(t stream.Tally) string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range t.Tools {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].v != l[j].v {
			return l[i].v > l[j].v
		}
		return l[i].k < l[j].k
	})
	parts := make([]string, 0, len(l)+1)
	for _, e := range l {
		parts = append(parts, mdInline(e.k)+" "+strconv.Itoa(e.v))
	}
	if t.OtherTools > 0 {
		parts = append(parts, "others "+strconv.Itoa(t.OtherTools))
	}
	if len(parts) == 0 {
		return strconv.Itoa(t.ToolCalls)
	}
	return strconv.Itoa(t.ToolCalls) + ": " + strings.Join(parts, ", ")
}
