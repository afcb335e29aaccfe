package stream

import (
	"encoding/json"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// The typed views of the events' smaller fields. A view outside this
// package reads an event through them, never a field by its JSON key
// (TestNoEventReadByKey): the core alone knows how an input spells a
// field, so a kind that spells it otherwise (a transcript) changes
// nothing above it.

// Forwarded names the subagent a forwarded event belongs to, as the
// event names it (a subagent's events in a stream carry its type and
// its task's description): "" where it says nothing.
func (e *Event) Forwarded() (subagentType, taskDescription string) {
	return e.field("subagent_type").Str(), e.field("task_description").Str()
}

// Denial is the view of a system/permission_denied event.
type Denial struct {
	ToolName  string
	ToolUseID string
	Reason    string // decision_reason
	Message   string
}

// Denial reads the permission denial e reports.
func (e *Event) Denial() Denial {
	return Denial{ToolName: e.field("tool_name").Str(), ToolUseID: e.field("tool_use_id").Str(),
		Reason: e.field("decision_reason").Str(), Message: e.field("message").Str()}
}

// Notice is the view of a notice (KindNotice): an informational
// message, a model fallback or refusal, a notification, a local
// command's output.
type Notice struct {
	Content string // what it says (informational, refusal, local command)
	Level   string // informational's: "warning", "info", …
	// OriginalModel, FallbackModel and Trigger are a model_fallback's.
	OriginalModel, FallbackModel, Trigger string
	Text                                  string // a notification's
}

// Notice reads the notice e reports.
func (e *Event) Notice() Notice {
	return Notice{Content: e.field("content").Str(), Level: e.field("level").Str(),
		OriginalModel: e.field("original_model").Str(), FallbackModel: e.field("fallback_model").Str(),
		Trigger: e.field("trigger").Str(), Text: e.field("text").Str()}
}

// Progress is the view of a progress event (KindProgress) other than a
// task's (Task reads those): system/thinking_tokens, system/status and
// tool_progress.
type Progress struct {
	EstimatedTokens int64 // thinking_tokens'
	// Status, CompactError and CompactResult are a system/status's.
	Status, CompactError, CompactResult string
	// ToolName, ToolUseID and ElapsedSeconds are a tool_progress's.
	ToolName       string
	ToolUseID      string
	ElapsedSeconds float64
}

// Progress reads the progress e reports.
func (e *Event) Progress() Progress {
	return Progress{EstimatedTokens: e.field("estimated_tokens").Int(),
		Status: e.field("status").Str(), CompactError: e.field("compact_error").Str(), CompactResult: e.field("compact_result").Str(),
		ToolName: e.field("tool_name").Str(), ToolUseID: e.field("tool_use_id").Str(), ElapsedSeconds: e.field("elapsed_time_seconds").Float()}
}

// BackgroundTasks are the tasks a system/background_tasks_changed lists
// (each with its TaskID and Description): all that run in the
// background now.
func (e *Event) BackgroundTasks() []Task {
	var ts []Task
	e.field("tasks").Each(func(_ int, v jsonx.Value) bool {
		ts = append(ts, Task{TaskID: v.Get("task_id").Str(), Description: v.Get("description").Str()})
		return true
	})
	return ts
}

// RateLimit is the view of a rate_limit_event: the state of the
// subscription's limits.
type RateLimit struct {
	Status string // "allowed", "allowed_warning", "rejected"
	Type   string // rateLimitType: "five_hour", …
	// Utilization is the share used, when HasUtilization.
	Utilization    float64
	HasUtilization bool
	// ResetsAt is when the limit resets, in seconds (or milliseconds)
	// since 1970 as the event writes it, when HasResetsAt.
	ResetsAt    float64
	HasResetsAt bool
}

// RateLimit reads the rate limit a rate_limit_event reports.
func (e *Event) RateLimit() RateLimit {
	info := e.field("rate_limit_info")
	l := RateLimit{Status: info.Get("status").Str(), Type: info.Get("rateLimitType").Str()}
	if u := info.Get("utilization"); u.Type() == jsonx.Number {
		l.Utilization, l.HasUtilization = u.Float(), true
	}
	if r := info.Get("resetsAt"); r.Type() == jsonx.Number {
		l.ResetsAt, l.HasResetsAt = r.Float(), true
	}
	return l
}

// ToolUseResultStatus is the status the tool_use_result of a tool
// result event gives ("async_launched": an Agent or Workflow call whose
// work goes on in the background), or "".
func (e *Event) ToolUseResultStatus() string { return e.toolUseResult().Get("status").Str() }

// ToolInput is the view of a tool call's input: the fields the views
// name a call by. Each is found in one walk over the input (a Write's
// content is walked over once, not once a key), where a later duplicate
// wins, as everywhere, and decoded only when asked for; a field the input
// has not (or not as a string) is "". The long fields the views do not
// name a call by (a Write's content, an Edit's strings) are EditOf's.
type ToolInput struct {
	command, description, filePath, notebookPath, subagentType jsonx.Value
	skill, url, query, pattern, path, name, script             jsonx.Value
}

// ReadToolInput reads a tool call's input (a tool_use block's Input).
func ReadToolInput(input json.RawMessage) ToolInput {
	var buf [16]jsonx.Member
	ms, _ := jsonx.Members(input, buf[:0])
	get := func(k string) jsonx.Value { return jsonx.Lookup(ms, k) }
	return ToolInput{command: get("command"), description: get("description"), filePath: get("file_path"),
		notebookPath: get("notebook_path"), subagentType: get("subagent_type"), skill: get("skill"), url: get("url"),
		query: get("query"), pattern: get("pattern"), path: get("path"), name: get("name"), script: get("script")}
}

// Command is a Bash or PowerShell call's command.
func (in ToolInput) Command() string { return in.command.Str() }

// HasCommand says the input has a command, as a string.
func (in ToolInput) HasCommand() bool { return in.command.Type() == jsonx.String }

// Description is what the call says it does (Bash, Agent, Workflow).
func (in ToolInput) Description() string { return in.description.Str() }

// FilePath is the file a Read, Write, Edit, … acts on.
func (in ToolInput) FilePath() string { return in.filePath.Str() }

// NotebookPath is the notebook a NotebookEdit or NotebookRead acts on.
func (in ToolInput) NotebookPath() string { return in.notebookPath.Str() }

// SubagentType is the subagent an Agent (Task) call starts.
func (in ToolInput) SubagentType() string { return in.subagentType.Str() }

// Skill is a Skill call's skill.
func (in ToolInput) Skill() string { return in.skill.Str() }

// URL is a WebFetch call's.
func (in ToolInput) URL() string { return in.url.Str() }

// Query is a WebSearch or ToolSearch call's.
func (in ToolInput) Query() string { return in.query.Str() }

// Pattern is a Grep or Glob call's.
func (in ToolInput) Pattern() string { return in.pattern.Str() }

// Path is where a Grep or Glob looks, and what an LS lists.
func (in ToolInput) Path() string { return in.path.Str() }

// Name is a Workflow call's.
func (in ToolInput) Name() string { return in.name.Str() }

// Script is a Workflow call's.
func (in ToolInput) Script() string { return in.script.Str() }

// EditOf is the change an Edit call (old_string → new_string) or a
// Write call ("" → content) asks for, read from its input; ok is false
// for other calls, and for an input without those strings.
func EditOf(name string, input json.RawMessage) (old, new string, ok bool) {
	in := jsonx.Value(input)
	switch name {
	case "Edit":
		if o := in.Get("old_string"); o.Type() == jsonx.String {
			return o.Str(), in.Get("new_string").Str(), true
		}
	case "Write":
		if c := in.Get("content"); c.Type() == jsonx.String {
			return "", c.Str(), true
		}
	}
	return "", "", false
}

// Shown is a tool result's text as a view shows it: a string content as
// is; of blocks, each text block's text, and a placeholder for each other
// block ("[image]", "[tool_reference: Name]"), one a line.
func (r ToolResult) Shown() string {
	c := jsonx.Value(r.Content)
	if c.Type() != jsonx.Array {
		return c.Str()
	}
	var parts []string
	c.Each(func(_ int, b jsonx.Value) bool {
		switch t := b.Get("type").Str(); t {
		case "text":
			parts = append(parts, b.Get("text").Str())
		case "tool_reference":
			parts = append(parts, "[tool_reference: "+b.Get("tool_name").Str()+"]")
		default:
			parts = append(parts, "["+t+"]")
		}
		return true
	})
	return strings.Join(parts, "\n")
}
