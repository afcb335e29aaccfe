package stream

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// The account of a run: every figure a view shows of it, computed once
// here from the events the Tracker followed, and laid out by every format
// and command (the account preset prints it whole; docs/account.md says
// what each field means). Aggregates only: the Tracker holds sums by
// model, agent and tool, never a row per call (the tool calls stream out
// of Observe as they complete), so its memory is bounded as the Tracker's.

// Account is the run's account (Tracker.Account).
type Account struct {
	// CLI is the agent CLI that wrote the run, with its version where the
	// input gives it (Claude Code when no init names another).
	CLI     CLI            `json:"cli"`
	Outcome AccountOutcome `json:"outcome"`
	Turns   Turns          `json:"turns"`
	Times   Times          `json:"times"`
	// Tokens are every model call's, each call once; Models the same by
	// model (all agents); Agents by agent, main first, then the subagents
	// in the order of the tree (each under its caller).
	Tokens    Tokens         `json:"tokens"`
	Cost      *Cost          `json:"cost"`
	CostNote  string         `json:"cost_note,omitempty"`
	Models    []ModelAccount `json:"models"`
	Agents    []AgentAccount `json:"agents"`
	ToolCalls ToolAccount    `json:"tool_calls"`
	Troubles  Troubles       `json:"troubles"`
}

// AccountOutcome is how the run ended: the last result decides.
type AccountOutcome struct {
	// Status is "success", "failed" or "no_result".
	Status string `json:"status"`
	// Subtype and TerminalReason are the last result's; Reasons why it
	// failed (FailureReasons), empty when it did not.
	Subtype        string   `json:"subtype,omitempty"`
	TerminalReason string   `json:"terminal_reason,omitempty"`
	Reasons        []string `json:"reasons"`
	Results        int      `json:"results"`
	Line           int64    `json:"line,omitempty"`
}

// Turns are the run's turns, by one meaning: the CLI's num_turns, summed
// over its results, where a result gives it; else the model calls, and
// Meaning says which.
type Turns struct {
	Count   int64  `json:"count"`
	Meaning string `json:"meaning"` // "num_turns" or "model_calls"
}

// Times are the run's times by the one rule (Clock): never the clock nor
// a file's modification time.
type Times struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Dated is false when no record carries a time: Start is then
	// UndatedOrigin and End it advanced by the durations the stream gives.
	Dated bool `json:"dated"`
	// ElapsedMs is End - Start; ReportedMs the results' duration_ms summed
	// (the CLI's measure of its turns), null with no result.
	ElapsedMs  int64  `json:"elapsed_ms"`
	ReportedMs *int64 `json:"reported_duration_ms"`
}

// Tokens are the token figures of some model calls, as the API spells
// them. TotalTokens is always the sum of the four.
type Tokens struct {
	Calls                    int   `json:"calls"`
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	TotalTokens              int64 `json:"total_tokens"`
	// PlaceholderCalls are the calls whose output count is the stream's
	// placeholder (claude -p writes 1 until the call ends): OutputTokens
	// is then a lower bound, unless OutputFrom says the result's.
	PlaceholderCalls int `json:"placeholder_output_calls"`
	// OutputFrom: "events" (the calls' own counts) or "result" (the last
	// result's modelUsage, exact, where the calls' are placeholders).
	OutputFrom string `json:"output_from"`
	// cacheWrite1h is the part of the cache writes that went to the 1-hour
	// cache (Usage.CacheWrite1hTokens): not shown, kept so that an
	// estimate of these tokens (Tracker.cost) prices it.
	cacheWrite1h int64
}

func tokensOf(calls, placeholders int, u Usage, from string) Tokens {
	return Tokens{Calls: calls, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens, CacheReadInputTokens: u.CacheReadInputTokens,
		TotalTokens: u.Total(), PlaceholderCalls: placeholders, OutputFrom: from, cacheWrite1h: u.CacheWrite1hTokens}
}

