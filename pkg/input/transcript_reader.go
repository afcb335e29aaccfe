package input

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// topKeys reads an event's top-level members (through the event's own
// index of them).
type topKeys struct{ ev *stream.Event }

func (k topKeys) Get(key string) jsonx.Value { return jsonx.Value(k.ev.Get(key)) }

func (k topKeys) Path(keys ...string) jsonx.Value { return jsonx.Value(k.ev.Get(keys...)) }

// A session transcript (~/.claude/projects/<cwd>/<session>.jsonl) holds a
// session's records: the conversation (user, assistant, system lines much
// like the stream's events) and bookkeeping (stream.KindRecord). Its subagents'
// records are in files of their own, <session>/subagents/agent-<id>.jsonl,
// each with a .meta.json that names the Agent call that started it; a
// Workflow's agents are in subagents/workflows/<runId>/, their .meta.json
// naming no call: the Workflow's result names the run. A subagent's file
// with no .meta.json is joined at the Agent call's result that names its
// agent id. Older releases wrote a subagent's records into the main file,
// marked isSidechain:true (IsSidechain): they are given to their call, not
// read as the main agent's. It has no system/init and no result.
//
// The transcript reader yields the session as a stream: the main file's
// records, each subagent's records right after the Agent call that started
// it (nested ones inside their parent's), attributed to that call (a
// Workflow's agents right after its result, attributed to it), and two
// events made from the records, marked "ccfilter":"synthetic": an init
// first (cwd, version, model, permission mode, session) and a result last
// (the final answer, success or failure, turns, cost), so that every
// preset reads a session as it reads a stream.

// maxHeld bounds the records held back until the init can be made.
const maxHeld = 64

type transcriptReader struct {
	opts stream.DecoderOptions
	// records: a record of a transcript's type was read. Without one (JSON
	// lines of no type it knows, read as a transcript because --input said
	// so), no init and no result are made: there was no session.
	records bool
	dir     string // the session's folder (subagents/, tool-results/); "" from stdin
	frames  []frame
	agents  map[string][]sidechain // by the Agent (or Workflow) call's tool_use id
	runs    map[string][]sidechain // a Workflow's agents by its run id, until its result names the run
	pending []string               // calls whose sidechains open next
	// loose are the subagents' files no .meta.json names a call for, by
	// agent id: each is joined when an Agent call's result names its
	// agent (launchedAgent), and said at the end if none does.
	loose map[string]sidechain
	// calls are the Agent calls that started the subagents, by agent id
	// (from their .meta.json, or their call's result): a subagent's
	// records in the main file (IsSidechain) are given to their call.
	calls map[string]string
	// path is the session's file ("" from stdin), read once more for the
	// agents its calls' results name (knowLaunched), at its first
	// subagent's record in the main file; knewLaunched: it was.
	path         string
	knewLaunched bool
	// own are the subagents whose records name no call the session shows
	// (agentKey: their agent id, or unnamedSidechain), in the order they
	// first wrote, and whether each one's last record ended its turn: the
	// session's end is theirs (ownEnds).
	own     []string
	ownDone map[string]bool
	ownReal map[string]string // the status a real task notification gave an agent, by agent id (ownEnded)
	queue   []*stream.Event   // to hand out before reading on
	held    bool              // records are held back until the init is made
	inited  bool
	ended   bool
	facts   sessionFacts
	warn    []error // sidechains that could not be read, reported in turn
	// toldStdin: said once that a transcript read from stdin has no
	// session folder, so its subagents are not joined.
	toldStdin bool
	// live: the session is still being written (ccfilter --follow). Its
	// subagents' files are then read when each subagent has finished (a
	// foreground one at its Agent call's result, a background one at its
	// task notification), not at the call: until then their files are
	// still being written. Their .meta.json files are looked for then,
	// not only when the reader starts; joined holds what was read.
	live     bool
	awaiting map[string]bool // Agent calls whose subagent has not finished
	joined   map[string]bool // Agent calls and Workflow runs whose records were read
}

type frame struct {
	r      stream.Reader
	f      *os.File // nil for the main input
	undo   func()   // ends the decompression of f (nil: none)
	parent string   // the Agent call of a sidechain ("" for the main file)
}

type sidechain struct{ path, agentID string }

// sessionFacts are what the synthetic init and result are made of.
type sessionFacts struct {
	cwd, sessionID, version, branch, model, mode string
	lastText                                     string
	failed                                       string // why the last turn failed ("" when it did not)
	turns                                        int
	cost                                         json.RawMessage // the last cost-state's totalCostUSD
	modelUsage                                   json.RawMessage
	durationMs                                   int64
}

// NewTranscriptReader returns the reader of a session transcript read
// from r. path is the transcript's file ("" when it is read from stdin:
// its subagents' files are then not found); the subagents' files are read
// when the session reaches the calls that started them.
func NewTranscriptReader(r io.Reader, path string, opts stream.DecoderOptions) stream.Reader {
	t := newTranscriptReader(r, path, opts)
	t.agents, t.runs, t.warn = sidechains(t.dir)
	t.loose = looseSidechains(t.dir)
	for call, scs := range t.agents {
		for _, sc := range scs {
			t.calls[sc.agentID] = call
		}
	}
	return t
}

