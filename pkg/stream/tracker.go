package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// TrackerOptions bound a Tracker's memory. Zero values pick the defaults.
type TrackerOptions struct {
	// MaxOpenCalls caps tool calls waiting for their result (default 10000);
	// beyond it the oldest is evicted and counted in Stats.EvictedCalls.
	MaxOpenCalls int
	// MaxOpenMessages caps model calls whose usage may still change (default
	// 4096); an evicted one keeps the last usage seen for it.
	MaxOpenMessages int
	// MaxSubagents caps the subagent tree (default 10000).
	MaxSubagents int
	// MaxTypes caps the distinct (type, subtype) pairs counted (default 1000);
	// further pairs are counted under type "(other)".
	MaxTypes int
	// MaxTextBytes caps the text kept for the final-answer fallback and for
	// each result summary (default 1 MiB).
	MaxTextBytes int
	// Needs says which parts of the state are used (the zero value: all);
	// the Tracker skips the work for the rest.
	Needs Needs
	// Prices, when set, estimates the cost of a run whose input does not
	// report it (a run killed before its result): the account's Cost,
	// marked estimated.
	Prices Pricer
}

// Pricer prices a model's usage (spend.PriceTable does): false when it
// knows no price for the model.
type Pricer interface {
	Estimate(model string, u Usage) (float64, bool)
}

// MainAgent is the agent label of the main agent's events.
const MainAgent = "main"

// The subagent types the CLI does not name in an Agent call: a Workflow's
// agents are its own type, and an Agent call without subagent_type
// starts the general-purpose agent. (The transcripts' own accounting,
// input.AgentTypes, gives them the same.)
const (
	WorkflowAgentType = "workflow"
	DefaultAgentType  = "general-purpose"
)

// ToolCall is one tool_use and, once it arrives, its tool_result.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage // a copy, owned by the call
	// ParentToolUseID is the Agent call whose subagent made this call ("" for
	// the main agent); Agent is that subagent, when known.
	ParentToolUseID string
	Agent           *Subagent
	Line            int64
	Timestamp       string
	// Set when the result arrives.
	Done            bool
	IsError         bool
	ResultLine      int64
	ResultTimestamp string
	ResultBytes     int
	// Duration is the time between the tool_use and tool_result events'
	// timestamps; HasDuration is false when either is missing.
	Duration    time.Duration
	HasDuration bool

	// at is the call's time, when its own timestamp gave it (dated): the
	// clock parsed it already, and the duration is taken from it.
	at    time.Time
	dated bool

	links[ToolCall] // its place among the open calls
}

func (c *ToolCall) link() *links[ToolCall] { return &c.links }
func (m *msgUsage) link() *links[msgUsage] { return &m.links }

// AgentLabel returns "main" or the id of the subagent that made the call.
func (c *ToolCall) AgentLabel() string {
	if c.ParentToolUseID == "" {
		return MainAgent
	}
	if c.Agent != nil {
		return c.Agent.Label()
	}
	return c.ParentToolUseID
}

// Subagent is a subagent started by an Agent tool call (or a Workflow).
type Subagent struct {
	ToolUseID string // the Agent/Workflow call that started it
	// Parent is the Agent call of the subagent whose call started this one
	// ("" when the main agent's did, or when the start was not seen);
	// Depth is 1 for the main agent's subagents, 2 for theirs, and so on.
	Parent      string
	Depth       int
	AgentID     string // task_id of its task_* events (= agent_id on its events)
	Description string
	Type        string // subagent_type, or "workflow" for a Workflow
	Background  bool
	// Status: "running" until a task_updated/task_notification says otherwise
	// (completed, failed, killed, stopped).
	Status string
	// Usage is what the final task_notification (or the Agent tool result)
	// reports.
	Usage TaskUsage
	// Report is the subagent's final report: the Agent tool result of a
	// foreground subagent, or the task_notification summary.
	Report string
	// Tokens sums the usage of its own model calls seen in the stream.
	Tokens    Usage
	ToolCalls int
	StartLine int64
	EndLine   int64
	Start     string
	End       string

	closed Usage // tokens of its model calls that can no longer change
	// models are those tokens by model (a subagent uses one or two).
	models map[usageKey]*ModelTokens
}

// Label is the subagent's id as events name it: the agent id when known,
// else the Agent call's id.
func (s *Subagent) Label() string {
	if s.AgentID != "" {
		return s.AgentID
	}
	return s.ToolUseID
}

// Stats counts what the Tracker dropped to stay bounded.
type Stats struct {
	EvictedCalls     int // tool calls evicted before their result came
	EvictedSubagents int
	OrphanResults    int // tool results whose call was never seen (or evicted)
	// EvictedMessages counts model calls folded into the totals to stay
	// bounded (MaxOpenMessages others began after them); RecountedMessages
	// the blocks that came for one of them afterwards, whose call was then
	// probably counted twice (see foldedIDs).
	EvictedMessages   int
	RecountedMessages int
	// FinalTextCut says the final answer's fallback text (FinalText) was
	// longer than MaxTextBytes and is cut there.
	FinalTextCut bool
	Events       int64
}

// OutcomeStatus is how a run ended.
type OutcomeStatus int

