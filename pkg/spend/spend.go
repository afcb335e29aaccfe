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
//     their model's own list price ratios (Claude's usual ones for a model
//     the catalog does not price), so that the calls add up to the CLI's
//     figure exactly and each gets the share its price gives it.
//   - A run that wrote no cost-state (killed) is priced at the rate the
//     session's recorded runs paid for the same model, else from the price
//     table (Prices), and marked estimated; a model neither knows is
//     unpriced, never given another run's figure.
package spend

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"time"

	"github.com/ccfilter/ccfilter/internal/cores"
	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Call is one model call's spend, or the part of a run no assistant
// record holds.
type Call struct {
	Session  string // the session that made it
	Project  string // its project: the working directory
	CLI      string // the id of the agent CLI that made it (stream.CLI)
	Subagent bool   // made by a subagent (or a Workflow agent)
	// AgentType is the subagent's type, the one the run's account gives
	// it (its .meta.json's, input.AgentTypes; else its Agent call's,
	// stream.SubagentOf), "" for the main agent's calls and for a
	// subagent no known call started.
	AgentType string
	// Machine is the name of the tree the session was read from
	// (Options.Machine).
	Machine string
	Model   string    //
	Time    time.Time // its record's timestamp (hidden: the run's last record's)
	// SessionStart is its session's first record's time (Ledger.start):
	// where a cumulative sum of the session's calls counts from.
	SessionStart time.Time
	Usage        stream.Usage
	CostUSD      float64
	// Hidden: tokens the run's cost-state holds and no assistant record
	// does (compaction, helper models).
	Hidden bool
	// Unread: the same remainder of a session that has lines which could
	// not be read (BadLines, each warned about with its number): what those
	// lines may hold is not known, so it is not said to be hidden.
	Unread bool
	// Estimated: its run wrote no cost-state; the cost is a rate's.
	// Unpriced: no rate is known for its model; CostUSD is 0.
	Estimated, Unpriced bool
}

// Agent is the call's agent as usage --by subagent shows it: "main", or
// the subagent's type (a nested subagent's own, not its caller's).
func (c Call) Agent() string {
	if !c.Subagent {
		return "main"
	}
	return cmp.Or(c.AgentType, UnknownAgent)
}

// UnknownAgent names in usage --by subagent the subagents no known call
// started (whose type nothing says): their records name an agent no
// .meta.json or Agent call's result ties to a call, or none.
const UnknownAgent = "unknown"

// Summary is what a scan found beside the calls.
type Summary struct {
	Session     string
	Runs        int     // cost-states: the runs that wrote to the file
	CostUSD     float64 // the session's own spend (what its calls add up to)
	RecordedUSD float64 // the last cost-state's figure: the session's size as /cost shows it (a fork's includes its parent's)
	ForkedFrom  string
	Copied      int // the calls a fork (or a copy) holds of another session's, counted there
	BadLines    int // lines that may hold a call and are not one whole record (passed over; Ledger.BadLines says them)
}

// message is one model call seen in the records.
type message struct {
	id       string // the message id: the call's name in every file (see note)
	model    string
	ts       string
	usage    stream.Usage
	final    bool // its record had a stop_reason
	subagent bool
	agent    string // the subagent's agent id (its records' agentId)
	call     string // the call that started the subagent, where its records name it (a Gemini chat's)
	from     string // the session its records name as the call's origin (requestSessionId), "" when none other
	unread   bool   // the remainder of a session with unreadable lines (Call.Unread)
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
		In      int64   `json:"inputTokens"`
		Out     int64   `json:"outputTokens"`
		Write   int64   `json:"cacheCreationInputTokens"`
		Write1h int64   `json:"cacheCreationEphemeral1hInputTokens"`
		Read    int64   `json:"cacheReadInputTokens"`
		Cost    float64 `json:"costUSD"`
	}
	cs := costState{}
	if json.Unmarshal(ev.Get("modelUsage"), &mu) != nil {
		return cs
	}
	names := make([]string, 0, len(mu))
	for name := range mu {
		names = append(names, name)
	}
	sort.Strings(names) // (two names of one model are added in one order)
	for _, name := range names {
		v, model := mu[name], stream.APIModel(name)
		t := cs[model]
		t.usage = t.usage.Add(stream.Usage{InputTokens: v.In, OutputTokens: v.Out,
			CacheCreationInputTokens: v.Write, CacheReadInputTokens: v.Read, CacheWrite1hTokens: min(v.Write1h, v.Write)})
		t.cost += v.Cost
		cs[model] = t
	}
	return cs
}

