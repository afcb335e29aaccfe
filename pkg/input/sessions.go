package input

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ErrNotSessions reports a directory that holds no session: neither a
// project folder (~/.claude/projects/<escaped-cwd>/, with <session>.jsonl
// files) nor a session's folder (<session>/, beside its <session>.jsonl).
var ErrNotSessions = errors.New("is a directory, and not a project folder or a session's folder of ~/.claude/projects")

// SessionFiles returns the transcripts a directory stands for: a project
// folder's sessions, oldest first (by the time of their first record, then
// of their last: a fork starts with its parent's copied records, and goes
// on after it; never by the files' modification times, which a copy or a
// checkout changes), or the
// transcript of a session's folder. A .jsonl that is not a regular file
// (a FIFO: reading it could wait forever) is skipped, and said in skipped;
// a folder with nothing else is ErrNotSessions.
func SessionFiles(dir string) (files []string, skipped []error, err error) {
	files, err = GlobJSONL(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 {
		session := JSONLFile(strings.TrimSuffix(filepath.Clean(dir), string(filepath.Separator)) + ".jsonl")
		if _, err := RegularFile(session); err == nil {
			return []string{session}, nil, nil
		}
		return nil, nil, ErrNotSessions
	}
	type file struct {
		name        string
		first, last string // RFC 3339 timestamps, which sort as text
	}
	var list []file
	for _, f := range files {
		fi, err := RegularFile(f)
		if errors.Is(err, ErrNotRegular) {
			skipped = append(skipped, err)
			continue
		}
		if err != nil {
			continue // gone since the listing
		}
		first, last := recordTimes(f, fi.Size())
		list = append(list, file{f, first, last})
	}
	if len(list) == 0 {
		return nil, skipped, ErrNotSessions
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.first != b.first {
			return a.first < b.first
		}
		if a.last != b.last {
			return a.last < b.last
		}
		return a.name < b.name
	})
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.name
	}
	return out, skipped, nil
}

// window is how much of a transcript's start and end recordTimes reads.
const window = 256 << 10

// timestampField finds a record's "timestamp" in a transcript's text.
var timestampField = regexp.MustCompile(`"timestamp":"([0-9]{4}-[^"]+)"`)

// recordTimes returns the timestamps of a transcript's first and last
// records that have one, looked for in its first and last 256 KiB (the
// lines between do not change the order; "" when none is there).
func recordTimes(path string, size int64) (first, last string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	if plainJSONL(path) != path {
		return streamTimes(f)
	}
	buf := make([]byte, min(size, window))
	n, _ := f.ReadAt(buf, 0)
	if m := timestampField.FindSubmatch(buf[:n]); m != nil {
		first = string(m[1])
	}
	if size > window {
		n, _ = f.ReadAt(buf, size-window)
	}
	if all := timestampField.FindAllSubmatch(buf[:n], -1); len(all) > 0 {
		last = string(all[len(all)-1][1])
	}
	return first, last
}

// streamTimes is recordTimes of a compressed file, which has no end to
// read at: it is read through, its last two windows kept (a timestamp
// may straddle them).
func streamTimes(f *os.File) (first, last string) {
	r, undo, err := decompress(f)
	if err != nil {
		return "", ""
	}
	defer undo()
	buf := make([]byte, 2*window)
	n, _ := io.ReadFull(r, buf)
	if m := timestampField.FindSubmatch(buf[:n]); m != nil {
		first = string(m[1])
	}
	for n == len(buf) {
		copy(buf, buf[window:])
		k, _ := io.ReadFull(r, buf[window:])
		n = window + k
	}
	if all := timestampField.FindAllSubmatch(buf[:n], -1); len(all) > 0 {
		last = string(all[len(all)-1][1])
	}
	return first, last
}