// runTokens are the run's tokens, from its usage report.
func runTokens(u UsageReport) Tokens {
	return tokensOf(u.Calls, u.PlaceholderCalls, u.Total, u.OutputFrom)
}

// Tokens returns the run's tokens so far, as Account gives them (its
// Tokens), without the rest of the account: for a view that shows them
// often (the live status line).
func (t *Tracker) Tokens() Tokens { return runTokens(t.Usage()) }

// Usage returns the four counts.
func (t Tokens) Usage() Usage {
	return Usage{t.InputTokens, t.OutputTokens, t.CacheCreationInputTokens, t.CacheReadInputTokens, min(t.cacheWrite1h, t.CacheCreationInputTokens)}
}

// Cost is what the run cost in US dollars, and where the figure is from.
type Cost struct {
	USD float64 `json:"usd"`
	// Source is "reported": the last result's total_cost_usd (the CLI's
	// own, cumulative over the session); or "estimated": the input reports
	// none, and the calls are priced at list prices (TrackerOptions.Prices).
	Source string `json:"source"`
}

// Cost returns the run's cost so far, as the account gives it, and why
// there is none: for a view that shows it often (the live status line).
func (t *Tracker) Cost() (*Cost, string) {
	if t.outcome.Results > 0 {
		// The last result's own cost, as cost(Usage()) gives it, without
		// the usage report: a view asks at every result (a report's
		// result blocks, a trace's runs), and a corpus of many runs has
		// thousands.
		t.parseLast()
		if t.outcome.Last.HasCost {
			return &Cost{USD: t.outcome.Last.TotalCostUSD, Source: "reported"}, ""
		}
	}
	return t.cost(t.Usage())
}

func (t *Tracker) cost(u UsageReport) (*Cost, string) {
	if u.HaveCost {
		return &Cost{USD: u.CostUSD, Source: "reported"}, ""
	}
	if u.CostWritten != "" {
		// The result reports a cost, one no float64 holds: the views show
		// it as written (Result.CostLabel), none an estimate beside it.
		return nil, "the last result's total_cost_usd (" + u.CostWritten + ") is too large to compute with"
	}
	why := "the last result gives no total_cost_usd"
	if t.outcome.Results == 0 {
		why = "no result: the input does not say what the run cost"
	}
	for _, m := range u.ByModel {
		if m.Model == "" && m.Usage != (Usage{}) {
			// Tokens of no model the input names (Codex's stream): not
			// priced, never at $0.
			return nil, why + "; the stream names no model"
		}
	}
	if t.o.Prices == nil || len(u.ByModel) == 0 {
		return nil, why
	}
	// The counts the account shows, by model: where the calls' output is
	// the stream's placeholder, the result's modelUsage (a result without
	// total_cost_usd still gives it), not the 1 or 2 the events carry.
	var usd float64
	for _, m := range accountModels(u) {
		c, ok := t.o.Prices.Estimate(m.Model, m.Tokens.Usage())
		if !ok {
			return nil, why + "; no price is known for " + m.Model
		}
		usd += c
	}
	return &Cost{USD: usd, Source: "estimated"}, ""
}

// accountModels are the run's tokens by model as the account gives them
// (its Models): where the run's output is the result's (OutputFrom), each
// model's output is the result's too, so that the models add up to the
// run and the estimate prices what the account shows.
func accountModels(u UsageReport) []ModelAccount {
	ms := modelAccounts(u.ByModel, u.ModelCosts)
	if u.OutputFrom != "result" {
		return ms
	}
	for i := range ms {
		if r := ms[i].Reported; r != nil {
			m := &ms[i]
			m.OutputTokens, m.OutputFrom = r.OutputTokens, "result"
			m.TotalTokens = m.Tokens.Usage().Total()
		}
	}
	return ms
}