// Options are how Scan reads.
type Options struct {
	// Plain reads every record in full: the reference path, which the
	// fast one (lines picked by their type's place, see Wanted) must
	// match call for call (TestFastScanSameAsPlain).
	Plain bool
	// Prices price the calls of a run that recorded no cost when the
	// session has no rate for their model (the zero value: Prices).
	Prices PriceTable
	// Buffer, when set, is the read buffer of every file the scan reads
	// (a caller scanning many sessions reuses one; see
	// stream.DecoderOptions.Buffer).
	Buffer *bufio.Reader
	// Scratch, when set, holds the buffers of long lines from file to
	// file as Buffer does (stream.DecoderOptions.Scratch).
	Scratch *stream.Scratch
	// Machine names the tree the session is read from (usage --by
	// machine: laptop=PATH), and Tree is that tree's place among the
	// trees named: a call two trees hold (a copied or synced folder) is
	// the first's (see Account).
	Machine string
	Tree    int
}

// Scan reads one session transcript and its agents' files, and calls emit
// with each call, in the order of its runs.
func Scan(path string, emit func(Call)) (Summary, error) { return ScanWith(path, Options{}, emit) }

// ScanWith is Scan with options: Account over the one session.
func ScanWith(path string, o Options, emit func(Call)) (Summary, error) {
	l, err := Read(path, o)
	if err != nil {
		return Summary{}, err
	}
	return Account([]*Ledger{l}, o, emit)[0], nil
}

// Read reads one session transcript (compressed or not) and its agents'
// files into its Ledger. A file that is no session transcript (a stream
// capture, an empty file) is input.ErrNotTranscript.
func Read(path string, o Options) (*Ledger, error) {
	s := NewScanner(path, o)
	for _, f := range input.SubagentFiles(input.SessionDir(path)) {
		if err := s.each(f, nil, nil, s.AgentRecord); err != nil {
			return nil, err
		}
	}
	// A Gemini CLI chat file is told as its first line is read
	// (input.IsGeminiChatHead); the records read before are passed over
	// with s.
	gemini := false
	firstLine := func(line []byte) bool {
		gemini = input.IsGeminiChatHead(path, line)
		return !gemini
	}
	first := true
	transcript := false
	err := s.each(path, s.Line, firstLine, func(ev *stream.Event) {
		if first {
			first, transcript = false, input.IsTranscriptRecord(ev.Raw)
		}
		s.Record(ev)
	})
	if gemini {
		return NewScanner(path, o).gemini(path)
	}
	if err != nil {
		return nil, err
	}
	if !transcript && !first {
		// Another agent CLI's session file (Codex's rollout), read by
		// its input kind as Claude Code's events.
		o2 := NewScanner(path, o)
		cli, bad, err := input.EachOtherSessionEvent(path, func(ev *stream.Event) {
			if ev.Kind == stream.KindInit && ev.Str("session_id") != "" {
				o2.l.session = ev.Str("session_id")
			}
			o2.Record(ev)
		})
		if err == nil {
			o2.l.cli, o2.l.bad = cli.ID, bad
			return o2.End(), nil
		}
	}
	if !transcript {
		what := "empty"
		if !first {
			what = "its first record is not a transcript's"
		}
		return nil, fmt.Errorf("%s: %w (%s)", path, input.ErrNotTranscript, what)
	}
	return s.End(), nil
}