// Session is what a listing says of one session transcript, read from
// the transcript file alone (and the names of its subagents' files).
type Session struct {
	ID         string  `json:"session_id"`
	Path       string  `json:"path"`
	CWD        string  `json:"cwd"`
	Title      string  `json:"title"`
	Start      string  `json:"start"`
	Last       string  `json:"last_activity"`
	Runs       int     `json:"runs"` // the claude runs that wrote to the file (resumed, continued: one session)
	Turns      int     `json:"turns"`
	ToolCalls  int     `json:"tool_calls"`
	Subagents  int     `json:"subagents"`   // as the run's subagents are listed (subagentSet)
	Tokens     int64   `json:"main_tokens"` // the main agent's, every kind, each message counted once
	CostUSD    float64 `json:"cost_usd"`
	HaveCost   bool    `json:"have_cost"`
	ForkedFrom string  `json:"forked_from,omitempty"` // the session a --fork-session copied
	// CLI is the id of the agent CLI that wrote it (stream.CLIOf):
	// Claude Code's, or another's read by its kind (Codex's rollout).
	CLI string `json:"cli"`
	// Bad are the lines of its files that may hold what the listing
	// reads and are not one whole record (passed over), with their
	// numbers, for the caller to say.
	Bad   []error `json:"-"`
	named bool    // ID was taken from its first record
}

// SessionID is the id of the session whose transcript is at path: its
// file's name without .jsonl (and a compressed copy's .gz or .zst).
func SessionID(path string) string { return filepath.Base(SessionDir(path)) }

// ErrNotTranscript reports a .jsonl file in a project folder that is no
// session transcript: empty, or a stream-json capture saved there, or any
// other file whose first record is not a transcript's.
var ErrNotTranscript = errors.New("not a session transcript")

// ScanSession reads a session transcript for a listing: one pass over the
// file, its lines framed, not validated, each record looked at for what
// the listing shows; and a framing pass over each subagent's file for its
// tool calls, so the count is the session's, as its report shows it.
// A file that is not a regular file or not a transcript is an error
// (ErrNotRegular, ErrNotTranscript), for the listing to pass over.
func ScanSession(path string) (Session, error) { return ScanSessionWith(path, nil, nil, nil) }

// Also is what a caller reads beside a listing, in the same pass over the
// files (of the lines listed picks: calls and cost-states among them):
// Agent sees each record read from the session's agents' files, then Main
// each of the session's own, in order.
type Also struct {
	Agent, Main func(*stream.Event)
	// Line, when set, sees every line of the session's own file, read or
	// not (its bytes are the reader's until the next line); a long line
	// passed over by its ends (EndsTell) is seen by its ends, which hold
	// what RecordTime reads.
	Line func([]byte)
}

// ScanSessionWith is ScanSession reading with buf and scratch (reused
// across files, see stream.DecoderOptions; nil: a buffer of the file's
// size, and long lines' buffers of its own), and also, when not nil, feeding a
// caller's own account in the same pass. It reads only the records a
// listing needs (see listed): the session's start and last activity are
// its first and last prompt, call or cost-state.
func ScanSessionWith(path string, buf *bufio.Reader, scratch *stream.Scratch, also *Also) (Session, error) {
	s := Session{Path: path, ID: SessionID(path)}
	if also == nil {
		also = &Also{}
	}
	// The agents' files first: a caller's account places their calls in
	// the session's runs as it reads the session's own file.
	subagents := newSubagentSet()
	agentRecord := func(ev *stream.Event) {
		subagents.noteCalls(ev)
		if also.Agent != nil {
			also.Agent(ev)
		}
	}
	agentFiles := SubagentFiles(SessionDir(path))
	for _, f := range agentFiles {
		n, _, _, bad, err := scanRecords(f, buf, scratch, nil, nil, agentRecord)
		if err == nil {
			s.ToolCalls += n
		}
		s.Bad = append(s.Bad, bad...)
	}
	gemini := false // (IsGeminiChatHead, asked of the first line)
	firstLine := func(line []byte) bool {
		gemini = IsGeminiChatHead(path, line)
		return !gemini
	}
	calls, usage, first, bad, err := scanRecords(path, buf, scratch, also.Line, firstLine, func(ev *stream.Event) {
		subagents.noteCalls(ev)
		if IsSidechain(ev) {
			subagents.sidechain[ev.AgentID()] = true
		}
		s.add(ev)
		if also.Main != nil {
			also.Main(ev)
		}
	})
	if gemini {
		return scanGeminiChat(path, Session{Path: path, ID: SessionID(path)}, also)
	}
	s.Bad = append(s.Bad, bad...)
	if err != nil {
		return s, err
	}
	s.CLI = stream.ClaudeCodeID
	if first == nil || !IsTranscriptRecord(first) {
		// Another agent CLI's session file (Codex's), which Open tells
		// from the first lines it recognises (the first may be cut).
		if o, err := scanOtherSession(path, also); err == nil {
			return o, nil
		}
		what := "empty"
		switch {
		case first != nil:
			what = "its first record is not a transcript's"
		case len(s.Bad) > 0:
			what = "none of its lines is a whole record"
		}
		return s, fmt.Errorf("%s: %w (%s)", path, ErrNotTranscript, what)
	}
	s.Tokens = usage.Total()
	s.ToolCalls += calls
	s.Subagents = subagents.count(path, agentFiles)
	return s, nil
}

