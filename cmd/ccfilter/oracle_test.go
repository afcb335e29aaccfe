package main

// The oracle test: for every real capture, a few lines of independent code
// read the raw JSON (encoding/json into map[string]any, nothing from
// pkg/... or internal/...) and work out what the presets must answer; the
// CLI is then run in-process with --format json and its answer compared.
//
// The rules below are taken from the stream's documentation, not from
// ccfilter's code:
//   - R1 /work/shared/reference/stream-json-field-reference.zh.txt
//     ("一次模型调用返回几个内容块，就有几个 assistant 事件，它们的 message.id 相同";
//     usage "同一次调用的各个块相同，累加时按 message.id 去重"; subagent events carry
//     parent_tool_use_id = the id of the Agent call that started them).
//   - R2 /work/shared/reference/event-catalogue-2.1.328.md (§2.1 assistant:
//     usage "not final on streamed blocks", is_api_error_message / model
//     "<synthetic>"; §2.3 result: total_cost_usd cumulative, "read the latest,
//     don't sum"; modelUsage; §2.6 tool_progress.subagent_retry; §7.3 the
//     last result decides success).
//   - docs/exit-codes.md (final: 0, 1 when the last result has is_error, 4
//     without a result) and docs/presets.md (what each preset lists).
//
// Checks that hit a bug being fixed are behind the item* switches below:
// set one to true once its fix lands.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	// TODO(item 6) item6PhantomSubagentsFixed: a tool_progress whose
	// parent_tool_use_id is a non-Agent call (a Bash call running a hook)
	// must not make a subagent: no subagents row, and the event's agent
	// (the "agent" check) is the agent that made the call. While false,
	// both checks log such a mismatch instead of failing; today it shows
	// on the derived stream 16-hooks+hook-progress, line 7, agent
	// "toolu_01CUHCBN3WmSK8nKLNBqbKSm" where "main" is right.
	item6PhantomSubagentsFixed = true
	// TODO(item 7) item7SubagentTreeFixed: the subagents preset reports each subagent's
	// parent (the Agent call that spawned it, "" for the main agent) and
	// depth (1 for the main agent's, 2 for a subagent's subagent). The
	// expected values are computed either way (oSub.parent, oSub.depth);
	// this switch turns on the "tree" subtest that compares them.
	item7SubagentTreeFixed = true
	// TODO(item 7) item7ReportsUnframedFixed: a subagent's report is the subagent's own
	// text, without the hand-back framing ("[Subagent hand-back]",
	// "agentId: …", "<usage>…</usage>", "<tools-used-before-summary>").
	item7ReportsUnframedFixed = true
)

// workflowIsSubagent: a Workflow call is a row of the subagents preset
// (docs/presets.md "the subagent tree"; docs/stream-format.md: tasks are
// subagents and Workflow runs), next to Agent and Task calls.
const workflowIsSubagent = true

type oEvent = map[string]any

// oCapture is one stream and what the oracle expects of it.
type oCapture struct {
	name   string
	path   string
	events []oEvent
	exp    oExpect
}

type oExpect struct {
	calls     []*oCall // in the order of their tool_use blocks
	callByID  map[string]*oCall
	doneOrder []string // call ids in the order their results arrive
	subagents []*oSub  // Agent/Task (and Workflow) calls, in call order
	subByID   map[string]*oSub
	troubles  []oTrouble // what errors must list, in stream order
	usage     oUsage
	final     oFinal
}

type oCall struct {
	id, name, parent string // parent: the parent_tool_use_id of its assistant event
	done, isError    bool
}

type oSub struct {
	toolUseID, agentID, kind, description string
	status                                string
	parent                                string // the Agent call that spawned it, "" for the main agent
	depth                                 int
	toolCalls                             int
	tokens                                oTokens
}

type oTrouble struct{ label, id string }

type oTokens struct{ In, Out, CacheCreate, CacheRead int64 }

func (a oTokens) add(b oTokens) oTokens {
	return oTokens{a.In + b.In, a.Out + b.Out, a.CacheCreate + b.CacheCreate, a.CacheRead + b.CacheRead}
}

type oModelSide struct {
	model string
	sub   bool
}

type oModelTokens struct {
	calls  int
	tokens oTokens
}

type oUsage struct {
	calls          int
	main, subs     oTokens
	byModel        map[oModelSide]oModelTokens
	haveCost       bool
	cost           float64
	modelCosts     map[string]float64 // the last result's modelUsage: model -> costUSD
	modelOutputs   map[string]int64   // the last result's modelUsage: model -> outputTokens
	answeredModels map[string]bool    // models of real (non-synthetic) assistant messages
	// placeholders: calls with no final output count (R2: the stream's
	// assistant.message is the message_start snapshot, stop_reason null,
	// output_tokens 1; the final count is in message_delta and the result).
	placeholders int
	// byModelPlaceholders counts them by (model, side).
	byModelPlaceholders map[oModelSide]int
}