// Ledger is one session as the accounting reads it, before it is decided
// which of the calls it holds are its own: its runs (the calls first seen
// in each, and the cost-state that ends it), its agents' calls, when it
// started and the sessions its records name.
type Ledger struct {
	path    string
	session string
	project string
	machine string // Options.Machine
	tree    int    // Options.Tree
	// types are its subagents' types by agent id (input.AgentTypes), read
	// at End when it has subagents' calls.
	types map[string]string
	// callTypes are the types of the subagents its main agent's calls
	// started, by the call's id (stream.SubagentOf, the run's account's
	// rule): a subagent's records that name their call, not an agent id
	// (a Gemini chat's subagent), are typed by it.
	callTypes map[string]string
	// start: the earliest timestamp of its file's records. A fork copies
	// its parent's records with their times, but its own first records
	// (and so its earliest copy) come after its parent's first.
	start string
	// names: the sessions its records name in requestSessionId (a fork's
	// copies name their origin).
	names  map[string]bool
	runs   []run
	agents []*message          // its agents' calls, by time
	calls  map[string]*message // every call it holds, by message id
	states map[string]bool     // every cost-state it holds, by stateKey
	named  bool                // the session id was taken from its first record
	open   *run                // the run being read
	seen   map[string]*message // the main agent's calls, by message id
	aseen  map[string]*message // the agents' calls as they are read
	bad    []error             // its lines that may hold a call and are not one whole record
	runsN  int                 // cost-states
	cost   float64             // the last cost-state's figure
	lastTS string              // the time of the last call read
	cli    string              // the id of the agent CLI that wrote it (stream.CLI)
}

// run is one run of the CLI in a session's file: the calls first seen in
// it, its last call's time, and its cost-state (nil: the file ended
// without one), named by stateKey (a copy of the file holds the same).
type run struct {
	calls  []*message
	lastTS string
	cs     costState
	key    string
}

// BadLines are the ledger's lines that may hold a call or a cost-state
// and are not one whole record, with their line numbers (passed over:
// the caller says them).
func (l *Ledger) BadLines() []error { return l.bad }

// stateKey names a cost-state across files: its session and its
// cumulative figures, which a copy of the file keeps.
func stateKey(ev *stream.Event) string {
	return "cost-state\x00" + ev.Str("sessionId") + "\x00" + strconv.FormatFloat(ev.Float("totalCostUSD"), 'g', -1, 64) + "\x00" +
		strconv.FormatInt(ev.Int("totalDuration"), 10) + "\x00" + strconv.FormatInt(ev.Int("startTime"), 10)
}

// Scanner is Read fed by a caller that reads the files itself (a listing
// that reads them for more than the spend: one pass, not two): first
// every record of the session's agents' files (AgentRecord), then the
// session's own (Record, and Line for every line of it, read or not),
// then End. It needs the records that declare themselves a call or a
// cost-state (input.DeclaredType) and the Unsure ones.
type Scanner struct {
	o Options
	l *Ledger
}

// NewScanner returns a Scanner of the session transcript at path.
func NewScanner(path string, o Options) *Scanner {
	l := &Ledger{path: path, session: input.SessionID(path), machine: o.Machine, tree: o.Tree, names: map[string]bool{}, calls: map[string]*message{}, states: map[string]bool{},
		seen: map[string]*message{}, aseen: map[string]*message{}, open: &run{}, cli: stream.ClaudeCodeID}
	return &Scanner{o: o, l: l}
}

// Line sees a line of the session's own file, read or not: its record's
// time, where Claude Code writes it, counts towards the session's start.
func (s *Scanner) Line(line []byte) {
	if ts := input.RecordTime(line); ts != nil && (s.l.start == "" || string(ts) < s.l.start) {
		s.l.start = string(ts)
	}
}

// AgentRecord takes a record of a subagent's or Workflow agent's file.
func (s *Scanner) AgentRecord(ev *stream.Event) {
	if ev.Type != "assistant" {
		return
	}
	s.l.note(s.l.aseen, ev, true)
}

// Record takes a record of the session's own file, in order.
func (s *Scanner) Record(ev *stream.Event) {
	l := s.l
	if !l.named {
		// The session is the one its records name (its file's name
		// unless it was renamed: x.jsonl.gz).
		l.named = true
		if id := ev.Str("sessionId"); id != "" {
			l.session = id
		}
	}
	if ts := ev.Timestamp(); ts != "" && (l.start == "" || ts < l.start) {
		l.start = ts
	}
	switch ev.Type {
	case "assistant":
		// The run's time is its calls': a subagent's calls up to its
		// last call's are the run's.
		if ts := ev.Timestamp(); ts > l.lastTS {
			l.lastTS = ts
		}
		if input.IsSidechain(ev) {
			// A subagent's record in the session's own file (older
			// releases wrote them there): its subagent's call.
			l.note(l.aseen, ev, true)
			return
		}
		if l.project == "" {
			l.project = ev.Str("cwd")
		}
		if ev.Kind == stream.KindToolUse {
			l.noteAgentCalls(ev)
		}
		if m := l.note(l.seen, ev, false); m != nil {
			l.open.calls = append(l.open.calls, m)
		}
	case "cost-state":
		l.runsN++
		l.cost = ev.Float("totalCostUSD")
		l.open.cs, l.open.lastTS, l.open.key = readCostState(ev), l.lastTS, stateKey(ev)
		l.states[l.open.key] = true
		l.runs = append(l.runs, *l.open)
		l.open = &run{}
	}
}

