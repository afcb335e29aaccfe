package stream

// JoinKeys are the ids a record carries that Claude Code's own telemetry
// (its traces, metrics and events) records too, so that a trace made of
// the run can be put beside Claude Code's own records of it. Read by the
// stream's names; a transcript's spellings (sessionId, requestId,
// promptId) are its reader's (pkg/input).
type JoinKeys struct {
	SessionID string // session_id: Claude Code's session.id
	// RequestID is the API request's id (request_id on a stream's
	// assistant events, requestId on a transcript's): Claude Code's
	// request_id, and its gen_ai.response.id.
	RequestID string
	UUID      string // the record's uuid: Claude Code's message.uuid
	PromptID  string // prompt_id (a transcript's user records): Claude Code's prompt.id
}

// JoinKeys reads e's join keys ("" where it carries none).
func (e *Event) JoinKeys() JoinKeys {
	return JoinKeys{SessionID: e.Str("session_id"), RequestID: e.Str("request_id"), UUID: e.Str("uuid"), PromptID: e.PromptID()}
}

// PromptID is JoinKeys' PromptID alone: a view that follows the prompt
// every record answers (the trace format) reads it on each record, and
// the other keys, which most records carry, only of the records it makes
// spans of.
func (e *Event) PromptID() string { return e.Str("prompt_id") }