// total is what usage's total should say: the calls' sums, but for the
// output when some calls' counts are placeholders and the last result's
// modelUsage says more for the models that answered (it is exact).
func (u oUsage) total() oTokens {
	t := u.main.add(u.subs)
	var reported int64
	for m, out := range u.modelOutputs {
		if u.answeredModels[m] {
			reported += out
		}
	}
	if u.placeholders > 0 && reported > t.Out {
		t.Out = reported
	}
	return t
}

type oFinal struct {
	haveResult bool
	last       oEvent
}

// ---- reading raw JSON ----

func oStr(m oEvent, key string) string {
	s, _ := m[key].(string)
	return s
}

func oObj(m oEvent, key string) oEvent {
	o, _ := m[key].(map[string]any)
	return o
}

func oInt(m oEvent, key string) int64 {
	f, _ := m[key].(float64)
	return int64(f)
}

// oContent is message.content as blocks (a string content has none).
func oContent(ev oEvent) []oEvent {
	arr, _ := oObj(ev, "message")["content"].([]any)
	var out []oEvent
	for _, b := range arr {
		if m, ok := b.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func oLoad(t *testing.T, path string) []oEvent {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var evs []oEvent
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev oEvent
		require.NoError(t, json.Unmarshal(line, &ev), "%s:%d", path, i+1)
		evs = append(evs, ev)
	}
	return evs
}

// ---- the oracle ----

func oCompute(evs []oEvent) oExpect {
	x := oExpect{callByID: map[string]*oCall{}, subByID: map[string]*oSub{}}
	x.collectCalls(evs)
	x.collectSubagents(evs)
	x.usage = oComputeUsage(evs, "")
	for _, s := range x.subagents {
		s.tokens = oComputeUsage(evs, s.toolUseID).subs
	}
	for i, ev := range evs {
		line := strconv.Itoa(i + 1)
		switch l := oTroubleLabel(ev); {
		case l == "tool_error":
			// A row per failed result (a user event can carry several).
			for _, b := range oContent(ev) {
				if oStr(b, "type") == "tool_result" && b["is_error"] == true {
					x.troubles = append(x.troubles, oTrouble{l, line})
				}
			}
		case l != "":
			x.troubles = append(x.troubles, oTrouble{l, line})
		}
		if oStr(ev, "type") == "result" {
			x.final = oFinal{haveResult: true, last: ev} // the last result wins (R2 §7.3)
		}
	}
	if !x.final.haveResult {
		x.troubles = append(x.troubles, oTrouble{"no_result", ""})
	}
	return x
}

// collectCalls pairs tool_use blocks (assistant events) with tool_result
// blocks (user events) by tool_use_id.
func (x *oExpect) collectCalls(evs []oEvent) {
	for _, ev := range evs {
		switch oStr(ev, "type") {
		case "assistant":
			for _, b := range oContent(ev) {
				switch oStr(b, "type") {
				case "tool_use", "server_tool_use", "mcp_tool_use":
					c := &oCall{id: oStr(b, "id"), name: oStr(b, "name"), parent: oStr(ev, "parent_tool_use_id")}
					x.calls = append(x.calls, c)
					x.callByID[c.id] = c
				}
			}
		case "user":
			for _, b := range oContent(ev) {
				if oStr(b, "type") != "tool_result" {
					continue
				}
				if c := x.callByID[oStr(b, "tool_use_id")]; c != nil && !c.done {
					c.done, c.isError = true, b["is_error"] == true
					x.doneOrder = append(x.doneOrder, c.id)
				}
			}
		}
	}
}

func oIsAgentTool(name string) bool {
	return name == "Agent" || name == "Task" || (workflowIsSubagent && name == "Workflow")
}

// collectSubagents: a subagent is the child of an Agent/Task call; its
// parent is the Agent call whose subagent made that call, its depth one
// more than its parent's. Its agent id is the agent_id its events carry
// (R2 §2.1: "subagent id (= task_id of task_* events)"), else the task_id
// of the task_started for the call, else (a stream that never says it) the
// call's id.
func (x *oExpect) collectSubagents(evs []oEvent) {
	for _, c := range x.calls {
		if !oIsAgentTool(c.name) {
			continue
		}
		s := &oSub{toolUseID: c.id, parent: c.parent, depth: 1, status: "running"}
		if p := x.subByID[c.parent]; p != nil {
			s.depth = p.depth + 1
		}
		x.subagents = append(x.subagents, s)
		x.subByID[c.id] = s
	}
	for _, ev := range evs {
		x.subagentFacts(ev)
	}
	for _, s := range x.subagents {
		if s.agentID == "" {
			s.agentID = s.toolUseID
		}
	}
	for _, c := range x.calls {
		if s := x.subByID[c.parent]; s != nil {
			s.toolCalls++
		}
	}
	for _, ev := range evs {
		x.subagentStatus(ev)
	}
}

// subagentStatus follows a subagent's status (R2 §2.5): "running" from its
// call, then the status of each task_notification and task_updated patch
// for its task, and the Agent call's result: tool_use_result.status
// "completed" (a foreground subagent, 05b) or is_error ("failed").
func (x *oExpect) subagentStatus(ev oEvent) {
	byTask := func(id string) *oSub {
		for _, s := range x.subagents {
			if s.agentID == id {
				return s
			}
		}
		return nil
	}
	switch oStr(ev, "type") + "/" + oStr(ev, "subtype") {
	case "system/task_notification":
		s := x.subByID[oStr(ev, "tool_use_id")]
		if s == nil {
			s = byTask(oStr(ev, "task_id"))
		}
		if s != nil && oStr(ev, "status") != "" {
			s.status = oStr(ev, "status")
		}
	case "system/task_updated":
		if s := byTask(oStr(ev, "task_id")); s != nil && oStr(oObj(ev, "patch"), "status") != "" {
			s.status = oStr(oObj(ev, "patch"), "status")
		}
	case "user/":
		for _, b := range oContent(ev) {
			s := x.subByID[oStr(b, "tool_use_id")]
			switch {
			case s == nil || oStr(b, "type") != "tool_result":
			case b["is_error"] == true:
				s.status = "failed"
			case oStr(oObj(ev, "tool_use_result"), "status") == "completed":
				s.status = "completed"
			}
		}
	}
}

func (x *oExpect) subagentFacts(ev oEvent) {
	if s := x.subByID[oStr(ev, "parent_tool_use_id")]; s != nil && s.agentID == "" && oStr(ev, "type") != "tool_progress" {
		s.agentID = oStr(ev, "agent_id")
	}
	if oStr(ev, "type") == "system" && oStr(ev, "subtype") == "task_started" {
		if s := x.subByID[oStr(ev, "tool_use_id")]; s != nil && s.agentID == "" {
			s.agentID = oStr(ev, "task_id")
		}
		if s := x.subByID[oStr(ev, "tool_use_id")]; s != nil && s.description == "" {
			s.description = oStr(ev, "description") // a Workflow call's input has none
		}
	}
	if oStr(ev, "type") != "assistant" {
		return
	}
	for _, b := range oContent(ev) {
		if s := x.subByID[oStr(b, "id")]; s != nil && oStr(b, "type") == "tool_use" {
			in := oObj(b, "input")
			s.description, s.kind = oStr(in, "description"), oStr(in, "subagent_type")
			switch {
			case oStr(b, "name") == "Workflow":
				s.kind = "workflow" // docs/presets.md, subagents: a Workflow run's type
			case s.kind == "":
				s.kind = "general-purpose" // the Agent tool's default subagent_type
			}
		}
	}
}

// oComputeUsage sums usage over model calls (R1: one model call = one
// message.id, its usage repeated on each of its blocks: count it once).
// Synthetic messages (model "<synthetic>", R2 §2.1) are not model calls.
// With partial messages the block's usage is not final (R2 §2.1); the
// message_delta of that call (stream_event with api_message_id) carries
// the final counts, which replace the block's where non-zero. A call is
// a subagent's when its parent_tool_use_id is set. With only != "", only
// the calls of that subagent count (in subs).
func oComputeUsage(evs []oEvent, only string) oUsage {
	type call struct {
		model  string
		sub    bool
		tokens oTokens
		final  bool // the output count is the call's final one
	}
	calls := map[string]*call{}
	var order []string
	u := oUsage{byModel: map[oModelSide]oModelTokens{}, answeredModels: map[string]bool{}, byModelPlaceholders: map[oModelSide]int{}}
	for _, ev := range evs {
		switch oStr(ev, "type") {
		case "assistant":
			msg := oObj(ev, "message")
			model, id, parent := oStr(msg, "model"), oStr(msg, "id"), oStr(ev, "parent_tool_use_id")
			if model == "<synthetic>" || (only != "" && parent != only) {
				continue
			}
			if calls[id] == nil {
				calls[id] = &call{}
				order = append(order, id)
			}
			tokens, final := oTokensOf(oObj(msg, "usage")), msg["stop_reason"] != nil
			if calls[id].final && !final {
				tokens.Out = calls[id].tokens.Out // a snapshot after the final count
			}
			calls[id].model, calls[id].sub, calls[id].tokens = model, parent != "", tokens
			calls[id].final = calls[id].final || final
		case "stream_event":
			e := oObj(ev, "event")
			switch oStr(e, "type") {
			case "message_start":
				// A call whose stream died (28) has no assistant event,
				// but was made and billed: the turn's result.usage counts it.
				msg, parent := oObj(e, "message"), oStr(ev, "parent_tool_use_id")
				if id := oStr(msg, "id"); calls[id] == nil && (only == "" || parent == only) {
					calls[id] = &call{oStr(msg, "model"), parent != "", oTokensOf(oObj(msg, "usage")), false}
					order = append(order, id)
				}
			case "message_delta":
				if c := calls[oStr(ev, "api_message_id")]; c != nil {
					d := oTokensOf(oObj(e, "usage"))
					c.tokens = oMergeNonZero(c.tokens, d)
					c.final = c.final || oObj(e, "delta")["stop_reason"] != nil
				}
			}
		case "result":
			u.haveCost, u.cost = true, ev["total_cost_usd"].(float64) // cumulative: the latest (R2 §2.3)
			u.modelCosts, u.modelOutputs = map[string]float64{}, map[string]int64{}
			for m, v := range oObj(ev, "modelUsage") {
				u.modelCosts[m], _ = v.(map[string]any)["costUSD"].(float64)
				out, _ := v.(map[string]any)["outputTokens"].(float64)
				u.modelOutputs[m] = int64(out)
			}
		}
	}
	for _, id := range order {
		c := calls[id]
		u.calls++
		k := oModelSide{c.model, c.sub}
		mt := u.byModel[k]
		mt.calls++
		mt.tokens = mt.tokens.add(c.tokens)
		u.byModel[k] = mt
		u.answeredModels[c.model] = true
		if !c.final {
			u.placeholders++
			u.byModelPlaceholders[k]++
		}
		if c.sub {
			u.subs = u.subs.add(c.tokens)
		} else {
			u.main = u.main.add(c.tokens)
		}
	}
	return u
}

func oTokensOf(u oEvent) oTokens {
	return oTokens{oInt(u, "input_tokens"), oInt(u, "output_tokens"), oInt(u, "cache_creation_input_tokens"), oInt(u, "cache_read_input_tokens")}
}

func oMergeNonZero(old, n oTokens) oTokens {
	pick := func(o, v int64) int64 {
		if v != 0 {
			return v
		}
		return o
	}
	return oTokens{pick(old.In, n.In), pick(old.Out, n.Out), pick(old.CacheCreate, n.CacheCreate), pick(old.CacheRead, n.CacheRead)}
}

// oTroubleLabel names what the errors preset must list an event as (""
// when it must not), per its documented summary (docs/presets.md:
// "retries (subagents' too), denials, failed tools, API errors,
// interrupts, failed tasks, hooks and compactions, failed results, a
// missing result") and the warnings ccfilter adds to it.
func oTroubleLabel(ev oEvent) string {
	switch oStr(ev, "type") {
	case "system":
		return oSystemTrouble(ev)
	case "assistant":
		if oStr(oObj(ev, "message"), "model") == "<synthetic>" && (ev["is_api_error_message"] == true || oStr(ev, "error") != "") {
			return "api_error"
		}
	case "user":
		return oUserTrouble(ev)
	case "result":
		if ev["is_error"] == true {
			return "result_error"
		}
	case "tool_progress":
		if ev["subagent_retry"] != nil {
			return "subagent_retry"
		}
	}
	return ""
}

func oSystemTrouble(ev oEvent) string {
	failed := func(status string) bool { return status == "failed" || status == "killed" || status == "stopped" }
	switch oStr(ev, "subtype") {
	case "api_retry":
		return "api_retry"
	case "permission_denied":
		return "permission_denied"
	case "task_notification":
		if failed(oStr(ev, "status")) {
			return "task_failed"
		}
	case "task_updated":
		if failed(oStr(oObj(ev, "patch"), "status")) {
			return "task_failed"
		}
	case "hook_response":
		if oInt(ev, "exit_code") != 0 || oStr(ev, "outcome") == "error" {
			return "hook_failed"
		}
	case "status":
		if oStr(ev, "compact_error") != "" || oStr(ev, "compact_result") == "failed" {
			return "compact_failed"
		}
	case "informational":
		if oStr(ev, "level") == "warning" {
			return "warning"
		}
	case "model_fallback":
		return "model_fallback"
	case "model_refusal_fallback", "model_refusal_no_fallback":
		return "refusal" // R2: stop_reason refusal, retried on a fallback model or not
	}
	return ""
}

func oUserTrouble(ev oEvent) string {
	blocks := oContent(ev)
	for _, b := range blocks {
		if oStr(b, "type") == "tool_result" && b["is_error"] == true {
			return "tool_error"
		}
	}
	text, _ := oObj(ev, "message")["content"].(string)
	for _, b := range blocks {
		if oStr(b, "type") == "tool_result" {
			return ""
		}
		if oStr(b, "type") == "text" && text == "" {
			text = oStr(b, "text")
		}
	}
	if strings.HasPrefix(text, "[Request interrupted by user") {
		return "interrupt"
	}
	// An answer the API stopped: claude-code tells the model so in a
	// synthetic user message (2.1.328; 2.1.332 marks a refusal's retry).
	if ev["isSynthetic"] == true || ev["refusal_retry"] != nil {
		switch {
		case ev["refusal_retry"] != nil, strings.Contains(text, "stopped by a safety classifier"):
			return "refusal"
		case strings.HasPrefix(text, "Output token limit hit"):
			return "max_tokens"
		}
	}
	return ""
}

// oIdentity names one event: its uuid, else its type/subtype.
func oIdentity(ev oEvent) string {
	if u := oStr(ev, "uuid"); u != "" {
		return u
	}
	return oStr(ev, "type") + "/" + oStr(ev, "subtype")
}

// ---- the captures ----

func oCaptures(t *testing.T) []*oCapture {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 42)
	files = append(files, "../../testdata/real/60-long-session.jsonl")
	var caps []*oCapture
	for _, f := range files {
		evs := oLoad(t, f)
		caps = append(caps, &oCapture{name: strings.TrimSuffix(filepath.Base(f), ".jsonl"), path: f, events: evs, exp: oCompute(evs)})
	}
	return append(caps, oDerived(t, caps)...)
}

