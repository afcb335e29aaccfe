package stream

// Kind is what an event means to a reader of the run, independent of how
// claude-code spells it. Presets and renderers switch on Kind instead of
// re-parsing type strings. Kinds is the one table that lists them all.
type Kind uint8

// The kinds, in the order of Kinds.
const (
	KindUnknown Kind = iota
	KindInit
	KindPrompt
	KindSubagentPrompt
	KindSynthetic
	KindInterrupt
	KindToolResult
	KindText
	KindThinking
	KindToolUse
	KindAPIError
	KindRetry
	KindPermissionDenied
	KindHook
	KindTask
	KindProgress
	KindCompact
	KindNotice
	KindDelta
	KindResult
	KindInfo
	KindRecord
	numKinds
)

// KindInfo describes one Kind: its name (as the gojq function `kind`
// returns it) and the events it covers. The docs are generated from this.
type KindDoc struct {
	Kind   Kind
	Name   string
	Events string
}

// Kinds lists every Kind with the events it covers.
var Kinds = [numKinds]KindDoc{
	{KindUnknown, "unknown", "any type or subtype ccfilter does not know, and assistant blocks of unknown types: kept, passed through, never an error"},
	{KindInit, "init", "system/init (one per turn)"},
	{KindPrompt, "prompt", "user message of the main agent that is not a tool result: the prompt, replayed prompts (isReplay), local-command output"},
	{KindSubagentPrompt, "subagent_prompt", "user message with parent_tool_use_id set that is not a tool result: the prompt a subagent starts with"},
	{KindSynthetic, "synthetic", "user message with isSynthetic: skill bodies, compaction summaries, 'Output token limit hit', refusal notices"},
	{KindInterrupt, "interrupt", "user message '[Request interrupted by user…]'"},
	{KindToolResult, "tool_result", "user message carrying tool_result blocks"},
	{KindText, "text", "assistant text block (also synthetic local-command output)"},
	{KindThinking, "thinking", "assistant thinking or redacted_thinking block"},
	{KindToolUse, "tool_use", "assistant tool_use, server_tool_use or mcp_tool_use block"},
	{KindAPIError, "api_error", "synthetic assistant message for a failed API call (model <synthetic> with is_api_error_message or an error)"},
	{KindRetry, "retry", "system/api_retry, and tool_progress with subagent_retry (a subagent's API retry)"},
	{KindPermissionDenied, "permission_denied", "system/permission_denied"},
	{KindHook, "hook", "system/hook_started, hook_progress, hook_response"},
	{KindTask, "task", "system/task_started, task_updated, task_notification, background_tasks_changed"},
	{KindProgress, "progress", "system/task_progress, system/thinking_tokens, system/status, tool_progress (but a subagent's retry)"},
	{KindCompact, "compact", "system/compact_boundary"},
	{KindNotice, "notice", "system/informational, model_fallback, model_refusal_fallback, model_refusal_no_fallback, notification, local_command_output"},
	{KindDelta, "delta", "stream_event (partial-message deltas)"},
	{KindResult, "result", "result (every subtype)"},
	{KindInfo, "info", "other known informational events: rate_limit_event, active_goal, autocompact_state, auth_status, tool_use_summary, prompt_suggestion, conversation_reset, control_*, keep_alive, and system/task_summary, post_turn_summary, session_state_changed, files_persisted, memory_recall, plugin_install, commands_changed, and other documented system subtypes"},
	{KindRecord, "record", "a session transcript's bookkeeping: attachment, queue-operation, api-request, api-request-shape, api-request-blob, last-prompt, tools-used, cost-state, atis-latch, mode, summary, custom-title, file-history-snapshot (not shown by the views, counted by types, passed through by ndjson)"},
}

// String returns the kind's name, e.g. "tool_use".
func (k Kind) String() string {
	if k < numKinds {
		return Kinds[k].Name
	}
	return "unknown"
}

// KindSet is a set of kinds; the empty set stands for every kind
// (Needs.Kinds: a consumer that says nothing reads them all).
type KindSet uint32

