package render

import (
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ANSI styles (SGR parameters); only written when Options.Color is set.
const (
	stBold   = "1"
	stDim    = "2"
	stRed    = "31"
	stGreen  = "32"
	stYellow = "33"
	stCyan   = "36"
)

// seg is a piece of a one-line summary: sanitized text and its style.
type seg struct{ st, s string }

// textRenderer writes the stream for a person at a terminal: one line per
// tool call, result, notice or state change, assistant text as is, and
// subagent events indented under the Agent call that started them. Every
// string from the stream is sanitized; one-line summaries are truncated to
// Options.Width columns.
type textRenderer struct {
	out
	o Options
	agentBook
	// ctx is the subagent (its Agent call id) of the last line written, ""
	// for the main agent; lastCall is the Agent call written last, when it
	// was the last line (its subagent's first events need no header).
	ctx, lastCall string
	recent        [8]uint64 // hashes of recent main-agent texts, not to repeat them with the result
	nrecent       int
	callsSeen     bool
}

func newText(w io.Writer, o Options) *textRenderer {
	t := &textRenderer{out: newOut(w), o: o, agentBook: newAgentBook(": ", o.Tracker)}
	if o.Run != "" {
		// As head and tail name each of several files.
		t.str(t.paint(stBold, "==> "+line(o.Run)+" <==") + "\n")
	}
	return t
}

func (t *textRenderer) paint(st, s string) string {
	if !t.o.Color || st == "" || s == "" {
		return s
	}
	return "\x1b[" + st + "m" + s + "\x1b[0m"
}

// emit writes one line at indent: the segments, cut to the width so that
// the last keep segments (sizes, durations) stay whole.
func (t *textRenderer) emit(indent int, segs []seg, keep int) {
	avail := t.o.Width - indent
	if avail < 20 {
		avail = 20
	}
	tail := 0
	for _, s := range segs[len(segs)-keep:] {
		tail += displayWidth(s.s)
	}
	head := avail - tail
	t.str(strings.Repeat(" ", indent))
	for _, s := range segs[:len(segs)-keep] {
		w := displayWidth(s.s)
		if w <= head {
			t.str(t.paint(s.st, s.s))
			head -= w
			continue
		}
		t.str(t.paint(s.st, truncate(s.s, head)))
		break
	}
	for _, s := range segs[len(segs)-keep:] {
		t.str(t.paint(s.st, s.s))
	}
	t.byte('\n')
	t.lastCall = ""
}

// simple writes a one-line summary: a mark and a text.
func (t *textRenderer) simple(indent int, st, mark, text string) {
	t.emit(indent, []seg{{st, mark + " "}, {st, text}}, 0)
}

// prose writes multi-line text as is (sanitized, tabs and newlines kept),
// the first line after prefix and the others aligned under it.
func (t *textRenderer) prose(indent int, prefix, text, st string) {
	text = strings.Trim(Sanitize(text, true), "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	pad := strings.Repeat(" ", indent)
	cont := pad + strings.Repeat(" ", displayWidth(prefix))
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t")
		switch {
		case i == 0:
			t.str(pad + t.paint(st, prefix+l))
		case l == "":
		default:
			t.str(cont + t.paint(st, l))
		}
		t.byte('\n')
	}
	t.lastCall = ""
}

// enter switches to the subagent ctx ("" for the main agent) and returns
// the indentation of its lines. A subagent's lines get a header when the
// previous line was someone else's, unless that line was the call that
// started it.
func (t *textRenderer) enter(ctx, typ, desc string) int {
	if ctx == "" {
		t.ctx = ""
		return 0
	}
	a := t.lookup(ctx, typ, desc)
	ind := 2 * a.depth
	if t.ctx != ctx {
		first := t.lastCall == ctx
		t.ctx = ctx
		if !first {
			t.emit(ind, []seg{{stCyan, "▸ "}, {stCyan, line(a.label)}}, 0)
		}
	}
	return ind
}

func (t *textRenderer) eventCtx(ev *stream.Event) int {
	ctx := ev.ParentToolUseID()
	if ctx == "" {
		return t.enter("", "", "")
	}
	if t.known(ctx) {
		return t.enter(ctx, "", "")
	}
	return t.enter(ctx, ev.Str("subagent_type"), ev.Str("task_description"))
}

func textHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(s)))
	return h.Sum64()
}