// oDerived writes streams that no capture covers, made from captures by
// adding lines of documented shapes (R2 §2.6 tool_progress):
//   - 16-hooks+hook-progress: a hook heartbeat (tool_progress) whose
//     parent_tool_use_id is the Bash call running the hook: not a subagent
//     (item 6);
//   - 05b+nested: subagent alpha's Write call turned into an Agent call
//     whose own subagent (task_started, its prompt, as 05b's subagents
//     start) retries once (tool_progress subagent_retry) and makes one
//     Bash call: a depth-2 subagent (item 7) and a subagent retry for
//     errors.
func oDerived(t *testing.T, caps []*oCapture) []*oCapture {
	dir := t.TempDir()
	byName := map[string]*oCapture{}
	for _, c := range caps {
		byName[c.name] = c
	}
	var out []*oCapture
	add := func(name string, evs []oEvent) {
		var buf bytes.Buffer
		for _, ev := range evs {
			b, err := json.Marshal(ev)
			require.NoError(t, err)
			buf.Write(append(b, '\n'))
		}
		p := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		evs = oLoad(t, p) // what the CLI reads, read back
		out = append(out, &oCapture{name: name, path: p, events: evs, exp: oCompute(evs)})
	}
	add("16-hooks+hook-progress", oWithHookProgress(t, byName["16-hooks"].events))
	add("05b+nested", oWithNestedSubagent(t, byName["05b-subagents-foreground"].events))
	return out
}