// End closes the file's last run and returns the ledger.
func (s *Scanner) End() *Ledger {
	l := s.l
	l.open.lastTS = l.lastTS
	l.runs = append(l.runs, *l.open)
	l.open = nil
	for _, m := range l.aseen {
		l.agents = append(l.agents, m)
	}
	l.aseen = nil
	if len(l.agents) > 0 {
		l.types = input.AgentTypes(input.SessionDir(l.path))
		for _, m := range l.agents {
			if m.agent != "" && l.types[m.agent] == "" {
				// An agent no .meta.json types (its records in the
				// session's own file): its call's type.
				for id, t := range input.LaunchedAgentTypes(l.path) {
					l.types[id] = cmp.Or(l.types[id], t)
				}
				break
			}
		}
	}
	sort.SliceStable(l.agents, func(i, j int) bool {
		if l.agents[i].ts != l.agents[j].ts {
			return l.agents[i].ts < l.agents[j].ts
		}
		return l.agents[i].id < l.agents[j].id
	})
	return l
}

// each reads the records of a file a usage account needs: the lines that
// say "type":"assistant" or "type":"cost-state" where a record says its
// type (see Wanted), checked to be one whole record each; the rest of a
// transcript (attachments, prompt snapshots, tool outputs: most of its
// bytes) is passed over at the speed of finding line ends. With
// Options.Plain, every record is read. line, when set, sees every line
// (a long one passed over by its ends, input.EndsTell: its ends), and the
// first is read (it says what kind of file this is). firstLine,
// when set, sees the first line first: false, and the file is passed over
// (another reader's).
func (s *Scanner) each(path string, line func([]byte), firstLine func([]byte) bool, fn func(*stream.Event)) error {
	opts := stream.DecoderOptions{Check: stream.CheckFraming, Want: Wanted, Ends: input.EndsTell, Buffer: s.o.Buffer, Scratch: s.o.Scratch}
	if s.o.Plain {
		opts.Want, opts.Ends = nil, nil
	}
	if line != nil || firstLine != nil {
		n := 0
		skip := false
		opts.Want = func(l []byte) bool {
			if n++; n == 1 && firstLine != nil {
				skip = !firstLine(l)
			}
			switch {
			case skip:
				return false // (the file is another reader's)
			case s.o.Plain:
				return true
			}
			if line != nil {
				line(l)
			}
			return n == 1 || Wanted(l) // (the first: what kind of file it is)
		}
	}
	bad, err := input.EachRecordChecked(path, opts, fn)
	s.l.bad = append(s.l.bad, bad...)
	return err
}

// Wanted picks the lines that hold a call or a cost-state, by the type
// they declare where Claude Code writes it (input.DeclaredType): looking
// only there, not through a message's content, halves the time of a tree
// of sessions (a search through every byte stops at each '"', which is
// everywhere in JSON). A line where a lost newline merged a call into
// another record says "type":"assistant" at its end too, and then fails
// the framing check: counted bad, not lost unseen. A line the byte test
// cannot judge (input.Unsure: written with spaces, cut short) is read.
// (Exported for bench/floor, which picks the lines an account reads as
// the account does.)
func Wanted(line []byte) bool {
	if input.Unsure(line) {
		return true
	}
	t, _ := input.DeclaredType(line)
	return WantedType(t)
}

// WantedType says whether an account reads a record of the type typ (as
// input.DeclaredType names it): a call's or a cost-state.
func WantedType(typ []byte) bool { return string(typ) == "assistant" || string(typ) == "cost-state" }

