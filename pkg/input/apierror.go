package input

import (
	"strconv"
	"strings"
)

// apiFailure reads, from the message with which another agent CLI says
// its run failed, the HTTP status the model's API answered with, and the
// category Claude Code gives an API error of that status (its assistant
// messages' "error": SDKAssistantMessageError), so that a failed Codex or
// Gemini run is said by its reasons (api_error, authentication_failed,
// HTTP 401) as a Claude Code run is, not by "error_during_execution".
// Codex writes "unexpected status 401 Unauthorized: …"; Gemini CLI the
// API's own JSON, `[API Error: {"error":{"code":401,…`. status is 0 when
// the message names none.
func apiFailure(msg string) (status int, category string) {
	s, ok := codexStatus(msg)
	if !ok {
		s, ok = jsonCode(msg)
	}
	if !ok {
		return 0, ""
	}
	status, _ = strconv.Atoi(s)
	return status, apiErrorCategory(status)
}

// jsonCode finds the "code" of an API error's JSON quoted in a message
// (`"code":401`, `"code": 401`, or escaped in a string, `\"code\":401`):
// three digits, as codexStatus finds a status, without a regular
// expression (a result's message is read on every failed run).
func jsonCode(s string) (string, bool) {
	for i := 0; ; {
		at := strings.Index(s[i:], `code`)
		if at < 0 {
			return "", false
		}
		at += i
		i = at + 1
		if at == 0 || s[at-1] != '"' {
			continue
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(s[at+len("code"):], `\`), `"`)
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		rest = strings.TrimLeft(rest[1:], " ")
		if d, after := leadingDigits(rest); len(d) == 3 && (after == "" || !isWordByte(after[0])) {
			return d, true
		}
	}
}

// apiErrorCategory is the category Claude Code gives an API error of the
// HTTP status (the values of its assistant messages' "error").
func apiErrorCategory(status int) string {
	switch {
	case status == 401 || status == 403:
		return "authentication_failed"
	case status == 402:
		return "billing_error"
	case status == 404:
		return "model_not_found"
	case status == 429:
		return "rate_limit"
	case status == 529 || status == 503:
		return "overloaded"
	case status >= 500:
		return "server_error"
	case status >= 400:
		return "invalid_request"
	}
	return "unknown"
}

// contextExhausted is the terminal reason Claude Code gives a run that
// stopped because its prompt no longer fits the model's context window
// (its result's terminal_reason, SDK TerminalReason "prompt_too_long").
const contextExhausted = "prompt_too_long"

// contextExceeded reports whether msg, the message with which another
// agent CLI says its run failed, says the context window ran out: Codex
// writes "Codex ran out of room in the model's context window. …" (its
// session file's codex_error_info "context_window_exceeded"), the OpenAI
// API "context_length_exceeded". Such a run is said as Claude Code says
// its own (terminal_reason prompt_too_long), not by the
// "error_during_execution" that names no reason.
func contextExceeded(msg string) bool {
	return strings.Contains(msg, "context window") || strings.Contains(msg, "context_length_exceeded") ||
		strings.Contains(msg, "context_window_exceeded")
}