// SubagentFiles are the record files of a session's subagents (a
// Workflow's agents' too), with or without their .meta.json, but for the
// copies of another (subagentCopies).
func SubagentFiles(dir string) []string {
	files := allSubagentFiles(dir)
	copies := subagentCopies(files)
	if len(copies) == 0 {
		return files
	}
	return slices.DeleteFunc(files, func(f string) bool { return copies[f] })
}

// allSubagentFiles are the record files of a session's subagents, copies
// and all.
func allSubagentFiles(dir string) []string {
	if !hasSubagents(dir) {
		return nil
	}
	files, _ := GlobJSONL(filepath.Join(dir, "subagents", "agent-*.jsonl"))
	wf, _ := GlobJSONL(filepath.Join(dir, "subagents", "workflows", "*", "agent-*.jsonl"))
	return append(files, wf...)
}

// subagentCopies are the files of files (sorted) that hold, byte for
// byte, what another file of their folder holds: the same subagent's file
// under a second name (a sync tool's conflict copy, its .meta.json copied
// too, or not). Its records are the same records, tool calls and all, so
// they are read once, from the first file whose .meta.json names a call
// (else the first): the model calls were told apart by their ids, the
// tool calls were counted twice. Only files of one size are compared, so
// a session's folder costs a stat a file.
func subagentCopies(files []string) map[string]bool {
	if len(files) < 2 {
		return nil
	}
	type key struct {
		dir  string
		size int64
	}
	var groups [][]string // files of the same bytes, first as found
	by := map[key][]int{} // the groups of a folder and size
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			continue
		}
		k := key{filepath.Dir(f), fi.Size()}
		found := false
		for _, g := range by[k] {
			if found = sameBytes(f, groups[g][0]); found {
				groups[g] = append(groups[g], f)
				break
			}
		}
		if !found {
			by[k] = append(by[k], len(groups))
			groups = append(groups, []string{f})
		}
	}
	var copies map[string]bool
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		keep := 0
		for i, f := range g {
			if metaCall(strings.TrimSuffix(plainJSONL(f), ".jsonl")+".meta.json") != "" {
				keep = i
				break
			}
		}
		if copies == nil {
			copies = map[string]bool{}
		}
		for i, f := range g {
			copies[f] = i != keep
		}
	}
	return copies
}

// sameBytes reports whether the files a and b hold the same bytes.
func sameBytes(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea != nil || eb != nil {
			return (ea == io.EOF || ea == io.ErrUnexpectedEOF) && (eb == io.EOF || eb == io.ErrUnexpectedEOF)
		}
	}
}