func oClone(t *testing.T, evs []oEvent) []oEvent {
	b, err := json.Marshal(evs)
	require.NoError(t, err)
	var out []oEvent
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func oWithHookProgress(t *testing.T, evs []oEvent) []oEvent {
	evs = oClone(t, evs)
	var bash string
	var at int
	for i, ev := range evs {
		for _, b := range oContent(ev) {
			if oStr(b, "type") == "tool_use" && oStr(b, "name") == "Bash" && bash == "" {
				bash, at = oStr(b, "id"), i+1
			}
		}
	}
	require.NotEmpty(t, bash, "16-hooks has a Bash call")
	progress := oEvent{"type": "tool_progress", "tool_use_id": "hook-heartbeat-1", "tool_name": "PreToolUse:Bash",
		"parent_tool_use_id": bash, "elapsed_time_seconds": 2.0, "heartbeat": true,
		"uuid": "00000000-0000-4000-8000-000000000601", "session_id": oStr(evs[len(evs)-1], "session_id")}
	return append(evs[:at], append([]oEvent{progress}, evs[at:]...)...)
}

func oWithNestedSubagent(t *testing.T, evs []oEvent) []oEvent {
	evs = oClone(t, evs)
	// alpha is the subagent of the first Agent call; its Write call becomes an Agent call.
	var alpha, write string
	var writeAt int
	for i, ev := range evs {
		for _, b := range oContent(ev) {
			switch {
			case oStr(b, "name") == "Agent" && alpha == "":
				alpha = oStr(b, "id")
			case oStr(b, "name") == "Write" && oStr(ev, "parent_tool_use_id") == alpha && alpha != "":
				write, writeAt = oStr(b, "id"), i
				b["name"] = "Agent"
				b["input"] = map[string]any{"description": "Nested probe", "prompt": "run true", "subagent_type": "general-purpose", "run_in_background": false}
			}
		}
	}
	require.NotEmpty(t, write, "05b's first subagent has a Write call")
	sid := oStr(evs[writeAt], "session_id")
	const inner, innerAgent = "toolu_nested_bash_0000000001", "a0000000000000nest"
	nested := []oEvent{
		{"type": "system", "subtype": "task_started", "task_id": innerAgent, "tool_use_id": write, "description": "Nested probe",
			"subagent_type": "general-purpose", "task_type": "local_agent", "is_backgrounded": false, "spawn_depth": 2.0,
			"parent_task_id": oStr(evs[writeAt], "agent_id"), "uuid": "00000000-0000-4000-8000-000000000700", "session_id": sid},
		{"type": "user", "parent_tool_use_id": write, "agent_id": innerAgent, "session_id": sid, "uuid": "00000000-0000-4000-8000-000000000704",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "run true"}}}},
		{"type": "tool_progress", "tool_use_id": write, "tool_name": "Agent", "parent_tool_use_id": write, "elapsed_time_seconds": 1.0,
			"subagent_retry": map[string]any{"agent_id": innerAgent, "attempt": 1.0, "max_retries": 10.0, "retry_delay_ms": 500.0, "error_status": 529.0, "error_category": "overloaded"},
			"uuid":           "00000000-0000-4000-8000-000000000701", "session_id": sid},
		{"type": "assistant", "parent_tool_use_id": write, "agent_id": innerAgent, "session_id": sid, "uuid": "00000000-0000-4000-8000-000000000702",
			"message": map[string]any{"id": "msg_nested_000001", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
				"content":     []any{map[string]any{"type": "tool_use", "id": inner, "name": "Bash", "input": map[string]any{"command": "true"}}},
				"stop_reason": nil, "usage": map[string]any{"input_tokens": 7.0, "output_tokens": 3.0, "cache_creation_input_tokens": 11.0, "cache_read_input_tokens": 13.0}}},
		{"type": "user", "parent_tool_use_id": write, "agent_id": innerAgent, "session_id": sid, "uuid": "00000000-0000-4000-8000-000000000703",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": inner, "content": "", "is_error": false}}}},
	}
	return append(evs[:writeAt+1], append(nested, evs[writeAt+1:]...)...)
}

