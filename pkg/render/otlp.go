package render

import (
	"cmp"
	"crypto/sha256"
	"encoding"
	"hash"
	"slices"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// The trace format (otlp): a run as an OpenTelemetry trace, following the
// GenAI semantic conventions (docs/otel.md). It is a layout of the same
// Parts as the other formats, with the model calls read off the events
// (their message ids and models) and their tokens off the tracker (each
// call once, as the usage preset counts it):
//
//   - a root span "invoke_agent claude-code" for the run;
//   - a span "chat MODEL" per model call (message.id), under its agent;
//   - a span "execute_tool NAME" per tool call, under its agent;
//   - a subagent's "invoke_agent TYPE" span under the Agent call that
//     started it, its own calls under it;
//   - retries, denials, hooks, compactions, notices and the result as
//     span events.
//
// Spans are written as they end, in batches of otlpBatch, each batch one
// ExportTraceServiceRequest (a JSON line, or Options.Spans); the root span
// last, when the run ends. What is held is bounded: the open calls, the
// open subagents, one model call per agent, one batch. A span is a flat
// record (otlp_span.go), encoded once when its batch goes out and then
// reused.

// otlpBatch is how many ended spans one export carries.
const otlpBatch = 512

// otlpMaxEvents bounds a span's events (the OpenTelemetry SDK's default
// limit); past it they are counted as dropped.
const otlpMaxEvents = 128

// otlpMaxOpen bounds the open spans of each kind (calls, subagents) and
// the ids remembered (ended calls and subagents): past it one open span
// is ended where it stands, or the memory of ended ones cleared.
const otlpMaxOpen = 10000

// SemconvSchema is the OpenTelemetry schema the spans name: the version of
// the semantic conventions that defines gen_ai.provider.name and the
// operation names used (the cache token attributes came later, see
// docs/otel.md).
const SemconvSchema = "https://opentelemetry.io/schemas/1.37.0"

// Time sources of a trace (the span attribute claude_code.times): the
// run's one rule (stream.Clock) either found a dated record or laid the run
// out from a fixed origin.
const (
	TimesRecorded      = "recorded"      // the records' own timestamps
	TimesReconstructed = "reconstructed" // none: from stream.UndatedOrigin, by the durations the stream gives
)

// otlpRun builds one run's trace.
type otlpRun struct {
	o    Options
	seed string // what every id is derived from: the session and the run's first event
	// seeded is the state of sha256 after the seed and its separator,
	// which every span id starts with: hashed once, not once an id
	// (issue 41: it is a block of the two most ids take); idHash is the
	// hash each id is finished in.
	seeded  []byte
	idHash  hash.Hash
	idKey   []byte // an id's key, and its sum
	idSum   []byte
	traceID []byte
	root    *otlpSpan
	version string
	agents  map[string]*otlpSpan // subagents' spans, by the Agent call that started them
	tools   map[string]*otlpSpan // open tool calls' spans, by tool_use id
	chats   map[string]*otlpChat // each agent's model call under way ("" the main agent)
	lastAt  map[string]time.Time // each agent's last event time
	seen    map[string]bool      // the model calls ended (bounded)
	// endedAgents are the subagents whose span ended, with its id, which
	// their later events sit under (bounded).
	endedAgents map[string]otlpID
	min, max    time.Time    // the earliest and latest times given: the root's span
	ended       []*otlpSpan  // the batch
	free        []*otlpSpan  // the records of spans exported, to reuse
	last        time.Time    // the last time an event was given
	dated       bool         // a record was dated: the times are final
	done        bool         // the run ended: what is held goes out
	clock       stream.Clock // the times without a tracker
	times       string
	result      stream.Result // the last result (hasResult)
	hasResult   bool
	session     string // the session's id: every span's session.id
	prompt      string // the prompt the calls answer (a transcript's promptId): prompt.id
	// ev is the event being laid out; keys its join keys, read once
	// (keysRead) when a span takes them: most events make no span, and
	// reading them was a third of the format's allocations (issue 41).
	ev       *stream.Event
	keys     stream.JoinKeys
	keysRead bool
	// cli is the run's agent CLI (its init's "cli"): the root's agent
	// name and every span's gen_ai.provider.name.
	cli stream.CLI
}

// otlpChat is a model call under way.
type otlpChat struct {
	span *otlpSpan
	id   string
}

func newOTLPRun(o Options) *otlpRun {
	return &otlpRun{o: o, agents: map[string]*otlpSpan{}, tools: map[string]*otlpSpan{},
		chats: map[string]*otlpChat{}, lastAt: map[string]time.Time{}, seen: map[string]bool{}, endedAgents: map[string]otlpID{}, times: TimesReconstructed}
}

// at is the time of ev by the run's one rule (stream.Clock: the tracker's,
// which has observed ev). The first dated record's time is also the time
// of the events before it: what was laid out before it moves there.
func (r *otlpRun) at(ev *stream.Event) time.Time {
	var t stream.Time
	if r.o.Tracker != nil {
		t = r.o.Tracker.Time()
	} else {
		t = r.clock.Observe(ev)
	}
	if t.Dated && !r.dated {
		r.dated, r.times = true, TimesRecorded
		r.redate(t.At)
	}
	r.last = t.At
	r.spanned(t.At)
	return t.At
}

// redate moves every time given so far to t, the first dated record's:
// they were the undated layout's. Nothing has been exported yet (held),
// so every span given a time is here.
func (r *otlpRun) redate(t time.Time) {
	n := nanos(t)
	move := func(s *otlpSpan) {
		if s == nil {
			return
		}
		s.start = n
		if s.end != 0 {
			s.end = n
		}
		for i := range s.events {
			s.events[i].at = n
		}
	}
	move(r.root)
	for _, s := range r.agents {
		move(s)
	}
	for _, s := range r.tools {
		move(s)
	}
	for _, c := range r.chats {
		move(c.span)
	}
	for _, s := range r.ended {
		move(s)
	}
	for k := range r.lastAt {
		r.lastAt[k] = t
	}
	r.min, r.max = t, t
}

// held: the spans wait for the first dated record, whose time they may
// take, or the run's end (a run with no dated record is laid out from
// the fixed origin). A stream that dates no record is held whole.
func (r *otlpRun) held() bool { return !r.dated && !r.done }

// span notes a time given to a span: the root spans them all.
func (r *otlpRun) spanned(t time.Time) {
	if r.min.IsZero() || t.Before(r.min) {
		r.min = t
	}
	if t.After(r.max) {
		r.max = t
	}
}

// id derives a span id from the run's seed and a key: the first 8 bytes
// of sha256(seed "\x00" key).
func (r *otlpRun) id(key string) otlpID {
	if r.idHash == nil {
		r.idHash = sha256.New()
		r.idHash.Write([]byte(r.seed + "\x00"))
		r.seeded, _ = r.idHash.(encoding.BinaryMarshaler).MarshalBinary()
	} else if err := r.idHash.(encoding.BinaryUnmarshaler).UnmarshalBinary(r.seeded); err != nil {
		panic(err) // (its own state)
	}
	// Through buffers of the run's: a key or a sum handed to the hash's
	// interface escaped, two allocations an id.
	r.idKey = append(r.idKey[:0], key...)
	r.idHash.Write(r.idKey)
	r.idSum = r.idHash.Sum(r.idSum[:0])
	return otlpID(r.idSum[:8])
}

// span is a new span's record: an exported one's, reused, or a new one.
func (r *otlpRun) span(id otlpID, parent otlpID, name string, kind int32, start uint64) *otlpSpan {
	var s *otlpSpan
	if n := len(r.free); n > 0 {
		s, r.free = r.free[n-1], r.free[:n-1]
		*s = otlpSpan{attrs: s.attrs[:0], events: s.events[:0]}
	} else {
		s = &otlpSpan{}
	}
	s.id, s.parent, s.name, s.kind, s.start = id, parent, name, kind, start
	r.stamp(s)
	return s
}

// exported gives the records of the batch's spans back, to be reused
// (the root's is the run's until it ends).
func (r *otlpRun) exported() {
	for i, s := range r.ended {
		if s != r.root {
			r.free = append(r.free, s)
		}
		r.ended[i] = nil
	}
	r.ended = r.ended[:0]
}

// traceState is every span's trace state: the caller's (TRACESTATE).
func (r *otlpRun) traceState() string {
	if p := r.o.Parent; p != nil {
		return p.State
	}
	return ""
}

// begin starts the trace at the run's first event: its ids come from the
// session and that event (a resumed session's next run is another trace;
// the same run sent twice is the same).
func (r *otlpRun) begin(ev *stream.Event, at time.Time) {
	if r.root != nil {
		return
	}
	keys := r.joinKeys()
	session := keys.SessionID
	r.session = session
	// Only what the run recorded: not the input's name, which changes with
	// the spelling of its path (a transcript's synthetic init carries its
	// first record's uuid).
	r.seed = session + "\x00" + keys.UUID
	r.cli = stream.CLIOf("", "")
	if ev.Kind == stream.KindInit {
		r.cli = stream.CLIOf(ev.InitHead().CLI, "")
	}
	h := sha256.Sum256([]byte("trace\x00" + r.seed))
	r.traceID = h[:16]
	var parent otlpID
	if p := r.o.Parent; p != nil {
		// Under the context the environment gave (TRACEPARENT): the run's
		// trace is the caller's, its root a child of the caller's span.
		r.traceID = p.TraceID[:]
		parent = p.SpanID
	}
	r.root = r.span(r.id("root"), parent, "invoke_agent "+r.cli.ID, otlpKindInternal, nanos(at))
	r.root.attrs = append(r.root.attrs,
		strAttr("gen_ai.operation.name", "invoke_agent"),
		strAttr("gen_ai.provider.name", r.cli.Provider),
		strAttr("gen_ai.agent.name", r.cli.ID))
	if session != "" {
		r.root.attrs = append(r.root.attrs, strAttr("gen_ai.conversation.id", session))
	}
}

// stamp gives a new span what every span of the run carries besides the
// trace and its state (written from the run's: traceID, traceState): the
// session's id under Claude Code's own name for it (session.id), which
// joins the span to Claude Code's own telemetry of the session.
func (r *otlpRun) stamp(s *otlpSpan) {
	if r.session != "" {
		s.attrs = append(s.attrs, strAttr("session.id", r.session))
	}
}

// joinKeys are the join keys of the event being laid out.
func (r *otlpRun) joinKeys() stream.JoinKeys {
	if !r.keysRead {
		r.keys, r.keysRead = r.ev.JoinKeys(), true
	}
	return r.keys
}

// addJoinKeys adds to a model call's or a tool call's span the join keys of
// the record that made it, when it carries them and the span has none
// yet: the API request's id (request_id, on a model call), the record's
// uuid (message.uuid: a call's first record), the prompt it answers
// (prompt.id). The record's keys are read only when the span lacks one
// they may give: a model call's later blocks, which carry the same, read
// none.
func (r *otlpRun) addJoinKeys(s *otlpSpan, request bool) {
	needRequest, needUUID := request && !hasAttr(s, "request_id"), !hasAttr(s, "message.uuid")
	if needRequest || needUUID {
		k := r.joinKeys()
		if needRequest && k.RequestID != "" {
			s.attrs = append(s.attrs, strAttr("request_id", k.RequestID))
		}
		if needUUID && k.UUID != "" {
			s.attrs = append(s.attrs, strAttr("message.uuid", k.UUID))
		}
	}
	if r.prompt != "" && !hasAttr(s, "prompt.id") {
		s.attrs = append(s.attrs, strAttr("prompt.id", r.prompt))
	}
}

// agentSpan is the span an event of agent (an Agent call id; "" the main
// agent) sits under: the root, or the subagent's, started here when its
// first event comes before its call (a transcript read from stdin).
func (r *otlpRun) agentSpan(agent string) otlpID {
	if agent == "" {
		return r.root.id
	}
	if s, ok := r.agents[agent]; ok {
		return s.id
	}
	if id, ok := r.endedAgents[agent]; ok {
		// A subagent's event after its span ended (a Workflow's agents,
		// read after its launch): under the same span, by its id (as
		// computed once, when the span began).
		return id
	}
	return r.startAgent(agent, "", "", r.last, r.id("tool\x00"+agent)).id
}

// agentEventSpan is the span an event of agent is added to: the open
// subagent's, else the root.
func (r *otlpRun) agentEventSpan(agent string) *otlpSpan {
	if s, ok := r.agents[agent]; ok {
		return s
	}
	return r.root
}

// startAgent opens the span of the subagent the Agent call id starts,
// under that call's span (call, its id: computed once, by the caller
// that made it).
func (r *otlpRun) startAgent(id, typ, desc string, at time.Time, call otlpID) *otlpSpan {
	if typ == "" {
		typ = "subagent"
	}
	s := r.span(r.id("agent\x00"+id), call, "invoke_agent "+typ, otlpKindInternal, nanos(at))
	s.attrs = append(s.attrs, strAttr("gen_ai.operation.name", "invoke_agent"),
		strAttr("gen_ai.provider.name", r.cli.Provider), strAttr("gen_ai.agent.name", typ),
		strAttr("gen_ai.agent.id", id))
	if desc != "" {
		s.attrs = append(s.attrs, strAttr("gen_ai.agent.description", desc))
	}
	if len(r.agents) >= otlpMaxOpen {
		r.endAgent(openInOrder(r.agents, spanOf)[0], at, "")
	}
	r.agents[id] = s
	return s
}

// endAgent ends a subagent's span.
func (r *otlpRun) endAgent(id string, at time.Time, status string) {
	s, ok := r.agents[id]
	if !ok {
		return
	}
	delete(r.agents, id)
	r.endChat(id) // its model call under way ends with it
	if len(r.endedAgents) >= otlpMaxOpen {
		clear(r.endedAgents)
	}
	r.endedAgents[id] = s.id
	if status == "failed" || status == "killed" {
		s.status = otlpStatus{set: true, code: otlpStatusError, msg: "the subagent " + status}
	}
	r.end(s, at)
}

// end ends a span at t (never before its start) and puts it in the batch.
func (r *otlpRun) end(s *otlpSpan, t time.Time) {
	if s != r.root {
		r.spanned(t)
	}
	if n := nanos(t); n > s.start {
		s.end = n
	} else {
		s.end = s.start
	}
	r.ended = append(r.ended, s)
}

// event adds a span event to s (bounded: past otlpMaxEvents it is counted).
func (r *otlpRun) event(s *otlpSpan, name string, at time.Time, attrs ...otlpAttr) {
	if s == nil {
		return
	}
	if len(s.events) >= otlpMaxEvents {
		s.droppedEvents++
		return
	}
	s.events = append(s.events, otlpEvent{name: name, at: nanos(at), attrs: attrs})
}

// chat notes an assistant event: a block of agent's model call; a new
// message id ends the call before it and starts one, from the agent's
// last event (when the request went out) to this block.
func (r *otlpRun) chat(ev *stream.Event, agent string, at time.Time) {
	a := ev.CallHead() // (not its blocks: the calls come from the description; nor its usage: the tracker's)
	if !a.Call && a.Error == "" {
		// No model call the account counts (a message another agent
		// CLI's reader made, Claude Code's own words): no chat span, as
		// no call. An API error is a call that failed, and shown.
		return
	}
	if c := r.callOf(ev, agent, a.MessageID, a.Model, at); c != nil {
		r.chatError(c.span, a)
		r.addJoinKeys(c.span, true)
	}
}

// partial notes a partial-message event: a message_start begins a model
// call (a call whose stream died has no assistant event, and was made);
// the others carry on the call of their api_message_id.
func (r *otlpRun) partial(ev *stream.Event, agent string, at time.Time) {
	d := ev.Delta()
	if d.EventType == "message_start" {
		r.callOf(ev, agent, d.MessageID, d.Model, at)
		return
	}
	if c := r.chats[agent]; c != nil && c.id != "" && c.id == d.MessageID {
		c.span.end = max(c.span.end, nanos(at))
	}
}

// callOf returns agent's model call of message id, its span carried on
// to at; a new id ends the call before it and starts one, from the
// agent's last event (when the request went out). nil for a call already
// ended (the same call recorded again: a resumed session's copy).
func (r *otlpRun) callOf(ev *stream.Event, agent, id, model string, at time.Time) *otlpChat {
	c := r.chats[agent]
	if c != nil && c.id == id && id != "" {
		c.span.end = max(c.span.end, nanos(at))
		return c
	}
	r.endChat(agent)
	if id != "" && r.seen[id] {
		return nil
	}
	start, ok := r.lastAt[agent]
	if !ok || start.After(at) {
		start = at
	}
	key := "chat\x00" + id
	if id == "" {
		key += agent + "\x00" + i64(ev.Line) // (not ev.Source: a path is spelled many ways)
	}
	s := r.span(r.id(key), r.agentSpan(agent), "chat "+model, otlpKindClient, nanos(start))
	s.end = nanos(at)
	s.attrs = append(s.attrs, strAttr("gen_ai.operation.name", "chat"),
		strAttr("gen_ai.provider.name", r.cli.Provider), strAttr("gen_ai.request.model", model),
		strAttr("gen_ai.response.model", model))
	if id != "" {
		s.attrs = append(s.attrs, strAttr("gen_ai.response.id", id))
	}
	c = &otlpChat{span: s, id: id}
	r.chats[agent] = c
	return c
}

// chatError marks a model call that ended in an API error.
func (r *otlpRun) chatError(s *otlpSpan, a stream.Assistant) {
	if a.Error == "" {
		return
	}
	s.status = otlpStatus{set: true, code: otlpStatusError, msg: a.Error}
	s.attrs = append(s.attrs, strAttr("error.type", a.Error))
	if a.APIErrorStatus != 0 {
		s.attrs = append(s.attrs, intAttr("http.response.status_code", int64(a.APIErrorStatus)))
	}
}

// endChat ends agent's model call: its tokens are the tracker's for its
// message id (each call once, its final figures), in the GenAI
// conventions' terms: input tokens count the cache's reads and writes.
func (r *otlpRun) endChat(agent string) {
	c := r.chats[agent]
	if c == nil {
		return
	}
	delete(r.chats, agent)
	if c.id != "" {
		if len(r.seen) >= otlpMaxOpen {
			clear(r.seen)
		}
		r.seen[c.id] = true
	}
	if r.o.Tracker != nil && c.id != "" {
		if u, exact, ok := r.o.Tracker.MessageUsage(c.id); ok {
			c.span.attrs = appendUsage(c.span.attrs, u)
			// The stream's count of a call's output is a placeholder until
			// a message_delta gives the final one: said, not hidden (the
			// root span's total is the run's real one).
			c.span.attrs = append(c.span.attrs, boolAttr("claude_code.usage.output_tokens_exact", exact))
		}
	}
	r.ended = append(r.ended, c.span)
}

// appendUsage appends a usage's GenAI token attributes, and the input not
// read from or written to the cache (Anthropic's own input_tokens).
func appendUsage(attrs []otlpAttr, u stream.Usage) []otlpAttr {
	return append(attrs,
		intAttr("gen_ai.usage.input_tokens", u.InputTokens+u.CacheReadInputTokens+u.CacheCreationInputTokens),
		intAttr("gen_ai.usage.output_tokens", u.OutputTokens),
		intAttr("gen_ai.usage.cache_read.input_tokens", u.CacheReadInputTokens),
		intAttr("gen_ai.usage.cache_creation.input_tokens", u.CacheCreationInputTokens),
		intAttr("claude_code.usage.uncached_input_tokens", u.InputTokens),
	)
}

// call opens a tool call's span.
func (r *otlpRun) call(ev *stream.Event, p *Part, at time.Time) {
	if p.Use == nil || p.Use.ID == "" {
		return
	}
	agent := p.Agent.ID
	s := r.span(r.id("tool\x00"+p.Use.ID), r.agentSpan(agent), "execute_tool "+p.Use.Name, otlpKindInternal, nanos(at))
	typ := "function"
	if strings.HasPrefix(p.Use.Name, "mcp__") {
		typ = "extension"
	}
	// The call's id under the GenAI conventions' name and Claude Code's
	// (tool_use_id, on its tool events).
	s.attrs = append(s.attrs, strAttr("gen_ai.operation.name", "execute_tool"),
		strAttr("gen_ai.tool.name", p.Use.Name), strAttr("gen_ai.tool.call.id", p.Use.ID),
		strAttr("tool_use_id", p.Use.ID), strAttr("gen_ai.tool.type", typ))
	r.addJoinKeys(s, false)
	if p.Target != "" {
		s.attrs = append(s.attrs, strAttr("claude_code.tool.target", p.Target))
	}
	if len(r.tools) >= otlpMaxOpen {
		k := openInOrder(r.tools, spanOf)[0]
		old := r.tools[k]
		delete(r.tools, k)
		r.end(old, at)
	}
	r.tools[p.Use.ID] = s
	if stream.StartsSubagent(p.Use.Name) {
		in := stream.ReadToolInput(p.Use.Input)
		r.startAgent(p.Use.ID, in.SubagentType(), in.Description(), at, s.id)
	}
}

// toolResult ends a tool call's span: an error result is the span's
// error. The subagent a foreground Agent call started ends with it (one
// launched in the background runs on: its result is read for that only
// when the call started a subagent, not for every result of a run).
func (r *otlpRun) toolResult(ev *stream.Event, p *Part, at time.Time) {
	id := p.Result.ToolUseID
	s, ok := r.tools[id]
	if !ok {
		return
	}
	delete(r.tools, id)
	if p.Result.IsError {
		msg := truncate(p.Result.Text(), 1024)
		s.status = otlpStatus{set: true, code: otlpStatusError, msg: msg}
		s.attrs = append(s.attrs, strAttr("error.type", "tool_error"))
	}
	if p.Call != nil && p.Call.HasDuration && r.times == TimesReconstructed {
		at = time.Unix(0, int64(s.start)).Add(p.Call.Duration)
	}
	if _, open := r.agents[id]; open && !launched(ev, p.Result) {
		r.endAgent(id, at, "")
	}
	r.end(s, at)
}

// launched reports whether ev is the result of a call whose subagent (or
// Workflow) runs on in the background: it ends at its task notification.
func launched(ev *stream.Event, r *stream.ToolResult) bool {
	if ev.ToolUseResultStatus() == "async_launched" {
		return true
	}
	// A subagent's own results carry no tool_use_result: the text says it.
	// Only its start is looked at, not the whole result built (a read of a
	// large file is a large result).
	t := strings.TrimSpace(r.TextPrefix(launchedPrefix))
	if t == "" && r.Size() > launchedPrefix {
		t = strings.TrimSpace(r.Text()) // (only blank in its start)
	}
	return strings.HasPrefix(t, "Async agent launched") || strings.HasPrefix(t, "Workflow launched")
}

// launchedPrefix is how much of a result's text launched reads: blanks
// and the longest of its phrases fit.
const launchedPrefix = 256

// notice adds what happened to the span it belongs to, as an event.
func (r *otlpRun) notice(ev *stream.Event, p *Part, at time.Time) {
	name := ""
	var attrs []otlpAttr
	switch ev.Kind {
	case stream.KindRetry:
		rt := ev.Retry()
		name = "api_retry"
		attrs = append(attrs, intAttr("claude_code.retry.attempt", int64(rt.Attempt)), intAttr("claude_code.retry.max_retries", int64(rt.MaxRetries)),
			intAttr("claude_code.retry.delay_ms", int64(rt.DelayMs)), strAttr("error.type", rt.Error))
		if rt.Status != 0 {
			attrs = append(attrs, intAttr("http.response.status_code", int64(rt.Status)))
		}
	case stream.KindPermissionDenied:
		name = "permission_denied"
		dn := ev.Denial()
		attrs = append(attrs, strAttr("gen_ai.tool.name", dn.ToolName), strAttr("gen_ai.tool.call.id", dn.ToolUseID))
		if s, ok := r.tools[dn.ToolUseID]; ok {
			r.event(s, name, at, append(attrs, strAttr("claude_code.message", p.Line))...)
			return
		}
	case stream.KindHook:
		name = "hook"
	case stream.KindCompact:
		name = "compaction"
	case stream.KindNotice, stream.KindInterrupt:
		name = "notice"
	default:
		return
	}
	if p.Line != "" {
		attrs = append(attrs, strAttr("claude_code.message", p.Line))
	}
	r.event(r.agentEventSpan(p.Agent.ID), name, at, attrs...)
}

// task ends a background subagent's span at its task notification (the
// renderer's: a task event has no part the trace lays out).
func (r *otlpRun) task(ev *stream.Event, at time.Time) {
	if ev.Subtype != "task_notification" {
		return
	}
	t := ev.Task()
	r.endAgent(t.ToolUseID, at, t.Status)
}

// init sets the run's facts on the root span and the resource.
func (r *otlpRun) init(in *stream.Init) {
	r.version = in.Version
	for _, kv := range [][2]string{{"gen_ai.request.model", in.Model}, {"claude_code.cwd", in.CWD},
		{"claude_code.permission_mode", in.PermissionMode}, {"claude_code.version", in.Version}} {
		if kv[1] != "" && !hasAttr(r.root, kv[0]) {
			r.root.attrs = append(r.root.attrs, strAttr(kv[0], kv[1]))
		}
	}
	if in.SessionID != "" && !hasAttr(r.root, "gen_ai.conversation.id") {
		r.root.attrs = append(r.root.attrs, strAttr("gen_ai.conversation.id", in.SessionID))
	}
}

// outcome notes a result: an event on the root span; the last one's
// figures end the run.
func (r *otlpRun) outcome(res *stream.Result, at time.Time) {
	r.result, r.hasResult = *res, true
	attrs := []otlpAttr{strAttr("claude_code.result.subtype", res.Subtype),
		boolAttr("claude_code.result.is_error", res.IsError), intAttr("claude_code.result.num_turns", res.NumTurns),
		intAttr("claude_code.result.duration_ms", res.DurationMs)}
	if res.HasCost {
		attrs = append(attrs, floatAttr("claude_code.cost_usd", res.TotalCostUSD))
	}
	r.event(r.root, "result", at, attrs...)
	r.endChat("") // the main agent's last call is over
}

// finish ends the run's open spans and the root: its status the last
// result's, its tokens the tracker's (as the usage preset counts them),
// its cost the result's.
func (r *otlpRun) finish() {
	r.done = true
	if r.root == nil {
		return
	}
	at := r.last
	for _, agent := range openInOrder(r.chats, func(c *otlpChat) *otlpSpan { return c.span }) {
		r.endChat(agent)
	}
	for _, id := range openInOrder(r.tools, spanOf) {
		s := r.tools[id]
		delete(r.tools, id)
		// No status (a description goes with an error only): the run
		// ended before the call's result.
		s.attrs = append(s.attrs, boolAttr("claude_code.tool.no_result", true))
		r.end(s, at)
	}
	for _, id := range openInOrder(r.agents, spanOf) {
		r.endAgent(id, at, "")
	}
	r.root.start = nanos(r.min) // (every time given was spanned)
	end := r.max
	if r.hasResult {
		res := &r.result
		if d := r.min.Add(time.Duration(res.DurationMs) * time.Millisecond); d.After(end) {
			end = d
		}
		if res.IsError {
			msg := res.Subtype
			if len(res.Errors) > 0 {
				msg += ": " + strings.Join(res.Errors, "; ")
			} else if res.Text != "" {
				msg += ": " + truncate(res.Text, 1024)
			}
			r.root.status = otlpStatus{set: true, code: otlpStatusError, msg: msg}
		} else {
			r.root.status = otlpStatus{set: true, code: otlpStatusOK}
		}
	}
	// The run's cost as the account gives it: the last result's
	// total_cost_usd, or where the input reports none (Codex, Gemini, a
	// killed run) the calls priced at list prices, marked
	// claude_code.cost_source "estimated" so that a query can tell
	// ccfilter's estimate from the CLI's own figure (which has no source
	// attribute, as in Claude Code's own traces). Without a tracker, the
	// last result's.
	switch c := r.cost(); {
	case c == nil:
	case c.Source == "estimated":
		r.root.attrs = append(r.root.attrs, floatAttr("claude_code.cost_usd", c.USD), strAttr("claude_code.cost_source", c.Source))
	default:
		r.root.attrs = append(r.root.attrs, floatAttr("claude_code.cost_usd", c.USD))
	}
	if r.o.Tracker != nil {
		r.root.attrs = appendUsage(r.root.attrs, r.o.Tracker.Tokens().Usage())
	}
	r.root.attrs = append(r.root.attrs, strAttr("claude_code.times", r.times))
	r.end(r.root, end)
}

// cost is the run's cost: the account's (Tracker.Cost), else the last
// result's own; nil for none.
func (r *otlpRun) cost() *stream.Cost {
	if r.o.Tracker != nil {
		c, _ := r.o.Tracker.Cost()
		return c
	}
	if r.hasResult && r.result.HasCost {
		return &stream.Cost{USD: r.result.TotalCostUSD, Source: "reported"}
	}
	return nil
}

func nanos(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}

// openInOrder returns the keys of m, spans still open, the earliest
// started first (then by key): a Go map's order changes from run to run,
// and so did the order in which a trace ended the spans open at its end
// (or dropped past its bound), and so its output.
func openInOrder[V any](m map[string]V, span func(V) *otlpSpan) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	start := func(k string) uint64 {
		if s := span(m[k]); s != nil {
			return s.start
		}
		return 0
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(start(a), start(b)), strings.Compare(a, b)) })
	return keys
}

func spanOf(s *otlpSpan) *otlpSpan { return s }