// hasSubagents reports whether a session's folder dir may hold
// subagents' files: whether it has a subagents/ entry. Most sessions have
// none (nor a folder), and the globs that find nothing there cost a
// session four pattern walks of its long path (filepath.Match checks the
// whole pattern first): a twentieth of sessions' instructions on a tree
// of 1,272 sessions (issue 41). One Lstat: where it fails, so does every
// glob under it.
func hasSubagents(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, "subagents"))
	return err == nil
}

// scanRecords counts one file's tool calls and adds up its usage (each
// message once), and returns a copy of its first record; also, when not
// nil, sees each record too. firstLine, when set, sees the first line
// before anything else does: false, and the rest is passed over unread
// (the file is another reader's).
func scanRecords(path string, buf *bufio.Reader, scratch *stream.Scratch, line func([]byte), firstLine func([]byte) bool, also func(*stream.Event)) (calls int, usage stream.Usage, first []byte, bad []error, err error) {
	// Each message once, from its final record (with a stop_reason, else
	// the largest): a transcript writes one record per block.
	type msg struct {
		u     stream.Usage
		final bool
	}
	msgs := map[string]msg{}
	lines := 0
	skip := false
	want := func(l []byte) bool {
		if lines++; lines == 1 && firstLine != nil {
			skip = !firstLine(l)
		}
		if skip {
			return false // (the file is another reader's)
		}
		if line != nil {
			line(l)
		}
		return lines == 1 || listed(l) // (the first: what kind of file it is)
	}
	bad, err = EachRecordChecked(path, stream.DecoderOptions{Check: stream.CheckFraming, Want: want, Ends: EndsTell, Buffer: buf, Scratch: scratch}, func(ev *stream.Event) {
		if first == nil {
			first = append([]byte(nil), ev.Raw...) // Raw's bytes are the reader's until the next read
		}
		if ev.Type == "assistant" {
			if ev.Kind == stream.KindToolUse {
				calls++
			}
			if IsSidechain(ev) {
				// a subagent's call, in the main file: not the main
				// agent's tokens (its tool calls are the session's)
				if also != nil {
					also(ev)
				}
				return
			}
			a := ev.AssistantHead()
			m, seen := msgs[a.MessageID]
			final := a.StopReason != ""
			if a.Model != "<synthetic>" && (!seen || final && !m.final || final == m.final && a.Usage.OutputTokens > m.u.OutputTokens) {
				msgs[a.MessageID] = msg{a.Usage, final}
			}
		}
		if also != nil {
			also(ev)
		}
	})
	for _, m := range msgs {
		usage = usage.Add(m.u)
	}
	return calls, usage, first, bad, err
}

// EachRecordChecked calls fn with each record of a transcript file (a
// regular file, compressed or not), read with a transcript's spellings
// and the decoder's options opts (its check level, a Prepare, a Want, a
// Buffer; the source and the spellings are the file's), passing over bad
// lines; it returns their errors, each with its line number, for the
// caller to say (a broken record is never passed over unsaid).
func EachRecordChecked(path string, opts stream.DecoderOptions, fn func(*stream.Event)) (bad []error, err error) {
	fi, err := RegularFile(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// (.gz and .zst undone as every preset reads them: Open's one rule.)
	r, undo, err := decompress(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer undo()
	// A read buffer the size of the file, up to the decoder's own: a tree
	// of sessions is mostly files of a few hundred KB, and a fresh 1 MiB
	// buffer each (zeroed by the kernel) was a quarter of the time.
	size := int(min(max(fi.Size()+1, 64<<10), 1<<20))
	opts.Source, opts.Spellings, opts.BufferSize = path, transcriptSpellings, size
	if opts.Buffer != nil && opts.Buffer.Size() < size {
		opts.Buffer = nil // (too small for this file: one of its size)
	}
	var dec stream.Reader
	if r == io.Reader(f) && fi.Size() <= wholeFile {
		// Not compressed, and no larger than the Decoder's buffer:
		// read in one read call, and cut into lines where it lies
		// (stream.NewBytesDecoder: the Decoder's events, without its
		// read buffer's bookkeeping). The one rule for the faster path;
		// the Decoder is the reference
		// (TestEachRecordCheckedWholeSameAsDecoder).
		scratch := opts.Scratch
		if scratch == nil {
			scratch = &stream.Scratch{}
		}
		data, err := scratch.ReadWhole(f, fi.Size())
		if err != nil {
			return nil, err
		}
		dec = stream.NewBytesDecoder(data, opts)
	} else {
		dec = stream.NewDecoder(r, opts)
	}
	// Its readers (a usage account, a listing) read the message of
	// nearly every record they take.
	dec = stream.IndexMessages(dec)
	defer dec.Close()
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return bad, nil
		}
		if err != nil {
			if stream.IsLineError(err) {
				bad = append(bad, err)
				continue
			}
			return bad, err
		}
		fn(ev)
	}
}