// ---- the comparisons ----

// TestOracle runs tools, subagents, errors, usage and final with --format
// json on every capture and compares each with what the oracle computed
// from the raw JSON.
func TestOracle(t *testing.T) {
	asJSON := []string{"--format", "json"}
	presets := []struct {
		name  string
		args  []string // before the file
		check func(t *testing.T, c *oCapture, got runResult)
	}{
		{"tools", append([]string{"tools"}, asJSON...), oCheckTools},
		{"subagents", append([]string{"subagents"}, asJSON...), oCheckSubagents},
		{"errors", append([]string{"errors"}, asJSON...), oCheckErrors},
		{"usage", append([]string{"usage"}, asJSON...), oCheckUsage},
		{"final", append([]string{"final"}, asJSON...), oCheckFinal},
		// Not a preset: the agent each event is given, which --agent,
		// tools' agent column and the text views' agent headers use.
		{"agent", []string{"-c", "[line, agent]"}, oCheckAgent},
	}
	for _, c := range oCaptures(t) {
		for _, p := range presets {
			t.Run(c.name+"/"+p.name, func(t *testing.T) {
				got := runIn(t, append(append([]string{}, p.args...), c.path), "")
				p.check(t, c, got)
			})
		}
	}
}

// oCheckAgent compares the agent of each event with parent_tool_use_id:
// the subagent of that Agent call; for a non-Agent call (a hook's
// tool_progress on a Bash call) the agent that made the call, not a
// subagent of its own (item 6).
func oCheckAgent(t *testing.T, c *oCapture, got runResult) {
	require.Equal(t, 0, got.Code, "stderr: %s", got.Stderr)
	x := &c.exp
	have := map[int]string{}
	for _, l := range strings.Split(strings.TrimSpace(got.Stdout), "\n") {
		var row []any
		if l == "" {
			continue
		}
		require.NoError(t, json.Unmarshal([]byte(l), &row), l)
		have[int(row[0].(float64))], _ = row[1].(string)
	}
	for i, ev := range c.events {
		parent := oStr(ev, "parent_tool_use_id")
		want := "main"
		if parent != "" {
			call := x.callByID[parent]
			switch {
			case call == nil:
				continue // a call the stream never showed: nothing to expect
			case x.subByID[parent] == nil:
				if !item6PhantomSubagentsFixed && have[i+1] != x.oAgentLabel(call.parent) {
					t.Logf("TODO(item 6): line %d (%s, parent %s, a %s call) is given agent %q, want %q (tolerated until item6PhantomSubagentsFixed)",
						i+1, oStr(ev, "type"), parent, call.name, have[i+1], x.oAgentLabel(call.parent))
					continue
				}
				want = x.oAgentLabel(call.parent)
			default:
				want = x.oAgentLabel(parent)
			}
		}
		assert.Equal(t, want, have[i+1], "agent of line %d (%s/%s)", i+1, oStr(ev, "type"), oStr(ev, "subtype"))
	}
}