func (t *textRenderer) remember(s string) {
	t.recent[t.nrecent%len(t.recent)] = textHash(s)
	t.nrecent++
}

func (t *textRenderer) seen(s string) bool {
	h := textHash(s)
	for _, r := range t.recent {
		if r == h {
			return true
		}
	}
	return false
}

func (t *textRenderer) Render(rec Record) error {
	if len(rec.Rows) > 0 {
		return errNoRows{}
	}
	ev := rec.Event
	if ev == nil {
		t.callsSeen = true
		for _, c := range rec.Calls {
			t.callLine(c)
		}
		return t.err
	}
	switch ev.Kind {
	case stream.KindInit:
		t.init(ev)
	case stream.KindPrompt, stream.KindSubagentPrompt:
		ind := t.eventCtx(ev)
		t.prose(ind, "» ", ev.Text(), stBold)
	case stream.KindSynthetic:
		ind := t.eventCtx(ev)
		text := ev.Text()
		l, _ := firstLines(text, 1)
		first := ""
		if len(l) > 0 {
			first = l[0]
		}
		t.emit(ind, []seg{{stDim, "· synthetic: "}, {stDim, line(first)}, {stDim, "  (" + plural(countLines(text), "line") + ")"}}, 1)
	case stream.KindInterrupt:
		ind := t.eventCtx(ev)
		t.simple(ind, stYellow, "!", line(ev.Text()))
	case stream.KindToolResult:
		t.results(ev, rec.Calls)
	case stream.KindText, stream.KindThinking, stream.KindToolUse, stream.KindAPIError:
		t.assistant(ev)
	case stream.KindRetry:
		r := ev.Retry()
		t.retry(0, r.Attempt, r.MaxRetries, r.Error, r.Status, r.DelayMs)
	case stream.KindPermissionDenied:
		t.denied(ev)
	case stream.KindHook:
		t.hook(ev)
	case stream.KindTask:
		t.task(ev)
	case stream.KindProgress:
		t.progress(ev)
	case stream.KindCompact:
		c := ev.Compaction()
		t.enter("", "", "")
		s := fmt.Sprintf("compacted (%s)  %d → %d tokens", c.Trigger, c.PreTokens, c.PostTokens)
		if c.HasDuration {
			s += ", " + fmtMs(c.DurationMs)
		}
		t.simple(0, stCyan, "◇", line(s))
	case stream.KindNotice:
		t.notice(ev)
	case stream.KindDelta:
		t.delta(ev)
	case stream.KindResult:
		t.result(ev)
	case stream.KindInfo:
		t.enter("", "", "")
		t.simple(0, stDim, "·", line(typeName(ev)))
	case stream.KindRecord:
		// A transcript's bookkeeping: nothing a reader of the run follows.
	default:
		if ev.Type == "assistant" {
			t.assistant(ev)
			break
		}
		ind := t.eventCtx(ev)
		t.simple(ind, stDim, "?", line(typeName(ev)))
	}
	return t.err
}

// typeName is "type/subtype", or "type".
func typeName(ev *stream.Event) string {
	if ev.Subtype == "" {
		return ev.Type
	}
	return ev.Type + "/" + ev.Subtype
}

func (t *textRenderer) init(ev *stream.Event) {
	in := ev.Init()
	t.enter("", "", "")
	parts := []string{in.Model, "claude-code " + in.Version, in.CWD, in.PermissionMode}
	if len(in.MCPServers) > 0 {
		parts = append(parts, "mcp: "+strings.Join(in.MCPServers, ", "))
	}
	for i := 0; i < len(parts); i++ {
		if parts[i] == "" || parts[i] == "claude-code " {
			parts = append(parts[:i], parts[i+1:]...)
			i--
		}
	}
	t.emit(0, []seg{{stCyan, "◆ "}, {stBold, line(strings.Join(parts, " · "))}}, 0)
}