// note takes an assistant record's call into seen (and the ledger's
// calls): a new call, or a better account of one seen; it returns the new
// call (nil otherwise). A record that names another session in
// requestSessionId is a copy of that session's call. A call that names no
// model (an older Codex rollout names none) is a call all the same: its
// tokens count, and its cost is unknown (unpriced), not $0 by omission;
// only Claude Code's own <synthetic> messages, which no model made, are
// no call.
func (l *Ledger) note(seen map[string]*message, ev *stream.Event, subagent bool) *message {
	a := ev.AssistantHead()
	if a.MessageID == "" || a.Model == "<synthetic>" {
		return nil
	}
	from := ev.Str("requestSessionId")
	if from == l.session {
		from = ""
	}
	if from != "" {
		l.names[from] = true
	}
	final := a.StopReason != ""
	// One model call is one message id (stream.AssistantHead.MessageID),
	// as the run's own account (stream.Tracker) and the listing count it:
	// the API names each message once, a transcript writes a record per
	// content block with it, and a copy of the records (a fork's, a copied
	// file's) keeps it. The request id is not part of the name: Claude
	// Code need not write it on every record of a call, and a record
	// without it was counted as another call.
	key := a.MessageID
	if m, ok := seen[key]; ok {
		if m.better(a.Usage, final) {
			m.usage, m.final = a.Usage, final
		}
		if from != "" {
			m.from = from
		}
		return nil
	}
	m := &message{id: key, model: a.Model, ts: ev.Timestamp(), usage: a.Usage, final: final, subagent: subagent, from: from}
	if subagent {
		m.agent, m.call = ev.AgentID(), ev.ParentToolUseID()
	}
	seen[key] = m
	if _, ok := l.calls[key]; !ok {
		l.calls[key] = m
	}
	return m
}

// Account decides, over the sessions read, which session each call is
// counted in, and calls emit with each call once, priced, session by
// session in the order given; it returns each session's summary. A call
// several sessions hold (a fork's, a resumed or a copied session's
// copies) is the one of the session that started first (ties: the
// session id), except that a session never owns a call its record says
// is another session's copy (requestSessionId), nor one it shares with a
// session its records name. A call no session read may own (a fork read
// without its parent) is counted in none: its parent's.
func Account(ledgers []*Ledger, o Options, emit func(Call)) []Summary {
	return AccountEach(ledgers, o, func(_ int, c Call) { emit(c) })
}

// AccountEach is Account telling emit which ledger each call is counted
// in (its index).
func AccountEach(ledgers []*Ledger, o Options, emit func(i int, c Call)) []Summary {
	workers := runtime.GOMAXPROCS(0)
	if len(ledgers) < accountWindow/8 {
		workers = 1 // (a few sessions: their scans are nothing to share out)
	}
	return accountEach(ledgers, o, emit, workers, accountWindow)
}

// accountWindow is how many sessions' scans AccountEach runs at once on
// more than one core.
const accountWindow = 512

// accountEach is AccountEach with the sessions' scans on workers
// goroutines, window sessions at a time; one worker is the reference,
// one session after the other.
func accountEach(ledgers []*Ledger, o Options, emit func(i int, c Call), workers, window int) []Summary {
	owner := owners(ledgers)
	bySession := map[string]*Ledger{}
	for _, l := range ledgers {
		if _, ok := bySession[l.session]; !ok {
			bySession[l.session] = l
		}
	}
	out := make([]Summary, len(ledgers))
	scanOne := func(i int, w *weights, emit func(Call)) {
		l := ledgers[i]
		a := &scan{o: o, l: l, emit: emit, owner: owner, bySession: bySession, rates: map[string]float64{}, w: w}
		a.start, _ = time.Parse(time.RFC3339Nano, l.start)
		a.sum.Session, a.sum.Runs, a.sum.RecordedUSD = l.session, l.runsN, l.cost
		a.sum.BadLines = len(l.bad)
		out[i] = a.account()
	}
	if workers < 2 {
		w := newWeights(o.Prices)
		for i := range ledgers {
			scanOne(i, w, func(c Call) { emit(i, c) })
		}
		return out
	}
	// A session's scan reads the others only through owner and
	// bySession, which it does not change: the scans run on every core,
	// a window of sessions at a time, each session's calls kept in its
	// own list and emitted in the sessions' order once the window is
	// done (the same calls in the same order: TestAccountOnEveryCore-
	// SameAsOneAfterTheOther). The scans of a tree's 2,862 sessions were
	// a tenth of sessions' time, on one CPU after the reading (issue 41);
	// a window bounds the calls held.
	calls := make([][]Call, window)
	ws := make([]*weights, workers) // (each fills its own memo)
	for k := range ws {
		ws[k] = newWeights(o.Prices)
	}
	for lo := 0; lo < len(ledgers); lo += window {
		hi := min(lo+window, len(ledgers))
		cores.Each(lo, hi, workers, func(k, i int) {
			scanOne(i, ws[k], func(c Call) { calls[i-lo] = append(calls[i-lo], c) })
		})
		for i := lo; i < hi; i++ {
			for _, c := range calls[i-lo] {
				emit(i, c)
			}
			calls[i-lo] = calls[i-lo][:0]
		}
	}
	return out
}