func oDecode(t *testing.T, c *oCapture, got runResult, into any) {
	t.Helper()
	want := 0
	if len(c.events) == 0 {
		want = 4 // an empty input: no result, for every preset (docs/exit-codes.md)
	}
	require.Equal(t, want, got.Code, "stderr: %s", got.Stderr)
	require.NoError(t, json.Unmarshal([]byte(got.Stdout), into), "stdout: %.500s", got.Stdout)
}

// oAgentLabel is the agent a call belongs to, as the presets name it:
// "main", or its subagent's agent id.
func (x *oExpect) oAgentLabel(parent string) string {
	if s := x.subByID[parent]; s != nil {
		return s.agentID
	}
	if parent == "" {
		return "main"
	}
	return parent
}

type oCallRow struct {
	ID, Name, Agent string
	Done, IsError   bool
}

func oCheckTools(t *testing.T, c *oCapture, got runResult) {
	var rows []struct {
		ID      string `json:"tool_use_id"`
		Tool    string `json:"tool"`
		Agent   string `json:"agent"`
		IsError *bool  `json:"is_error"`
	}
	oDecode(t, c, got, &rows)
	x := &c.exp
	var want, have []oCallRow
	// Calls in the order their results arrive, then those without one.
	order := append([]string{}, x.doneOrder...)
	for _, cl := range x.calls {
		if !cl.done {
			order = append(order, cl.id)
		}
	}
	for _, id := range order {
		cl := x.callByID[id]
		want = append(want, oCallRow{cl.id, cl.name, x.oAgentLabel(cl.parent), cl.done, cl.isError})
	}
	for _, r := range rows {
		have = append(have, oCallRow{r.ID, r.Tool, r.Agent, r.IsError != nil, r.IsError != nil && *r.IsError})
	}
	assert.Equal(t, want, have, "tool calls: id, name, agent, has a result, is_error (in result order)")
}