// ModelAccount is one model's calls.
type ModelAccount struct {
	Model string `json:"model"`
	Tokens
	// CostUSD is the last result's modelUsage cost of the model (reported),
	// null when the result does not give it.
	CostUSD *float64 `json:"cost_usd"`
	// Reported is what the last result's modelUsage says of the model: the
	// CLI's own count over the session, which holds calls a stream does
	// not forward (a foreground subagent's last call); null when the
	// result does not give it (and in an agent's rows: a result does not
	// split by agent).
	Reported *ReportedTokens `json:"reported"`
}

// ReportedTokens are a model's tokens as the last result reports them.
type ReportedTokens struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	TotalTokens              int64 `json:"total_tokens"`
}

// AgentAccount is one agent's share of the run: the main agent's, or a
// subagent's.
type AgentAccount struct {
	// ID is "main" or the subagent's id (its agent id, else its call's);
	// Parent the id of the agent that started it ("" for main).
	ID          string `json:"id"`
	ToolUseID   string `json:"tool_use_id,omitempty"`
	Parent      string `json:"parent,omitempty"`
	Depth       int    `json:"depth"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status,omitempty"`
	Background  bool   `json:"background"`
	// Tokens are its own model calls' (its subagents' are theirs); null
	// when the input carries none of its calls (a stream does not forward
	// a nested subagent's), and TokensNote says so.
	Tokens     *Tokens        `json:"tokens"`
	TokensNote string         `json:"tokens_note,omitempty"`
	Models     []ModelAccount `json:"models"`
	// TaskReportedTokens, TaskToolUses and TaskDurationMs are what the CLI
	// says of the subagent when it ends (its task notification, or its
	// Agent call's result): its own figure, about the size of the
	// subagent's last call's context, not a sum over its calls. Null when
	// the input has no such report (and for main).
	TaskReportedTokens *int64 `json:"task_reported_tokens"`
	TaskToolUses       *int64 `json:"task_tool_uses"`
	TaskDurationMs     *int64 `json:"task_duration_ms"`
	ToolCalls          int    `json:"tool_calls"`
	ToolFailures       int    `json:"tool_failures"`
	Start              string `json:"start,omitempty"`
	End                string `json:"end,omitempty"`
}

// ToolAccount counts the tool calls: all of them, and by tool.
type ToolAccount struct {
	Calls    int         `json:"calls"`
	Failures int         `json:"failures"`
	ByTool   []ToolTotal `json:"by_tool"`
}

// ToolTotal is one tool's calls: how many, how many failed (a result with
// is_error), how long their results took (the calls with both times) and
// how many bytes their results carried.
type ToolTotal struct {
	Name       string `json:"name"`
	Calls      int    `json:"calls"`
	Failures   int    `json:"failures"`
	Results    int    `json:"results"`
	DurationMs int64  `json:"duration_ms"`
	Bytes      int64  `json:"bytes"`
}

// Troubles counts the events that signal trouble (TroubleOf, what the
// errors preset lists), in all and by kind.
type Troubles struct {
	Count  int            `json:"count"`
	ByKind map[string]int `json:"by_kind"`
}

// toolKey is a tool's figures' place: its name and the agent that called
// it (its Agent call's id, "" for main).
type toolKey struct{ name, parent string }

// maxToolKeys bounds the (tool, agent) sums the Tracker keeps; the ones
// past it are summed as "(other)" of their agent's.
const maxToolKeys = 10000

func (t *Tracker) toolFigures(c *ToolCall) *ToolTotal {
	k := toolKey{c.Name, c.ParentToolUseID}
	f := t.tools[k]
	if f == nil {
		if len(t.tools) >= maxToolKeys {
			k.name = "(other)"
			if f = t.tools[k]; f != nil {
				return f
			}
		}
		f = &ToolTotal{Name: k.name}
		t.tools[k] = f
	}
	return f
}

// countCall counts a tool call as it opens, and completeCall its result.
func (t *Tracker) countCall(c *ToolCall) { t.toolFigures(c).Calls++ }