// owners returns each call's owner among the ledgers (see Account).
func owners(ledgers []*Ledger) map[string]*Ledger {
	// Most calls and cost-states are held by one ledger: its holder is
	// kept in owner, and a list of holders made only for what a second
	// ledger holds too (a list for each of a tree's calls was a third of
	// the account, which runs once all files are read, on one goroutine).
	n := 0
	for _, l := range ledgers {
		n += len(l.calls) + len(l.states)
	}
	owner := make(map[string]*Ledger, n)
	var shared map[string][]*Ledger
	hold := func(k string, l *Ledger) {
		o, ok := owner[k]
		if !ok {
			owner[k] = l
			return
		}
		if shared == nil {
			shared = map[string][]*Ledger{}
		}
		if shared[k] == nil {
			shared[k] = []*Ledger{o}
		}
		shared[k] = append(shared[k], l)
	}
	for _, l := range ledgers {
		for k := range l.calls {
			hold(k, l)
		}
		for k := range l.states {
			hold(k, l)
		}
	}
	first := func(a, b *Ledger) bool {
		// (a session with no time read starts last: it cannot be shown
		// to have come first)
		if a.start != b.start {
			return b.start == "" || a.start != "" && a.start < b.start
		}
		if a.session != b.session {
			return a.session < b.session
		}
		// The same session in two trees (a copied folder): the first
		// tree named.
		if a.tree != b.tree {
			return a.tree < b.tree
		}
		return a.path < b.path
	}
	for k, l := range owner {
		if hs := shared[k]; hs != nil {
			continue
		}
		// Its one holder owns it, unless its record says it is a copy
		// (the rule below, for one holder: namesAny of itself is false).
		if m := l.calls[k]; m != nil && m.from != "" {
			delete(owner, k)
		}
	}
	for k, hs := range shared {
		var best *Ledger
		for _, l := range hs {
			if m := l.calls[k]; m != nil && m.from != "" || namesAny(l, hs) {
				continue
			}
			if best == nil || first(l, best) {
				best = l
			}
		}
		if best != nil {
			owner[k] = best
		} else {
			delete(owner, k)
		}
	}
	return owner
}

// namesAny reports whether l's records name another of the holders.
func namesAny(l *Ledger, holders []*Ledger) bool {
	for _, h := range holders {
		if h.session != l.session && l.names[h.session] {
			return true
		}
	}
	return false
}

// scan is one session's accounting.
type scan struct {
	o         Options
	l         *Ledger
	emit      func(Call)
	owner     map[string]*Ledger
	bySession map[string]*Ledger
	sum       Summary
	// the subagents' calls not yet given to a run
	agentCalls []*message
	prev       costState          // the cost-state before the run
	rates      map[string]float64 // dollars per weight unit, by model, from recorded runs
	w          *weights           // the calls' weights (shared by the sessions of one account)
	lastCopied *message           // the last call of another session's this one holds
	start      time.Time          // the session's start (Ledger.start), read once
}

