package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// A Part is one thing an event shows, described once for every layout:
// what it is (Form), how it went (Tone, Mark), whose it is (Agent), what it
// says in one line (Line, Stats) and in a report (Say, Label, Sentence),
// and what it holds (Body, or the stream's own value for the forms that
// lay one out: a call, a tool result, the init, the result).
//
// The per-kind reading of the events is in describe, the only switch over
// event kinds a view for people has; the text and markdown formats lay out
// Parts by Form and Say, and a new format for people does the same.
type Part struct {
	Form Form
	Tone Tone
	// Mark is the one-character sign a terminal line starts with
	// (✓ ✗ ! · ◇ i ~ ? ∴).
	Mark string
	// Agent is whose part this is: the main agent (ID "") or the subagent
	// started by the call ID (its Type and Desc name it when it was not
	// seen before).
	Agent AgentRef
	// Line is the one-line summary; Stats the figures after it that a
	// layout keeps whole when it cuts the line ("" for none).
	Line, Stats string
	// Say is how a report states a FormLine part (and whether it does);
	// Label names a callout or a code line; Sentence is what the report
	// says when it is worded otherwise than Line.
	Say      Say
	Label    string
	Sentence string
	// Body is a multi-line content: prose, a prompt, a folded text; Lang
	// is its fence's info string.
	Body, Lang string

	Use *stream.Block // FormCall: the tool_use block
	// Target is what the call acts on (ToolTarget): a FormCall's, and a
	// FormToolResult's call's ("" when the call is not known).
	Target   string
	Result   *stream.ToolResult // FormToolResult
	Call     *stream.ToolCall   // FormToolResult: the call it answers (nil: unknown)
	Patch    []stream.Hunk      // FormToolResult: the diff an Edit or Write made, when the stream says
	Init     *stream.Init       // FormInit
	Outcome  *stream.Result     // FormOutcome
	Repeated bool               // FormOutcome: its text repeats what the main agent said
	APIError string             // FormOutcome: the API error that ended the main agent's last turn
	// Cost is the cost a FormOutcome part shows (stream.CostLabel): the
	// result's own, else the run's estimate so far ("~$0.0090"), else "$?".
	Cost string
	// Errors are what a FormOutcome part says went wrong: the result's
	// errors, then a failed result's text.
	Errors []string
}

// Form is what kind of thing a Part is, for its layout.
type Form uint8

const (
	// FormHidden: bookkeeping no view shows (a report counts it).
	FormHidden Form = iota
	// FormLine: a one-line state: Mark, Line, Stats; a report says it as
	// Say tells.
	FormLine
	// FormProse: text written as is (Body).
	FormProse
	// FormPrompt: a prompt (Body).
	FormPrompt
	// FormFold: a text folded behind a one-line summary (Line, Stats; a
	// report's summary is Sentence), Body in a fence of Lang.
	FormFold
	// FormCall: a tool call (Use, Target).
	FormCall
	// FormToolResult: a tool result (Result, Call), described: Label is
	// its tool's name ("Tool" when the call is not known), Target the call's,
	// Tone and Mark how it went, Stats its figures (resultStats), Line
	// what a report's fold says of it ("Read result: …", "Read error:
	// …"), Sentence what a failure says in a line ("Read failed: the
	// first line"), Body its text as shown (a subagent's report, without
	// the hand-back the Agent call's result appends).
	FormToolResult
	// FormInit: the session's facts (Init).
	FormInit
	// FormOutcome: a result event (Outcome, Repeated, APIError),
	// described: Line is how the run ended (OutcomeStatus), Label its
	// title (outcomeTitle), Tone and Mark how it went, Errors what went
	// wrong, Body the final answer to show (none when the main agent just
	// said it, or when the run failed: its text is then an error).
	FormOutcome
)

// Tone is how a part went; a layout maps it to a colour or a callout.
type Tone uint8

// The tones.
const (
	TonePlain Tone = iota
	ToneDim
	ToneOK
	ToneWarn
	ToneError
	ToneInfo
)

// Say is how a report states a one-line part.
type Say uint8

// The ways.
const (
	SayHidden  Say = iota // not in a report (it counts the events it hides)
	SayNote               // an aside: *Sentence*
	SayCallout            // > **Label:** Sentence
	SayStrong             // **Sentence**
	SayCode               // *Label:* `Sentence`
	SayDivider            // a rule, then *Sentence*: what follows starts afresh
)