func (t *Tracker) completeCall(c *ToolCall) {
	f := t.toolFigures(c)
	f.Results++
	if c.IsError {
		f.Failures++
	}
	if c.HasDuration {
		f.DurationMs += c.Duration.Milliseconds()
	}
	f.Bytes += int64(c.ResultBytes)
}

// countTrouble counts e when it signals trouble.
func (t *Tracker) countTrouble(e *Event) {
	if k := TroubleOf(e); k != "" {
		if t.troubles == nil {
			t.troubles = map[string]int{}
		}
		t.troubles[k]++
		t.troubleCount++
	}
}

// Account returns the run's account so far.
func (t *Tracker) Account() Account {
	u := t.Usage()
	out := t.Outcome()
	a := Account{Models: []ModelAccount{}, Agents: []AgentAccount{}, CLI: t.CLI()}
	a.Outcome = AccountOutcome{Status: out.Status.String(), Results: out.Results, Reasons: []string{}}
	if out.Results > 0 {
		a.Outcome.Subtype, a.Outcome.TerminalReason, a.Outcome.Line = out.Last.Subtype, out.Last.TerminalReason, out.Line
		if out.Last.IsError {
			a.Outcome.Reasons = append(a.Outcome.Reasons, FailureReasons(out.Last, out.APIError, true)...)
		}
	}
	a.Turns = Turns{Count: int64(u.Calls), Meaning: "model_calls"}
	if t.tally.Results > 0 {
		a.Turns = Turns{Count: t.tally.Turns, Meaning: "num_turns"}
	}
	// (start is the first dated record's once one came: Observe.)
	a.Times = Times{Start: t.start.At, End: t.now.At, Dated: t.now.Dated, ElapsedMs: t.now.At.Sub(t.start.At).Milliseconds()}
	if t.tally.Timed > 0 {
		// (Only results that say a duration: another CLI's result made
		// without one has no duration, not one of 0 ms.)
		ms := t.tally.DurationMs
		a.Times.ReportedMs = &ms
	}
	a.Tokens = runTokens(u)
	a.Cost, a.CostNote = t.cost(u)
	a.Models = accountModels(u)
	a.Agents = t.agentAccounts(u)
	a.ToolCalls = t.toolAccount()
	a.Troubles = Troubles{Count: t.troubleCount, ByKind: map[string]int{}}
	for k, n := range t.troubles {
		a.Troubles.ByKind[k] = n
	}
	if t.ResultMissing() {
		a.Troubles.ByKind[TroubleNoResult]++
		a.Troubles.Count++
	}
	return a
}

// ResultMissing reports the trouble of no event: the run had no result
// (it was killed or cut off, or wrote nothing: claude -p without
// --verbose), the errors preset's last row and the account's no_result,
// as the outcome's status is no_result.
func (t *Tracker) ResultMissing() bool { return t.outcome.Results == 0 }

// modelAccounts sums rows by model (the rows of a side or an agent) and
// gives each the cost the result reports for it.
func modelAccounts(rows []ModelTokens, costs []ModelUsage) []ModelAccount {
	type sum struct {
		calls, ph int
		u         Usage
	}
	by := map[string]*sum{}
	var names []string
	for _, m := range rows {
		s := by[m.Model]
		if s == nil {
			s = &sum{}
			by[m.Model] = s
			names = append(names, m.Model)
		}
		s.calls += m.Calls
		s.ph += m.PlaceholderCalls
		s.u = s.u.Add(m.Usage)
	}
	sort.Strings(names)
	out := make([]ModelAccount, 0, len(names))
	for _, n := range names {
		s := by[n]
		m := ModelAccount{Model: n, Tokens: tokensOf(s.calls, s.ph, s.u, "events")}
		for _, c := range costs {
			if c.Model == n {
				if usd := c.CostUSD; c.HasCost {
					m.CostUSD = &usd
				}
				u := Usage{c.InputTokens, c.OutputTokens, c.CacheCreationInputTokens, c.CacheReadInputTokens, 0}
				m.Reported = &ReportedTokens{u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.Total()}
			}
		}
		out = append(out, m)
	}
	return out
}