// The outcomes: the last result event decides between success and failure;
// no result at all means the run was killed or cut off.
const (
	NoResult OutcomeStatus = iota
	Succeeded
	Failed
)

func (s OutcomeStatus) String() string {
	switch s {
	case Succeeded:
		return "success"
	case Failed:
		return "failed"
	}
	return "no_result"
}

// Outcome is the run's result as the reference defines it: with several
// result events (result_index), the last one wins and its is_error decides.
type Outcome struct {
	Status  OutcomeStatus
	Results int    // result events seen
	Last    Result // the last result (zero when Status is NoResult)
	Line    int64  // its line
	// APIError is the category of the API error that ended the main
	// agent's last turn ("authentication_failed"): a failed result whose
	// subtype says "success" fails for it. "" when the last turn ended
	// otherwise.
	APIError string
}

// ModelTokens is the usage of one model by one side (main or subagents).
type ModelTokens struct {
	Model    string `json:"model"`
	Subagent bool   `json:"subagent"`
	Calls    int    `json:"calls"`
	Usage    Usage  `json:"usage"`
	// PlaceholderCalls are the calls whose output count is the stream's
	// placeholder, not their final count: Usage.OutputTokens undercounts.
	PlaceholderCalls int `json:"placeholder_output_calls"`
}

// UsageReport is token usage deduplicated by message.id, and the cost the
// last result reports.
type UsageReport struct {
	Calls     int           `json:"calls"` // distinct model calls
	ByModel   []ModelTokens `json:"by_model"`
	Main      Usage         `json:"main"`
	Subagents Usage         `json:"subagents"`
	Total     Usage         `json:"total"`
	// PlaceholderCalls counts the calls whose output count is a
	// placeholder (claude -p without --include-partial-messages writes 1
	// on every assistant event; a call cut off before its message_delta).
	PlaceholderCalls int `json:"placeholder_output_calls"`
	// OutputFrom says where Total.OutputTokens comes from: "events", or
	// "result" when the calls' counts are placeholders and the last
	// result's modelUsage (exact, cumulative) says more for the models
	// that answered. EventsOutputTokens is then the events' own sum.
	OutputFrom         string `json:"total_output_from"`
	EventsOutputTokens int64  `json:"events_output_tokens"`
	// PartialMessages: the stream had partial messages
	// (--include-partial-messages), whose message_delta gives each call's
	// final count.
	PartialMessages bool `json:"partial_messages"`
	// CostUSD is the last result's total_cost_usd (cumulative: never summed).
	CostUSD  float64 `json:"cost_usd"`
	HaveCost bool    `json:"have_cost"`
	// CostWritten is total_cost_usd as written when it is a number that
	// does not fit a float64 (1e400): then HaveCost is false.
	CostWritten string `json:"cost_as_written,omitempty"`
	// ModelCosts is the last result's modelUsage; Helper lists the entries of
	// models that never answered an assistant message (the small helper
	// model), whose cost is HelperCostUSD rather than the main model's.
	ModelCosts    []ModelUsage `json:"model_costs"`
	Helper        []ModelUsage `json:"helper"`
	HelperCostUSD float64      `json:"helper_cost_usd"`
}

// Add counts one (model, side) entry in the report: its row, and the
// sums it adds to.
func (rep *UsageReport) Add(m ModelTokens) {
	rep.ByModel = append(rep.ByModel, m)
	rep.Calls += m.Calls
	rep.PlaceholderCalls += m.PlaceholderCalls
	rep.Total = rep.Total.Add(m.Usage)
	if m.Subagent {
		rep.Subagents = rep.Subagents.Add(m.Usage)
	} else {
		rep.Main = rep.Main.Add(m.Usage)
	}
}

// TypeCount is how often one (type, subtype) pair occurred.
type TypeCount struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype,omitempty"`
	Count   int64  `json:"count"`
	Known   bool   `json:"known"`
}

// Tracker follows a stream's state: it pairs tool calls with their results,
// builds the subagent tree, deduplicates usage and records the outcome.
// Feed it every event in order with Observe. Its memory is bounded by
// TrackerOptions, whatever the input.
type Tracker struct {
	o TrackerOptions

	calls     map[string]*ToolCall // open tool calls by id
	callOrder order[ToolCall, *ToolCall]

	agents     map[string]*Subagent // by Agent tool_use id
	agentOrder []*Subagent
	byAgentID  map[string]*Subagent

	msgs     map[string]*msgUsage // open model calls by message.id
	msgOrder order[msgUsage, *msgUsage]
	closed   map[usageKey]*ModelTokens

	types *TypeCounter
	names map[string]string // tool names (toolName)

	outcome Outcome
	// lastResult is the last result event's bytes; outcome.Last is made
	// from them when asked (lastParsed), not at each result: a long run
	// prints hundreds, and viewing each was a twentieth of final's time.
	lastResult []byte
	lastParsed bool
	lastText   textAcc
	stats      Stats
	tally      Tally
	callers    callers
	folded     foldedIDs
	// partials: the stream has partial messages (a message_start).
	partials bool
	// unfit counts the usage figures that did not fit (read as missing);
	// the last result's own are added when it is parsed.
	unfit Unfits
	// lastUsage is the usage object last read and its figures: the
	// events of one message (a block each) repeat the message's usage
	// byte for byte, and reading it again was a twentieth of tools.
	lastUsage usageMemo
	// lastID is the last assistant message's id, as JSON and read (msgID).
	lastID struct {
		raw []byte
		s   string
	}
	// clock and now: the time of the event last observed (Time); start
	// the run's (the first event's, or the first dated record's).
	clock    Clock
	now      Time
	start    Time
	startSet bool
	// cli: the agent CLI the first init names (Account.CLI).
	cli    CLI
	cliSet bool
	// tools sums the tool calls by tool and agent; troubles counts the
	// events that signal trouble by kind (the account's).
	tools        map[toolKey]*ToolTotal
	troubles     map[string]int
	troubleCount int
}