// AgentRef names the agent a part belongs to.
type AgentRef struct{ ID, Type, Desc string }

// sentence is what a report says of p.
// hiddenSaid says how many events a report left out (the parts said
// SayHidden and FormHidden), and of what kinds, as the markdown summary
// and the page's facts say it.
func hiddenSaid(n int) string {
	return strconv.Itoa(n) + " (progress and status, hook starts, partial-message deltas, bookkeeping records)"
}

func (p *Part) sentence() string {
	if p.Sentence != "" {
		return p.Sentence
	}
	return p.Line
}

// describer reads events into Parts. It keeps what reading needs across
// events, bounded: the subagents and tasks seen (agentBook), the main
// agent's last texts (a result repeating one is marked Repeated), and the
// API error that ended the main agent's last turn.
type describer struct {
	agentBook
	o Options
	// shown is how much of an output saved in full a view reads
	// (Options.SavedOutputs); 0: the describer leaves a result's text
	// and figures out (a layout that shows none: the trace).
	shown    int64
	said     [16]uint64
	saidN    int
	apiError string
	parts    []Part
}

// newDescriber returns a describer; shown is how much of an output saved
// in full the view reads (0: none, no result's text is described).
func newDescriber(sep string, shown int64, o Options) describer {
	return describer{agentBook: newAgentBook(sep, o.Tracker), o: o, shown: shown}
}

func (d *describer) remember(s string) {
	d.said[d.saidN%len(d.said)] = textHash(s)
	d.saidN++
}

func (d *describer) wasSaid(s string) bool {
	h := textHash(s)
	for i := range min(d.saidN, len(d.said)) {
		if d.said[i] == h {
			return true
		}
	}
	return false
}

// eventAgent is the agent an event belongs to by its parent_tool_use_id.
func eventAgent(ev *stream.Event) AgentRef {
	ctx := ev.ParentToolUseID()
	if ctx == "" {
		return AgentRef{}
	}
	typ, desc := ev.Forwarded()
	return AgentRef{ID: ctx, Type: typ, Desc: desc}
}

func (d *describer) add(p Part) { d.parts = append(d.parts, p) }

// line adds a one-line part.
func (d *describer) line(agent AgentRef, tone Tone, mark, text string, say Say, label, sentence string) {
	d.add(Part{Form: FormLine, Agent: agent, Tone: tone, Mark: mark, Line: text, Say: say, Label: label, Sentence: sentence})
}

// callPart is the part of a tool call (an assistant's tool-use block).
func callPart(agent AgentRef, b *stream.Block) Part {
	return Part{Form: FormCall, Agent: agent, Use: b, Target: ToolTarget(b.Name, b.Input)}
}

