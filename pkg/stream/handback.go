package stream

import "strings"

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