// KindsOf is the set of the kinds ks.
func KindsOf(ks ...Kind) KindSet {
	var s KindSet
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// Has reports whether k is in the set (any kind is in the empty set).
func (s KindSet) Has(k Kind) bool { return s == 0 || s&(1<<k) != 0 }

// ParseKind returns the Kind with the given name.
func ParseKind(name string) (Kind, bool) {
	for _, d := range Kinds {
		if d.Name == name {
			return d.Kind, true
		}
	}
	return KindUnknown, false
}

// systemKinds maps every system subtype ccfilter knows to its Kind. A
// subtype missing here is KindUnknown (and marked by the types preset).
var systemKinds = map[string]Kind{
	"init":                      KindInit,
	"api_retry":                 KindRetry,
	"permission_denied":         KindPermissionDenied,
	"hook_started":              KindHook,
	"hook_progress":             KindHook,
	"hook_response":             KindHook,
	"task_started":              KindTask,
	"task_updated":              KindTask,
	"task_notification":         KindTask,
	"background_tasks_changed":  KindTask,
	"task_progress":             KindProgress,
	"thinking_tokens":           KindProgress,
	"status":                    KindProgress,
	"compact_boundary":          KindCompact,
	"informational":             KindNotice,
	"model_fallback":            KindNotice,
	"model_refusal_fallback":    KindNotice,
	"model_refusal_no_fallback": KindNotice,
	"notification":              KindNotice,
	"local_command_output":      KindNotice,
	"local_command":             KindNotice, // a transcript's /context, /cost output
	"api_error":                 KindRetry,  // a transcript's failed API call, retried
	"stop_hook_summary":         KindHook,   // a transcript's Stop hooks
	"task_summary":              KindInfo,
	"post_turn_summary":         KindInfo,
	"session_state_changed":     KindInfo,
	"files_persisted":           KindInfo,
	"memory_recall":             KindInfo,
	"plugin_install":            KindInfo,
	"commands_changed":          KindInfo,
	"elicitation_complete":      KindInfo,
	"control_request_progress":  KindInfo,
	"worker_shutting_down":      KindInfo,
	"mirror_error":              KindInfo,
	"session_writes_lost":       KindInfo,
	"session_metadata":          KindInfo,
}

// otherKinds maps top-level types other than system/assistant/user.
var otherKinds = map[string]Kind{
	"stream_event":           KindDelta,
	"result":                 KindResult,
	"tool_progress":          KindProgress,
	"rate_limit_event":       KindInfo,
	"active_goal":            KindInfo,
	"autocompact_state":      KindInfo,
	"auth_status":            KindInfo,
	"tool_use_summary":       KindInfo,
	"prompt_suggestion":      KindInfo,
	"conversation_reset":     KindInfo,
	"control_request":        KindInfo,
	"control_response":       KindInfo,
	"control_cancel_request": KindInfo,
	"keep_alive":             KindInfo,
	"transcript_mirror":      KindInfo,
	"command_lifecycle":      KindInfo,
	// A session transcript's records besides user/assistant/system.
	"attachment":            KindRecord,
	"queue-operation":       KindRecord,
	"api-request":           KindRecord,
	"api-request-shape":     KindRecord,
	"api-request-blob":      KindRecord,
	"last-prompt":           KindRecord,
	"tools-used":            KindRecord,
	"cost-state":            KindRecord,
	"atis-latch":            KindRecord,
	"mode":                  KindRecord,
	"summary":               KindRecord,
	"custom-title":          KindRecord,
	"file-history-snapshot": KindRecord,
}

// Known reports whether ccfilter knows the (type, subtype) pair. The types
// preset marks the pairs that are not known, so that a new claude-code
// version's additions are noticed.
func Known(typ, subtype string) bool {
	if !KnownType(typ) {
		return false
	}
	switch typ {
	case "system":
		_, ok := systemKinds[subtype]
		return ok
	case "assistant", "user":
		return true
	case "result":
		switch subtype {
		case "success", "error_during_execution", "error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries":
			return true
		}
		return false
	}
	return true
}

// KnownType reports whether ccfilter knows the top-level type, whatever
// the subtype: a stream in which no line has one is not a Claude Code
// stream.
func KnownType(typ string) bool {
	switch typ {
	case "system", "assistant", "user", "result":
		return true
	}
	_, ok := otherKinds[typ]
	return ok
}
