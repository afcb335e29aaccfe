package input

import (
	"path/filepath"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Transcript is a session transcript: the file Claude Code keeps of every
// session in ~/.claude/projects/<escaped-cwd>/<session-id>.jsonl, with its
// subagents' files beside it (NewTranscriptReader).
const Transcript Kind = "transcript"

// transcriptFormat recognises a transcript by its first record: a
// transcript's records carry "sessionId" (the stream's events,
// "session_id") and a type of its own or a conversation type.
var transcriptFormat = Format{
	Kind:   Transcript,
	Detect: isTranscriptRecord,
	Events: NewTranscriptReader,
	Live:   NewLiveTranscriptReader,
	// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects.
	SessionsTree: func(getenv func(string) string, home string) string {
		if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
			return filepath.Join(dir, "projects")
		}
		return filepath.Join(home, ".claude", "projects")
	},
}

// transcriptTypes are the types a transcript's first record can have.
var transcriptTypes = []string{"queue-operation", "user", "assistant", "system", "attachment", "summary",
	"custom-title", "file-history-snapshot", "last-prompt", "mode", "atis-latch", "api-request",
	"api-request-shape", "api-request-blob", "tools-used", "cost-state"}

// IsTranscriptRecord reports whether a line is a session transcript's
// record (what tells a transcript from a stream capture).
func IsTranscriptRecord(line []byte) bool {
	return jsonx.Validate(line) == nil && isTranscriptRecord(line)
}

// isTranscriptRecord is the transcript's Detect: IsTranscriptRecord of a
// line known to be valid JSON.
func isTranscriptRecord(head []byte) bool {
	v := jsonx.Value(head)
	if v.Get("sessionId").Type() != jsonx.String || v.Get("session_id").Type() == jsonx.String {
		return false
	}
	typ := v.Get("type")
	for _, t := range transcriptTypes {
		if typ.StrEqual(t) {
			return true
		}
	}
	return false
}

// transcriptSpellings are a transcript's names for the fields the core
// reads by the stream's names: the transcript's readers decode with them,
// so nothing past this file reads a transcript's spelling of a field.
var transcriptSpellings = stream.Spellings{
	"agent_id":         {"agentId"},
	"tool_use_result":  {"toolUseResult"},
	"compact_metadata": {"compactMetadata"},
	// the join keys of Claude Code's own telemetry (stream.JoinKeys)
	"session_id": {"sessionId"},
	"request_id": {"requestId"},
	"prompt_id":  {"promptId"},
	// reminders and compaction summaries, which no one typed
	"isSynthetic": {"isMeta", "isCompactSummary"},
}

// IsSidechain reports whether a transcript record is a subagent's: it
// says isSidechain:true. Claude Code writes its subagents' records in
// files of their own, each record so marked (and every record of the main
// file false); older releases wrote them into the main file, where only
// the mark tells them from the main agent's. The transcript reader, the
// listing and the spend of sessions all ask this, so that such a record is
// never the main agent's answer, tool call or tokens in one view and a
// subagent's in another.
func IsSidechain(ev *stream.Event) bool { return jsonx.Value(ev.Get("isSidechain")).Bool() }

// launchedAgent is the subagent the tool result ev names, by the agent id
// its toolUseResult carries (Claude Code writes it on an Agent call's
// result, foreground or background), and the call that started it: ""
// when ev names none.
func launchedAgent(ev *stream.Event) (callID, agentID string) {
	agentID = jsonx.Value(ev.ToolUseResult()).Get("agentId").Str()
	if agentID == "" {
		return "", ""
	}
	for _, r := range ev.ToolResults() {
		if r.ToolUseID != "" {
			return r.ToolUseID, agentID
		}
	}
	return "", ""
}
