package input

import (
	"regexp"
	"strconv"
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
	m := statusIn.FindStringSubmatch(msg)
	if m == nil {
		return 0, ""
	}
	status, _ = strconv.Atoi(m[1])
	return status, apiErrorCategory(status)
}

// statusIn finds an HTTP status in a CLI's failure message: Codex's
// "unexpected status N", or the "code": N of the API's error JSON that
// Gemini CLI quotes (escaped or not).
var statusIn = regexp.MustCompile(`(?:unexpected status |status code:? |\\?"code\\?":\s*)([1-5][0-9][0-9])\b`)

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