// wholeFile is the largest transcript EachRecordChecked reads in one
// read call (into the caller's Scratch), the Decoder's read buffer: a
// larger file read whole was copied out of the CPU's cache before its
// lines were cut (the read of a 7.5 MB session, then a walk over it from
// memory), and usage --by day on two CPUs took a third more user time
// than through the Decoder, which reads a long line by pieces of 256 KiB
// and finds its end in each while it is in the cache (readLongInPlace).
var wholeFile int64 = 1 << 20 // (a var: tests set it to -1 for the Decoder)

// Unsure reports a line the byte tests of DeclaredType cannot judge: not
// written as Claude Code writes a record, one object opening on a key
// with no space before its value and closing on its last byte (a
// transcript a script re-serialized with spaces, a line cut short). A
// reader that picks lines by those tests reads these in full: a fast
// test chooses the path, the decoder decides, so that no record is found
// absent by a test that could not read it, and a broken line is reported
// with its number rather than passed over unseen.
func Unsure(line []byte) bool {
	return len(line) < 2 || line[len(line)-1] != '}' || unsureHead(line)
}

// unsureHead is Unsure's test of a line's head: its first 64 bytes.
func unsureHead(line []byte) bool {
	if len(line) < 2 || line[0] != '{' || line[1] != '"' {
		return true
	}
	k := bytes.IndexByte(line[2:min(len(line), 64)], '"')
	if k < 0 {
		return true
	}
	after := line[2+k+1:]
	return len(after) < 2 || after[0] != ':' || after[1] == ' '
}

// RecordTime is the timestamp a line's record says where Claude Code
// writes it (a bookkeeping record's head, a conversation record's tail,
// after its message), found without reading the record; nil when it is
// not there (an Unsure line is read in full, and its event says it).
func RecordTime(line []byte) []byte {
	const key = `"timestamp":"`
	for _, part := range [][]byte{line[:min(len(line), 512)], line[max(0, len(line)-1024):]} {
		if k := indexKey(part, key, 3); k >= 0 { // (at its 'm')
			v := part[k+len(key):]
			if end := bytes.IndexByte(v[:min(len(v), 40)], '"'); end > 0 {
				return v[:end]
			}
		}
	}
	return nil
}

// indexKey is bytes.Index(s, key) for a JSON key such as `"type":"`,
// found by a search for one of its rarer bytes (key[at]) instead of its
// first: a '"' is every eleventh byte of a transcript's heads and tails,
// and bytes.Index stops at each and compares, while a 'y' is one byte in
// 130 there and an 'm' one in 70. RecordTime and DeclaredType look at
// every line of every session this way; with bytes.Index they were a
// fifth of usage --by day's instructions (issue 41).
func indexKey(s []byte, key string, at int) int {
	c := key[at]
	for i := at; i < len(s); i++ {
		k := bytes.IndexByte(s[i:], c)
		if k < 0 {
			return -1
		}
		i += k
		start := i - at
		if start+len(key) > len(s) {
			return -1
		}
		if string(s[start:start+len(key)]) == key {
			return start
		}
	}
	return -1
}