// NewLiveTranscriptReader returns the reader of a session transcript
// that is still being written: r waits for what is appended. Each
// subagent's records are read when it has finished, right after the
// record that says so (its Agent call's result, or its task
// notification), since its file is complete only then.
func NewLiveTranscriptReader(r io.Reader, path string, opts stream.DecoderOptions) stream.Reader {
	t := newTranscriptReader(r, path, opts)
	t.live, t.awaiting, t.joined = true, map[string]bool{}, map[string]bool{}
	t.agents, t.runs = map[string][]sidechain{}, map[string][]sidechain{}
	return t
}

func newTranscriptReader(r io.Reader, path string, opts stream.DecoderOptions) *transcriptReader {
	opts.Spellings = transcriptSpellings
	t := &transcriptReader{opts: opts, held: true, calls: map[string]string{}, ownDone: map[string]bool{}}
	if path != "" {
		t.dir, t.path = SessionDir(path), path
	}
	t.frames = []frame{{r: stream.NewReader(r, opts)}}
	return t
}

// SessionDir is the folder Claude Code keeps beside a session transcript
// (<session>.jsonl → <session>/: subagents/, tool-results/), also beside
// a compressed copy of it (<session>.jsonl.gz, .jsonl.zst).
func SessionDir(transcript string) string {
	for _, ext := range []string{".gz", ".zst"} {
		transcript = strings.TrimSuffix(transcript, ext)
	}
	return strings.TrimSuffix(transcript, ".jsonl")
}

// ErrNotRegular: a file found in a folder that is not a regular file (a
// FIFO, a device, a socket, a folder), which a reader opening it could
// wait on forever. Such a file is passed over, with a note; a FIFO named
// on the command line is read, as any stream.
var ErrNotRegular = errors.New("not a regular file")

// RegularFile returns path's file info, or why it is not a regular file
// (wrapping ErrNotRegular), or the error of looking.
func RegularFile(path string) (os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s): skipped", path, ErrNotRegular, FileKind(fi.Mode()))
	}
	return fi, nil
}

// FileKind says what a file that is not a regular file is: "a FIFO", "a
// socket", "a device", "a folder", else "a special file".
func FileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "a special file"
}

func regular(path string) error {
	_, err := RegularFile(path)
	return err
}

// SubagentMetas returns the .meta.json files of a session's subagents,
// in its folder dir: subagents/agent-<id>.meta.json, and a Workflow's
// agents' under subagents/workflows/<run>/.
func SubagentMetas(dir string) []string {
	if dir == "" || !hasSubagents(dir) {
		return nil
	}
	metas, _ := filepath.Glob(filepath.Join(dir, "subagents", "agent-*.meta.json"))
	wf, _ := filepath.Glob(filepath.Join(dir, "subagents", "workflows", "*", "agent-*.meta.json"))
	return append(metas, wf...)
}

// AgentTypes are the types of a session's subagents, by agent id, in its
// folder dir, as the run's account types them (stream.Tracker, from the
// Agent call): a Workflow's agents are the Workflow's type, and the rest
// are their .meta.json's agentType, which is the call's subagent_type, or
// the general-purpose agent when it names none. A subagent's file with no
// .meta.json is typed by the call whose result names its agent id, as the
// reader joins it (looseAgentTypes). A .meta.json that cannot be read
// leaves its agent out (the caller's default).
func AgentTypes(dir string) map[string]string {
	// Each .meta.json read once, for the call it names (which agents are
	// loose) and the type it says: read once for each, they were a tenth
	// of what a tree's usage --by does for its sessions with subagents.
	metas := map[string]agentMeta{}
	meta := func(path string) agentMeta {
		m, ok := metas[path]
		if !ok {
			m = readMeta(path)
			metas[path] = m
		}
		return m
	}
	out := looseAgentTypes(dir, func(path string) string { return meta(path).call })
	for _, m := range SubagentMetas(dir) {
		id := strings.TrimPrefix(filepath.Base(strings.TrimSuffix(m, ".meta.json")), "agent-")
		if filepath.Base(filepath.Dir(filepath.Dir(m))) == "workflows" {
			out[id] = stream.WorkflowAgentType
			continue
		}
		if v := meta(m); v.ok {
			out[id] = cmp.Or(v.typ, stream.DefaultAgentType)
		}
	}
	return out
}

// looseAgentTypes are the types of the subagents of a session's folder
// dir whose files have no .meta.json naming their call
// (looseSidechainsOf, with call), by agent id: the types their calls give
// them (LaunchedAgentTypes), read from the session's own file only for
// such a session.
func looseAgentTypes(dir string, call func(meta string) string) map[string]string {
	out := map[string]string{}
	loose := looseSidechainsOf(dir, call)
	if len(loose) == 0 {
		return out
	}
	launched := LaunchedAgentTypes(JSONLFile(dir + ".jsonl"))
	for id := range loose {
		if t := launched[id]; t != "" {
			out[id] = t
		}
	}
	return out
}

