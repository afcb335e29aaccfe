package input

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// Google Gemini CLI (0.61.0) writes two inputs ccfilter reads, each a kind
// of its own: the stream of `gemini -p … --output-format stream-json`
// (Gemini, gemini_stream.go) and the chat file it keeps of a session,
// ~/.gemini/tmp/<project>/chats/session-*.jsonl (GeminiSession,
// gemini_session.go). Their spellings and record shapes stay in these
// files: both readers translate the records into events shaped as Claude
// Code's stream, marked "ccfilter":"synthetic", each echoing the line it
// stands for (stream.Event.SetEcho), so that every preset, format, the
// account and the trace read a Gemini run unchanged.
const (
	Gemini        Kind = "gemini"
	GeminiSession Kind = "gemini-session"
)

// geminiCLI is the id the inits of both kinds carry (stream.CLIOf).
const geminiCLI = "gemini"

var geminiFormat = Format{
	Kind:   Gemini,
	CLI:    geminiCLI,
	Detect: isGeminiStream,
	Events: NewGeminiReader,
}

var geminiSessionFormat = Format{
	Kind:   GeminiSession,
	CLI:    geminiCLI,
	Detect: isGeminiChat,
	Events: NewGeminiSessionReader,
	// ~/.gemini/tmp/<project>/chats/session-*.jsonl; a subagent's chat,
	// chats/<session id>/<agent id>.jsonl, is read with its session's.
	SessionsTree: GeminiSessionsTree,
	SessionGlob:  filepath.Join("*", "chats", "session-*.jsonl"),
}

// isGeminiStream recognises a line of the stream by its type and the
// members only Gemini CLI writes with it: an init with a session_id, a
// message with a role, a tool_use with its tool's name and id, a
// tool_result with its id and status, an error with a severity, a result
// with a status. None has a subtype: Claude Code's events of the same
// types (result; its init is type "system") always have one, and its
// messages and tool blocks are nested, never top-level events, so that
// neither is ever taken for the other (TestDetectionIsCertain).
func isGeminiStream(line []byte) bool {
	v := jsonx.Value(line)
	has := func(key string) bool { return v.Get(key).Type() == jsonx.String }
	if v.Get("subtype").Type() != jsonx.Missing {
		return false
	}
	switch v.Get("type").Str() {
	case "init":
		return has("session_id")
	case "message":
		return has("role")
	case "tool_use":
		return has("tool_name") && has("tool_id")
	case "tool_result":
		return has("tool_id") && has("status")
	case "error":
		return has("severity")
	case "result":
		return has("status") && v.Get("is_error").Type() == jsonx.Missing
	}
	return false
}

// isGeminiChat recognises a line of a chat file: its header (sessionId,
// projectHash, startTime and kind, and no type), an update of it (an
// object of "$set" alone), or a record (an id, a timestamp, a type and
// content at the top level, where Claude Code's records hold a message).
func isGeminiChat(line []byte) bool {
	v := jsonx.Value(line)
	has := func(key string) bool { return v.Get(key).Type() == jsonx.String }
	switch {
	case v.Get("$set").Type() == jsonx.Object:
		n := 0
		v.EachMember(func(k []byte, _ jsonx.Value) bool { n++; return true })
		return n == 1
	case has("projectHash"):
		return has("sessionId") && has("startTime") && has("kind") && v.Get("type").Type() == jsonx.Missing
	}
	return has("id") && has("timestamp") && has("type") && v.Get("content").Type() != jsonx.Missing &&
		v.Get("message").Type() == jsonx.Missing && v.Get("sessionId").Type() == jsonx.Missing &&
		v.Get("session_id").Type() == jsonx.Missing
}

// geminiShell is the tool that runs a command; its result is a success
// whatever the command's exit code (STREAMS.md: 03, 08), which only its
// output can tell.
const geminiShell = "run_shell_command"

// geminiSubagent is the tool that starts a subagent (invoke_agent →
// generalist): its own calls are in the stream's stats only; in the chat
// files, its file chats/<session>/<agentId>.jsonl has them.
const geminiSubagent = "invoke_agent"

// exitCodeLine is how a shell result's output gives the command's exit
// code: the chat file's functionResponse ("Exit Code: 2"); the stream's
// output holds the command's text only (03, 08), so there the code is not
// known (and not guessed).
var exitCodeLine = regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)

