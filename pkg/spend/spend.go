// Package spend counts what Claude Code's sessions spent: every model
// call once, in the session that made it, with the cost the CLI recorded.
//
// The accounting, per session transcript (its subagents' and Workflow
// agents' files joined):
//
//   - A model call is a message id; its usage is taken from its final
//     record (the one with a stop_reason, else the largest), not from
//     whichever of its lines comes last.
//   - A line a --fork-session copied names its origin (requestSessionId):
//     it is counted in the session that made it, not again in the fork.
//   - The CLI writes a cost-state record at the end of each run: the
//     session's cumulative cost and tokens, per model (a resumed session's
//     and a fork's include what came before them). A run's spend is the
//     difference from the cost-state before it (for a fork's first run, its
//     parent's at the fork); the part of a run's tokens no assistant
//     record holds (compaction, helper calls) is a call of its own, marked
//     hidden; the run's cost is shared among its calls by their weight at
//     Claude's price ratios, so that the calls add up to the CLI's figure
//     exactly.
//   - A run that wrote no cost-state (killed) is priced at the rate the
//     session's recorded runs paid for the same model, else from the price
//     table (Prices), and marked estimated; a model neither knows is
//     unpriced, never given another run's figure.
package spend

import (
	"bufio"
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Call is one model call's spend, or the part of a run no assistant
// record holds.
type Call struct {
	Session  string    // the session that made it
	Project  string    // its project: the working directory
	Subagent bool      // made by a subagent (or a Workflow agent)
	Model    string    //
	Time     time.Time // its record's timestamp (hidden: the run's last record's)
	Usage    stream.Usage
	CostUSD  float64
	// Hidden: tokens the run's cost-state holds and no assistant record
	// does (compaction, helper models).
	Hidden bool
	// Estimated: its run wrote no cost-state; the cost is a rate's.
	// Unpriced: no rate is known for its model; CostUSD is 0.
	Estimated, Unpriced bool
}

// Summary is what a scan found beside the calls.
type Summary struct {
	Session     string
	Runs        int     // cost-states: the runs that wrote to the file
	CostUSD     float64 // the session's own spend (what its calls add up to)
	RecordedUSD float64 // the last cost-state's figure: the session's size as /cost shows it (a fork's includes its parent's)
	ForkedFrom  string
	Copied      int // the calls a fork copied, counted in their own session
	BadLines    int // lines that may hold a call and are not one whole record (passed over)
}

// message is one model call seen in the records.
type message struct {
	id       string
	model    string
	ts       string
	usage    stream.Usage
	final    bool // its record had a stop_reason
	subagent bool
}

// better reports whether the record u (final: with a stop_reason) is a
// better account of a call than m's.
func (m *message) better(u stream.Usage, final bool) bool {
	if final != m.final {
		return final
	}
	return u.OutputTokens > m.usage.OutputTokens
}

// modelTotal is one model's cumulative figures in a cost-state.
type modelTotal struct {
	usage stream.Usage
	cost  float64
}

type costState map[string]modelTotal

func readCostState(ev *stream.Event) costState {
	var mu map[string]struct {
		In    int64   `json:"inputTokens"`
		Out   int64   `json:"outputTokens"`
		Write int64   `json:"cacheCreationInputTokens"`
		Read  int64   `json:"cacheReadInputTokens"`
		Cost  float64 `json:"costUSD"`
	}
	cs := costState{}
	if json.Unmarshal(ev.Get("modelUsage"), &mu) != nil {
		return cs
	}
	for model, v := range mu {
		cs[model] = modelTotal{usage: stream.Usage{InputTokens: v.In, OutputTokens: v.Out,
			CacheCreationInputTokens: v.Write, CacheReadInputTokens: v.Read}, cost: v.Cost}
	}
	return cs
}

// Options are how Scan reads.
type Options struct {
	// Plain reads every record in full: the reference path, which the
	// fast one (lines picked by their type's place, see wanted) must
	// match call for call (TestFastScanSameAsPlain).
	Plain bool
	// Prices price the calls of a run that recorded no cost when the
	// session has no rate for their model (nil: Prices).
	Prices PriceTable
	// Buffer, when set, is the read buffer of every file the scan reads
	// (a caller scanning many sessions reuses one; see
	// stream.DecoderOptions.Buffer).
	Buffer *bufio.Reader
}

// Scan reads one session transcript and its agents' files, and calls emit
// with each call, in the order of its runs.
func Scan(path string, emit func(Call)) (Summary, error) { return ScanWith(path, Options{}, emit) }

// ScanWith is Scan with options.
func ScanWith(path string, o Options, emit func(Call)) (Summary, error) {
	s := NewScanner(path, o, emit)
	for _, f := range input.SubagentFiles(input.SessionDir(path)) {
		if err := s.each(f, s.AgentRecord); err != nil {
			return s.sum, err
		}
	}
	if err := s.each(path, s.Record); err != nil {
		return s.sum, err
	}
	return s.End(), nil
}

// Scanner is Scan fed by a caller that reads the files itself (a listing
// that reads them for more than the spend: one pass, not two): first
// every record of the session's agents' files (AgentRecord), then the
// session's own (Record), then End. It needs the records that declare
// themselves a call or a cost-state (input.DeclaredType).
type Scanner struct{ scan }

// NewScanner returns a Scanner of the session transcript at path.
func NewScanner(path string, o Options, emit func(Call)) *Scanner {
	s := &Scanner{scan{path: path, o: o, emit: emit, seen: map[string]*message{}, rates: map[string]float64{}, agentSeen: map[string]*message{}}}
	s.sum.Session = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	return s
}

// AgentRecord takes a record of a subagent's or Workflow agent's file.
func (s *Scanner) AgentRecord(ev *stream.Event) {
	if ev.Type != "assistant" || s.copied(ev) {
		return
	}
	s.note(s.agentSeen, ev, true)
}

// Record takes a record of the session's own file, in order.
func (s *Scanner) Record(ev *stream.Event) {
	s.agentsRead()
	s.record(ev)
}

// End closes the last run (priced at a rate when it wrote no cost-state)
// and returns the summary.
func (s *Scanner) End() Summary {
	s.agentsRead()
	s.endRun(nil)
	return s.sum
}

// agentsRead puts the agents' calls in time order, once they are all in.
func (s *scan) agentsRead() {
	if s.agentSeen == nil {
		return
	}
	for _, m := range s.agentSeen {
		s.agentCalls = append(s.agentCalls, m)
	}
	s.agentSeen = nil
	sort.SliceStable(s.agentCalls, func(i, j int) bool {
		if s.agentCalls[i].ts != s.agentCalls[j].ts {
			return s.agentCalls[i].ts < s.agentCalls[j].ts
		}
		return s.agentCalls[i].id < s.agentCalls[j].id
	})
}

type scan struct {
	o       Options
	path    string
	emit    func(Call)
	sum     Summary
	project string
	// the run being read: its calls, and the time of its last record
	run    []*message
	lastTS string
	seen   map[string]*message // every call of the file, by message id
	// the subagents' calls: as they are read, then by time, those not
	// yet given to a run
	agentSeen  map[string]*message
	agentCalls []*message
	prev       costState          // the cost-state before the run
	rates      map[string]float64 // dollars per weight unit, by model, from recorded runs
	lastCopied string             // the last call a fork copied
}

// each reads the records of a file a usage account needs: the lines that
// say "type":"assistant" or "type":"cost-state" where a record says its
// type (see wanted), checked to be one whole record each; the rest of a
// transcript (attachments, prompt snapshots, tool outputs: most of its
// bytes) is passed over at the speed of finding line ends. With
// Options.Plain, every record is read.
func (s *scan) each(path string, fn func(*stream.Event)) error {
	opts := stream.DecoderOptions{Check: stream.CheckFraming, Want: wanted, Buffer: s.o.Buffer}
	if s.o.Plain {
		opts.Want = nil
	}
	bad, err := input.EachRecordChecked(path, opts, fn)
	s.sum.BadLines += bad
	return err
}

// wanted picks the lines that hold a call or a cost-state, by the type
// they declare where Claude Code writes it (input.DeclaredType): looking
// only there, not through a message's content, halves the time of a tree
// of sessions (a search through every byte stops at each '"', which is
// everywhere in JSON). A line where a lost newline merged a call into
// another record says "type":"assistant" at its end too, and then fails
// the framing check: counted bad, not lost unseen.
func wanted(line []byte) bool {
	t, _ := input.DeclaredType(line)
	return string(t) == "assistant" || string(t) == "cost-state"
}

// copied reports a record a fork copied from another session (counted
// there), and notes the fork.
func (s *scan) copied(ev *stream.Event) bool {
	from := ev.Str("requestSessionId")
	if from == "" || from == s.sum.Session {
		return false
	}
	s.sum.ForkedFrom = from
	return true
}

// note takes an assistant record's call into seen: a new call, or a
// better account of one seen; it returns the new call (nil otherwise).
func (s *scan) note(seen map[string]*message, ev *stream.Event, subagent bool) *message {
	a := ev.AssistantHead()
	if a.MessageID == "" || a.Model == "" || a.Model == "<synthetic>" {
		return nil
	}
	final := a.StopReason != ""
	if m, ok := seen[a.MessageID]; ok {
		if m != nil && m.better(a.Usage, final) {
			m.usage, m.final = a.Usage, final
		}
		return nil
	}
	m := &message{id: a.MessageID, model: a.Model, ts: ev.Timestamp(), usage: a.Usage, final: final, subagent: subagent}
	seen[a.MessageID] = m
	return m
}

func (s *scan) record(ev *stream.Event) {
	switch ev.Type {
	case "assistant":
		// The run's time is its calls': a subagent's calls up to its
		// last call's are the run's.
		if ts := ev.Timestamp(); ts > s.lastTS {
			s.lastTS = ts
		}
		if s.project == "" {
			s.project = ev.Str("cwd")
		}
		if s.copied(ev) {
			id := ev.AssistantHead().MessageID
			if _, ok := s.seen[id]; !ok && id != "" {
				s.seen[id] = nil // (a copy: counted in its session)
				s.sum.Copied++
			}
			s.lastCopied = id
			return
		}
		if m := s.note(s.seen, ev, false); m != nil {
			s.run = append(s.run, m)
		}
	case "cost-state":
		s.sum.Runs++
		cs := readCostState(ev)
		s.sum.RecordedUSD = ev.Float("totalCostUSD")
		if s.prev == nil && s.sum.ForkedFrom != "" {
			s.prev = s.forkBase()
		}
		s.endRun(cs)
		s.prev = cs
	}
}

// forkBase is the parent's cost-state at the fork: the first after the
// last call the fork copied, in the parent's file beside this one (none
// found: nothing to take away).
func (s *scan) forkBase() costState {
	parent := filepath.Join(filepath.Dir(s.path), s.sum.ForkedFrom+".jsonl")
	var base, last costState
	found := s.lastCopied == ""
	// (Read with a buffer of its own: the shared one is the fork's file's
	// until its scan ends.)
	shared := s.o.Buffer
	s.o.Buffer = nil
	defer func() { s.o.Buffer = shared }()
	s.each(parent, func(ev *stream.Event) {
		switch {
		case base != nil:
		case ev.Type == "assistant" && ev.AssistantHead().MessageID == s.lastCopied:
			found = true
		case ev.Type == "cost-state":
			last = readCostState(ev)
			if found {
				base = last
			}
		}
	})
	if base == nil {
		base = last
	}
	return base
}

// endRun gives the run's calls their cost: from the run's cost-state (cs)
// less the one before, or, with none (the file ended), from a rate.
func (s *scan) endRun(cs costState) {
	calls := s.run
	s.run = nil
	// The subagents' calls up to the run's last record are the run's;
	// at the file's end, all that are left.
	n := 0
	for n < len(s.agentCalls) && (cs == nil || s.agentCalls[n].ts <= s.lastTS) {
		n++
	}
	calls = append(calls, s.agentCalls[:n]...)
	s.agentCalls = s.agentCalls[n:]
	if cs == nil {
		s.estimate(calls)
		return
	}
	byModel := map[string][]*message{}
	for _, m := range calls {
		byModel[m.model] = append(byModel[m.model], m)
	}
	models := make([]string, 0, len(cs))
	for model := range cs {
		models = append(models, model)
	}
	for model := range byModel {
		if _, ok := cs[model]; !ok {
			models = append(models, model)
		}
	}
	sort.Strings(models)
	for _, model := range models {
		if _, ok := cs[model]; !ok {
			// Calls of a model the cost-state does not name (none seen
			// so far): priced at a rate, as if unrecorded.
			s.estimate(byModel[model])
			continue
		}
		s.recorded(model, byModel[model], cs[model].minus(s.prev[model]))
	}
}

func (t modelTotal) minus(o modelTotal) modelTotal {
	return modelTotal{usage: stream.Usage{
		InputTokens:              max(0, t.usage.InputTokens-o.usage.InputTokens),
		OutputTokens:             max(0, t.usage.OutputTokens-o.usage.OutputTokens),
		CacheCreationInputTokens: max(0, t.usage.CacheCreationInputTokens-o.usage.CacheCreationInputTokens),
		CacheReadInputTokens:     max(0, t.usage.CacheReadInputTokens-o.usage.CacheReadInputTokens),
	}, cost: math.Max(0, t.cost-o.cost)}
}

// recorded emits one model's calls of a run that wrote its cost-state:
// the calls, the tokens no call holds as a hidden call, and the run's
// cost shared by weight.
func (s *scan) recorded(model string, calls []*message, run modelTotal) {
	var held stream.Usage
	for _, m := range calls {
		held = held.Add(m.usage)
	}
	hidden := run.minus(modelTotal{usage: held}).usage
	total := weight(held) + weight(hidden)
	if total > 0 && run.cost > 0 {
		s.rates[model] = run.cost / total
	}
	share := func(u stream.Usage) float64 {
		if total == 0 {
			return 0
		}
		return run.cost * weight(u) / total
	}
	for _, m := range calls {
		s.out(m, share(m.usage), false, false)
	}
	if hidden.Total() > 0 {
		s.out(&message{model: model, ts: s.lastTS, usage: hidden}, share(hidden), false, false)
	}
}

// estimate prices the calls of a run that wrote no cost-state.
func (s *scan) estimate(calls []*message) {
	for _, m := range calls {
		rate, ok := s.rates[m.model]
		if !ok {
			table := s.o.Prices
			if table == nil {
				table = Prices
			}
			rate, ok = table.rate(m.model)
		}
		s.out(m, rate*weight(m.usage), true, !ok)
	}
}

func (s *scan) out(m *message, cost float64, estimated, unpriced bool) {
	t, _ := time.Parse(time.RFC3339Nano, m.ts)
	s.sum.CostUSD += cost
	s.emit(Call{Session: s.sum.Session, Project: s.project, Subagent: m.subagent, Model: m.model, Time: t,
		Usage: m.usage, CostUSD: cost, Hidden: m.id == "", Estimated: estimated, Unpriced: unpriced})
}

// weight is a call's tokens weighed at Claude's price ratios (the same for
// every Claude model): output 5 times input, a cache write 1.25 times, a
// cache read a tenth. It shares a run's recorded cost among its calls.
func weight(u stream.Usage) float64 {
	return float64(u.InputTokens) + 5*float64(u.OutputTokens) + 1.25*float64(u.CacheCreationInputTokens) + 0.1*float64(u.CacheReadInputTokens)
}