type usageKey struct {
	model string
	sub   bool
}

type msgUsage struct {
	links[msgUsage]
	id    string
	model string
	sub   bool
	agent *Subagent
	usage Usage
	// exact: usage.OutputTokens is the call's final count (from a
	// message_delta, or a message with its stop_reason), not the
	// placeholder of the stream's assistant events.
	exact bool
}

type textAcc struct {
	msgID string
	text  []byte
	cut   bool // the message's text was longer than the cap
}

// NewTracker returns an empty Tracker.
func NewTracker(o TrackerOptions) *Tracker {
	if o.MaxOpenCalls <= 0 {
		o.MaxOpenCalls = 10000
	}
	if o.MaxOpenMessages <= 0 {
		o.MaxOpenMessages = 4096
	}
	if o.MaxSubagents <= 0 {
		o.MaxSubagents = 10000
	}
	if o.MaxTypes <= 0 {
		o.MaxTypes = 1000
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = 1 << 20
	}
	return &Tracker{
		o:         o,
		calls:     map[string]*ToolCall{},
		agents:    map[string]*Subagent{},
		byAgentID: map[string]*Subagent{},
		msgs:      map[string]*msgUsage{},
		closed:    map[usageKey]*ModelTokens{},
		names:     map[string]string{},
		types:     NewTypeCounter(o.MaxTypes),
		callers:   callers{max: o.MaxOpenCalls},
		tools:     map[toolKey]*ToolTotal{},
	}
}

// Observe updates the state with e and returns the tool calls that e
// completed (the calls whose tool_result e carries), in e's order.
func (t *Tracker) Observe(e *Event) []*ToolCall {
	if e.Type == "tool_progress" {
		t.attributeProgress(e)
	}
	if e.Kind == KindPermissionDenied && e.ParentToolUseID() == "" {
		t.attributeDenial(e)
	}
	if e.Type == "assistant" && !e.IsSubagent() {
		// Only an API error that ended the main agent's last turn is a
		// reason for the outcome; one that a later call got past is not.
		t.outcome.APIError = ""
		if e.Kind == KindAPIError {
			t.outcome.APIError = e.Assistant().Error
		}
	}
	if t.o.Needs.Follow == FollowOutcome {
		t.observeOutcome(e)
		return nil
	}
	t.now = t.clock.Observe(e)
	if !t.startSet || t.now.Dated && !t.start.Dated {
		t.start, t.startSet = t.now, true
	}
	t.stats.Events++
	t.countType(e)
	var done []*ToolCall
	switch e.Kind {
	case KindText, KindThinking, KindToolUse, KindAPIError, KindUnknown:
		if e.Type == "assistant" {
			t.observeAssistant(e)
		}
	case KindToolResult:
		if t.o.Needs.Follow == FollowAll {
			done = t.observeResults(e)
		}
	case KindTask:
		t.observeTask(e)
	case KindDelta:
		t.observeDelta(e)
	case KindResult:
		t.observeResult(e)
	case KindInit:
		if !t.cliSet && !e.IsSubagent() {
			// The first init names the CLI; a resumed run's later inits
			// are the same program's.
			in := e.InitHead() // (its lists are not needed)
			t.cli, t.cliSet = CLIOf(in.CLI, in.Version), true
		}
	}
	// After the rest: the tool results the tally and the troubles look at
	// are then found already, sized as the Needs ask.
	t.tally.add(e, !t.o.Needs.NoToolTally)
	t.countTrouble(e)
	return done
}

// Time returns the time of the event last observed, by the one rule of a
// run's times (Clock). Not kept when the tracker follows the outcome only.
func (t *Tracker) Time() Time { return t.now }

// Tally returns the counts of the events the tracker followed (none when
// it follows the outcome only). Its Tools map is the tracker's: read it,
// do not change it.
func (t *Tracker) Tally() Tally { return t.tally }

// observeOutcome is Observe for FollowOutcome: the tool-call pairing and
// usage work that dominates on long tool results is skipped.
func (t *Tracker) observeOutcome(e *Event) {
	t.stats.Events++
	t.countType(e)
	switch e.Kind {
	case KindText:
		if e.Type == "assistant" && !t.o.Needs.NoFinalText && !e.IsSubagent() {
			t.lastText.add(e.messageField("id"), e, t.o.MaxTextBytes)
		}
	case KindToolUse:
		if e.Type == "assistant" && !t.o.Needs.NoOwners {
			t.noteCallers(e)
		}
	case KindResult:
		t.observeResult(e)
	}
}