func (t *textRenderer) assistant(ev *stream.Event) {
	ctx := ev.ParentToolUseID()
	ind := t.eventCtx(ev)
	a := ev.Assistant()
	if ev.Kind == stream.KindAPIError {
		msg := ev.Text()
		s := "API error"
		if a.Error != "" {
			s += ": " + a.Error
		}
		if a.APIErrorStatus != 0 {
			s += " (" + strconv.Itoa(a.APIErrorStatus) + ")"
		}
		if msg != "" {
			s += ": " + msg
			t.remember(msg)
		}
		t.simple(ind, stRed, "✗", line(s))
		return
	}
	for _, b := range a.Blocks {
		switch b.Type {
		case "text":
			t.prose(ind, "", b.Text, "")
			if ctx == "" {
				t.remember(b.Text)
			}
		case "thinking", "redacted_thinking":
			l, more := firstLines(b.Thinking, 1)
			if len(l) == 0 {
				t.simple(ind, stDim, "∴", "thinking")
				break
			}
			segs := []seg{{stDim, "∴ "}, {stDim, line(l[0])}}
			if more > 0 {
				segs = append(segs, seg{stDim, "  (" + plural(int64(more+1), "line") + ")"})
				t.emit(ind, segs, 1)
			} else {
				t.emit(ind, segs, 0)
			}
		case "tool_use", "server_tool_use", "mcp_tool_use":
			t.emit(ind, []seg{{stCyan, "→ "}, {stBold, line(b.Name)}, {"", "  " + line(ToolTarget(b.Name, b.Input))}}, 0)
			if isAgentTool(b.Name) {
				t.spawned(b.ID, ctx, b.Name, ToolTarget(b.Name, b.Input))
				t.lastCall = b.ID
			}
		default:
			t.simple(ind, stDim, "?", line("assistant/"+b.Type))
		}
	}
	if a.Aborted {
		t.simple(ind, stYellow, "!", "aborted: the response was cut off")
	}
}

