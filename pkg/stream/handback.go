package stream

import (
	"strconv"
	"strings"
)

// HandBackReport returns the report inside an Agent tool result: the text
// after the "[Subagent hand-back] … The report follows:" frame, without
// the trailing agentId and usage lines and the harness's two-space indent.
// Other texts are returned unchanged. The views (all's text and markdown)
// and the subagents report show the same report.
func HandBackReport(s string) string {
	const frame, follows = "[Subagent hand-back]", "The report follows:\n"
	i := strings.Index(s, frame)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], follows)
	if j < 0 {
		return s
	}
	rep := s[i+j+len(follows):]
	if k := strings.LastIndex(rep, "\nagentId: "); k >= 0 {
		rep = rep[:k]
	}
	lines := strings.Split(rep, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, "  ")
	}
	return strings.Join(lines, "\n")
}

// handBackUsage returns what the last lines of an Agent tool result say
// after the report: the subagent's id ("agentId: …") and its usage
// ("<usage>subagent_tokens: N\ntool_uses: N\nduration_ms: N</usage>").
// ok is false when the text ends with no such usage.
func handBackUsage(s string) (id string, u TaskUsage, ok bool) {
	s = strings.TrimSpace(s)
	i := strings.LastIndex(s, "<usage>")
	if i < 0 || !strings.HasSuffix(s, "</usage>") {
		return "", u, false
	}
	for _, l := range strings.Split(s[i+len("<usage>"):len(s)-len("</usage>")], "\n") {
		k, v, _ := strings.Cut(l, ":")
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch strings.TrimSpace(k) {
		case "subagent_tokens":
			u.TotalTokens, ok = n, true
		case "tool_uses":
			u.ToolUses = n
		case "duration_ms":
			u.DurationMs = n
		}
	}
	if j := strings.LastIndex(s[:i], "\nagentId: "); j >= 0 {
		id, _, _ = strings.Cut(s[j+len("\nagentId: "):i], " ")
		id = strings.TrimSpace(id)
	}
	return id, u, ok
}