// shellExitCode reads a command's exit code from its output.
func shellExitCode(output string) (int, bool) {
	if !strings.Contains(output, "Exit Code: ") {
		return 0, false // (the regexp's backtracking on every command's output was 2% of tools)
	}
	m := exitCodeLine.FindStringSubmatch(output)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// geminiMaxTurns is the error type of a run stopped by
// model.maxSessionTurns: Claude Code's error_max_turns.
const geminiMaxTurns = "FatalTurnLimitedError"

// Claude Code's stream shapes the readers write, as Go values.
type (
	gmInit struct {
		Type       string          `json:"type"`
		Subtype    string          `json:"subtype"`
		CCFilter   string          `json:"ccfilter"`
		CLI        string          `json:"cli"`
		CLIVersion string          `json:"cli_version,omitempty"`
		SessionID  string          `json:"session_id"`
		Model      string          `json:"model"`
		Cwd        string          `json:"cwd,omitempty"`
		Timestamp  string          `json:"timestamp,omitempty"`
		Tools      []string        `json:"tools"`
		MCPServers []string        `json:"mcp_servers"`
		Extra      json.RawMessage `json:"gemini_header,omitempty"`
	}
	gmBlock struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text,omitempty"`
		Thinking  *string         `json:"thinking,omitempty"`
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
		ToolUseID string          `json:"tool_use_id,omitempty"`
		Content   *string         `json:"content,omitempty"`
		IsError   *bool           `json:"is_error,omitempty"`
	}
	gmUsage struct {
		InputTokens              int64 `json:"input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		// bad: the input's counts that were none (past 64 bits,
		// negative) behind input, cache read and output, as written
		// (countOf); nil where the count is one.
		bad [3]jsonx.Value
	}
	gmMessage struct {
		ID         string   `json:"id,omitempty"`
		Role       string   `json:"role"`
		Model      string   `json:"model,omitempty"`
		Content    any      `json:"content"`
		StopReason *string  `json:"stop_reason,omitempty"`
		Usage      *gmUsage `json:"usage,omitempty"`
	}
	gmEvent struct {
		Type      string    `json:"type"`
		CCFilter  string    `json:"ccfilter"`
		Message   gmMessage `json:"message"`
		SessionID string    `json:"session_id,omitempty"`
		Timestamp string    `json:"timestamp,omitempty"`
		// Cwd is the session's workspace, on its model calls' events (as
		// a Claude Code transcript's records carry theirs): what usage's
		// project is.
		Cwd    string  `json:"cwd,omitempty"`
		Parent *string `json:"parent_tool_use_id"`
		// ToolUseResult says a subagent's call completed (what the
		// tracker reads of Claude Code's Agent results).
		ToolUseResult *gmToolUseResult `json:"tool_use_result,omitempty"`
	}
	gmToolUseResult struct {
		Status  string `json:"status"`
		AgentID string `json:"agentId,omitempty"`
	}
	gmModelUsage struct {
		InputTokens              int64 `json:"inputTokens"`
		OutputTokens             int64 `json:"outputTokens"`
		CacheReadInputTokens     int64 `json:"cacheReadInputTokens"`
		CacheCreationInputTokens int64 `json:"cacheCreationInputTokens"`
		bad                      [3]jsonx.Value
	}
	gmResult struct {
		Type     string   `json:"type"`
		Subtype  string   `json:"subtype"`
		CCFilter string   `json:"ccfilter"`
		IsError  bool     `json:"is_error"`
		Result   *string  `json:"result,omitempty"`
		Errors   []string `json:"errors,omitempty"`
		// TerminalReason and APIErrorStatus: a run the API's error ended,
		// said as Claude Code says it (apiFailure).
		TerminalReason string                  `json:"terminal_reason,omitempty"`
		APIErrorStatus int                     `json:"api_error_status,omitempty"`
		DurationMs     *int64                  `json:"duration_ms,omitempty"`
		NumTurns       int                     `json:"num_turns"`
		SessionID      string                  `json:"session_id,omitempty"`
		Timestamp      string                  `json:"timestamp,omitempty"`
		Usage          *gmUsage                `json:"usage,omitempty"`
		ModelUsage     map[string]gmModelUsage `json:"modelUsage,omitempty"`
	}
)

// geminiTokens reads a Gemini token count object into the stream's four
// counts: input_tokens uncached (Gemini's input counts include cached),
// cache reads, and output_tokens everything generated: Gemini's output
// (candidates) leaves the thoughts out, which its total holds (10:
// 24185 = 24073 + 48 + 64), so output = total - input.
func geminiTokens(input, cached, output, total int64) gmUsage {
	gen := output
	if total > input+output {
		gen = total - input
	}
	return gmUsage{InputTokens: input - cached, CacheReadInputTokens: cached, OutputTokens: gen}
}

// str is a pointer to s, for the optional strings of the shapes above.
func str(s string) *string { return &s }

// boolp is a pointer to b.
func boolp(b bool) *bool { return &b }

// ErrGeminiJSON is Open's diagnosis of gemini -p --output-format json:
// one pretty-printed document of the answer and the run's totals, no
// events (no tool call, no text as it came), which jq -c . makes one line
// of no known type: the advice that leads somewhere is the stream.
var ErrGeminiJSON = errors.New("this is Gemini CLI's --output-format json (one document, no events): run gemini with --output-format stream-json")

// geminiJSONOutput reports whether keys, the top-level keys of a
// pretty-printed JSON document, are those of gemini --output-format json:
// its answer ("response") beside its "session_id" or its "stats".
func geminiJSONOutput(keys []string) bool {
	return slices.Contains(keys, "response") && (slices.Contains(keys, "session_id") || slices.Contains(keys, "stats"))
}

// geminiJSONLine reports whether line, a JSON object on one line, is
// gemini --output-format json's document made one line (jq -c .), by its
// top-level keys as geminiJSONOutput reads them.
func geminiJSONLine(line []byte) bool {
	ms, err := jsonx.Members(line, nil)
	if err != nil {
		return false
	}
	var keys []string
	for _, m := range ms {
		for _, k := range []string{"response", "session_id", "stats"} {
			if m.Is(k) {
				keys = append(keys, k)
			}
		}
	}
	return geminiJSONOutput(keys)
}