// describe returns the parts of ev (calls: the tool calls it completed).
// The slice is reused by the next call.
func (d *describer) describe(ev *stream.Event, calls []*stream.ToolCall) []Part {
	d.parts = d.parts[:0]
	main := AgentRef{}
	switch ev.Kind {
	case stream.KindInit:
		in := ev.Init()
		d.add(Part{Form: FormInit, Init: &in})
	case stream.KindPrompt, stream.KindSubagentPrompt:
		d.add(Part{Form: FormPrompt, Agent: eventAgent(ev), Body: ev.Text()})
	case stream.KindSynthetic:
		text := ev.Text()
		first := firstLine(text)
		d.add(Part{Form: FormFold, Agent: eventAgent(ev), Tone: ToneDim, Mark: "·",
			Line: "synthetic: " + first, Stats: plural(countLines(text), "line"),
			Sentence: "Synthetic message: " + truncate(line(first), 80), Body: text, Lang: "text"})
	case stream.KindInterrupt:
		d.line(eventAgent(ev), ToneWarn, "!", ev.Text(), SayCallout, "Interrupted", "")
	case stream.KindToolResult:
		results := ev.ToolResults()
		var patch []stream.Hunk
		if len(results) == 1 { // (the stream's tool_use_result is the one result's)
			_, patch = ev.Patch()
		}
		for _, r := range results {
			r := r
			d.add(d.toolResult(Part{Form: FormToolResult, Agent: eventAgent(ev), Result: &r, Call: findCall(calls, r.ToolUseID), Patch: patch}))
		}
	case stream.KindText, stream.KindThinking, stream.KindToolUse, stream.KindAPIError:
		d.assistant(ev)
	case stream.KindRetry:
		// A subagent's retry is its agent's (eventAgent: the Agent call
		// that started it), the main agent's are the main agent's.
		d.line(eventAgent(ev), ToneWarn, "!", RetryText(ev.Retry()), SayCallout, "Warning", "")
	case stream.KindPermissionDenied:
		dn := ev.Denial()
		s := dn.ToolName
		if dn.Reason != "" {
			s += " (" + dn.Reason + ")"
		}
		text := "permission denied: " + s
		if dn.Message != "" {
			text += ": " + dn.Message
		}
		d.line(eventAgent(ev), ToneError, "✗", text, SayCallout, "Permission denied", s+": "+dn.Message)
	case stream.KindHook:
		d.hook(ev)
	case stream.KindTask:
		d.task(ev)
	case stream.KindProgress:
		d.progress(ev)
	case stream.KindCompact:
		c := ev.Compaction()
		s := fmt.Sprintf("compacted (%s)  %d → %d tokens", c.Trigger, c.PreTokens, c.PostTokens)
		if c.HasDuration {
			s += ", " + fmtMs(c.DurationMs)
		}
		d.line(main, ToneInfo, "◇", s, SayDivider, "", fmt.Sprintf("Compacted (%s): %d → %d tokens", c.Trigger, c.PreTokens, c.PostTokens))
	case stream.KindNotice:
		d.notice(ev)
	case stream.KindDelta:
		d.line(main, ToneDim, "~", deltaText(ev), SayHidden, "", "")
	case stream.KindResult:
		d.add(d.outcome(ev.Result()))
	case stream.KindInfo:
		d.line(main, ToneDim, "·", typeName(ev), SayCode, "Event", "")
	case stream.KindRecord:
		d.add(Part{Form: FormHidden}) // a transcript's bookkeeping
	default:
		if ev.Type == "assistant" {
			d.assistant(ev)
			break
		}
		d.line(eventAgent(ev), ToneDim, "?", typeName(ev), SayCode, "Unknown event", "")
	}
	return d.parts
}

// firstLine is the first non-blank line of s ("" when none).
func firstLine(s string) string {
	if l, _ := firstLines(s, 1); len(l) > 0 {
		return l[0]
	}
	return ""
}