// LaunchedAgentTypes are the types of the subagents the session
// transcript at path started, by agent id, as the reader and the run's
// account type them: the type of the Agent call (stream.SubagentOf) whose
// result names the agent (launchedAgent). One pass over the file, for
// what no .meta.json says (a subagent's file without one, a subagent's
// records in the main file); nil when it cannot be read.
func LaunchedAgentTypes(path string) map[string]string {
	launched, types := launchedAgents(path)
	if launched == nil {
		return nil
	}
	out := map[string]string{}
	for agent, call := range launched {
		if t := types[call]; t != "" {
			out[agent] = t
		}
	}
	return out
}

// launchedAgents are the Agent calls of the session transcript at path
// that name the agent they started in their result (launchedAgent), by
// agent id, and the types of its calls that start a subagent, by call id:
// one pass over the file, reading its calls and the results that name an
// agent; nil when it cannot be read.
func launchedAgents(path string) (launched, types map[string]string) {
	types, launched = map[string]string{}, map[string]string{}
	want := func(l []byte) bool {
		t, _ := DeclaredType(l)
		return Unsure(l) || string(t) == "assistant" || bytes.Contains(l, []byte(`"agentId"`))
	}
	_, err := EachRecordChecked(path, stream.DecoderOptions{Check: stream.CheckFraming, Want: want}, func(ev *stream.Event) {
		switch ev.Kind {
		case stream.KindToolUse:
			for _, b := range ev.AppendToolUses(nil) {
				if stream.StartsSubagent(b.Name) {
					types[b.ID], _ = stream.SubagentOf(b.Name, b.Input)
				}
			}
		case stream.KindToolResult:
			if call, agent := launchedAgent(ev); agent != "" {
				launched[agent] = call
			}
		}
	})
	if err != nil {
		return nil, nil
	}
	return launched, types
}

// sidechains reads the .meta.json files of a session's folder dir: which
// file holds the records of the subagent each Agent call started, and
// which hold a Workflow run's agents (by run id, the folder's name), in
// the order the run's journal says they started.
func sidechains(dir string) (map[string][]sidechain, map[string][]sidechain, []error) {
	out, runs := map[string][]sidechain{}, map[string][]sidechain{}
	var errs []error
	metas := SubagentMetas(dir)
	var copies map[string]bool
	if len(metas) > 1 {
		copies = subagentCopies(allSubagentFiles(dir))
	}
	for _, m := range metas {
		if copies[JSONLFile(strings.TrimSuffix(m, ".meta.json")+".jsonl")] {
			continue // the same records as another file's (SubagentFiles)
		}
		if err := regular(m); err != nil {
			errs = append(errs, err)
			continue
		}
		b, err := readSmall(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var meta struct {
			ToolUseID string `json:"toolUseId"`
		}
		jsonl := JSONLFile(strings.TrimSuffix(m, ".meta.json") + ".jsonl")
		id := strings.TrimPrefix(filepath.Base(strings.TrimSuffix(m, ".meta.json")), "agent-")
		err = json.Unmarshal(b, &meta)
		if run := filepath.Dir(m); err == nil && meta.ToolUseID == "" && filepath.Base(filepath.Dir(run)) == "workflows" {
			// A Workflow's agent: its .meta.json names no call; the
			// Workflow's result names the run, the folder's name.
			runs[filepath.Base(run)] = append(runs[filepath.Base(run)], sidechain{path: jsonl, agentID: id})
			continue
		}
		if err != nil || meta.ToolUseID == "" {
			// A .meta.json that names no call (empty, cut, or only the
			// agent's type): its file is joined as one with no
			// .meta.json is (looseSidechains), by the agent id a
			// call's result names, else read as an agent of its own,
			// as the listing counts it (metaCall).
			continue
		}
		out[meta.ToolUseID] = append(out[meta.ToolUseID], sidechain{path: jsonl, agentID: id})
	}
	for run, scs := range runs {
		journalOrder(JSONLFile(filepath.Join(dir, "subagents", "workflows", run, "journal.jsonl")), scs)
	}
	return out, runs, errs
}

// looseSidechains are the subagents' files of a session's folder dir that
// have no .meta.json to name the call that started them (none, or one
// that names no toolUseId: metaCall), by agent id (the file's name): the
// Agent call's result names the agent too, and the reader joins each
// there (a Workflow's agents have no such result).
func looseSidechains(dir string) map[string]sidechain { return looseSidechainsOf(dir, metaCall) }

// looseSidechainsOf is looseSidechains with the call each .meta.json names
// told by call.
func looseSidechainsOf(dir string, call func(meta string) string) map[string]sidechain {
	out := map[string]sidechain{}
	for _, f := range SubagentFiles(dir) {
		base := strings.TrimSuffix(plainJSONL(f), ".jsonl")
		if call(base+".meta.json") != "" || filepath.Base(filepath.Dir(filepath.Dir(f))) == "workflows" {
			continue
		}
		id := strings.TrimPrefix(filepath.Base(base), "agent-")
		out[id] = sidechain{path: f, agentID: id}
	}
	return out
}

// maxSmallFile bounds what is read whole of a session folder's small
// files (a .meta.json, a workflow's journal): a larger one is read to
// there, so a hostile folder cannot make ccfilter hold a huge file.
const maxSmallFile = 4 << 20

// readSmall reads at most maxSmallFile bytes of path, undoing its
// compression (an archived journal.jsonl.zst).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, undo, err := decompress(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer undo()
	return io.ReadAll(io.LimitReader(r, maxSmallFile))
}