// own reports whether the call is this session's to count; a copy's
// origin is noted as the session's fork parent.
func (s *scan) own(m *message) bool {
	o := s.owner[m.id]
	if o == s.l {
		return true
	}
	if s.sum.ForkedFrom == "" {
		switch {
		case m.from != "":
			s.sum.ForkedFrom = m.from
		case o != nil && o.session != s.l.session: // (not a copy of the same session's file)
			s.sum.ForkedFrom = o.session
		}
	}
	return false
}

func (s *scan) account() Summary {
	for _, m := range s.l.agents {
		if s.own(m) {
			s.agentCalls = append(s.agentCalls, m)
		}
	}
	for _, r := range s.l.runs {
		var calls []*message
		for _, m := range r.calls {
			if s.own(m) {
				calls = append(calls, m)
				continue
			}
			s.sum.Copied++
			s.lastCopied = m
		}
		if r.cs != nil && s.owner[r.key] != s.l {
			// A copy of a run another file holds (a copied session
			// file): counted there; what follows is measured from it.
			s.prev = r.cs
			continue
		}
		if r.cs != nil && s.prev == nil && s.sum.ForkedFrom != "" {
			s.prev = s.forkBase()
		}
		s.endRun(calls, r.lastTS, r.cs)
		if r.cs != nil {
			s.prev = r.cs
		}
	}
	return s.sum
}

// forkBase is the parent's cost-state at the fork: the first after the
// last call the fork copied, in the parent's ledger (read with the
// others, or from its file beside this one; none found: nothing to take
// away).
func (s *scan) forkBase() costState {
	parent := s.bySession[s.sum.ForkedFrom]
	if parent == nil {
		// (Read with a buffer of its own: the shared one may be another
		// file's.)
		o := s.o
		o.Buffer, o.Scratch = nil, nil
		l, err := Read(input.JSONLFile(filepath.Join(filepath.Dir(s.l.path), s.sum.ForkedFrom+".jsonl")), o)
		if err != nil {
			return nil
		}
		parent = l
	}
	found := s.lastCopied == nil
	var last costState
	for _, r := range parent.runs {
		for _, m := range r.calls {
			found = found || m.id == s.lastCopied.id
		}
		if r.cs == nil {
			continue
		}
		last = r.cs
		if found {
			return r.cs
		}
	}
	return last
}

// endRun gives the run's calls their cost: from the run's cost-state (cs)
// less the one before, or, with none (the file ended), from a rate.
func (s *scan) endRun(calls []*message, lastTS string, cs costState) {
	// The subagents' calls up to the run's last record are the run's;
	// at the file's end, all that are left.
	n := 0
	for n < len(s.agentCalls) && (cs == nil || s.agentCalls[n].ts <= lastTS) {
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
		s.recorded(model, byModel[model], cs[model].minus(s.prev[model]), lastTS)
	}
}

func (t modelTotal) minus(o modelTotal) modelTotal {
	return modelTotal{usage: stream.Usage{
		InputTokens:              max(0, t.usage.InputTokens-o.usage.InputTokens),
		OutputTokens:             max(0, t.usage.OutputTokens-o.usage.OutputTokens),
		CacheCreationInputTokens: max(0, t.usage.CacheCreationInputTokens-o.usage.CacheCreationInputTokens),
		CacheReadInputTokens:     max(0, t.usage.CacheReadInputTokens-o.usage.CacheReadInputTokens),
		CacheWrite1hTokens:       max(0, t.usage.CacheWrite1hTokens-o.usage.CacheWrite1hTokens),
	}, cost: math.Max(0, t.cost-o.cost)}
}

// recorded emits one model's calls of a run that wrote its cost-state:
// the calls, the tokens no call holds as a hidden call, and the run's
// cost shared by weight.
func (s *scan) recorded(model string, calls []*message, run modelTotal, lastTS string) {
	var held stream.Usage
	for _, m := range calls {
		held = held.Add(m.usage)
	}
	hidden := run.minus(modelTotal{usage: held}).usage
	total := s.w.of(model, held) + s.w.of(model, hidden)
	if total > 0 && run.cost > 0 {
		s.rates[model] = run.cost / total
	}
	share := func(u stream.Usage) float64 {
		if total == 0 {
			return 0
		}
		return run.cost * s.w.of(model, u) / total
	}
	for _, m := range calls {
		s.out(m, share(m.usage), false, false)
	}
	if hidden.Total() > 0 {
		s.out(&message{model: model, ts: lastTS, usage: hidden, unread: len(s.l.bad) > 0}, share(hidden), false, false)
	}
}