// listed picks the lines a listing reads: the records that say they are
// a call, a cost-state, a prompt or a title where a record says its type
// (first, or for a transcript's assistant records near the end), and not
// a tool result (most of a transcript's bytes); every line a usage
// account reads (a call, a cost-state) is among them. The first record is read
// too, to tell a transcript from another file.
func listed(line []byte) bool {
	if Unsure(line) {
		return true
	}
	switch t, rest := DeclaredType(line); string(t) {
	case "assistant", "cost-state", "summary", "custom-title", "ai-title":
		return true
	case "user":
		return !bytes.HasPrefix(rest, []byte(`,"message":{"role":"user","content":[{"tool_use_id"`)) &&
			!bytes.HasPrefix(rest, []byte(`,"message":{"role":"user","content":[{"type":"tool_result"`))
	}
	return false
}

// DeclaredType is the type a transcript line's record says it is, found
// where Claude Code writes it, without reading the record: the first "type" of its
// first 512 bytes (a stream's event, a transcript's user, system,
// cost-state and bookkeeping records, a synthetic assistant record), else
// "assistant" when its last KiB says so (a transcript's assistant record
// writes it after the message, some 300 bytes from the end), else the
// "type" among the record's top-level members (memberType). rest is what
// follows the type's value. The quick looks decide nearly every line; the
// walk is the truth where they cannot see: a release that writes a longer
// tail after an assistant record's type (a new field, a long cwd) would
// otherwise have every call passed over, and its session counted as
// spending nothing (a field added anywhere must change no figure).
func DeclaredType(line []byte) (typ, rest []byte) {
	typ, rest, topLevel := headType(line)
	if typ != nil {
		return typ, rest
	}
	tail := line[max(0, len(line)-1024):]
	if indexKey(tail, `"type":"assistant"`, 2) >= 0 {
		return []byte("assistant"), nil
	}
	if topLevel {
		return nil, nil
	}
	// A user record (a tool's result) and an attachment write their type
	// after their message or attachment, as an assistant record does: in
	// the tail, no walk of a result of many kilobytes is needed (sessions
	// counted a quarter more instructions walking them). (The literal
	// cannot be inside a string, whose quotes are escaped; no nested
	// object of these records is of either type.)
	for _, t := range tailTypes {
		if indexKey(tail, t.key, 2) >= 0 {
			return []byte(t.name), nil
		}
	}
	return memberType(line)
}

// headType is DeclaredType's first look: the first "type" of the line's
// first 512 bytes, when it is one of the types the readers pick, and
// what follows its value; else nil, and whether that "type" is a member
// of the record itself (topLevel).
func headType(line []byte) (typ, rest []byte, topLevel bool) {
	head := line[:min(len(line), 512)]
	if k := indexKey(head, `"type":"`, 2); k >= 0 { // (at its 'y')
		v := head[k+len(`"type":"`):]
		if end := bytes.IndexByte(v[:min(len(v), 32)], '"'); end > 0 {
			switch t := v[:end]; string(t) {
			case "assistant", "user", "system", "result", "cost-state", "summary", "custom-title", "ai-title", "stream_event":
				return t, v[end+1:], false
			}
			// No object or array opens before it: it is a member of
			// the record itself (the literal "type":" cannot be inside
			// a string, whose quotes are escaped), of a type no reader
			// picks.
			topLevel = bytes.IndexByte(line[1:k], '{') < 0 && bytes.IndexByte(line[1:k], '[') < 0 // (IndexAny of two bytes is a loop; these are SIMD)
		}
	}
	return nil, nil, topLevel
}

// EndsTell is the Ends of a Decoder whose Want picks a transcript's lines
// by Unsure, DeclaredType and RecordTime (a usage account's, a
// listing's): it says that a long line's ends tell what these say of the
// whole line, head being its first bytes. They do when its head is
// written as Claude Code writes a record and names the record's type
// among its first 512 bytes (a tool's result, a user record, names it
// first): Unsure then looks at the head and the last byte, DeclaredType
// at the head alone, RecordTime at the first 512 and the last 1,024
// bytes, all within a line's ends (stream.EndsHead, stream.EndsTail). A
// line whose type is written after its message (an assistant record) is
// read whole, as one whose type the walk of its members finds.
func EndsTell(head []byte) bool {
	if len(head) < 512 || unsureHead(head) {
		return false
	}
	typ, _, _ := headType(head)
	return typ != nil
}