// journalOrder sorts a Workflow run's agents in the order its journal
// (journal.jsonl: launched, started{key, agentId, label, phase}, result)
// says they started; agents it does not name come last, by file name.
func journalOrder(journal string, scs []sidechain) {
	started := map[string]int{}
	if regular(journal) == nil {
		if b, err := readSmall(journal); err == nil {
			for _, l := range bytes.Split(b, []byte("\n")) {
				var j struct{ Type, AgentID string }
				if json.Unmarshal(l, &j) == nil && j.Type == "started" && j.AgentID != "" {
					if _, ok := started[j.AgentID]; !ok {
						started[j.AgentID] = len(started)
					}
				}
			}
		}
	}
	rank := func(sc sidechain) int {
		if i, ok := started[sc.agentID]; ok {
			return i
		}
		return len(started)
	}
	sort.SliceStable(scs, func(i, j int) bool {
		if rank(scs[i]) != rank(scs[j]) {
			return rank(scs[i]) < rank(scs[j])
		}
		return scs[i].path < scs[j].path
	})
}

func (t *transcriptReader) Next() (*stream.Event, error) {
	for {
		if len(t.warn) > 0 {
			err := t.warn[0]
			t.warn = t.warn[1:]
			return nil, &stream.PassedOver{Source: t.opts.Source, Err: err}
		}
		if len(t.queue) > 0 && !t.held {
			ev := t.queue[0]
			t.queue = t.queue[1:]
			return ev, nil
		}
		if len(t.pending) > 0 {
			t.openSidechain()
			continue
		}
		if len(t.frames) == 0 {
			if t.held {
				t.release()
				continue
			}
			if t.settle() {
				continue
			}
			if !t.ended && t.records && (t.opts.Cut == nil || !t.opts.Cut()) {
				t.ended = true
				return t.synthetic(t.result())
			}
			return nil, io.EOF
		}
		top := &t.frames[len(t.frames)-1]
		ev, err := top.r.Next()
		if err == io.EOF {
			t.pop()
			continue
		}
		if err != nil {
			return nil, err
		}
		if !t.records && slices.Contains(transcriptTypes, ev.Type) {
			t.records = true
		}
		if ev.Kind == stream.KindToolResult {
			t.persisted(ev)
			t.launches(ev)
			t.launched(ev)
			t.finished(ev)
		}
		follow := t.attribute(ev, top.parent)
		t.spawns(ev)
		if t.held {
			t.hold(ev)
			if follow != nil {
				t.hold(follow)
			}
			continue
		}
		if follow != nil {
			t.queue = append(t.queue, follow)
		}
		return ev, nil
	}
}

// settle does what is left once every file was read, before the
// result: it says the subagents' files no call joined (and reads those an
// agent of its own wrote), then ends the agents of their own. It reports
// whether it left more to read or hand out. A live session is not over.
func (t *transcriptReader) settle() bool {
	switch {
	case t.live:
		return false
	case len(t.agents) > 0 || len(t.runs) > 0 || len(t.loose) > 0:
		t.unjoined()
		return true
	case len(t.own) > 0:
		t.ownEnds()
		return true
	}
	return false
}

// attribute gives ev, a record of the frame of the Agent call parent
// ("" for the main file), to its agent; of the main agent's, it gathers
// the session's facts and returns the event a background subagent's
// completion makes, if ev is its notification.
func (t *transcriptReader) attribute(ev *stream.Event, parent string) *stream.Event {
	switch {
	case parent != "":
		ev.SetParent(parent)
		t.noteOwn(parent, ev)
	case IsSidechain(ev):
		// A subagent's record written into the main file (older
		// releases): its subagent's, never the main agent's answer,
		// calls or tokens.
		t.knowLaunched()
		key, known := AgentKey(t.calls, ev.AgentID())
		ev.SetParent(key)
		if !known {
			t.own = appendNew(t.own, t.ownDone, key)
			t.noteOwn(key, ev)
		}
	default:
		follow := t.observe(ev)
		t.notified(follow)
		t.ownEnded(follow)
		return follow
	}
	return nil
}

