// Package filter decides which parts of a stream ccfilter prints, below
// the presets (package preset): gojq expressions run per event, the
// --agent and --where conditions that narrow a preset, and the rule for
// what signals trouble.
package filter

import (
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// IsTrouble reports whether an event signals trouble: an API retry (the
// main agent's or a subagent's), a failed compaction, a permission denial, a tool result with is_error, a synthetic API-error
// message, an interrupt, a killed, stopped or failed task, a hook that
// failed, or a result with is_error.
func IsTrouble(e *stream.Event) bool {
	if Stopped(e) != "" {
		return true
	}
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
		return e.Hook().Failed
	case stream.KindResult:
		return string(e.Get("is_error")) == "true"
	case stream.KindProgress:
		// A compaction that failed. (A subagent's API retry is a
		// KindRetry: the stream's api_retry is the main agent's only.)
		return e.Subtype == "status" && (e.Str("compact_error") != "" || e.Str("compact_result") == "failed")
	case stream.KindNotice:
		return e.Str("level") == "warning" || e.Subtype == "model_fallback"
	}
	return false
}

// Stopped says whether an event tells of an answer the API stopped:
// "refusal" (a safety classifier stopped it) or "max_tokens" (cut at the
// output limit); "" otherwise. The stream of claude-code 2.1.328 says it
// only in the synthetic message it adds for the model ("Output token limit
// hit", "stopped by a safety classifier") and in a refusal's system
// notice; a transcript's assistant records carry the stop_reason itself;
// 2.1.332 marks the user message of a retried refusal (refusal_retry).
func Stopped(e *stream.Event) string {
	switch e.Kind {
	case stream.KindSynthetic, stream.KindPrompt:
		if e.Has("refusal_retry") {
			return "refusal"
		}
		if e.Kind != stream.KindSynthetic {
			return "" // what a person typed is no sign of anything
		}
		switch text := e.Text(); {
		case strings.Contains(text, "stopped by a safety classifier"):
			return "refusal"
		case strings.HasPrefix(text, "Output token limit hit"):
			return "max_tokens"
		}
	case stream.KindNotice:
		if e.Subtype == "model_refusal_fallback" || e.Subtype == "model_refusal_no_fallback" {
			return "refusal"
		}
	case stream.KindText:
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