func (t *Tracker) observeResult(e *Event) {
	t.outcome.Results++
	t.lastResult, t.lastParsed = append(t.lastResult[:0], e.Raw...), false
	t.outcome.Line = e.Line
	if e.keys().Get("is_error").Bool() { // as Result reads it
		t.outcome.Status = Failed
	} else {
		t.outcome.Status = Succeeded
	}
}

func (t *Tracker) countType(e *Event) { t.types.Add(e) }

// agentOf returns the subagent an event with this parent id belongs to,
// creating a placeholder for a parent never seen (a stream cut at the start).
func (t *Tracker) agentOf(parent string, agentID string) *Subagent {
	if parent == "" {
		return nil
	}
	s := t.agents[parent]
	if s == nil {
		s = t.addAgent(&Subagent{ToolUseID: parent, Status: "running"})
	}
	if s != nil && s.AgentID == "" && agentID != "" {
		s.AgentID = agentID
		t.byAgentID[agentID] = s
	}
	return s
}

// addAgent adds s to the tree, at depth 1 until the call that started it
// says otherwise.
func (t *Tracker) addAgent(s *Subagent) *Subagent {
	s.Depth = max(s.Depth, 1)
	if len(t.agentOrder) >= t.o.MaxSubagents {
		old := t.agentOrder[0]
		t.agentOrder = t.agentOrder[1:]
		delete(t.agents, old.ToolUseID)
		delete(t.byAgentID, old.AgentID)
		t.stats.EvictedSubagents++
	}
	t.agents[s.ToolUseID] = s
	t.agentOrder = append(t.agentOrder, s)
	return s
}

func (t *Tracker) observeAssistant(e *Event) {
	// The message indexed once: "usage" follows the content, which each
	// Get would walk over again (a Write call's input is a whole file).
	msg := e.message()
	parent := e.ParentToolUseID()
	agent := t.agentOf(parent, e.AgentID())
	idv := jsonx.Lookup(msg, "id")
	id := t.msgID(idv)
	model := t.name(jsonx.Lookup(msg, "model"))
	usage := jsonx.Lookup(msg, "usage")
	u, ahead := e.usageAhead()
	if !ahead {
		u = t.usageOf(usage, e.Line)
	}
	// A message with no usage at all is no model call the input counts:
	// another agent CLI's stream (Codex's) gives only the run's totals,
	// which its result carries (Usage).
	if isModelCall(model, usage) {
		// A message with its stop_reason carries its final usage (a
		// transcript's records); the stream's assistant events are the
		// snapshot at message_start, stop_reason null and output_tokens a
		// placeholder (1).
		final := !jsonx.Lookup(msg, "stop_reason").IsNull()
		t.recordUsage(id, model, parent != "", agent, u, false, final)
	}
	if e.Kind == KindText && parent == "" && !t.o.Needs.NoFinalText {
		t.lastText.add(idv, e, t.o.MaxTextBytes)
	}
	if e.Kind != KindToolUse {
		return
	}
	if t.o.Needs.Follow != FollowAll {
		if !t.o.Needs.NoOwners {
			t.noteCallers(e)
		}
		return
	}
	for _, b := range e.blockHeads() {
		if !isToolUse(b.Type) {
			continue
		}
		c := &ToolCall{
			ID:              b.ID.Str(),
			Name:            t.name(b.Name),
			Input:           json.RawMessage(bytes.Clone(b.Input)),
			ParentToolUseID: parent,
			Agent:           agent,
			Line:            e.Line,
			Timestamp:       e.Timestamp(),
			at:              t.now.At,
			dated:           t.clock.own,
		}
		if agent != nil {
			agent.ToolCalls++
		}
		t.openCall(c)
		t.countCall(c)
		if startsSubagent(c.Name) {
			in := jsonx.Value(c.Input)
			s := t.agents[c.ID]
			if s == nil {
				s = t.addAgent(&Subagent{ToolUseID: c.ID, Status: "running"})
			}
			s.Parent, s.Depth = parent, 1
			if agent != nil {
				s.Depth = agent.Depth + 1
			}
			s.Type, s.Description = SubagentOf(c.Name, c.Input)
			bg := in.Get("run_in_background")
			s.Background = c.Name == "Workflow" || bg.Bool() || (bg.IsNull() && c.Name == "Agent")
			s.StartLine, s.Start = e.Line, c.Timestamp
		}
	}
}

// add appends the text of e, an assistant text event of message msgID (a
// JSON string), to the text of that message, or starts a message's text.
// The text is decoded straight into l.text, at most max bytes of it and no
// more of the line than that takes: the final answer's fallback is kept
// for every text event of a run, and a string per event was most of what
// the command's pipe reading allocated.
func (l *textAcc) add(msgID jsonx.Value, e *Event, max int) {
	if l.sameMessage(msgID) {
		if len(l.text) > 0 {
			l.text = append(l.text, '\n')
		}
	} else {
		l.text, l.cut = l.text[:0], false
	}
	before, room := len(l.text), max0(max-len(l.text))
	l.text = e.appendTextMax(l.text, room)
	if len(l.text)-before == room && !l.cut {
		// The room is full: was there more? (Measured, not decoded.)
		l.cut = e.textLen() > room
	}
}