func findCall(calls []*stream.ToolCall, id string) *stream.ToolCall {
	for _, c := range calls {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// expandTabs replaces tabs for one-line previews.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\t", "    ")
}

func (t *textRenderer) results(ev *stream.Event, calls []*stream.ToolCall) {
	ind := t.eventCtx(ev)
	for _, r := range ev.ToolResults() {
		c := findCall(calls, r.ToolUseID)
		text := t.o.shownText(r, 64<<10)
		name, target, size := "result", r.ToolUseID, len(text)
		if c != nil {
			name, target, size = c.Name, ToolTarget(c.Name, c.Input), c.ResultBytes
		}
		stats := plural(countLines(text), "line") + ", " + fmtBytes(size)
		if d, ok := durationOf(c); ok {
			stats += ", " + fmtDuration(d)
		}
		mark, st := "✓ ", stGreen
		if r.IsError {
			mark, st = "✗ ", stRed
		}
		t.emit(ind, []seg{{st, mark}, {stBold, line(name)}, {"", "  " + line(target)}, {stDim, "  (" + stats + ")"}}, 1)
		if c != nil && isAgentTool(c.Name) {
			text = stream.HandBackReport(text)
		}
		lines, more := firstLines(text, 3)
		for _, l := range lines {
			t.emit(ind+2, []seg{{stDim, "│ "}, {"", line(expandTabs(l))}}, 0)
		}
		if more > 0 {
			t.emit(ind+2, []seg{{stDim, "│ … " + plural(int64(more), "more line")}}, 0)
		}
	}
}

// callLine is the tools preset's line for a call: mark, agent, tool,
// target, and the duration and result size.
func (t *textRenderer) callLine(c *stream.ToolCall) {
	mark, st, stats := "✓ ", stGreen, ""
	switch {
	case !c.Done:
		mark, st, stats = "○ ", stYellow, "no result"
	case c.IsError:
		mark, st = "✗ ", stRed
	}
	if c.Done {
		if d, ok := durationOf(c); ok {
			stats = fmtDuration(d) + ", "
		}
		stats += fmtBytes(c.ResultBytes)
	}
	t.emit(0, []seg{{st, mark}, {stDim, line(c.AgentLabel()) + "  "}, {stBold, line(c.Name)}, {"", "  " + line(ToolTarget(c.Name, c.Input))}, {stDim, "  (" + stats + ")"}}, 1)
}

func (t *textRenderer) retry(ind int, attempt, max int64, errName string, status, delayMs int64) {
	t.simple(ind, stYellow, "!", line(retryText(attempt, max, errName, status, delayMs)))
}

func (t *textRenderer) denied(ev *stream.Event) {
	ind := t.eventCtx(ev)
	s := "permission denied: " + ev.Str("tool_name")
	if r := ev.Str("decision_reason"); r != "" {
		s += " (" + r + ")"
	}
	if m := ev.Str("message"); m != "" {
		s += ": " + m
	}
	t.simple(ind, stRed, "✗", line(s))
}

func (t *textRenderer) hook(ev *stream.Event) {
	t.enter("", "", "")
	name := ev.Str("hook_name")
	switch ev.Subtype {
	case "hook_started":
		t.simple(0, stDim, "·", line("hook "+name+" started"))
	case "hook_progress":
		t.simple(0, stDim, "·", line("hook "+name+" running"))
	case "stop_hook_summary": // a transcript's Stop hooks
		var cmds, errs []string
		jsonx.Value(ev.Get("hookInfos")).Each(func(_ int, h jsonx.Value) bool {
			cmds = append(cmds, h.Get("command").Str())
			return true
		})
		jsonx.Value(ev.Get("hookErrors")).Each(func(_ int, e jsonx.Value) bool {
			errs = append(errs, e.Str())
			return true
		})
		s := "stop hooks ran: " + strings.Join(cmds, "; ")
		if len(errs) > 0 {
			t.simple(0, stRed, "✗", line(s+": "+strings.Join(errs, "; ")))
			return
		}
		t.simple(0, stDim, "·", line(s))
	default:
		first := func(s string) string {
			l, _ := firstLines(s, 1)
			if len(l) == 0 {
				return ""
			}
			return ": " + l[0]
		}
		switch outcome := ev.Str("outcome"); outcome {
		case "success", "":
			t.simple(0, stDim, "·", line("hook "+name+" ok"+first(ev.Str("output"))))
		case "error":
			s := "hook " + name + " failed"
			if ev.Has("exit_code") {
				s += " (exit " + strconv.FormatInt(ev.Int("exit_code"), 10) + ")"
			}
			out := ev.Str("stderr")
			if out == "" {
				out = ev.Str("output")
			}
			t.simple(0, stRed, "✗", line(s+first(out)))
		default:
			t.simple(0, stYellow, "!", line("hook "+name+" "+outcome+first(ev.Str("output"))))
		}
	}
}

func taskStats(u stream.TaskUsage) string {
	var p []string
	if u.ToolUses > 0 {
		p = append(p, plural(u.ToolUses, "tool use"))
	}
	if u.TotalTokens > 0 {
		p = append(p, plural(u.TotalTokens, "token"))
	}
	if u.DurationMs > 0 {
		p = append(p, fmtMs(u.DurationMs))
	}
	return strings.Join(p, ", ")
}

func (t *textRenderer) task(ev *stream.Event) {
	task := ev.Task()
	if ev.Subtype == "background_tasks_changed" {
		t.enter("", "", "")
		var descs []string
		jsonx.Value(ev.Get("tasks")).Each(func(_ int, v jsonx.Value) bool {
			descs = append(descs, v.Get("description").Str())
			return true
		})
		s := "background tasks: none"
		if len(descs) > 0 {
			s = "background tasks: " + strings.Join(descs, ", ")
		}
		t.simple(0, stDim, "◇", line(s))
		return
	}
	ctx, desc := t.taskAgent(task)
	ind := t.enter(ctx, task.SubagentType, desc)
	switch ev.Subtype {
	case "task_started":
		s := "task started  " + task.TaskType
		if task.SubagentType != "" {
			s += " " + task.SubagentType
		}
		s += ": " + desc
		if task.IsBackgrounded {
			s += " (background)"
		}
		t.simple(ind, stDim, "◇", line(s))
	case "task_updated":
		s := "task updated  " + desc
		if task.Status != "" {
			s += ": " + task.Status
		}
		st := stDim
		if task.Error != "" {
			s += ": " + task.Error
			st = stRed
		}
		t.simple(ind, st, "◇", line(s))
	case "task_notification":
		st, mark := "", "◇"
		switch task.Status {
		case "failed", "killed", "stopped":
			st, mark = stRed, "✗"
		}
		// A subagent's summary is its report, which its forwarded text
		// or its Agent result shows; other tasks' summaries say how they
		// ended ("… completed (exit code 0)").
		s := "task " + task.Status + "  " + desc
		if l, _ := firstLines(task.Summary, 1); ctx == "" && len(l) > 0 {
			s = "task " + task.Status + "  " + l[0]
		}
		segs := []seg{{st, mark + " "}, {st, line(s)}}
		if task.HasUsage {
			if u := taskStats(task.Usage); u != "" {
				segs = append(segs, seg{stDim, "  (" + u + ")"})
				t.emit(ind, segs, 1)
				return
			}
		}
		t.emit(ind, segs, 0)
	default:
		t.simple(ind, stDim, "◇", line("task "+ev.Subtype+"  "+desc))
	}
}

func (t *textRenderer) progress(ev *stream.Event) {
	switch {
	case ev.Subtype == "task_progress":
		task := ev.Task()
		activity := task.Description
		task.Description = "" // task_progress describes the current activity, not the task
		ctx, desc := t.taskAgent(task)
		ind := t.enter(ctx, task.SubagentType, desc)
		task.Description = activity
		s := "progress  " + task.Description
		if sum := ev.Str("summary"); sum != "" && sum != desc && sum != task.Description {
			s += ": " + sum
		}
		segs := []seg{{stDim, "◇ "}, {stDim, line(s)}}
		if u := taskStats(task.Usage); u != "" {
			segs = append(segs, seg{stDim, "  (" + u + ")"})
			t.emit(ind, segs, 1)
			return
		}
		t.emit(ind, segs, 0)
	case ev.Subtype == "thinking_tokens":
		t.enter("", "", "")
		t.simple(0, stDim, "·", "thinking ~"+plural(ev.Int("estimated_tokens"), "token"))
	case ev.Subtype == "status":
		t.enter("", "", "")
		switch {
		case ev.Str("compact_error") != "":
			t.simple(0, stRed, "✗", line("compaction failed: "+ev.Str("compact_error")))
		case ev.Str("status") != "":
			t.simple(0, stDim, "·", line("status "+ev.Str("status")))
		case ev.Str("compact_result") != "":
			t.simple(0, stDim, "·", line("compaction "+ev.Str("compact_result")))
		default:
			t.simple(0, stDim, "·", "status cleared")
		}
	case ev.Type == "tool_progress":
		ind := t.eventCtx(ev)
		if r := jsonx.Value(ev.Get("subagent_retry")); r.Type() == jsonx.Object {
			errName := r.Get("error_category").Str()
			t.retry(ind, r.Get("attempt").Int(), r.Get("max_retries").Int(), "subagent "+errName, r.Get("error_status").Int(), r.Get("retry_delay_ms").Int())
			return
		}
		secs := jsonx.Value(ev.Get("elapsed_time_seconds")).Float()
		t.simple(ind, stDim, "·", line(fmt.Sprintf("%s running %.0fs", ev.Str("tool_name"), secs)))
	default:
		t.enter("", "", "")
		t.simple(0, stDim, "·", line(typeName(ev)))
	}
}

func (t *textRenderer) notice(ev *stream.Event) {
	t.enter("", "", "")
	content := ev.Str("content")
	switch ev.Subtype {
	case "informational":
		mark, st := "i", ""
		if lv := ev.Str("level"); lv == "warning" {
			mark, st = "!", stYellow
		}
		t.simple(0, st, mark, line(content))
	case "model_fallback":
		s := fmt.Sprintf("model fallback: %s → %s", ev.Str("original_model"), ev.Str("fallback_model"))
		if tr := ev.Str("trigger"); tr != "" {
			s += " (" + tr + ")"
		}
		t.simple(0, stYellow, "!", line(s))
	case "model_refusal_fallback", "model_refusal_no_fallback":
		t.simple(0, stYellow, "!", line("refusal: "+content))
	case "notification":
		t.simple(0, "", "i", line("notification: "+ev.Str("text")))
	case "local_command_output", "local_command":
		t.prose(0, "", content, "")
	default:
		t.simple(0, "", "i", line(ev.Subtype+": "+content))
	}
}

func (t *textRenderer) delta(ev *stream.Event) {
	t.enter("", "", "")
	d := ev.Delta()
	s := d.EventType
	idx := strconv.FormatInt(d.Index, 10)
	switch d.EventType {
	case "content_block_start":
		s = "block " + idx + " start " + d.BlockType
	case "content_block_delta":
		s = "block " + idx + " " + d.DeltaType
		if d.Text != "" {
			s += " " + strconv.Quote(d.Text)
		}
	case "content_block_stop":
		s = "block " + idx + " stop"
	case "message_start":
		s += " " + d.MessageID
	case "message_delta":
		var p []string
		if sr := jsonx.Value(ev.Get("event", "delta", "stop_reason")).Str(); sr != "" {
			p = append(p, sr)
		}
		if n := jsonx.Value(ev.Get("event", "usage", "output_tokens")); n.Exists() {
			p = append(p, plural(n.Int(), "output token"))
		}
		if len(p) > 0 {
			s += " " + strings.Join(p, ", ")
		}
	case "message_stop":
		if ev.Has("abandoned_blocks") {
			s += " (abandoned blocks)"
		}
	}
	t.simple(0, stDim, "~", line(s))
}

func (t *textRenderer) result(ev *stream.Event) {
	r := ev.Result()
	t.enter("", "", "")
	if !r.IsError && r.Text != "" && !t.seen(r.Text) {
		t.prose(0, "", r.Text, "")
	}
	mark, st, word := "✓", stGreen, "ok"
	if r.IsError {
		mark, st, word = "✗", stRed, "failed"
	}
	detail := r.Subtype
	if r.TerminalReason != "" {
		detail += ", " + r.TerminalReason
	}
	parts := []string{"run " + word + " (" + detail + ")"}
	if r.ResultIndex > 0 {
		parts = append(parts, "result "+strconv.FormatInt(r.ResultIndex, 10))
	}
	parts = append(parts, plural(r.NumTurns, "turn"), fmtMs(r.DurationMs), r.CostLabel())
	if r.PermissionDenials > 0 {
		parts = append(parts, plural(int64(r.PermissionDenials), "permission denial"))
	}
	t.simple(0, st, mark, line(strings.Join(parts, " · ")))
	if r.IsError {
		msgs := r.Errors
		if r.Text != "" && !t.seen(r.Text) {
			msgs = append(msgs, r.Text)
		}
		for _, m := range msgs {
			t.emit(2, []seg{{stRed, line(m)}}, 0)
		}
	}
}

func (t *textRenderer) Value(v any) error {
	if s, ok := v.(string); ok && (t.o.Raw || t.o.Join) {
		t.str(Sanitize(s, true))
	} else {
		b, err := encodeValue(v, t.o.Indent, t.o.Compact)
		if err != nil {
			return err
		}
		t.bytes(jsonSafe(b))
	}
	if !t.o.Join {
		t.byte('\n')
	}
	return t.err
}

func (t *textRenderer) Summary(r *Report) error {
	if r.Trouble != "" {
		t.simple(0, stRed, "✗", line(r.Trouble))
		return t.err
	}
	for _, b := range r.Blocks {
		if !b.shows(Text) {
			continue
		}
		switch {
		case b.Table != nil:
			t.table(b.Table.lines(Text))
		case b.Entry != nil:
			t.emit(0, []seg{{stCyan, "◆ "}, {stBold, line(b.Entry.Title)}}, 0)
			for _, d := range b.Entry.Details {
				t.emit(2, []seg{{"", line(d)}}, 0)
			}
		default:
			t.str(line(b.Line) + "\n")
		}
	}
	return t.err
}

// table writes rows with aligned columns: the first row is the header;
// columns whose cells are all numbers are right-aligned.
func (t *textRenderer) table(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	n := len(rows[0])
	widths := make([]int, n)
	numeric := make([]bool, n)
	for i := range numeric {
		numeric[i] = len(rows) > 1
	}
	for r, row := range rows {
		for i := range row {
			row[i] = line(row[i])
			if w := displayWidth(row[i]); w > widths[i] {
				widths[i] = w
			}
			if r > 0 && row[i] != "" {
				if _, err := strconv.ParseFloat(row[i], 64); err != nil {
					numeric[i] = false
				}
			}
		}
	}
	for r, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			if numeric[i] {
				b.WriteString(padLeft(c, widths[i]))
			} else if i < len(row)-1 {
				b.WriteString(padRight(c, widths[i]))
			} else {
				b.WriteString(c)
			}
		}
		s := strings.TrimRight(b.String(), " ")
		if r == 0 {
			s = t.paint(stBold, s)
		}
		t.str(s + "\n")
	}
}

func (t *textRenderer) Close(open []*stream.ToolCall) error {
	for _, c := range open {
		t.callLine(c)
	}
	return t.Flush()
}