// estimate prices the calls of a run that wrote no cost-state.
func (s *scan) estimate(calls []*message) {
	for _, m := range calls {
		if rate, ok := s.rates[m.model]; ok {
			s.out(m, rate*s.w.of(m.model, m.usage), true, false)
			continue
		}
		cost, ok := s.o.Prices.Estimate(m.model, m.usage)
		s.out(m, cost, true, !ok)
	}
}

func (s *scan) out(m *message, cost float64, estimated, unpriced bool) {
	t, _ := time.Parse(time.RFC3339Nano, m.ts)
	s.sum.CostUSD += cost
	var agentType string
	if m.subagent {
		agentType = s.l.agentType(m)
	}
	s.emit(Call{Session: s.sum.Session, Project: s.l.project, CLI: s.l.cli, Subagent: m.subagent, AgentType: agentType, Machine: s.l.machine, Model: m.model, Time: t, SessionStart: s.start,
		Usage: m.usage, CostUSD: cost, Hidden: m.id == "" && !m.unread, Unread: m.unread, Estimated: estimated, Unpriced: unpriced})
}

// agentType is the type of the subagent that made the call m: its
// .meta.json's (input.AgentTypes, by its agent id), else its call's
// (stream.SubagentOf, where its records name the call), else "": no call
// the session shows started it (an agent of its own, input.AgentKey), so
// nothing says its type, and the subagents view leaves it blank too.
func (l *Ledger) agentType(m *message) string {
	if t := l.types[m.agent]; t != "" {
		return t
	}
	return l.callTypes[m.call]
}

// noteAgentCalls notes the type of each subagent the main agent's
// assistant event ev starts (callTypes).
func (l *Ledger) noteAgentCalls(ev *stream.Event) {
	for _, b := range ev.AppendToolUses(nil) {
		if stream.StartsSubagent(b.Name) {
			if l.callTypes == nil {
				l.callTypes = map[string]string{}
			}
			l.callTypes[b.ID], _ = stream.SubagentOf(b.Name, b.Input)
		}
	}
}

// weights weighs calls' tokens at their model's own price ratios
// (PriceTable.ratios), each model looked up once: a catalog lookup walks
// the rules of 160 models, and an account weighs every call. It shares a
// run's recorded cost among its calls, and gives the rate at which a
// killed run of the same model is priced (scan.rates): both must weigh
// alike, or a killed run's estimate would not be the recorded runs' rate.
type weights struct {
	p       PriceTable
	byModel map[string]ModelPrice
}

func newWeights(p PriceTable) *weights { return &weights{p: p, byModel: map[string]ModelPrice{}} }

// of is u weighed at model's ratios, in input tokens.
func (w *weights) of(model string, u stream.Usage) float64 {
	r, ok := w.byModel[model]
	if !ok {
		r = w.p.ratios(model)
		w.byModel[model] = r
	}
	return r.Cost(u) * 1e6
}

// claudeRatios are Claude's usual prices in input prices (output 5 times
// input, a cache write 1.25 times, a read a tenth; Cost adds the 1-hour
// cache write's, twice): the weight of a model no list price is known for.
var claudeRatios = ModelPrice{Input: 1, Output: 5, CacheRead: ptr(0.1), CacheWrite: ptr(1.25)}

func ptr(f float64) *float64 { return &f }

// gemini reads a Gemini CLI chat file into the ledger: its reader's
// events (shaped as Claude Code's, a call per "gemini" record with its
// usage and model; its subagents' files joined) are the records.
func (s *Scanner) gemini(path string) (*Ledger, error) {
	bad, err := input.EachGeminiChatEvent(path, func(ev *stream.Event, agent bool) {
		switch {
		case ev.Kind == stream.KindInit:
			s.l.session, s.l.named = ev.Str("session_id"), true
			s.l.cli = stream.CLIOf(ev.Str("cli"), "").ID
		case agent:
			s.AgentRecord(ev)
		default:
			s.Record(ev)
		}
	})
	s.l.bad = append(s.l.bad, bad...)
	if err != nil {
		return nil, err
	}
	return s.End(), nil
}