// tailTypes are the record types DeclaredType looks for in a record's
// tail before it walks the record, each with its key as written (a
// literal, not made for every line).
var tailTypes = [...]struct{ name, key string }{
	{"user", `"type":"user"`},
	{"attachment", `"type":"attachment"`},
}

// memberType is the "type" among the top-level members of the record on
// line, and what follows its value: a walk from member to member that
// skips each value (not decoded, nor checked) up to the first "type" and
// stops there (an attachment's comes after its attachment object, an
// assistant record's after its message). nil when the line is no object
// with one: its reader decides what it is.
func memberType(line []byte) (typ, rest []byte) {
	jsonx.Value(line).EachMember(func(key []byte, v jsonx.Value) bool {
		if !(jsonx.Member{Key: key}).Is("type") {
			return true
		}
		if v.Type() == jsonx.String {
			end := cap(line) - cap(v) + len(v) // (v is a slice of line)
			typ, rest = v[1:len(v)-1], line[end:]
			if bytes.IndexByte(typ, '\\') >= 0 {
				typ = []byte(v.Str())
			}
		}
		return false
	})
	return typ, rest
}

// add takes from one record what the listing shows.
func (s *Session) add(ev *stream.Event) {
	if !s.named {
		// The session is the one its records name (its file's name
		// unless it was renamed: x.jsonl.gz).
		s.named = true
		if id := ev.Str("sessionId"); id != "" {
			s.ID = id
		}
	}
	if ts := ev.Str("timestamp"); ts != "" {
		if s.Start == "" || ts < s.Start {
			s.Start = ts
		}
		s.Last = max(s.Last, ts)
	}
	if IsSidechain(ev) {
		// A subagent's record in the main file: its times are the
		// session's; its prompt is no turn, its title none.
		return
	}
	if s.CWD == "" {
		s.CWD = ev.Str("cwd")
	}
	if s.ForkedFrom == "" {
		if from := ev.Str("requestSessionId"); from != "" && from != s.ID {
			s.ForkedFrom = from
		}
	}
	switch {
	case ev.Kind == stream.KindPrompt && ev.Str("turnOrigin") != "task_notification":
		s.Turns++
		if s.Title == "" {
			s.Title = firstLine(ev.Text())
		}
	case ev.Type == "cost-state":
		s.Runs++
		s.CostUSD, s.HaveCost = ev.Float("totalCostUSD"), true
	case ev.Type == "summary" || ev.Type == "custom-title" || ev.Type == "ai-title":
		for _, k := range []string{"summary", "customTitle", "title"} {
			if t := ev.Str(k); t != "" {
				s.Title = firstLine(t)
			}
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Projects returns the transcripts under dirs: each dir is a project
// folder (it holds *.jsonl) or a folder of project folders, such as
// ~/.claude/projects.
func Projects(dirs []string) ([]string, error) { return (*Listing)(nil).Projects(dirs) }

// Projects is Projects over the folders' listings kept.
func (l *Listing) Projects(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		files, err := l.GlobJSONL(filepath.Join(d, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			files, err = l.GlobJSONL(filepath.Join(d, "*", "*.jsonl"))
			if err != nil {
				return nil, err
			}
		}
		out = append(out, files...)
	}
	return out, nil
}

// FindSession returns the transcript under the projects folder whose
// session id is id or starts with it; an error when several do.
func FindSession(projects, id string) (string, error) {
	files, err := GlobJSONL(filepath.Join(projects, "*", id+"*.jsonl"))
	if err != nil || len(files) == 0 {
		return "", err
	}
	if len(files) > 1 {
		return "", fmt.Errorf("%s: %d sessions start with it: %s", id, len(files), strings.Join(files, ", "))
	}
	return files[0], nil
}