// hold keeps a record back until the init can be made (the model is
// known), at most maxHeld of them.
func (t *transcriptReader) hold(ev *stream.Event) {
	t.queue = append(t.queue, ev.Clone())
	if t.facts.model != "" || len(t.queue) >= maxHeld {
		t.release()
	}
}

// release puts the synthetic init before the held records.
func (t *transcriptReader) release() {
	t.held = false
	if t.inited || !t.records {
		return
	}
	t.inited = true
	if init, err := t.synthetic(t.init(firstUUID(t.queue))); err == nil {
		t.queue = append([]*stream.Event{init}, t.queue...)
	}
}

// spawns notes the Agent calls of an event whose subagents' records are to
// be read next.
func (t *transcriptReader) spawns(ev *stream.Event) {
	if ev.Kind != stream.KindToolUse {
		return
	}
	if t.dir == "" && !t.toldStdin && ev.ParentToolUseID() == "" && callsSubagent(ev) {
		t.toldStdin = true
		t.warn = append(t.warn, errors.New("a transcript read from stdin: its subagents' records, in the session's folder beside the file, cannot be joined (give the file's path to join them)"))
	}
	if t.live {
		t.await(ev)
		return
	}
	if len(t.agents) == 0 {
		return
	}
	jsonx.Value(ev.Get("message", "content")).Each(func(_ int, b jsonx.Value) bool {
		if id := b.Get("id").Str(); id != "" {
			if _, ok := t.agents[id]; ok {
				t.pending = append(t.pending, id)
			}
		}
		return true
	})
}

// callsSubagent reports whether ev calls a tool that starts a subagent.
func callsSubagent(ev *stream.Event) bool {
	found := false
	jsonx.Value(ev.Get("message", "content")).Each(func(_ int, b jsonx.Value) bool {
		found = stream.StartsSubagent(b.Get("name").Str())
		return !found
	})
	return found
}

// launches notes the Workflow runs a tool result names whose agents'
// records are to be read next: the run id is the Workflow result's runId
// (or its text's "Run ID:" line: a subagent's tool results carry no
// toolUseResult).
func (t *transcriptReader) launches(ev *stream.Event) {
	if t.live && (bytes.Contains(ev.Raw, []byte("Run ID")) || bytes.Contains(ev.Raw, []byte(`"runId"`))) {
		t.rescan()
	}
	if len(t.runs) == 0 {
		return
	}
	run := jsonx.Value(ev.ToolUseResult()).Get("runId").Str()
	for _, r := range ev.ToolResults() {
		id := run
		if id == "" {
			if _, after, ok := strings.Cut(r.Text(), "\nRun ID: "); ok {
				id, _, _ = strings.Cut(after, "\n")
				id = strings.TrimSpace(id)
			}
		}
		if scs, ok := t.runs[id]; ok && r.ToolUseID != "" {
			delete(t.runs, id) // read once
			if t.live {
				t.joined["run:"+id] = true
			}
			t.agents[r.ToolUseID] = append(t.agents[r.ToolUseID], scs...)
			t.pending = append(t.pending, r.ToolUseID)
		}
	}
}

// launched notes the subagent an Agent call's result ev names (its agent
// id): its call, for its records in the main file; and its file, when no
// .meta.json named its call, to read next.
func (t *transcriptReader) launched(ev *stream.Event) {
	call, agent := launchedAgent(ev)
	if agent == "" {
		return
	}
	if _, ok := t.calls[agent]; !ok {
		t.calls[agent] = call
	}
	if sc, ok := t.loose[agent]; ok && !t.live {
		delete(t.loose, agent) // read once
		t.agents[call] = append(t.agents[call], sc)
		t.pending = append(t.pending, call)
	}
}

// unnamedSidechain is the call a subagent's record in the main file is
// given when nothing names its agent, or no call it started: a subagent
// of its own, apart from the main agent.
const unnamedSidechain = "sidechain"

// AgentKey is the subagent an agent's records are attributed to, in the
// reader and so in every view of the run, and by which the listing counts
// a session's subagents (ScanSession): the Agent call that started it
// (calls, by agent id: its .meta.json's, or the call whose result names
// it), else an agent of its own, its agent id, else (records that name no
// agent) the one subagent unnamedSidechain. known: a call started it.
func AgentKey(calls map[string]string, agent string) (key string, known bool) {
	if call := calls[agent]; call != "" {
		return call, true
	}
	return cmp.Or(agent, unnamedSidechain), false
}

// knowLaunched notes, at the session's first subagent record in the main
// file (IsSidechain), the Agent calls every result of the file names the
// agent of (launchedAgents): older releases wrote a subagent's records in
// time order, a foreground one's before the result that names its agent,
// a background one's often before its async_launched result, and they
// are its call's all the same (AgentKey), as the listing and usage --by
// count them. One more pass over the file, only for such a session (from
// stdin, none: the results met so far say what they say).
func (t *transcriptReader) knowLaunched() {
	if t.knewLaunched || t.path == "" {
		return
	}
	t.knewLaunched = true
	launched, _ := launchedAgents(t.path)
	for agent, call := range launched {
		if _, ok := t.calls[agent]; !ok {
			t.calls[agent] = call
		}
	}
}

