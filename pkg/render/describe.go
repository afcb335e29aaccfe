package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
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

	Use      *stream.Block      // FormCall: the tool_use block
	Target   string             // FormCall: what the call acts on (ToolTarget)
	Result   *stream.ToolResult // FormToolResult
	Call     *stream.ToolCall   // FormToolResult: the call it answers (nil: unknown)
	Patch    []stream.Hunk      // FormToolResult: the diff an Edit or Write made, when the stream says
	Init     *stream.Init       // FormInit
	Outcome  *stream.Result     // FormOutcome
	Repeated bool               // FormOutcome: its text repeats what the main agent said
	APIError string             // FormOutcome: the API error that ended the main agent's last turn
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
	// FormToolResult: a tool result (Result, Call).
	FormToolResult
	// FormInit: the session's facts (Init).
	FormInit
	// FormOutcome: a result event (Outcome, Repeated, APIError; Line is
	// how the run ended, OutcomeStatus).
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
	o        Options
	said     [16]uint64
	saidN    int
	apiError string
	parts    []Part
}

func newDescriber(sep string, o Options) describer {
	return describer{agentBook: newAgentBook(sep, o.Tracker), o: o}
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
	return AgentRef{ID: ctx, Type: ev.Str("subagent_type"), Desc: ev.Str("task_description")}
}

func (d *describer) add(p Part) { d.parts = append(d.parts, p) }

// line adds a one-line part.
func (d *describer) line(agent AgentRef, tone Tone, mark, text string, say Say, label, sentence string) {
	d.add(Part{Form: FormLine, Agent: agent, Tone: tone, Mark: mark, Line: text, Say: say, Label: label, Sentence: sentence})
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
			d.add(Part{Form: FormToolResult, Agent: eventAgent(ev), Result: &r, Call: findCall(calls, r.ToolUseID), Patch: patch})
		}
	case stream.KindText, stream.KindThinking, stream.KindToolUse, stream.KindAPIError:
		d.assistant(ev)
	case stream.KindRetry:
		// A subagent's retry is its agent's (eventAgent: the Agent call
		// that started it), the main agent's are the main agent's.
		d.line(eventAgent(ev), ToneWarn, "!", RetryText(ev.Retry()), SayCallout, "Warning", "")
	case stream.KindPermissionDenied:
		s := ev.Str("tool_name")
		if r := ev.Str("decision_reason"); r != "" {
			s += " (" + r + ")"
		}
		text := "permission denied: " + s
		if m := ev.Str("message"); m != "" {
			text += ": " + m
		}
		d.line(eventAgent(ev), ToneError, "✗", text, SayCallout, "Permission denied", s+": "+ev.Str("message"))
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
		r := ev.Result()
		d.add(Part{Form: FormOutcome, Outcome: &r, APIError: d.apiError, Line: OutcomeStatus(r, d.apiError),
			Repeated: r.Text != "" && d.wasSaid(r.Text)})
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
			target := ToolTarget(b.Name, b.Input)
			d.add(Part{Form: FormCall, Agent: agent, Use: b, Target: target})
			if isAgentTool(b.Name) {
				d.spawned(b.ID, agent.ID, b.Name, target)
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
		jsonx.Value(ev.Get("tasks")).Each(func(_ int, v jsonx.Value) bool {
			descs = append(descs, v.Get("description").Str())
			return true
		})
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
		activity := task.Description
		task.Description = "" // task_progress describes the current activity, not the task
		ctx, desc := d.taskAgent(task)
		s := "progress  " + activity
		if sum := ev.Str("summary"); sum != "" && sum != desc && sum != activity {
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
		d.line(main, ToneDim, "·", "thinking ~"+plural(ev.Int("estimated_tokens"), "token"), SayHidden, "", "")
	case ev.Subtype == "status":
		switch {
		case ev.Str("compact_error") != "":
			d.line(main, ToneError, "✗", "compaction failed: "+ev.Str("compact_error"), SayCallout, "Error", "")
		case ev.Str("status") != "":
			d.line(main, ToneDim, "·", "status "+ev.Str("status"), SayHidden, "", "")
		case ev.Str("compact_result") != "":
			d.line(main, ToneDim, "·", "compaction "+ev.Str("compact_result"), SayHidden, "", "")
		default:
			d.line(main, ToneDim, "·", "status cleared", SayHidden, "", "")
		}
	case ev.Type == "tool_progress":
		secs := jsonx.Value(ev.Get("elapsed_time_seconds")).Float()
		d.line(eventAgent(ev), ToneDim, "·", fmt.Sprintf("%s running %.0fs", ev.Str("tool_name"), secs), SayHidden, "", "")
	default:
		d.line(main, ToneDim, "·", typeName(ev), SayHidden, "", "")
	}
}

func (d *describer) notice(ev *stream.Event) {
	main := AgentRef{}
	content := ev.Str("content")
	switch ev.Subtype {
	case "informational":
		if ev.Str("level") == "warning" {
			d.line(main, ToneWarn, "!", content, SayCallout, "Warning", "")
		} else {
			d.line(main, TonePlain, "i", content, SayCallout, "Note", "")
		}
	case "model_fallback":
		s := fmt.Sprintf("model fallback: %s → %s", ev.Str("original_model"), ev.Str("fallback_model"))
		if tr := ev.Str("trigger"); tr != "" {
			s += " (" + tr + ")"
		}
		d.line(main, ToneWarn, "!", s, SayCallout, "Warning", "")
	case "model_refusal_fallback", "model_refusal_no_fallback":
		d.line(main, ToneWarn, "!", "refusal: "+content, SayCallout, "Warning", "")
	case "notification":
		d.line(main, TonePlain, "i", "notification: "+ev.Str("text"), SayCallout, "Note", ev.Str("text"))
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
