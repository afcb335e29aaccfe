package stream

import "strings"

// The kinds of trouble TroubleOf says, as the account counts them
// (Account.Troubles.ByKind) and the errors preset lists them.
const (
	TroubleRetry       = "api_retry"
	TroubleDenial      = "permission_denied"
	TroubleAPIError    = "api_error"
	TroubleInterrupt   = "interrupt"
	TroubleToolError   = "tool_error"
	TroubleTask        = "task_failed"
	TroubleHook        = "hook_failed"
	TroubleResult      = "result_error"
	TroubleCompaction  = "compaction_failed"
	TroubleNotice      = "notice"
	TroubleStoppedText = "stopped"
	// TroubleNoResult is no event's: the account counts it once when the
	// run has no result (the errors preset's last row).
	TroubleNoResult = "no_result"
)

// NoResultSaid is the missing result's trouble in words, as every view
// lists it (errors' row, the glance, the page's trouble list, final).
const NoResultSaid = "the stream ended without a result event (the run was killed or cut off)"

// TroubleOf says which kind of trouble an event signals, "" for none: an
// API retry (the main agent's or a subagent's), a failed compaction, a
// permission denial, a tool result with is_error, a synthetic API-error
// message, an interrupt, a killed, stopped or failed task, a hook that
// failed, a result with is_error, a warning or a model fallback, an answer
// the API stopped (Stopped). It is the one rule of what trouble is: the
// errors preset lists these events, the account counts them, every view's
// list of troubles is theirs.
func TroubleOf(e *Event) string {
	if Stopped(e) != "" {
		return TroubleStoppedText
	}
	switch e.Kind {
	case KindRetry:
		return TroubleRetry
	case KindPermissionDenied:
		return TroubleDenial
	case KindAPIError:
		return TroubleAPIError
	case KindInterrupt:
		return TroubleInterrupt
	case KindToolResult:
		for _, r := range e.toolResults(false) { // (their sizes unread: as the Tracker's Needs say)
			if r.IsError {
				return TroubleToolError
			}
		}
	case KindTask:
		switch e.Subtype {
		case "task_notification", "task_updated":
			switch e.Task().Status {
			case "failed", "killed", "stopped":
				return TroubleTask
			}
		}
	case KindHook:
		if e.Hook().Failed {
			return TroubleHook
		}
	case KindResult:
		if string(e.Get("is_error")) == "true" {
			return TroubleResult
		}
	case KindProgress:
		// A compaction that failed. (A subagent's API retry is a
		// KindRetry: the stream's api_retry is the main agent's only.)
		if e.Subtype == "status" && (e.Str("compact_error") != "" || e.Str("compact_result") == "failed") {
			return TroubleCompaction
		}
	case KindNotice:
		if e.Str("level") == "warning" || e.Subtype == "model_fallback" {
			return TroubleNotice
		}
	}
	return ""
}

// Stopped says whether an event tells of an answer the API stopped:
// "refusal" (a safety classifier stopped it) or "max_tokens" (cut at the
// output limit); "" otherwise. The stream of claude-code 2.1.328 says it
// only in the synthetic message it adds for the model ("Output token limit
// hit", "stopped by a safety classifier") and in a refusal's system
// notice; a transcript's assistant records carry the stop_reason itself;
// 2.1.332 marks the user message of a retried refusal (refusal_retry).
func Stopped(e *Event) string {
	switch e.Kind {
	case KindSynthetic, KindPrompt:
		if e.Has("refusal_retry") {
			return "refusal"
		}
		if e.Kind != KindSynthetic {
			return "" // what a person typed is no sign of anything
		}
		switch text := e.Text(); {
		case strings.Contains(text, "stopped by a safety classifier"):
			return "refusal"
		case strings.HasPrefix(text, "Output token limit hit"):
			return "max_tokens"
		}
	case KindNotice:
		if e.Subtype == "model_refusal_fallback" || e.Subtype == "model_refusal_no_fallback" {
			return "refusal"
		}
	case KindText:
		// Every record of a transcript's message repeats its stop_reason:
		// the text's is the one said (a stopped answer ends in text).
		if !e.Has("sessionId") {
			// The stream's assistant events are the message_start
			// snapshot, stop_reason null: only a transcript's records
			// (sessionId, not session_id) carry it. Not read, then:
			// finding it walks past the whole content.
			return ""
		}
		switch string(e.Get("message", "stop_reason")) {
		case `"refusal"`:
			return "refusal"
		case `"max_tokens"`, `"model_context_window_exceeded"`:
			return "max_tokens"
		}
	}
	return ""
}