type oSubRow struct {
	ToolUseID, AgentID, Type, Description, Status string
	ToolCalls                                     int
	Tokens                                        oTokens
}

func oCheckSubagents(t *testing.T, c *oCapture, got runResult) {
	var rows []map[string]any
	oDecode(t, c, got, &rows)
	x := &c.exp
	var want, have []oSubRow
	for _, s := range x.subagents {
		want = append(want, oSubRow{s.toolUseID, s.agentID, s.kind, s.description, s.status, s.toolCalls, s.tokens})
	}
	for _, r := range rows {
		if !item6PhantomSubagentsFixed && x.subByID[oStr(r, "tool_use_id")] == nil && x.callByID[oStr(r, "tool_use_id")] != nil {
			t.Logf("TODO(item 6): phantom subagent row for the %s call %s (tolerated until item6PhantomSubagentsFixed)", x.callByID[oStr(r, "tool_use_id")].name, oStr(r, "tool_use_id"))
			continue
		}
		have = append(have, oSubRow{oStr(r, "tool_use_id"), oStr(r, "agent_id"), oStr(r, "type"), oStr(r, "description"), oStr(r, "status"),
			int(oInt(r, "tool_calls")), oTokensOf(r)})
	}
	assert.Equal(t, want, have, "subagents: ids, type, description, status, tool calls, tokens")

	if len(x.subagents) == 0 {
		return
	}
	t.Run("tree", func(t *testing.T) {
		if !item7SubagentTreeFixed {
			t.Skip("TODO(item 7): the subagents preset does not report parent/depth yet; set item7SubagentTreeFixed")
		}
		oCheckTree(t, x, rows)
	})
	t.Run("report-unframed", func(t *testing.T) {
		if !item7ReportsUnframedFixed {
			t.Skip("TODO(item 7): reports still carry the hand-back framing; set item7ReportsUnframedFixed")
		}
		for _, r := range rows {
			for _, frame := range []string{"[Subagent hand-back]", "agentId:", "<usage>", "<tools-used-before-summary>"} {
				assert.NotContains(t, oStr(r, "report"), frame, "report of %s", oStr(r, "tool_use_id"))
			}
		}
	})
}

// oCheckTree compares each subagent's parent and depth. The field names are
// not settled yet: parent is parent_tool_use_id or parent, depth is depth.
func oCheckTree(t *testing.T, x *oExpect, rows []map[string]any) {
	type node struct {
		ID, Parent string
		Depth      int
	}
	var want, have []node
	for _, s := range x.subagents {
		want = append(want, node{s.toolUseID, s.parent, s.depth})
	}
	for _, r := range rows {
		parent := oStr(r, "parent_tool_use_id")
		if _, ok := r["parent_tool_use_id"]; !ok {
			parent = oStr(r, "parent")
		}
		have = append(have, node{oStr(r, "tool_use_id"), parent, int(oInt(r, "depth"))})
	}
	assert.Equal(t, want, have, "subagent tree: id, parent Agent call, depth")
}

// oRowKind is the kind an errors row gives each trouble the oracle finds.
var oRowKind = map[string]string{
	"api_retry": "retry", "subagent_retry": "retry", "permission_denied": "permission_denied",
	"hook_failed": "hook_failed", "compact_failed": "compaction_failed", "warning": "notice",
	"model_fallback": "notice", "result_error": "result_failed", "tool_error": "tool_error",
	"interrupt": "interrupt", "api_error": "api_error", "refusal": "refusal", "max_tokens": "max_tokens",
	"no_result": "no_result",
}