// agentAccounts are main's and each subagent's shares, main first, then
// the subagents in the order of the tree.
func (t *Tracker) agentAccounts(u UsageReport) []AgentAccount {
	var main []ModelTokens
	for _, m := range u.ByModel {
		if !m.Subagent {
			main = append(main, m)
		}
	}
	tools := map[string][2]int{} // calls and failures by agent (Agent call id)
	for k, f := range t.tools {
		n := tools[k.parent]
		tools[k.parent] = [2]int{n[0] + f.Calls, n[1] + f.Failures}
	}
	mainAcc := AgentAccount{ID: MainAgent, Models: modelAccounts(main, nil), ToolCalls: tools[""][0], ToolFailures: tools[""][1]}
	mt := sumModels(mainAcc.Models)
	mainAcc.Tokens = &mt
	out := []AgentAccount{mainAcc}
	subs := t.Subagents()
	for _, s := range TreeOrder(subs) {
		out = append(out, t.agentAccount(s, tools[s.ToolUseID][1]))
	}
	return out
}

// AgentAccount returns a subagent's share of the run so far, as the
// account gives it: for a view that shows one subagent before the end.
// Its tool failures are counted at the end only (Account).
func (t *Tracker) AgentAccount(s *Subagent) AgentAccount { return t.agentAccount(s, 0) }

func (t *Tracker) agentAccount(s *Subagent, failures int) AgentAccount {
	parent := MainAgent
	if p := t.agents[s.Parent]; p != nil {
		parent = p.Label()
	} else if s.Parent != "" {
		parent = s.Parent
	}
	acc := AgentAccount{ID: s.Label(), ToolUseID: s.ToolUseID, Parent: parent, Depth: s.Depth, Type: s.Type,
		Description: s.Description, Status: s.Status, Background: s.Background,
		Models: modelAccounts(t.UsageOf(s), nil), ToolCalls: s.ToolCalls, ToolFailures: failures,
		Start: s.Start, End: s.End}
	if len(acc.Models) > 0 {
		tk := sumModels(acc.Models)
		acc.Tokens = &tk
	} else {
		acc.TokensNote = "none of its model calls is in the input (a stream does not forward a nested subagent's)"
	}
	if s.Usage != (TaskUsage{}) {
		tt, tu, td := s.Usage.TotalTokens, s.Usage.ToolUses, s.Usage.DurationMs
		acc.TaskReportedTokens, acc.TaskToolUses, acc.TaskDurationMs = &tt, &tu, &td
	}
	return acc
}

// sumModels is the sum of an agent's rows by model.
func sumModels(ms []ModelAccount) Tokens {
	var u Usage
	calls, ph := 0, 0
	for _, m := range ms {
		calls += m.Calls
		ph += m.PlaceholderCalls
		u = u.Add(m.Tokens.Usage())
	}
	return tokensOf(calls, ph, u, "events")
}

func (t *Tracker) toolAccount() ToolAccount {
	by := map[string]*ToolTotal{}
	var names []string
	for k, f := range t.tools {
		s := by[k.name]
		if s == nil {
			s = &ToolTotal{Name: k.name}
			by[k.name] = s
			names = append(names, k.name)
		}
		s.Calls += f.Calls
		s.Failures += f.Failures
		s.Results += f.Results
		s.DurationMs += f.DurationMs
		s.Bytes += f.Bytes
	}
	sort.Strings(names)
	a := ToolAccount{ByTool: make([]ToolTotal, 0, len(names))}
	for _, n := range names {
		a.Calls += by[n].Calls
		a.Failures += by[n].Failures
		a.ByTool = append(a.ByTool, *by[n])
	}
	return a
}