// sameMessage reports whether id (a JSON string) names the message of
// l.text, and makes l name it. An empty or missing id names none.
func (l *textAcc) sameMessage(id jsonx.Value) bool {
	if l.msgID != "" && id.StrEqual(l.msgID) {
		return true // without a string made
	}
	msgID := id.Str() // (StrEqual compares invalid UTF-8 as it is, Str replaces it)
	same := msgID != "" && msgID == l.msgID
	l.msgID = msgID
	return same
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// name returns a tool's or a model's name, the same string for every call
// of a tool or a model: a run calls a few tools and models many times, and
// a string per call was an allocation per event. At most maxToolNames
// names are kept.
func (t *Tracker) name(v jsonx.Value) string {
	if name, ok := t.names[string(v)]; ok { // (the key is the value's JSON)
		return name
	}
	name := v.Str()
	if len(t.names) < maxToolNames {
		t.names[string(v)] = name
	}
	return name
}

// msgID returns an assistant message's id, the string of the event before
// when the id is the same: a message's blocks come as events of their own.
func (t *Tracker) msgID(v jsonx.Value) string {
	if !bytes.Equal(v, t.lastID.raw) || len(v) == 0 {
		t.lastID.raw, t.lastID.s = append(t.lastID.raw[:0], v...), v.Str()
	}
	return t.lastID.s
}

// maxToolNames bounds the tool names toolName keeps (a run has tens; MCP
// servers add their own).
const maxToolNames = 1024

func (t *Tracker) openCall(c *ToolCall) {
	if old, ok := t.calls[c.ID]; ok {
		t.callOrder.remove(old)
	}
	t.calls[c.ID] = c
	t.callOrder.pushBack(c)
	for t.callOrder.len() > t.o.MaxOpenCalls {
		front := t.callOrder.front
		delete(t.calls, front.ID)
		t.callOrder.remove(front)
		t.stats.EvictedCalls++
	}
}

// recordUsage keeps the last usage seen for a message id; partial says the
// update only carries the fields present (message_delta). The model is
// taken as the API names it (APIModel): every message that names a call's
// model (an assistant event, a message_start) comes through here, and a
// name with the user's context selector ("claude-opus-5-5[1m]") would
// otherwise not meet the result's modelUsage, nor any price.
func (t *Tracker) recordUsage(id, model string, sub bool, agent *Subagent, u Usage, delta, exact bool) {
	model = APIModel(model)
	if id == "" {
		t.fold(&msgUsage{model: model, sub: sub, agent: agent, usage: u, exact: exact})
		return
	}
	if m, ok := t.msgs[id]; ok {
		switch {
		case delta:
			m.usage = mergeUsage(m.usage, u)
		case m.exact && !exact:
			// A snapshot after the final count (an assistant event
			// after its message_delta): keep the count.
			u.OutputTokens = m.usage.OutputTokens
			m.usage = u
		default:
			m.usage = u
		}
		m.exact = m.exact || exact
		if model != "" {
			m.model = model
		}
		t.msgOrder.moveToBack(m)
		return
	}
	if delta && model == "" {
		return // a message_delta for a call we never saw begin
	}
	if t.folded.has(id) {
		t.stats.RecountedMessages++
	}
	m := &msgUsage{id: id, model: model, sub: sub, agent: agent, usage: u, exact: exact}
	t.msgs[id] = m
	t.msgOrder.pushBack(m)
	for t.msgOrder.len() > t.o.MaxOpenMessages {
		front := t.msgOrder.front
		delete(t.msgs, front.id)
		t.msgOrder.remove(front)
		t.fold(front)
		t.folded.add(front.id)
		t.stats.EvictedMessages++
	}
}

func mergeUsage(old, u Usage) Usage {
	if u.InputTokens != 0 {
		old.InputTokens = u.InputTokens
	}
	if u.OutputTokens != 0 {
		old.OutputTokens = u.OutputTokens
	}
	if u.CacheCreationInputTokens != 0 {
		old.CacheCreationInputTokens = u.CacheCreationInputTokens
	}
	if u.CacheWrite1hTokens != 0 {
		old.CacheWrite1hTokens = u.CacheWrite1hTokens
	}
	// A message_delta gives the writes without their split (no
	// cache_creation): the message_start's 1-hour part stays, within them.
	old.CacheWrite1hTokens = min(old.CacheWrite1hTokens, old.CacheCreationInputTokens)
	if u.CacheReadInputTokens != 0 {
		old.CacheReadInputTokens = u.CacheReadInputTokens
	}
	return old
}

// fold adds a model call that can no longer change to the closed totals,
// its own and its subagent's.
func (t *Tracker) fold(m *msgUsage) {
	addTokens(t.closed, m)
	if m.agent != nil {
		m.agent.closed = m.agent.closed.Add(m.usage)
		if m.agent.models == nil {
			m.agent.models = map[usageKey]*ModelTokens{}
		}
		addTokens(m.agent.models, m)
	}
}

// maxModels bounds the (model, side) entries a sum keeps: a run uses a
// few models; a stream that names a new one on every line has the ones
// past the bound summed as "(other)".
const maxModels = 1000

// addTokens adds one model call's usage to its (model, side) entry.
func addTokens(into map[usageKey]*ModelTokens, m *msgUsage) {
	k := usageKey{m.model, m.sub}
	if _, ok := into[k]; !ok && len(into) >= maxModels {
		k.model = "(other)"
	}
	mt := into[k]
	if mt == nil {
		mt = &ModelTokens{Model: m.model, Subagent: m.sub}
		into[k] = mt
	}
	mt.Calls++
	mt.Usage = mt.Usage.Add(m.usage)
	if !m.exact {
		mt.PlaceholderCalls++
	}
}

func (t *Tracker) observeDelta(e *Event) {
	v := e.keys()
	ev := v.Get("event")
	switch typ := ev.Get("type"); {
	case typ.StrEqual("message_start"):
		t.partials = true
		msg := ev.Get("message")
		parent := v.Get("parent_tool_use_id").Str()
		t.recordUsage(msg.Get("id").Str(), msg.Get("model").Str(), parent != "", t.agentOf(parent, v.Get("agent_id").Str()), t.usageOf(msg.Get("usage"), e.Line), true, false)
	case typ.StrEqual("message_delta"):
		if id := v.Get("api_message_id").Str(); id != "" {
			// The call's final count when the call ended (a stop_reason):
			// an interrupted call's delta carries the placeholder still.
			final := !ev.Path("delta", "stop_reason").IsNull()
			t.recordUsage(id, "", false, nil, t.usageOf(ev.Get("usage"), e.Line), true, final)
		}
	}
}

func (t *Tracker) observeResults(e *Event) []*ToolCall {
	ts := e.Timestamp()
	var done []*ToolCall
	for _, r := range e.toolResults(!t.o.Needs.NoResultSizes) {
		id := r.ToolUseID
		c, ok := t.calls[id]
		if !ok {
			t.stats.OrphanResults++
			continue
		}
		t.callOrder.remove(c)
		delete(t.calls, id)
		c.Done, c.IsError, c.ResultLine, c.ResultTimestamp = true, r.IsError, e.Line, ts
		if !t.o.Needs.NoResultSizes {
			c.ResultBytes = r.Size()
		}
		// Both times as the clock parsed them (between's, without
		// parsing them again: a twentieth of tools' tracker).
		c.Duration, c.HasDuration = 0, c.dated && t.clock.own
		if c.HasDuration {
			c.Duration = t.now.At.Sub(c.at)
		}
		t.completeCall(c)
		if s := t.agents[id]; s != nil {
			t.agentResult(s, e.toolUseResult(), r, e)
		}
		done = append(done, c)
	}
	return done
}

// agentResult records the Agent tool result: a foreground subagent's
// report, or the launch notice of a background one (or of a Workflow).
func (t *Tracker) agentResult(s *Subagent, tur jsonx.Value, r ToolResult, e *Event) {
	if tur.Get("status").StrEqual("completed") {
		s.Status = "completed"
		s.Report = truncate(HandBackReport(r.Text()), t.o.MaxTextBytes)
		s.Usage = TaskUsage{tur.Get("totalTokens").Int(), tur.Get("totalToolUseCount").Int(), tur.Get("totalDurationMs").Int()}
		s.EndLine, s.End = e.Line, e.Timestamp()
		t.nameAgent(s, tur.Get("agentId").Str())
	} else if r.IsError {
		s.Status = "failed"
		s.Report = truncate(r.Text(), t.o.MaxTextBytes)
		s.EndLine, s.End = e.Line, e.Timestamp()
	} else if id, u, ok := handBackUsage(r.Text()); ok && tur == nil {
		// The result of a subagent's own Agent call (a nested subagent):
		// tool results in a subagent's records carry no tool_use_result,
		// in a transcript's sidechain files as in the stream, so the end
		// and usage are the hand-back's last lines.
		s.Status = "completed"
		s.Report = truncate(HandBackReport(r.Text()), t.o.MaxTextBytes)
		s.Usage = u
		s.EndLine, s.End = e.Line, e.Timestamp()
		t.nameAgent(s, id)
	} else if tur.Get("status").StrEqual("async_launched") {
		// A Workflow's launch: a transcript has no task_started to name
		// it (task_id) and describe it, and its agents' records, joined
		// after this result, each carry an agent id of their own.
		t.nameAgent(s, tur.Get("taskId").Str())
		if s.Description == "" {
			s.Description = tur.Get("summary").Str()
		}
	}
}

// nameAgent gives s its agent id, when it has none yet.
func (t *Tracker) nameAgent(s *Subagent, id string) {
	if id != "" && s.AgentID == "" {
		s.AgentID = id
		t.byAgentID[id] = s
	}
}

// truncate cuts a report kept of a subagent at max bytes (on a character
// boundary) and says so at its end.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[… cut: %d of %d bytes kept]", cut, len(s))
}

