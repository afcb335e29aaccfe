package filter

import (
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Agent selects whose events pass: "main", "sub", "all", or one subagent's
// id (its agent id or the id of the Agent call that started it).
type Agent string

// Match reports whether an event of the given parent Agent call passes;
// sub is its subagent when known.
func (a Agent) Match(parentToolUseID string, sub *stream.Subagent) bool {
	switch a {
	case "", "all":
		return true
	case "main":
		return parentToolUseID == ""
	case "sub":
		return parentToolUseID != ""
	}
	id := string(a)
	if parentToolUseID == id {
		return true
	}
	return sub != nil && (sub.AgentID == id || strings.HasPrefix(sub.AgentID, id) && len(id) >= 6)
}

// ByKind reports whether a picks events by whose they are (main, sub,
// all: Match's first cases), which each event says itself, rather than
// naming a subagent, which takes the subagent tree.
func (a Agent) ByKind() bool {
	switch a {
	case "", "all", "main", "sub":
		return true
	}
	return false
}