// FailureReasons are the reasons a failed result gives: a subtype that
// names one (and, with terminal, the terminal reason beside it), else the
// terminal reason; the API error that ended the last turn; the HTTP
// status. The one wording of why a run failed, which every view says.
func FailureReasons(r Result, apiError string, terminal bool) []string {
	var why []string
	switch {
	case r.Subtype != "" && r.Subtype != "success":
		why = append(why, r.Subtype)
		if terminal && r.TerminalReason != "" {
			why = append(why, r.TerminalReason)
		}
	case r.TerminalReason != "":
		why = append(why, r.TerminalReason)
	}
	if apiError != "" && (r.Subtype == "success" || r.Subtype == "error_during_execution" || r.Subtype == "") {
		// The subtype says nothing of why: the API error that ended the
		// last turn does. A subtype that names a reason (max turns,
		// budget) is the reason, whatever error came before it.
		why = append(why, apiError)
	}
	if r.APIErrorStatus != 0 {
		why = append(why, "HTTP "+strconv.Itoa(r.APIErrorStatus))
	}
	return why
}

// TreeOrder puts each subagent's subagents right after it (depth first,
// each level in the order they started), so the table reads as the tree.
// A subagent whose parent is not listed stays where it started.
func TreeOrder(subs []*Subagent) []*Subagent {
	listed := make(map[string]bool, len(subs))
	for _, s := range subs {
		listed[s.ToolUseID] = true
	}
	children := map[string][]*Subagent{}
	var roots []*Subagent
	for _, s := range subs {
		if s.Parent != "" && listed[s.Parent] && s.Parent != s.ToolUseID {
			children[s.Parent] = append(children[s.Parent], s)
		} else {
			roots = append(roots, s)
		}
	}
	out := make([]*Subagent, 0, len(subs))
	var walk func(s *Subagent)
	walk = func(s *Subagent) {
		out = append(out, s)
		for _, c := range children[s.ToolUseID] {
			walk(c)
		}
		delete(children, s.ToolUseID) // (each once, even in a cycle)
	}
	for _, r := range roots {
		walk(r)
	}
	if len(out) < len(subs) { // parents that name each other: no root reaches them
		seen := make(map[*Subagent]bool, len(out))
		for _, s := range out {
			seen[s] = true
		}
		for _, s := range subs {
			if !seen[s] {
				out = append(out, s)
			}
		}
	}
	return out
}

// CostLabel is the run's cost as a view shows it beside its outcome: the
// last result's (its CostLabel: "$0.0219", or "$?" when it says none),
// unless it says none and the account estimated one at list prices (a
// run of a CLI that reports no cost): "~$0.0103", the estimate's mark the
// live status line uses too.
func (a Account) CostLabel(last Result) string { return CostLabel(last, a.Cost) }

// CostLabel is the cost a view shows beside result r, given the run's cost
// so far (Tracker.Cost, nil for none): r's own when it reports one (a run
// of several results shows each its own), else the run's estimate marked
// "~", else "$?". One wording for every view of a result: the text
// closing line, the markdown and HTML result blocks, the glance.
func CostLabel(r Result, run *Cost) string {
	if !r.HasCost && r.CostWritten == "" && run != nil && run.Source == "estimated" {
		return fmt.Sprintf("~$%.4f", run.USD)
	}
	return r.CostLabel()
}

// CostLabel is CostLabel(r, the run's cost so far), asking the tracker
// for the run's cost only where the label shows it: a result that says
// its own cost, or one too large to compute with, shows that. A report
// labels every result, and a corpus of many runs has thousands: asked at
// each, the account's report took a trace of 300 MB from 0.67 to 1.45 s.
func (t *Tracker) CostLabel(r Result) string {
	if r.HasCost || r.CostWritten != "" {
		return r.CostLabel()
	}
	c, _ := t.Cost()
	return CostLabel(r, c)
}
