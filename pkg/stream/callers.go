package stream

import (
	"encoding/json"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// callers remembers, for tool calls that do not start a subagent, the agent
// that made each (its parent_tool_use_id, "" for the main agent). An event
// whose parent_tool_use_id names such a call (a hook's tool_progress
// heartbeat on a Bash call) belongs to that agent: a subagent is the child
// of an Agent, Task or Workflow call, nothing else. At most max calls are
// remembered, the oldest forgotten first.
type callers struct {
	by   map[string]string
	ring []string // ids in the order they came, len ≤ max
	next int      // where the next id goes once ring is full
	max  int
}

func (m *callers) add(id, parent string) {
	if id == "" {
		return
	}
	if m.by == nil {
		m.by = map[string]string{}
	}
	if _, ok := m.by[id]; ok {
		m.by[id] = parent
		return
	}
	if len(m.ring) < m.max {
		m.ring = append(m.ring, id)
	} else {
		delete(m.by, m.ring[m.next])
		m.ring[m.next] = id
		m.next = (m.next + 1) % m.max
	}
	m.by[id] = parent
}

func (m *callers) get(id string) (parent string, ok bool) {
	parent, ok = m.by[id]
	return parent, ok
}

// StartsSubagent reports whether a call of the named tool starts a
// subagent (Task is Agent's older name; a Workflow runs agents).
func StartsSubagent(name string) bool { return startsSubagent(name) }

func startsSubagent(name string) bool {
	return name == "Agent" || name == "Task" || name == "Workflow" || name == geminiSubagent
}

// SubagentOf is the type and the description of the subagent a call of
// the named tool with this input starts (a tool StartsSubagent names):
// the call's subagent_type (Gemini CLI's agent_name), else the
// general-purpose agent; a Workflow's agents are the Workflow's type. The
// one rule: the run's account (Tracker) and the spend of sessions
// (pkg/spend) type a subagent by it, so every view names it alike.
func SubagentOf(name string, input json.RawMessage) (typ, description string) {
	in := jsonx.Value(input)
	typ, description = in.Get("subagent_type").Str(), in.Get("description").Str()
	if name == geminiSubagent {
		typ, description = in.Get("agent_name").Str(), in.Get("prompt").Str()
	}
	if name == "Workflow" {
		typ = WorkflowAgentType
		if n := in.Get("name").Str(); n != "" && description == "" {
			description = n
		}
	} else if typ == "" {
		typ = DefaultAgentType
	}
	return typ, description
}

// geminiSubagent is Gemini CLI's tool that starts a subagent (its input:
// agent_name, prompt), as its stream and chat files name it (pkg/input).
const geminiSubagent = "invoke_agent"

// noteCallers remembers the tool calls of an assistant event that start no
// subagent, reading only each block's type, id and name: for trackers that
// follow no tool calls (FollowAll's open calls say it), which still give
// events to the right agent.
func (t *Tracker) noteCallers(e *Event) {
	parent := e.ParentToolUseID()
	for _, b := range e.blockHeads() {
		if b.Type.StrEqual("tool_use") {
			if name := b.Name.Str(); !startsSubagent(name) {
				t.callers.add(b.ID.Str(), parent)
			}
		}
	}
}

// attributeProgress gives a tool_progress event whose parent_tool_use_id
// is a known call that starts no subagent to the agent that made the call.
// An unknown parent (a call before the stream's start, or forgotten) keeps
// the stream's word for it.
//
// A tracker that follows tool calls finds the call among the open ones (a
// hook runs while its call waits for its result); the others remember the
// calls themselves (noteCallers), unless no event's agent is shown
// (Needs.NoOwners).
func (t *Tracker) attributeProgress(e *Event) {
	p := e.ParentToolUseID()
	if p == "" || t.agents[p] != nil {
		return
	}
	if t.o.Needs.Follow == FollowAll {
		if c := t.calls[p]; c != nil && !startsSubagent(c.Name) {
			e.setParent(c.ParentToolUseID)
		}
		return
	}
	if caller, ok := t.callers.get(p); ok {
		e.setParent(caller)
	}
}

// attributeDenial gives a permission_denied event without
// parent_tool_use_id to the subagent it names (agent_id, the task_id of
// its task_* events) or, failing that, to the agent that made the denied
// call (tool_use_id).
func (t *Tracker) attributeDenial(e *Event) {
	if s := t.byAgentID[e.AgentID()]; s != nil {
		e.setParent(s.ToolUseID)
		return
	}
	id := e.field("tool_use_id").Str()
	if c := t.calls[id]; c != nil {
		e.setParent(c.ParentToolUseID)
	} else if caller, ok := t.callers.get(id); ok {
		e.setParent(caller)
	}
}