// ownEnded notes the status of the end of an agent of its own that a
// real task notification n reports (by its agent id, the notification's
// task id): the end the session's makes for it (ownEnds) says the same,
// not a guess from its last record that would contradict n (an agent
// that completed, ended "stopped", is a failure in account and errors).
func (t *transcriptReader) ownEnded(n *stream.Event) {
	if n == nil || n.Subtype != "task_notification" {
		return
	}
	if id, status := n.Str("task_id"), n.Str("status"); id != "" && status != "" {
		if t.ownReal == nil {
			t.ownReal = map[string]string{}
		}
		t.ownReal[id] = status
	}
}

// appendNew appends key to order the first time it is seen (set).
func appendNew(order []string, set map[string]bool, key string) []string {
	if _, ok := set[key]; !ok {
		set[key] = false
		order = append(order, key)
	}
	return order
}

// noteOwn notes the last record of an agent of its own (one no known call
// started, key): whether it ended its turn (an assistant message that
// stopped at end_turn), which its end, the session's, says (ownEnds).
func (t *transcriptReader) noteOwn(key string, ev *stream.Event) {
	if _, ok := t.ownDone[key]; !ok {
		return
	}
	if ev.Type == "assistant" {
		t.ownDone[key] = ev.AssistantHead().StopReason == "end_turn"
	} else if ev.Type == "user" {
		t.ownDone[key] = false
	}
}

// ownEnds are the task notifications that end the agents of their own
// (own): nothing in the session says when such an agent ended, but the
// session ended, and with it the agent's records. It completed if its
// last record ended its turn, else it was stopped mid-turn; either way it
// is no longer running (stream.Tracker reads the notification as it reads
// the stream's).
func (t *transcriptReader) ownEnds() {
	for _, key := range t.own {
		status := "stopped"
		if t.ownDone[key] {
			status = "completed"
		}
		status = cmp.Or(t.ownReal[key], status)
		v := map[string]any{
			"type": "system", "subtype": "task_notification", "ccfilter": stream.Synthetic,
			"tool_use_id": key, "status": status, "session_id": t.facts.sessionID,
		}
		if key != unnamedSidechain {
			v["task_id"] = key
		}
		if ev, err := t.synthetic(v); err == nil {
			t.queue = append(t.queue, ev)
		}
	}
	t.own = nil
}

func (t *transcriptReader) openSidechain() {
	id := t.pending[0]
	t.pending = t.pending[1:]
	scs := t.agents[id]
	delete(t.agents, id) // read once
	if t.live {
		t.joined[id] = true
	}
	// A Workflow's agents, one frame each: the last pushed is read
	// first, so they are pushed last to first.
	for i := len(scs) - 1; i >= 0; i-- {
		sc := scs[i]
		if err := regular(sc.path); errors.Is(err, ErrNotRegular) {
			t.warn = append(t.warn, fmt.Errorf("the records of subagent %s are not read: %v", sc.agentID, err))
			continue
		}
		f, err := os.Open(sc.path)
		if err != nil {
			t.warn = append(t.warn, fmt.Errorf("the records of subagent %s are missing: %v", sc.agentID, err))
			continue
		}
		// (An archived subagent's file is compressed: undone as every
		// input is.)
		r, undo, err := decompress(f)
		if err != nil {
			f.Close()
			t.warn = append(t.warn, fmt.Errorf("the records of subagent %s are not read: %s: %v", sc.agentID, sc.path, err))
			continue
		}
		opts := t.opts
		opts.Source = sc.path
		t.frames = append(t.frames, frame{r: stream.NewReader(r, opts), f: f, undo: undo, parent: id})
	}
}

// persistedNote starts a tool result whose output was too large to keep
// in the transcript; the path of the file that holds it follows savedTo.
const (
	persistedNote = "<persisted-output>"
	savedTo       = "Full output saved to: "
)

// persisted gives a tool result that points to its output saved in the
// session's tool-results/ folder the size of that output, not the size of
// the preview the transcript holds.
func (t *transcriptReader) persisted(ev *stream.Event) {
	if t.dir == "" || !bytes.Contains(ev.Raw, []byte(persistedNote)) {
		return
	}
	results := ev.ToolResults()
	for i, r := range results {
		text := r.Text()
		_, after, ok := strings.Cut(text, savedTo)
		if !ok || !strings.HasPrefix(strings.TrimSpace(text), persistedNote) {
			continue
		}
		name, _, _ := strings.Cut(after, "\n")
		saved := filepath.Join(t.dir, "tool-results", filepath.Base(strings.TrimSpace(name)))
		if fi, err := RegularFile(saved); err == nil {
			ev.SetSaved(i, saved, int(fi.Size()))
		}
	}
}

