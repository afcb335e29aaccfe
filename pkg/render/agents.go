package render

import (
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// agentInfo is what a renderer knows of one subagent: how deep it nests,
// how it is named, whether it is a Workflow (whose agents emit no events of
// their own), and whether its section was already shown (markdown).
type agentInfo struct {
	depth    int
	label    string
	workflow bool
	shown    bool
}

type taskRef struct{ toolUseID, desc string }

// agentBook is the subagent bookkeeping the text and markdown renderers
// share: subagents by the id of the call that started them, and tasks by
// task_id, both bounded. sep joins a subagent's type and description in
// its label (": " in text, " — " in markdown).
type agentBook struct {
	sep    string
	tr     *stream.Tracker
	agents *boundedMap[string, agentInfo]
	tasks  *boundedMap[string, taskRef]
}

func newAgentBook(sep string, tr *stream.Tracker) agentBook {
	return agentBook{sep: sep, tr: tr,
		agents: newBoundedMap[string, agentInfo](4096),
		tasks:  newBoundedMap[string, taskRef](4096)}
}

func (b *agentBook) put(id string, a agentInfo) { b.agents.put(id, a) }

// lookup returns what is known of the subagent started by call id, naming
// it from typ and desc (or the tracker) the first time it is seen.
func (b *agentBook) lookup(id, typ, desc string) agentInfo {
	if a, ok := b.agents.get(id); ok {
		return a
	}
	if (typ == "" || desc == "") && b.tr != nil {
		if s := b.tr.Subagent(id); s != nil {
			typ, desc = s.Type, s.Description
		}
	}
	a := agentInfo{depth: 1, label: id}
	switch {
	case typ != "" && desc != "":
		a.label = typ + b.sep + desc
	case desc != "":
		a.label = desc
	case typ != "":
		a.label = typ
	}
	b.agents.put(id, a)
	return a
}

// depth is the nesting of the agent whose call id is ctx (0: main).
func (b *agentBook) depth(ctx string) int {
	if ctx == "" {
		return 0
	}
	if a, ok := b.agents.get(ctx); ok {
		return a.depth
	}
	return 1
}

// spawned records an Agent/Task/Workflow call made by agent ctx: its
// subagent nests one level deeper, named after the call's target.
func (b *agentBook) spawned(callID, ctx, tool, target string) {
	a := agentInfo{depth: b.depth(ctx) + 1, label: strings.Replace(target, ": ", b.sep, 1)}
	if tool == "Workflow" {
		a.label, a.workflow = "workflow"+b.sep+target, true
	}
	b.agents.put(callID, a)
}

// taskAgent returns the subagent a task event is about ("" for tasks that
// are not subagents: Bash commands, and workflows, whose agents emit
// nothing), and the task's description.
func (b *agentBook) taskAgent(task stream.Task) (string, string) {
	ref, _ := b.tasks.get(task.TaskID)
	if task.ToolUseID != "" {
		ref.toolUseID = task.ToolUseID
	}
	if task.Description != "" && ref.desc == "" {
		ref.desc = task.Description
	}
	if task.TaskID != "" {
		b.tasks.put(task.TaskID, ref)
	}
	tu := ref.toolUseID
	switch {
	case tu == "":
	case task.TaskType == "local_agent" || task.TaskType == "remote_agent":
		return tu, ref.desc
	default:
		if a, ok := b.agents.get(tu); ok && !a.workflow {
			return tu, ref.desc
		}
		if b.tr != nil {
			if s := b.tr.Subagent(tu); s != nil && s.Type != "workflow" {
				return tu, ref.desc
			}
		}
	}
	return "", ref.desc
}

// accountTokens says an agent's tokens as its account gives them: the sum
// over its own model calls, else that the input carries none of them
// (yet), with the CLI's task figure, named as such, when it gave one; ""
// when there is neither. In a title ("14,778 tokens") or a table's
// Tokens cell ("14,778").
func accountTokens(a stream.AgentAccount, title bool) string {
	switch {
	case a.Tokens != nil && title:
		return groupDigits(a.Tokens.TotalTokens) + " tokens"
	case a.Tokens != nil:
		return groupDigits(a.Tokens.TotalTokens)
	case a.TaskReportedTokens == nil:
		return ""
	}
	s := "not in the input (" + groupDigits(*a.TaskReportedTokens) + " task tokens)"
	if title {
		s = "tokens " + s
	}
	return s
}
