package input

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAPIFailureReadsTheStatus proves the HTTP status and its category are
// read from each CLI's failure messages as the captures have them (Codex
// 0.171.0's 05, 06 and 07; Gemini CLI 0.61.0's 05, which quotes the API's
// JSON escaped in its own), and that a message naming none gives none.
func TestAPIFailureReadsTheStatus(t *testing.T) {
	for _, c := range []struct {
		msg      string
		status   int
		category string
	}{
		{"unexpected status 401 Unauthorized: Incorrect API key provided: sk-fake-*******0000.", 401, "authentication_failed"},
		{"exceeded retry limit, last status: 429 Too Many Requests, request id: x; unexpected status 429 Too Many Requests", 429, "rate_limit"},
		{"unexpected status 500 Internal Server Error: boom", 500, "server_error"},
		{`[API Error: {"error":{"code":401,"message":"Request had invalid authentication credentials."}}]`, 401, "authentication_failed"},
		{`[API Error: {\"error\":{\"code\": 429,\"message\":\"quota\"}}]`, 429, "rate_limit"},
		{"[API Error: quota exceeded]", 0, ""},
		{"the run ended with status error", 0, ""},
		{"unexpected status 4010", 0, ""},
	} {
		status, category := apiFailure(c.msg)
		assert.Equal(t, c.status, status, c.msg)
		assert.Equal(t, c.category, category, c.msg)
	}
}