// unjoined reports the subagent files whose Agent call the session never
// reached (a .meta.json that points nowhere), those with no .meta.json
// whose agent no call's result named, and the Workflow runs no result
// named.
func (t *transcriptReader) unjoined() {
	ids := make([]string, 0, len(t.agents))
	for id := range t.agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for _, sc := range t.agents[id] {
			t.warn = append(t.warn, fmt.Errorf("%s: no call %s in the session started this subagent: its records are not joined", sc.path, id))
		}
	}
	clear(t.agents)
	loose := make([]string, 0, len(t.loose))
	for id := range t.loose {
		loose = append(loose, id)
	}
	sort.Strings(loose)
	// A subagent's file no call is known for (a session killed while its
	// agent ran can leave one): its calls are the session's, its
	// cost-state counts them, so it is read, at the end, as an agent of
	// its own, as its records in the main file would be (AgentKey).
	for _, id := range loose {
		t.warn = append(t.warn, fmt.Errorf("%s: no .meta.json beside it says which Agent call started this subagent, nor does any call's result name agent %s: its records are read at the end, as an agent of its own", t.loose[id].path, id))
		t.own = appendNew(t.own, t.ownDone, id)
	}
	for i := len(loose) - 1; i >= 0; i-- { // (the last opened is read first)
		t.agents[loose[i]] = []sidechain{t.loose[loose[i]]}
		t.pending = append(t.pending, loose[i])
	}
	clear(t.loose)
	runs := make([]string, 0, len(t.runs))
	for run := range t.runs {
		runs = append(runs, run)
	}
	sort.Strings(runs)
	for _, run := range runs {
		t.warn = append(t.warn, fmt.Errorf("%s: no Workflow result in the session names run %s: its %d agents' records are not joined", filepath.Dir(t.runs[run][0].path), run, len(t.runs[run])))
	}
	clear(t.runs)
}

func (t *transcriptReader) pop() {
	top := t.frames[len(t.frames)-1]
	top.r.Close()
	if top.undo != nil {
		top.undo()
	}
	if top.f != nil {
		top.f.Close()
	}
	t.frames = t.frames[:len(t.frames)-1]
}

// observe gathers the session's facts from a record of the main file, and
// returns the event a background subagent's completion makes, if ev is
// its notification.
func (t *transcriptReader) observe(ev *stream.Event) *stream.Event {
	f := &t.facts
	k := topKeys{ev}
	if ev.Kind == stream.KindPrompt && k.Get("turnOrigin").Str() == "task_notification" {
		// Not a prompt anyone typed: the note of a background task's end,
		// which the stream reports as a system/task_notification.
		ev.Kind = stream.KindSynthetic
		return t.taskNotification(ev.Text())
	}
	if f.sessionID == "" {
		f.sessionID = k.Get("sessionId").Str()
	}
	if ev.Type == "user" || ev.Type == "assistant" || ev.Type == "system" {
		if f.cwd == "" {
			f.cwd, f.version, f.branch = k.Get("cwd").Str(), k.Get("version").Str(), k.Get("gitBranch").Str()
		}
	}
	switch ev.Kind {
	case stream.KindPrompt:
		f.turns++
		f.failed = ""
		if f.mode == "" {
			f.mode = k.Get("permissionMode").Str()
		}
	case stream.KindText:
		if ev.Type == "assistant" {
			f.lastText = ev.Text()
			f.failed = ""
			if f.model == "" {
				f.model = k.Path("message", "model").Str()
			}
		}
	case stream.KindToolUse, stream.KindThinking:
		if f.model == "" {
			f.model = k.Path("message", "model").Str()
		}
	case stream.KindAPIError:
		f.failed = "the last turn ended in an API error"
		if t := ev.Text(); t != "" {
			f.failed += ": " + t
		}
	case stream.KindInterrupt:
		f.failed = "the last turn was interrupted"
	case stream.KindNotice:
		if ev.Subtype == "local_command" {
			// /cost, /context: the turn's output (the stream's result
			// text), though no model wrote it.
			c := strings.TrimSpace(k.Get("content").Str())
			c = strings.TrimPrefix(c, "<local-command-stdout>")
			f.lastText = strings.TrimSuffix(c, "</local-command-stdout>")
			f.failed = ""
		}
	case stream.KindRecord:
		return t.record(ev)
	}
	return nil
}

// record gathers the facts of a bookkeeping record: the model, the cost;
// a queued task notification makes its event.
func (t *transcriptReader) record(ev *stream.Event) *stream.Event {
	f := &t.facts
	k := topKeys{ev}
	switch ev.Type {
	case "attachment":
		a := k.Get("attachment")
		switch {
		case f.model == "" && a.Get("type").StrEqual("model"):
			f.model = a.Path("identity", "modelId").Str()
		case a.Get("type").StrEqual("queued_command") && a.Get("commandMode").StrEqual("task-notification"):
			// A background task ended while the main agent was busy:
			// its notification was queued into the turn.
			return t.taskNotification(a.Get("prompt").Str())
		}
	case "cost-state":
		// Copied: the record's bytes are the reader's buffer, which the
		// next lines overwrite (the cost was lost from a pipe or a .gz).
		f.cost = json.RawMessage(bytes.Clone(k.Get("totalCostUSD").Trim()))
		f.modelUsage = json.RawMessage(bytes.Clone(k.Get("modelUsage").Trim()))
		f.durationMs = k.Get("totalDuration").Int()
	}
	return nil
}