func (t *Tracker) observeTask(e *Event) {
	task := e.Task()
	var s *Subagent
	if task.ToolUseID != "" {
		s = t.agents[task.ToolUseID]
	}
	if s == nil && task.TaskID != "" {
		s = t.byAgentID[task.TaskID]
	}
	switch e.Subtype {
	case "task_started":
		if s == nil && (task.TaskType == "local_agent" || task.TaskType == "remote_agent") && task.ToolUseID != "" {
			s = t.addAgent(&Subagent{ToolUseID: task.ToolUseID, Status: "running", Description: task.Description, Type: task.SubagentType, StartLine: e.Line})
		}
		if s != nil {
			s.AgentID = task.TaskID
			t.byAgentID[task.TaskID] = s
			s.Background = task.IsBackgrounded || s.Type == "workflow"
			if s.Description == "" {
				s.Description = task.Description
			}
			if s.Type == "" {
				s.Type = task.SubagentType
			}
		}
	case "task_updated":
		if s != nil && task.Status != "" {
			s.Status = task.Status
		}
	case "task_notification":
		if s != nil {
			if task.Status != "" {
				s.Status = task.Status
			}
			if task.HasUsage {
				s.Usage = task.Usage
			}
			if s.Report == "" && task.Summary != "" {
				s.Report = truncate(task.Summary, t.o.MaxTextBytes)
			}
			s.EndLine = e.Line
		}
	}
}

