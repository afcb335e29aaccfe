// Package filter decides which parts of a stream ccfilter prints, below
// the presets (package preset): gojq expressions run per event, the
// --agent and --where conditions that narrow a preset, and the rule for
// what signals trouble.
package filter

import "github.com/ccfilter/ccfilter/pkg/stream"

// IsTrouble reports whether an event signals trouble: an API retry (the
// main agent's or a subagent's), a failed compaction, a permission denial, a tool result with is_error, a synthetic API-error
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
		switch e.Subtype {
		case "hook_response":
			return e.Int("exit_code") != 0 || e.Str("outcome") == "error"
		case "stop_hook_summary": // a transcript's
			return len(e.Get("hookErrors")) > 2 // not []
		}
	case stream.KindResult:
		return string(e.Get("is_error")) == "true"
	case stream.KindProgress:
		// A subagent's API retry (the stream's api_retry is the main
		// agent's only), and a compaction that failed.
		if e.Type == "tool_progress" {
			return e.Has("subagent_retry")
		}
		return e.Subtype == "status" && (e.Str("compact_error") != "" || e.Str("compact_result") == "failed")
	case stream.KindNotice:
		return e.Str("level") == "warning" || e.Subtype == "model_fallback"
	}
	return false
}