// oCheckErrors compares errors' rows (line, kind) with the troubles the
// oracle finds: a row per trouble event, one per failed result of a user
// event, in stream order, and the missing result last.
func oCheckErrors(t *testing.T, c *oCapture, got runResult) {
	var rows []struct {
		Line *int64 `json:"line"`
		Kind string `json:"kind"`
	}
	oDecode(t, c, got, &rows)
	var want, have []oTrouble
	wantN, haveN := map[string]int{}, map[string]int{}
	for _, tr := range c.exp.troubles {
		k := oRowKind[tr.label]
		if tr.label == "task_failed" {
			k = "task_" // + its status
		}
		want = append(want, oTrouble{k, tr.id})
		wantN[k]++
	}
	for _, r := range rows {
		line, k := "", r.Kind
		if r.Line != nil {
			line = strconv.FormatInt(*r.Line, 10)
		}
		if strings.HasPrefix(k, "task_") {
			k = "task_"
		}
		haveN[k]++
		have = append(have, oTrouble{k, line})
	}
	assert.Equal(t, wantN, haveN, "errors: count of each kind")
	assert.Equal(t, want, have, "errors: the rows (kind, line), in order")
}

func oCheckUsage(t *testing.T, c *oCapture, got runResult) {
	var rows []struct {
		Model       string   `json:"model"`
		Side        string   `json:"side"`
		Calls       *int     `json:"calls"`
		In          int64    `json:"input_tokens"`
		Out         int64    `json:"output_tokens"`
		CacheCreate int64    `json:"cache_creation_input_tokens"`
		CacheRead   int64    `json:"cache_read_input_tokens"`
		CostUSD     *float64 `json:"cost_usd"`
		Exact       bool     `json:"output_exact"`
	}
	oDecode(t, c, got, &rows)
	u := c.exp.usage
	have := map[oModelSide]oModelTokens{}
	var main, subs, total oTokens
	var calls, inexact int
	var cost *float64
	costs := map[string]float64{}
	var haveHelper, wantHelper []string
	for _, r := range rows {
		tok := oTokens{r.In, r.Out, r.CacheCreate, r.CacheRead}
		switch r.Side {
		case "main", "subagent":
			require.NotNil(t, r.Calls)
			have[oModelSide{r.Model, r.Side == "subagent"}] = oModelTokens{*r.Calls, tok}
			if r.Side == "main" {
				main = main.add(tok)
			} else {
				subs = subs.add(tok)
			}
			if !r.Exact {
				inexact++
			}
		case "total":
			require.NotNil(t, r.Calls)
			total, calls, cost = tok, *r.Calls, r.CostUSD
		case "result", "helper":
			require.NotNil(t, r.CostUSD)
			costs[r.Model] = *r.CostUSD
			if r.Side == "helper" {
				haveHelper = append(haveHelper, r.Model)
			}
		default:
			t.Errorf("a usage row of side %q", r.Side)
		}
	}
	assert.Equal(t, u.calls, calls, "model calls (distinct message.id)")
	assert.Equal(t, u.main, main, "main agent tokens")
	assert.Equal(t, u.subs, subs, "subagent tokens")
	assert.Equal(t, u.total(), total, "total tokens (output from the result's modelUsage where the calls' are placeholders)")
	placeholderRows := 0
	for _, m := range u.byModelPlaceholders {
		if m > 0 {
			placeholderRows++
		}
	}
	assert.Equal(t, placeholderRows, inexact, "rows whose output count holds a placeholder")
	assert.Equal(t, u.byModel, have, "tokens by (model, side)")
	assert.Equal(t, u.haveCost, cost != nil, "the total's cost_usd is there when a result has one")
	if cost != nil {
		assert.Equal(t, u.cost, *cost, "cost_usd: the last result's total_cost_usd")
	}
	for m := range u.modelCosts {
		if !u.answeredModels[m] {
			wantHelper = append(wantHelper, m)
		}
	}
	sort.Strings(wantHelper)
	sort.Strings(haveHelper)
	if u.modelCosts == nil {
		u.modelCosts = map[string]float64{}
	}
	assert.Equal(t, u.modelCosts, costs, "result and helper rows: the last result's modelUsage costUSD")
	assert.Equal(t, wantHelper, haveHelper, "helper: modelUsage models that answered no assistant message")
}

func oCheckFinal(t *testing.T, c *oCapture, got runResult) {
	f := c.exp.final
	switch {
	case !f.haveResult:
		assert.Equal(t, 4, got.Code, "no result: exit 4 (docs/exit-codes.md); stderr: %s", got.Stderr)
		assert.Empty(t, got.Stdout)
	case f.last["is_error"] == true:
		assert.Equal(t, 1, got.Code, "last result is_error: exit 1; stderr: %s", got.Stderr)
		assert.Empty(t, got.Stdout, "stdout stays empty on failure")
		why := oStr(f.last, "result")
		if errs, _ := f.last["errors"].([]any); len(errs) > 0 {
			why = fmt.Sprint(errs[0])
		}
		assert.Contains(t, got.Stderr, why, "stderr says why the run failed")
	default:
		var last oEvent
		oDecode(t, c, got, &last)
		assert.Equal(t, oStr(f.last, "result"), oStr(last, "result"), "the last result's text")
		assert.Equal(t, false, last["is_error"])
		assert.Equal(t, f.last, last, "final --format json is the last result event")
	}
}