// taskTag matches one <tag>value</tag> of a task notification.
var taskTag = regexp.MustCompile(`<(task-id|tool-use-id|status|summary|subagent_tokens|tool_uses|duration_ms)>([^<]*)</`)

// taskResult matches the <result> of a task notification: the subagent's
// report, over any number of lines (and holding any '<' of its own).
var taskResult = regexp.MustCompile(`(?s)<result>(.*?)</result>`)

// taskNotification makes the system/task_notification the stream has for
// a background task's end from the <task-notification> prompt that
// carries it in a transcript.
func (t *transcriptReader) taskNotification(text string) *stream.Event {
	tags := map[string]string{}
	for _, m := range taskTag.FindAllStringSubmatch(text, -1) {
		if _, ok := tags[m[1]]; !ok {
			tags[m[1]] = m[2]
		}
	}
	if tags["task-id"] == "" {
		return nil
	}
	num := func(k string) int64 { n, _ := strconv.ParseInt(tags[k], 10, 64); return n }
	v := map[string]any{
		"type": "system", "subtype": "task_notification", "ccfilter": stream.Synthetic,
		"task_id": tags["task-id"], "tool_use_id": tags["tool-use-id"], "status": tags["status"],
		"summary": html.UnescapeString(tags["summary"]), "session_id": t.facts.sessionID,
	}
	if m := taskResult.FindStringSubmatch(text); m != nil {
		// The stream's notification carries the report as its summary
		// (summary_is_report); the transcript's says "Agent … finished"
		// there and puts the report in <result>.
		v["summary"], v["summary_is_report"] = html.UnescapeString(strings.TrimSpace(m[1])), true
	}
	if _, ok := tags["subagent_tokens"]; ok {
		v["usage"] = map[string]int64{"total_tokens": num("subagent_tokens"), "tool_uses": num("tool_uses"), "duration_ms": num("duration_ms")}
	}
	n, err := t.synthetic(v)
	if err != nil {
		return nil
	}
	return n
}

// init is the synthetic system/init of the session. It stands for the
// session's start, so it carries the uuid of its first record (uuid: ""
// for none): a run is known by its session and first uuid (the trace's
// id), the stream's by its init's.
func (t *transcriptReader) init(uuid string) map[string]any {
	f := t.facts
	m := map[string]any{
		"type": "system", "subtype": "init", "ccfilter": stream.Synthetic,
		"cwd": f.cwd, "session_id": f.sessionID, "model": f.model, "permissionMode": f.mode,
		"claude_code_version": f.version, "git_branch": f.branch, "tools": []string{}, "mcp_servers": []string{},
	}
	if uuid != "" {
		m["uuid"] = uuid
	}
	return m
}

// firstUUID is the uuid of the first of the records that has one.
func firstUUID(records []*stream.Event) string {
	for _, ev := range records {
		if id := ev.Str("uuid"); id != "" {
			return id
		}
	}
	return ""
}

// result is the synthetic result of the session: the main agent's last
// text is the answer; the run failed when its last turn ended in an API
// error or was interrupted; turns are the prompts; cost and model usage
// are the last cost-state's (cumulative over the runs that wrote to the
// file).
func (t *transcriptReader) result() map[string]any {
	f := t.facts
	m := map[string]any{
		"type": "result", "subtype": "success", "is_error": false, "ccfilter": stream.Synthetic,
		"result": f.lastText, "num_turns": f.turns, "session_id": f.sessionID, "duration_ms": f.durationMs,
	}
	if f.failed != "" {
		m["subtype"], m["is_error"], m["result"] = "error_during_execution", true, f.failed
	}
	if len(f.cost) > 0 && jsonx.Validate(f.cost) == nil {
		m["total_cost_usd"] = f.cost
	}
	if len(f.modelUsage) > 0 && jsonx.Validate(f.modelUsage) == nil {
		m["modelUsage"] = f.modelUsage
	}
	return m
}

// synthetic makes an event of the reader's own.
func (t *transcriptReader) synthetic(v map[string]any) (*stream.Event, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	ev, err := stream.NewEvent(b, t.opts.Source, 0)
	if err != nil {
		return nil, err
	}
	if t.opts.Prepare != nil {
		if err := t.opts.Prepare(ev); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

func (t *transcriptReader) Buffered() bool {
	if len(t.queue) > 0 && !t.held {
		return true
	}
	if len(t.frames) == 0 {
		return true
	}
	return t.frames[len(t.frames)-1].r.Buffered()
}

func (t *transcriptReader) Close() error {
	for len(t.frames) > 0 {
		t.pop()
	}
	return nil
}
