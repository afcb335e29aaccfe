// Package filter decides which parts of a stream ccfilter prints: the
// built-in presets, gojq expressions run per event, and the --agent and
// --where conditions that narrow either.
//
// A preset is a row of the Presets table, which the help text, the docs
// (docs/presets.md) and the tests all read. Event presets are plain Go
// predicates over stream.Event (no JSON tree is built for an event they
// reject); the other modes tell the command what to collect.
package filter

import (
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Mode is how a preset produces output.
type Mode int

// The modes.
const (
	// Events: each selected event is rendered as it arrives.
	Events Mode = iota
	// Calls: each tool call is rendered when its result arrives (calls that
	// never get one, at the end).
	Calls
	// Final: only the final answer, at the end.
	Final
	// Summary: one report at the end.
	Summary
)

// Preset is one built-in filter.
type Preset struct {
	Name    string
	Summary string // one line, for --help and `ccfilter presets`
	// Dot says what `.` is for --where with this preset; empty for the
	// presets --where does not apply to (the command rejects it there).
	Dot  string
	Mode Mode
	// DefaultAgent is the --agent value used when the flag is not given.
	DefaultAgent string
	// Select picks events (Events mode only).
	Select func(e *stream.Event) bool
	// Example is a command line shown in --help and docs.
	Example string
}

// Presets lists every built-in preset.
var Presets = []Preset{
	{
		Name: "all", Mode: Events, DefaultAgent: "all",
		Summary: "the whole run, readable: prompts, text, tool calls and results, errors, results",
		Dot:     "the event object",
		Select:  func(*stream.Event) bool { return true },
		Example: "ccfilter all run.jsonl",
	},
	{
		Name: "text", Mode: Events, DefaultAgent: "main",
		Summary: "what the assistant said (main agent unless --agent); live text deltas with --include-partial-messages",
		Dot:     "the assistant event",
		Select:  func(e *stream.Event) bool { return e.Kind == stream.KindText },
		Example: "claude -p 'fix the bug' --output-format stream-json --verbose | ccfilter text",
	},
	{
		Name: "tools", Mode: Calls, DefaultAgent: "all",
		Summary: "every tool call with its result: tool, target, ok or error, duration, agent",
		Dot:     "a tool call object: {id, name, input, agent, subagent_type, is_error, result_bytes, duration_ms, line, done}",
		Example: "ccfilter tools --where '.name == \"Bash\"' run.jsonl",
	},
	{
		Name: "errors", Mode: Events, DefaultAgent: "all",
		Summary: "everything that signals trouble: retries, denials, failed tools, API errors, interrupts, failed tasks and hooks, failed results, a missing result",
		Dot:     "the event object",
		Select:  IsTrouble,
		Example: "ccfilter errors run.jsonl",
	},
	{
		Name: "final", Mode: Final, DefaultAgent: "all",
		Summary: "the final answer only (exit 1 if the run failed, 4 if it has no result)",
		Example: "answer=$(claude -p 'what is 2+2' --output-format stream-json --verbose | ccfilter final) || exit",
	},
	{
		Name: "types", Mode: Summary, DefaultAgent: "all",
		Summary: "a count of each (type, subtype), with the ones ccfilter does not know marked",
		Dot:     "a row: {type, subtype, count, known}",
		Example: "ccfilter types run.jsonl",
	},
	{
		Name: "usage", Mode: Summary, DefaultAgent: "all",
		Summary: "tokens (deduplicated by message.id) and cost, by model, main agent vs subagents, helper model apart",
		Example: "ccfilter usage --format json run.jsonl",
	},
	{
		Name: "subagents", Mode: Summary, DefaultAgent: "all",
		Summary: "the subagent tree: description, type, status, tokens, tool uses, duration, report",
		Dot:     "a subagent row: {tool_use_id, agent_id, description, type, status, background, tokens, tool_uses, duration_ms, report}",
		Example: "ccfilter subagents run.jsonl",
	},
	{
		Name: "init", Mode: Summary, DefaultAgent: "all",
		Summary: "session facts: model, version, cwd, permission mode, tools, agents",
		Example: "ccfilter init run.jsonl",
	},
}

// Lookup returns the preset with the given name.
func Lookup(name string) (Preset, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// Names returns the preset names.
func Names() []string {
	out := make([]string, len(Presets))
	for i, p := range Presets {
		out[i] = p.Name
	}
	return out
}

// IsTrouble reports whether an event signals trouble: an API retry, a
// permission denial, a tool result with is_error, a synthetic API-error
// message, an interrupt, a killed, stopped or failed task, a hook that
// failed, or a result with is_error.
func IsTrouble(e *stream.Event) bool {
	switch e.Kind {
	case stream.KindRetry, stream.KindPermissionDenied, stream.KindAPIError, stream.KindInterrupt:
		return true
	case stream.KindToolResult:
		for _, r := range e.ToolResults() {
			if r.IsError {
				return true
			}
		}
	case stream.KindTask:
		switch e.Subtype {
		case "task_notification", "task_updated":
			switch e.Task().Status {
			case "failed", "killed", "stopped":
				return true
			}
		}
	case stream.KindHook:
		if e.Subtype == "hook_response" {
			return e.Int("exit_code") != 0 || e.Str("outcome") == "error"
		}
	case stream.KindResult:
		return string(e.Get("is_error")) == "true"
	case stream.KindNotice:
		return e.Str("level") == "warning" || e.Subtype == "model_fallback"
	}
	return false
}

// Agent selects whose events pass: "main", "sub", "all", or one subagent's
// id (its agent id or the id of the Agent call that started it).
type Agent string

// Match reports whether an event of the given parent Agent call passes;
// sub is its subagent when known.
func (a Agent) Match(parentToolUseID string, sub *stream.Subagent) bool {
	switch a {
	case "", "all":
		return true
	case "main":
		return parentToolUseID == ""
	case "sub":
		return parentToolUseID != ""
	}
	id := string(a)
	if parentToolUseID == id {
		return true
	}
	return sub != nil && (sub.AgentID == id || strings.HasPrefix(sub.AgentID, id) && len(id) >= 6)
}