func (d *describer) assistant(ev *stream.Event) {
	agent := eventAgent(ev)
	a := ev.Assistant()
	if agent.ID == "" {
		// Only an API error that ended the main agent's last turn is a
		// reason for the outcome; one that a later call got past is not.
		d.apiError = ""
		if ev.Kind == stream.KindAPIError {
			d.apiError = a.Error
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
		if msg := ev.Text(); msg != "" {
			s += ": " + msg
			d.remember(msg)
		}
		d.line(agent, ToneError, "✗", s, SayCallout, "Error", "")
		return
	}
	for i := range a.Blocks {
		b := &a.Blocks[i]
		switch b.Type {
		case "text":
			d.add(Part{Form: FormProse, Agent: agent, Body: b.Text})
			if agent.ID == "" {
				d.remember(b.Text)
			}
		case "thinking", "redacted_thinking":
			l, more := firstLines(b.Thinking, 1)
			if len(l) == 0 || strings.TrimSpace(b.Thinking) == "" {
				d.line(agent, ToneDim, "∴", "thinking", SayNote, "", "Thinking (no text)")
				break
			}
			p := Part{Form: FormFold, Agent: agent, Tone: ToneDim, Mark: "∴", Line: l[0],
				Sentence: "Thinking (" + plural(countLines(b.Thinking), "line") + ")", Body: b.Thinking, Lang: "text"}
			if more > 0 {
				p.Stats = plural(int64(more+1), "line")
			}
			d.add(p)
		case "tool_use", "server_tool_use", "mcp_tool_use":
			p := callPart(agent, b)
			d.add(p)
			if isAgentTool(b.Name) {
				d.spawned(b.ID, agent.ID, b.Name, p.Target)
			}
		default:
			d.line(agent, ToneDim, "?", "assistant/"+b.Type, SayCode, "Unknown block", b.Type)
		}
	}
	if a.Aborted {
		d.line(agent, ToneWarn, "!", "aborted: the response was cut off", SayCallout, "Warning", "the response was cut off (interrupted)")
	}
}

func (d *describer) hook(ev *stream.Event) {
	main := AgentRef{}
	h := ev.Hook()
	first := func(s string) string {
		if l := firstLine(s); l != "" {
			return ": " + l
		}
		return ""
	}
	switch ev.Subtype {
	case "hook_started":
		d.line(main, ToneDim, "·", "hook "+h.Name+" started", SayHidden, "", "")
	case "hook_progress":
		d.line(main, ToneDim, "·", "hook "+h.Name+" running", SayHidden, "", "")
	case "stop_hook_summary": // a transcript's Stop hooks
		cmds := strings.Join(h.Commands, "; ")
		if h.Failed {
			// A failure is trouble, in a report as the stream's failed
			// hook_response is: a callout, not a hidden line.
			d.line(main, ToneError, "✗", "hook "+h.Name+" failed ("+cmds+")"+first(h.Message), SayCallout, "Error", "")
			return
		}
		d.line(main, ToneDim, "·", "stop hooks ran: "+cmds, SayHidden, "", "")
	default:
		// Only a hook's response is in a report: its starts and progress
		// are counted as not shown.
		say := func(s Say) Say {
			if ev.Subtype != "hook_response" {
				return SayHidden
			}
			return s
		}
		switch {
		case h.Failed:
			s := "hook " + h.Name + " failed"
			if h.HasExit {
				s += " (exit " + strconv.FormatInt(h.ExitCode, 10) + ")"
			}
			d.line(main, ToneError, "✗", s+first(h.Message), say(SayCallout), "Error", "")
		case h.Outcome == "success" || h.Outcome == "":
			d.line(main, ToneDim, "·", "hook "+h.Name+" ok"+first(h.Output), say(SayNote), "", "Hook "+h.Name+": ok")
		default:
			d.line(main, ToneWarn, "!", "hook "+h.Name+" "+h.Outcome+first(h.Output), say(SayCallout), "Warning", "hook "+h.Name+" "+h.Outcome)
		}
	}
}

func taskStats(u stream.TaskUsage) string {
	var p []string
	if u.ToolUses > 0 {
		p = append(p, plural(u.ToolUses, "tool use"))
	}
	if u.TotalTokens > 0 {
		// The CLI's own figure (about the subagent's last context), not
		// a sum over its calls: named apart from the account's tokens.
		p = append(p, plural(u.TotalTokens, "task token"))
	}
	if u.DurationMs > 0 {
		p = append(p, fmtMs(u.DurationMs))
	}
	return strings.Join(p, ", ")
}

func (d *describer) task(ev *stream.Event) {
	task := ev.Task()
	if ev.Subtype == "background_tasks_changed" {
		// The list of what runs in the background repeats the task notes:
		// a report leaves it out.
		var descs []string
		for _, t := range ev.BackgroundTasks() {
			descs = append(descs, t.Description)
		}
		s := "background tasks: none"
		if len(descs) > 0 {
			s = "background tasks: " + strings.Join(descs, ", ")
		}
		d.line(AgentRef{}, ToneDim, "◇", s, SayHidden, "", "")
		return
	}
	ctx, desc := d.taskAgent(task)
	agent := AgentRef{ID: ctx, Type: task.SubagentType, Desc: desc}
	switch ev.Subtype {
	case "task_started":
		kind := task.TaskType
		if task.SubagentType != "" {
			kind += " " + task.SubagentType
		}
		bg := ""
		if task.IsBackgrounded {
			bg = " (background)"
		}
		d.line(agent, ToneDim, "◇", "task started  "+kind+": "+desc+bg, SayNote, "", "Task started: "+kind+" — "+desc+bg)
	case "task_updated":
		s := desc
		if task.Status != "" {
			s += ": " + task.Status
		}
		if task.Error != "" {
			s += ": " + task.Error
			d.line(agent, ToneError, "◇", "task updated  "+s, SayCallout, "Error", "Task updated: "+s)
			return
		}
		d.line(agent, ToneDim, "◇", "task updated  "+s, SayNote, "", "Task updated: "+s)
	case "task_notification":
		// A subagent's summary is its report, which its forwarded text or
		// its Agent result shows; other tasks' summaries say how they
		// ended ("… completed (exit code 0)").
		what := desc
		if l := firstLine(task.Summary); ctx == "" && l != "" {
			what = l
		}
		p := Part{Form: FormLine, Agent: agent, Tone: TonePlain, Mark: "◇", Line: "task " + task.Status + "  " + what, Say: SayStrong}
		switch task.Status {
		case "failed", "killed", "stopped":
			p.Tone, p.Mark, p.Say, p.Label = ToneError, "✗", SayCallout, "Error"
		}
		p.Sentence = "Task " + task.Status + ": " + what
		if task.HasUsage {
			if u := taskStats(task.Usage); u != "" {
				p.Stats = u
				p.Sentence += " (" + u + ")"
			}
		}
		d.add(p)
	default:
		d.line(agent, ToneDim, "◇", "task "+ev.Subtype+"  "+desc, SayNote, "", "Task "+ev.Subtype+": "+desc)
	}
}

func (d *describer) progress(ev *stream.Event) {
	main := AgentRef{}
	switch {
	case ev.Subtype == "task_progress":
		task := ev.Task()
		activity, sum := task.Description, task.Summary
		task.Description = "" // task_progress describes the current activity, not the task
		ctx, desc := d.taskAgent(task)
		s := "progress  " + activity
		if sum != "" && sum != desc && sum != activity {
			s += ": " + sum
		}
		sentence := "Progress: " + activity
		u := taskStats(task.Usage)
		if u != "" {
			sentence += " (" + u + ")"
		}
		d.add(Part{Form: FormLine, Agent: AgentRef{ID: ctx, Type: task.SubagentType, Desc: desc}, Tone: ToneDim, Mark: "◇",
			Line: s, Stats: u, Say: SayNote, Sentence: sentence})
	case ev.Subtype == "thinking_tokens":
		d.line(main, ToneDim, "·", "thinking ~"+plural(ev.Progress().EstimatedTokens, "token"), SayHidden, "", "")
	case ev.Subtype == "status":
		switch st := ev.Progress(); {
		case st.CompactError != "":
			d.line(main, ToneError, "✗", "compaction failed: "+st.CompactError, SayCallout, "Error", "")
		case st.Status != "":
			d.line(main, ToneDim, "·", "status "+st.Status, SayHidden, "", "")
		case st.CompactResult != "":
			d.line(main, ToneDim, "·", "compaction "+st.CompactResult, SayHidden, "", "")
		default:
			d.line(main, ToneDim, "·", "status cleared", SayHidden, "", "")
		}
	case ev.Type == "tool_progress":
		tp := ev.Progress()
		d.line(eventAgent(ev), ToneDim, "·", fmt.Sprintf("%s running %.0fs", tp.ToolName, tp.ElapsedSeconds), SayHidden, "", "")
	default:
		d.line(main, ToneDim, "·", typeName(ev), SayHidden, "", "")
	}
}

func (d *describer) notice(ev *stream.Event) {
	main := AgentRef{}
	n := ev.Notice()
	content := n.Content
	switch ev.Subtype {
	case "informational":
		if n.Level == "warning" {
			d.line(main, ToneWarn, "!", content, SayCallout, "Warning", "")
		} else {
			d.line(main, TonePlain, "i", content, SayCallout, "Note", "")
		}
	case "model_fallback":
		s := fmt.Sprintf("model fallback: %s → %s", n.OriginalModel, n.FallbackModel)
		if n.Trigger != "" {
			s += " (" + n.Trigger + ")"
		}
		d.line(main, ToneWarn, "!", s, SayCallout, "Warning", "")
	case "model_refusal_fallback", "model_refusal_no_fallback":
		d.line(main, ToneWarn, "!", "refusal: "+content, SayCallout, "Warning", "")
	case "notification":
		d.line(main, TonePlain, "i", "notification: "+n.Text, SayCallout, "Note", n.Text)
	case "local_command_output", "local_command":
		d.add(Part{Form: FormProse, Body: content})
	default:
		d.line(main, TonePlain, "i", ev.Subtype+": "+content, SayCallout, "Note", "")
	}
}

// deltaText is a partial-message delta in one line.
func deltaText(ev *stream.Event) string {
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
		if d.StopReason != "" {
			p = append(p, d.StopReason)
		}
		if d.HasOutputTokens {
			p = append(p, plural(d.OutputTokens, "output token"))
		}
		if len(p) > 0 {
			s += " " + strings.Join(p, ", ")
		}
	case "message_stop":
		if d.Abandoned {
			s += " (abandoned blocks)"
		}
	}
	return s
}