// OpenCalls returns the tool calls still waiting for a result, oldest
// first: at the end of a stream, the calls that never got one.
func (t *Tracker) OpenCalls() []*ToolCall {
	out := make([]*ToolCall, 0, t.callOrder.len())
	t.callOrder.each(func(c *ToolCall) { out = append(out, c) })
	return out
}

// Subagents returns the subagent tree's nodes in the order they started.
func (t *Tracker) Subagents() []*Subagent {
	for _, s := range t.agentOrder {
		s.Tokens = s.closed
	}
	t.msgOrder.each(func(m *msgUsage) {
		if m.agent != nil {
			m.agent.Tokens = m.agent.Tokens.Add(m.usage)
		}
	})
	return append([]*Subagent(nil), t.agentOrder...)
}

// UsageOf returns the tokens of s's own model calls by model, each call
// once (its subagents' calls are theirs), for a report of one subagent.
func (t *Tracker) UsageOf(s *Subagent) []ModelTokens {
	all := map[usageKey]*ModelTokens{}
	for k, v := range s.models {
		c := *v
		all[k] = &c
	}
	t.msgOrder.each(func(m *msgUsage) {
		if m.agent == s {
			addTokens(all, m)
		}
	})
	out := make([]ModelTokens, 0, len(all))
	for _, v := range all {
		out = append(out, *v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

// Subagent returns the subagent started by the given Agent call, or nil.
func (t *Tracker) Subagent(toolUseID string) *Subagent { return t.agents[toolUseID] }

// AgentOf returns the subagent an event belongs to, or nil for the main
// agent.
func (t *Tracker) AgentOf(e *Event) *Subagent {
	p := e.ParentToolUseID()
	if p == "" {
		return nil
	}
	return t.agents[p]
}

// Outcome returns the outcome so far.
func (t *Tracker) Outcome() Outcome {
	t.parseLast()
	return t.outcome
}

// parseLast makes outcome.Last from the last result's bytes, once.
func (t *Tracker) parseLast() {
	if t.lastParsed || t.outcome.Results == 0 {
		return
	}
	var e Event
	e.point(t.lastResult, "", t.outcome.Line, 0)
	e.classify()
	t.outcome.Last, t.lastParsed = e.Result(), true
	t.unfit.Add(t.outcome.Last.Unfit, t.outcome.Line)
	// The view's raw parts alias the bytes it was made from, which the
	// next result overwrites: the outcome owns its own.
	t.outcome.Last.StructuredOutput = bytes.Clone(t.outcome.Last.StructuredOutput)
}

// usageOf reads the usage object v of line, counting the numbers that do
// not fit in t.unfit.
func (t *Tracker) usageOf(v jsonx.Value, line int64) Usage {
	var nf Unfits
	u := t.lastUsage.read(v, &nf)
	t.unfit.Add(nf, line)
	return u
}

// usageMemo reads usage objects (usageOf), remembering the last one whose
// numbers all fit: the events of one message (a block each) repeat the
// message's usage byte for byte.
type usageMemo struct {
	raw []byte
	u   Usage
}

// read is usageOf(v, nf), nf (not nil, empty) noting the numbers that
// did not fit.
func (m *usageMemo) read(v jsonx.Value, nf *Unfits) Usage {
	if len(v) > 0 && bytes.Equal(v, m.raw) {
		return m.u // (kept only when every number fit)
	}
	u := usageOf(v, nf)
	if nf.Count == 0 {
		m.raw, m.u = append(m.raw[:0], v...), u
	} else {
		m.raw = m.raw[:0] // each line's unfit is noted
	}
	return u
}

// Unfit counts the numbers of usage and of the last result that did not
// fit where they are kept (read as missing), with the first of them: a
// report that shows figures says so.
func (t *Tracker) Unfit() Unfits {
	t.parseLast()
	return t.unfit
}

// CLI is the agent CLI of the run, as its first init names it (Claude
// Code when none does).
func (t *Tracker) CLI() CLI {
	if !t.cliSet {
		return CLIOf("", "")
	}
	return t.cli
}

// LastResult returns the last result event's bytes (the tracker's own
// copy, valid until the next result), or nil when there was none: for a
// consumer that prints the result event itself (final --format json).
func (t *Tracker) LastResult() []byte {
	if t.outcome.Results == 0 {
		return nil
	}
	return t.lastResult
}

// FinalText returns the final answer: the last result's text. A successful
// result with a missing or empty text (a known claude-code bug) falls back
// to the main agent's last assistant text, and fellBack says so.
func (t *Tracker) FinalText() (text string, fellBack bool) {
	t.parseLast()
	r := t.outcome.Last
	if t.outcome.Status == Succeeded && r.Text == "" && len(t.lastText.text) > 0 {
		return string(t.lastText.text), true
	}
	return r.Text, false
}

// Usage returns the usage report so far.
func (t *Tracker) Usage() UsageReport {
	all := map[usageKey]*ModelTokens{}
	for k, v := range t.closed {
		c := *v
		all[k] = &c
	}
	t.msgOrder.each(func(m *msgUsage) { addTokens(all, m) })
	totalsOnly := false
	if len(all) == 0 && t.outcome.Results > 0 {
		// No call carried usage (an input that gives only the run's
		// totals, as Codex's stream does): the last result's usage is
		// the run's, in no per-call row (Calls 0) and of no model the
		// input names. A result that gives its totals by model (Gemini's
		// stats.models) has them made rows below instead, by model.
		t.parseLast()
		if ru := t.outcome.Last.Usage; ru != (Usage{}) && len(t.outcome.Last.ModelUsage) == 0 {
			all[usageKey{}] = &ModelTokens{Usage: ru}
			totalsOnly = true
		}
	}
	// Lists are [] when empty, never null, in JSON.
	rep := UsageReport{OutputFrom: "events", PartialMessages: t.partials,
		ByModel: []ModelTokens{}, ModelCosts: []ModelUsage{}, Helper: []ModelUsage{}}
	seen := map[string]bool{} // models that answered an assistant message
	for _, v := range all {
		rep.Add(*v)
		seen[v.Model] = true
	}
	rep.EventsOutputTokens = rep.Total.OutputTokens
	if totalsOnly {
		rep.OutputFrom, rep.EventsOutputTokens = "result", 0
	}
	sort.Slice(rep.ByModel, func(i, j int) bool {
		a, b := rep.ByModel[i], rep.ByModel[j]
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		return !a.Subagent && b.Subagent
	})
	if t.outcome.Results > 0 {
		t.parseLast()
		rep.HaveCost = t.outcome.Last.HasCost
		rep.CostUSD = t.outcome.Last.TotalCostUSD
		rep.CostWritten = t.outcome.Last.CostWritten
		if mu := t.outcome.Last.ModelUsage; mu != nil {
			rep.ModelCosts = mu
		}
		var reported int64
		for _, mu := range rep.ModelCosts {
			if !seen[mu.Model] {
				rep.Helper = append(rep.Helper, mu)
				rep.HelperCostUSD += mu.CostUSD
			} else {
				reported += mu.OutputTokens
			}
		}
		if rep.PlaceholderCalls > 0 && reported > rep.Total.OutputTokens {
			rep.Total.OutputTokens, rep.OutputFrom = reported, "result"
		}
		if rep.Calls == 0 && len(rep.Helper) > 0 {
			// No call gave its usage (another CLI's stream gives only
			// the run's totals): the result's totals by model are the
			// run's rows, not a helper's (its calls are not known: 0),
			// so every view shows them in the same columns.
			for _, mu := range rep.Helper {
				rep.Add(ModelTokens{Model: mu.Model, Usage: Usage{mu.InputTokens, mu.OutputTokens, mu.CacheCreationInputTokens, mu.CacheReadInputTokens, mu.CacheWrite1hTokens}})
			}
			rep.Helper, rep.HelperCostUSD, rep.OutputFrom = []ModelUsage{}, 0, "result"
			rep.EventsOutputTokens = 0
		}
	}
	return rep
}

// Types returns the count of each (type, subtype) pair in order of first
// appearance, with Known telling the pairs ccfilter knows.
func (t *Tracker) Types() []TypeCount { return t.types.Counts() }

// Stats returns what the Tracker dropped to stay bounded.
func (t *Tracker) Stats() Stats {
	s := t.stats
	s.FinalTextCut = t.lastText.cut
	return s
}

// Limits returns the bounds the Tracker keeps to (its options, defaults
// filled in), for a consumer that says what Stats counts as dropped.
func (t *Tracker) Limits() TrackerOptions { return t.o }

// MessageUsage returns the usage the tracker holds for the model call
// with message id, counted as Usage counts it (its final figures when the
// stream gave them), and false when it holds none: a call never seen, or
// one evicted past MaxOpenMessages (summed in the totals already). A view
// of each call (a trace's chat span) reads it when the call has ended.
//
// exact is false when the output count is the stream's placeholder (its
// assistant events carry the count at the message's start; the final one
// comes in a message_delta, with --include-partial-messages, or in the
// result's modelUsage, by model only).
func (t *Tracker) MessageUsage(id string) (u Usage, exact, ok bool) {
	m, ok := t.msgs[id]
	if !ok {
		return Usage{}, false, false
	}
	return m.usage, m.exact, true
}
