package render

import (
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TroubleLine says in one line what the trouble of ev is (stream.TroubleOf
// says that it is one): the words of every report's list of troubles, the
// markdown glance's and the HTML page's, so that one run's troubles read
// the same in both. done are the calls ev completes (a tool result's),
// apiError the API error that ended the main agent's last turn (a
// result's reasons name it). The line is not yet made safe for a terminal
// or cut: each list does that as it lays the line out.
func TroubleLine(ev *stream.Event, done []*stream.ToolCall, apiError string) string {
	if stop := stream.Stopped(ev); stop != "" {
		s := "the API stopped the answer: " + stop
		if t := firstLine(ev.Text()); t != "" {
			s += ": " + t
		}
		return s
	}
	switch ev.Kind {
	case stream.KindToolResult:
		// The first failed result, named by its call when the tracker
		// paired them (a Codex command's, a Gemini shell's: their result
		// text is the output and the exit code).
		for _, r := range ev.ToolResults() {
			if !r.IsError {
				continue
			}
			s := "a tool call"
			if c := findCall(done, r.ToolUseID); c != nil {
				s = c.Name
				if t := ToolTarget(c.Name, c.Input); t != "" {
					s += " " + t
				}
			}
			return withWhy(s+" failed", unwrapToolError(resultText(r)))
		}
		return "a tool call failed"
	case stream.KindRetry:
		return "API " + RetryText(ev.Retry())
	case stream.KindPermissionDenied:
		d := ev.Denial()
		s := "permission denied: " + d.ToolName
		if d.Reason != "" {
			s += " (" + d.Reason + ")"
		}
		return withWhy(s, d.Message)
	case stream.KindHook:
		h := ev.Hook()
		return withWhy("hook "+h.Name+" failed", h.Message)
	case stream.KindAPIError:
		return withWhy("API error: "+ev.Assistant().Error, ev.Text())
	case stream.KindInterrupt:
		return withWhy("interrupted", ev.Text())
	case stream.KindTask:
		t := ev.Task()
		what := t.Description
		if what == "" {
			what = t.TaskID
		}
		return withWhy("task "+t.Status+": "+what, t.Summary)
	case stream.KindProgress:
		p := ev.Progress()
		return withWhy("compaction failed", p.CompactError)
	case stream.KindNotice:
		n := ev.Notice()
		if ev.Subtype == "model_fallback" {
			s := "model fallback: " + n.OriginalModel + " → " + n.FallbackModel
			if n.Trigger != "" {
				s += " (" + n.Trigger + ")"
			}
			return s
		}
		return withWhy("warning", n.Content)
	case stream.KindResult:
		// As the views say it: its reasons, not a "success" subtype.
		return "the run " + OutcomeStatus(ev.Result(), apiError)
	}
	s := ev.Kind.String()
	if ev.Subtype != "" {
		s += " (" + ev.Subtype + ")"
	}
	return s
}

// withWhy is what a trouble line says, then the first line of why it
// happened when there is one.
func withWhy(what, why string) string {
	if w := firstLine(strings.TrimSpace(why)); w != "" {
		return what + ": " + w
	}
	return what
}

// unwrapToolError is a failed call's text without the tags Claude Code
// wraps its own refusals in ("<tool_use_error>Error: No such tool
// available: NoSuchTool</tool_use_error>"): the words, in a line that
// has little room.
func unwrapToolError(s string) string {
	const open, end = "<tool_use_error>", "</tool_use_error>"
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, open); ok {
		s = strings.Replace(rest, end, "", 1)
	}
	return s
}