// resultStats are a tool result's figures: its lines, its size, and how
// long the call took.
func resultStats(text string, c *stream.ToolCall) string {
	size := len(text)
	if c != nil {
		size = int(c.ResultBytes)
	}
	stats := plural(countLines(text), "line") + ", " + fmtBytes(size)
	if d, ok := durationOf(c); ok {
		stats += ", " + fmtDuration(d)
	}
	return stats
}

// toolResult describes a tool result part: its tool and target, how it
// went, its figures, its text as shown, and what a failure says.
func (d *describer) toolResult(p Part) Part {
	r, c := p.Result, p.Call
	p.Tone, p.Mark = ToneOK, "✓"
	if r.IsError {
		p.Tone, p.Mark = ToneError, "✗"
	}
	p.Label = "Tool"
	if c != nil {
		p.Label, p.Target = c.Name, ToolTarget(c.Name, c.Input)
	}
	if d.shown == 0 {
		return p
	}
	text := d.o.shownText(*r, d.shown)
	p.Stats = resultStats(text, c)
	if c != nil && isAgentTool(c.Name) {
		text = stream.HandBackReport(text)
	}
	p.Body = text
	p.Line = p.Label + " result: " + p.Stats
	if r.IsError {
		p.Line = p.Label + " error: " + p.Stats
		p.Sentence = p.Label + " failed"
		if l := firstLine(text); l != "" {
			p.Sentence += ": " + l
		}
	}
	return p
}

