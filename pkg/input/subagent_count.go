package input

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// subagentSet counts a session's subagents for its listing as the run's
// account lists them (stream.Tracker's subagents, which the subagents
// view shows, from the records as the transcript reader attributes them):
// one for each call that starts a subagent (Agent, Task: its records
// found or not), one for each Workflow run (its agents are the Workflow's
// one subagent), and one for each agent no known call started (AgentKey:
// by its agent id, or the one unnamedSidechain), each once. So a session
// with subagents whose calls are unknown (their records in the main file
// under another agent id, or none; a subagent's file that neither a
// .meta.json nor a result ties to a call) counts in sessions what
// subagents lists.
type subagentSet struct {
	calls map[string]bool // the calls that start a subagent, by id
	// sidechain are the agent ids of the main file's subagent records
	// (IsSidechain; "" for those that name none).
	sidechain map[string]bool
	uses      []stream.Block // (noteCalls' scratch, reused)
}

func newSubagentSet() *subagentSet {
	return &subagentSet{calls: map[string]bool{}, sidechain: map[string]bool{}}
}

// noteCalls notes the calls of an assistant record (the main agent's or a
// subagent's: a nested subagent is one too) that start a subagent, by
// their blocks' heads (indexed once per record, their inputs skipped: a
// search of the record's bytes for "Agent" and "Task" first cost sessions
// more than the heads, two passes over every call's whole input).
func (c *subagentSet) noteCalls(ev *stream.Event) {
	if ev.Kind != stream.KindToolUse || ev.Type != "assistant" {
		return
	}
	c.uses = ev.AppendToolUses(c.uses[:0])
	for _, b := range c.uses {
		// (A Workflow's call is counted by its run, below.)
		if stream.StartsSubagent(b.Name) && b.Name != "Workflow" {
			c.calls[b.ID] = true
		}
	}
}

// count is the number of the subagents of the session transcript at path,
// whose records and calls were noted, and whose agents' files are files
// (SubagentFiles: listed once for the reading and the count).
func (c *subagentSet) count(path string, files []string) int {
	dir := SessionDir(path)
	keys := map[string]bool{}
	for id := range c.calls {
		keys[id] = true
	}
	agents := map[string]string{} // agent id → the call that started it
	var ids []string              // agent ids of the files outside a Workflow run
	for _, f := range files {
		if run := filepath.Dir(f); filepath.Base(filepath.Dir(run)) == "workflows" {
			keys["workflow run "+filepath.Base(run)] = true
			continue
		}
		ids = append(ids, agentIDOf(f))
	}
	for _, m := range SubagentMetas(dir) {
		if run := filepath.Dir(m); filepath.Base(filepath.Dir(run)) == "workflows" {
			keys["workflow run "+filepath.Base(run)] = true
			continue
		}
		id := agentIDOf(m)
		ids = append(ids, id)
		if call := metaCall(m); call != "" {
			agents[id] = call
		}
	}
	loose := false // a file no .meta.json ties to a call
	for _, id := range ids {
		loose = loose || agents[id] == ""
	}
	if len(c.sidechain) > 0 || loose {
		// What no .meta.json says: the calls' results name their agents
		// (one more pass, only over such a session's file).
		launched, _ := launchedAgents(path)
		for id, call := range launched {
			if agents[id] == "" {
				agents[id] = call
			}
		}
	}
	for _, id := range ids {
		k, _ := AgentKey(agents, id)
		keys[k] = true
	}
	for id := range c.sidechain {
		k, _ := AgentKey(agents, id)
		keys[k] = true
	}
	return len(keys)
}

// agentIDOf is the agent id a subagent's file or .meta.json is named for
// (agent-<id>.jsonl, .jsonl.gz, .meta.json).
func agentIDOf(f string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(plainJSONL(f), ".jsonl"), ".meta.json")
	return strings.TrimPrefix(filepath.Base(base), "agent-")
}

// metaCall is the Agent call a subagent's .meta.json names (toolUseId),
// "" when it names none or cannot be read.
func metaCall(meta string) string { return readMeta(meta).call }

// agentMeta is what a subagent's .meta.json says: the Agent call that
// started it (toolUseId) and its type (agentType), each read as the one
// field of a struct (a field the other cannot decode spoils neither); ok
// when the file was read and its type decoded.
type agentMeta struct {
	call, typ string
	ok        bool
}

// readMeta reads a subagent's .meta.json once, for both what it says.
func readMeta(meta string) agentMeta {
	if regular(meta) != nil {
		return agentMeta{}
	}
	b, err := readSmall(meta)
	if err != nil {
		return agentMeta{}
	}
	var call struct {
		ToolUseID string `json:"toolUseId"`
	}
	var typ struct {
		AgentType string `json:"agentType"`
	}
	var m agentMeta
	if json.Unmarshal(b, &call) == nil {
		m.call = call.ToolUseID
	}
	if json.Unmarshal(b, &typ) == nil {
		m.typ, m.ok = typ.AgentType, true
	}
	return m
}