// callDesc is a tool call as a list of calls shows it (the tools preset's
// records, the calls left without a result): described once, laid out by
// each format.
type callDesc struct {
	Tone   Tone
	Mark   string // ✓, ✗, ○
	Status string // "ok", "error", "no result"
	// Agent is whose call it is (ToolCall.AgentLabel), Target what it
	// acts on (ToolTarget).
	Agent, Name, Target string
	// Duration is how long it took ("" when unknown); Size its result's
	// size ("" without a result).
	Duration, Size string
}

// describeCall describes a call for a list of calls.
func describeCall(c *stream.ToolCall) callDesc {
	row := callDesc{Tone: ToneOK, Mark: "✓", Status: "ok", Agent: c.AgentLabel(), Name: c.Name, Target: ToolTarget(c.Name, c.Input)}
	switch {
	case !c.Done:
		row.Tone, row.Mark, row.Status = ToneWarn, "○", "no result"
	case c.IsError:
		row.Tone, row.Mark, row.Status = ToneError, "✗", "error"
	}
	if d, ok := durationOf(c); ok {
		row.Duration = fmtDuration(d)
	}
	if c.Done {
		row.Size = fmtBytes(c.ResultBytes)
	}
	return row
}

// outcome describes a result: how the run ended and its title, what went
// wrong, and the answer to show.
func (d *describer) outcome(r stream.Result) Part {
	p := Part{Form: FormOutcome, Outcome: &r, APIError: d.apiError, Line: OutcomeStatus(r, d.apiError),
		Label: outcomeTitle(r, d.apiError), Repeated: r.Text != "" && d.wasSaid(r.Text), Tone: ToneOK, Mark: "✓",
		Cost: runCostLabel(r, d.tr)}
	p.Errors = r.Errors
	if r.IsError {
		p.Tone, p.Mark = ToneError, "✗"
		if r.Text != "" {
			p.Errors = append(append([]string(nil), r.Errors...), r.Text)
		}
	} else if !p.Repeated {
		p.Body = r.Text
	}
	return p
}

// runCostLabel is the cost shown beside result r: the tracker's label of
// it (Tracker.CostLabel: the run's cost as the account gives it, where r
// says none; the tracker has observed r), r's own without a tracker.
func runCostLabel(r stream.Result, tr *stream.Tracker) string {
	if tr == nil {
		return r.CostLabel()
	}
	return tr.CostLabel(r)
}

// script is the command a call runs, for a report that shows it as a
// script rather than as its input: a Bash call's command (with what the
// call says it does); ok is false for other calls, and for a Bash input
// without a command string.
func script(name string, input []byte) (command, description string, ok bool) {
	if name != "Bash" {
		return "", "", false
	}
	in := stream.ReadToolInput(input)
	return in.Command(), in.Description(), in.HasCommand()
}
