package stream

import (
	"bytes"
	"encoding/json"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// Event is one line of the stream: its exact bytes, where it came from, and
// what it is. Fields beyond the discriminators are read on demand from Raw
// (see the accessors in fields.go), so classifying an event never builds its
// JSON tree; Value builds it, once, for consumers such as gojq.
type Event struct {
	// Raw is the line exactly as read, without the line terminator (and
	// without a UTF-8 BOM on the first line). For JSON-array input it is the
	// element's bytes. A Reader's event and its Raw are valid until its
	// next Next: the bytes are the reader's buffer, which the next lines
	// overwrite; whatever outlives that is copied (bytes.Clone).
	Raw []byte
	// Source names the input ("<stdin>" or a file name); Line is the 1-based
	// line number (element number for JSON-array input); Offset is the byte
	// offset of Raw's first byte in the input.
	Source string
	Line   int64
	Offset int64
	// Type and Subtype are the top-level "type" and "subtype" strings ("" when
	// absent or not strings).
	Type    string
	Subtype string
	// Kind is the classification (see Kinds).
	Kind     Kind
	tree     any
	haveTree bool
	cut      any    // the tree cut to cutFor (ValueOf)
	cutFor   *Paths // nil: no cut tree
	cutValid bool   // the line was validated in full when cut was built
	// screened: the reader's Screen found the line clean (Screened).
	screened bool
	// valid: the line is known to be valid JSON (a CheckAll decoder, or
	// Validate, checked it), so Validate need not walk it again.
	valid bool
	// parent, when set (hasParent), is the Agent call the event's subagent
	// was started by, given by the reader: a session transcript keeps a
	// subagent's records in a file of their own, without
	// parent_tool_use_id.
	parent    string
	hasParent bool
	// spellings are the input kind's names for the fields the core reads
	// (DecoderOptions.Spellings).
	spellings Spellings
	// top indexes the top-level members, built by the first lookup (or by a
	// CheckFraming decoder, whose framing walk finds them anyway): the keys
	// after a long "message" are then found without walking it again.
	top     []jsonx.Member
	haveTop bool
	// results caches ToolResults, delta Delta.
	results     []ToolResult
	haveResults bool
	delta       Delta
	haveDelta   bool
	assistHead  Assistant // AssistantHead's
	haveAssist  bool
	// echo, when echoSet, is the input's own line the event stands for
	// (Echo): an input kind whose reader translates its records sets it.
	echo    []byte
	echoSet bool
	// echoPieces are where in echo the pieces of a text joined from
	// several lines lie (MarkEchoPieces): [start, end) of each JSON
	// string its reader copied a piece from, in order.
	echoPieces [][2]int32
	// own is the buffer Remake copies lines into, kept across them.
	own []byte
	// msg indexes the members of "message" (message), blocks the heads
	// of its content blocks (blockHeads): the classifier, the tracker, the
	// tally and the text views read the same message, and each walked it
	// from its start (past a tool's whole input) before.
	msg        []jsonx.Member
	haveMsg    bool
	nestMsg    bool // the reader's: frame indexes msg on its way (kept by point)
	blocks     []blockHead
	haveBlocks bool
	// usage is the message's usage as the read-ahead read it (haveUsage:
	// framedLine.usage), every number of it fitting.
	usage     Usage
	haveUsage bool
}

// point aims the reused event at a new line; the member index keeps its
// capacity, so a reused event allocates nothing.
func (e *Event) point(raw []byte, source string, line, off int64) {
	*e = Event{Raw: raw, Source: source, Line: line, Offset: off, top: e.top[:0], results: e.results[:0], msg: e.msg[:0], blocks: e.blocks[:0], nestMsg: e.nestMsg}
}

func (e *Event) classify() {
	if e.haveTop {
		// The index is built: read the discriminators from it, so that a
		// key written twice means its last value here as in jq.
		e.Type, e.Subtype = indexedDiscriminators(e.top)
	} else {
		e.Type, e.Subtype = discriminators(e.Raw)
	}
	e.Kind = classify(e)
}

// frame builds the member index, checking the line's framing on the way;
// on a bad line the index keeps what could be read.
//
// With nestMsg, the members of the message are indexed in the same walk
// (message): for a reader whose consumer reads the message of nearly
// every line it hands out (a usage account's AssistantHead), which then
// walked the message (a call's whole input) a second time. Others index
// it when asked: the classifier reads only the message's head, and a
// walk of its members that no one reads made final 8% slower.
func (e *Event) frame() error {
	var err error
	if e.nestMsg {
		e.top, e.msg, e.haveMsg, err = jsonx.MembersNested(e.Raw, e.top[:0], "message", e.msg[:0])
	} else {
		e.top, err = jsonx.Members(e.Raw, e.top[:0])
	}
	e.haveTop = true
	return err
}

// frameValid is frame with the line validated in full on the way.
func (e *Event) frameValid() error {
	var err error
	e.top, err = jsonx.ValidMembers(e.Raw, e.top[:0])
	e.haveTop = true
	return err
}

// field returns a top-level member's value, or nil.
func (e *Event) field(key string) jsonx.Value {
	if !e.haveTop {
		e.frame()
	}
	if v := jsonx.Lookup(e.top, key); v != nil || e.spellings == nil {
		return v
	}
	var found jsonx.Value
	for _, k := range e.spellings[key] {
		if v := jsonx.Lookup(e.top, k); v != nil {
			if found = v; !v.IsNull() && !(v.Type() == jsonx.Bool && !v.Bool()) {
				break
			}
		}
	}
	return found
}

// Spellings map the name the core reads a top-level field by (the stream's:
// "tool_use_result") to the names another input kind writes it under
// (a transcript's "toolUseResult"), tried in order when the event has no
// field of the stream's name; a spelling whose value is null or false gives
// way to the next, so that several flags can stand for one (a transcript's
// isMeta and isCompactSummary for isSynthetic). An input kind declares them beside its
// Format and hands them to its decoders (DecoderOptions.Spellings), so the
// core and the renderers read one spelling of each field.
type Spellings map[string][]string

// NewEvent returns the event for one complete JSON object line. It is the
// entry point for callers that frame lines themselves; it validates raw.
func NewEvent(raw []byte, source string, line int64) (*Event, error) {
	if err := jsonx.Validate(raw); err != nil {
		return nil, newSyntaxError(source, line, 0, raw, err)
	}
	e := &Event{}
	e.point(bytes.Clone(raw), source, line, 0)
	e.frame()
	e.classify()
	e.valid = true
	return e, nil
}

// Validate fully checks the event's JSON, for events read by a Decoder
// whose Check is not CheckAll (it is always nil otherwise, and costs
// nothing; so is a second call). The error is a *SyntaxError with the
// event's line.
func (e *Event) Validate() error {
	if e.valid {
		return nil
	}
	if e.haveTop && e.Kind == KindToolUse {
		// Checked member by member from the framing's index, the message
		// indexed on the way (message): the tracker reads a call's
		// message by its members next (its usage, past the content), and
		// a second walk over it was a sixteenth of tools. (Not for the
		// events whose message only some runs read: this check costs more
		// than the whole line's when nothing reads the index.) Any fault:
		// the whole line's check says which.
		msg := e.field("message")
		if !e.haveMsg && msg.Type() == jsonx.Object {
			if idx, ok := jsonx.ValidIndexed(e.Raw, e.top, msg, e.msg[:0]); ok {
				e.msg, e.haveMsg, e.valid = idx, true, true
				return nil
			}
		}
	}
	if err := jsonx.Validate(e.Raw); err != nil {
		return newSyntaxError(e.Source, e.Line, e.Offset, e.Raw, err)
	}
	e.valid = true
	return nil
}

// ValidateValue is Validate and Value in one pass over the line: it checks
// the event's JSON in full and, when it is valid, builds the tree that
// Value returns. For consumers that validate the events they decode.
func (e *Event) ValidateValue() error {
	if e.haveTree {
		return nil
	}
	t, err := jsonx.DecodeValid(e.Raw)
	if err != nil {
		return newSyntaxError(e.Source, e.Line, e.Offset, e.Raw, err)
	}
	e.tree, e.haveTree = t, true
	return nil
}

// Clone returns a copy of e that owns its bytes, for keeping an event past
// the Decoder's next call.
func (e *Event) Clone() *Event {
	c := *e
	c.Raw = bytes.Clone(e.Raw)
	c.echo, c.own = bytes.Clone(e.echo), nil
	c.tree, c.haveTree = nil, false
	c.cut, c.cutFor, c.cutValid = nil, nil, false
	c.top, c.haveTop = nil, false
	c.results, c.haveResults = nil, false
	c.msg, c.haveMsg, c.blocks, c.haveBlocks = nil, false, nil, false
	return &c
}

// Paths are the parts of an event a consumer reads (see ValueOf): paths
// of object keys (string elements) and array indexes (int elements) from
// the event's root, each standing for the whole value at its end. The zero
// value is empty; an empty path added is the whole event.
type Paths struct{ p jsonx.Projection }

// Add adds a path and the whole value at its end.
func (ps *Paths) Add(path ...any) { ps.p.Add(path...) }

// Reach adds a path without the value at its end (the objects and arrays
// on the way are kept, and of the value at the end only its kind): for a
// reader that goes down the path, where going down can fail.
func (ps *Paths) Reach(path ...any) { ps.p.Reach(path...) }

// Whole reports whether the paths take in the whole event.
func (ps *Paths) Whole() bool { return ps.p.Whole() }

// ValueOf returns the event's tree cut to paths: the objects and arrays on
// the way to the end of each path, the whole value there, and nothing
// else. Following any of the paths gives what it gives in Value (a value
// of another kind than the path expects is kept whole, so even the errors
// are the same), without decoding the rest: for a jq expression that
// reads a few fields of events whose tool results are megabytes. nil
// paths: Value. Cached for the last paths asked for.
func (e *Event) ValueOf(paths *Paths) any {
	if paths == nil || paths.Whole() {
		return e.Value()
	}
	if e.cutFor != paths {
		e.cut, e.cutFor, e.cutValid = jsonx.DecodeProjected(e.Raw, &paths.p), paths, false
	}
	return e.cut
}

// ValidateValueOf is ValidateValue for ValueOf(paths): it checks the
// event's JSON in full and builds the cut tree.
func (e *Event) ValidateValueOf(paths *Paths) error {
	if paths == nil || paths.Whole() {
		return e.ValidateValue()
	}
	if e.cutFor == paths && e.cutValid {
		return nil
	}
	if err := e.Validate(); err != nil {
		return err
	}
	e.cut, e.cutFor, e.cutValid = jsonx.DecodeProjected(e.Raw, &paths.p), paths, true
	return nil
}

// Value returns the event as a generic JSON tree (map[string]any, with
// integers as int or *big.Int so no digit is lost), the form gojq runs on.
// It is built on the first call and cached.
func (e *Event) Value() any {
	if !e.haveTree {
		e.tree = jsonx.Parse(e.Raw).Decode()
		e.haveTree = true
	}
	return e.tree
}

// Get returns the raw JSON at a path of object keys, or nil when absent.
// It does not allocate: the result aliases Raw.
func (e *Event) Get(path ...string) json.RawMessage {
	if len(path) == 0 {
		return json.RawMessage(e.v())
	}
	return json.RawMessage(e.field(path[0]).Path(path[1:]...))
}

func (e *Event) v() jsonx.Value { return jsonx.Value(e.Raw) }

// keys looks up e's top-level keys in the member index (which the framing
// walk built), not by a walk of the line for each key: the views read up
// to a dozen of them, and the consumer's walks were a sixth of what text
// costs.
func (e *Event) keys() topLevel { return topLevel{e} }

type topLevel struct{ e *Event }

// Get is jsonx.Value.Get on the event (the first member with that key).
func (t topLevel) Get(key string) jsonx.Value { return t.e.field(key) }

// Path is jsonx.Value.Path on the event.
func (t topLevel) Path(keys ...string) jsonx.Value {
	if len(keys) == 0 {
		return t.e.v()
	}
	return t.e.field(keys[0]).Path(keys[1:]...)
}

// message returns the members of the event's "message" object (none when
// it has none), indexed on the first call: its usage and stop_reason come
// after a content that can be megabytes.
func (e *Event) message() []jsonx.Member {
	if !e.haveMsg {
		e.msg = members(e.field("message"), e.msg[:0])
		e.haveMsg = true
	}
	return e.msg
}

// messageField returns a member of the event's message (the last of a
// key written twice, as Get), or nil.
func (e *Event) messageField(key string) jsonx.Value { return jsonx.Lookup(e.message(), key) }

// blockHead is what the tracker and the tally read of a content block.
type blockHead struct{ Type, ID, Name, Input jsonx.Value }

// blockHeads returns the type, id, name and input of each block of the
// message's content, each block walked once (on the first call) for
// every reader of its calls.
func (e *Event) blockHeads() []blockHead {
	if !e.haveBlocks {
		e.blocks, e.haveBlocks = appendBlockHeads(e.blocks[:0], e.messageField("content")), true
	}
	return e.blocks
}

// appendBlockHeads appends the heads of the blocks of content (a
// message's) to dst: the one reading of them, on the Decoder's goroutine
// (blockHeads) or on the read-ahead's (framer.readBlocks).
func appendBlockHeads(dst []blockHead, content jsonx.Value) []blockHead {
	var buf [8]jsonx.Member
	// (each block walked once: its tool input is passed over in the
	// walk that finds where the block ends)
	content.EachObject(buf[:0], func(_ int, _ jsonx.Value, m []jsonx.Member) bool {
		dst = append(dst, blockHead{jsonx.Lookup(m, "type"), jsonx.Lookup(m, "id"), jsonx.Lookup(m, "name"), jsonx.Lookup(m, "input")})
		return true
	})
	return dst
}

// usageAhead returns the usage of the event's message, and true, when the
// reader read it already (the read-ahead's framer, ValidateAhead): what
// usageOf reads of the message's usage, every number of it fitting.
// false: the caller reads it (and notes what does not fit).
func (e *Event) usageAhead() (Usage, bool) { return e.usage, e.haveUsage }

// isToolUse reports whether a block's type is a tool call's.
func isToolUse(typ jsonx.Value) bool {
	return typ.StrEqual("tool_use") || typ.StrEqual("server_tool_use") || typ.StrEqual("mcp_tool_use")
}

// ParentToolUseID returns the id of the Agent tool call whose subagent
// produced this event, or "" for the main agent.
func (e *Event) ParentToolUseID() string {
	if e.hasParent {
		return e.parent
	}
	return e.field("parent_tool_use_id").Str()
}

// setParent attributes the event to the subagent the Agent call id
// started (a transcript's sidechain record): a prompt becomes the
// subagent's prompt.
// Screened reports whether the Screen of the reader that decoded the event
// (DecoderOptions.Screen) found its line clean: a stage after the reader
// need not look at it again.
func (e *Event) Screened() bool { return e.screened }

// SetRaw aims the event at raw, the same line rewritten (the redaction of
// its values: redact.Redactor.Event), for a stage between the decoder and
// its readers (DecoderOptions.Prepare): where it came from, whose it is
// and whether its JSON was validated stay; what was read of the old bytes
// is read again from the new. raw must stay valid as long as the event.
func (e *Event) SetRaw(raw []byte) {
	parent, hasParent, spellings, valid, echo, echoSet, echoPieces := e.parent, e.hasParent, e.spellings, e.valid, e.echo, e.echoSet, e.echoPieces
	e.point(raw, e.Source, e.Line, e.Offset)
	e.spellings, e.valid, e.echo, e.echoSet, e.echoPieces = spellings, valid, echo, echoSet, echoPieces
	e.frame()
	e.classify()
	if hasParent {
		e.setParent(parent)
	}
}

// SetEcho sets what a pass-through of the input (NDJSON with no filter)
// prints for the event: the input's own lines it was made from, for a
// kind whose reader translates another CLI's records into events (their
// bytes, not the translation, are the input), joined by '\n' without a
// last one; nil or empty for an event that stands for no line of its own
// (a piece of a text whose joined event stands for its line, or lines an
// earlier event carries). Each line is echoed by one event only. The
// bytes are not copied: they must stay valid as long as the event (a
// reader's line: until its next Next; Clone copies them).
func (e *Event) SetEcho(lines []byte) { e.echo, e.echoSet, e.echoPieces = lines, true, nil }

// MarkEchoPieces says where in the event's echo (SetEcho) the pieces of
// its text lie, for a text its reader joined from pieces written a line
// each (a Gemini CLI answer's "delta":true lines): spans, [start, end) of
// each JSON string a piece was copied from, in order. The redaction of the
// echo reads the pieces joined, as the event's text is, so that a secret
// the pieces cut in two is taken out of the lines NDJSON prints too
// (redact.Redactor.Event). The spans are the caller's, kept as they are.
func (e *Event) MarkEchoPieces(spans [][2]int32) { e.echoPieces = spans }

// EchoPieces is what MarkEchoPieces said: none for an event whose echo is
// not pieces of a text.
func (e *Event) EchoPieces() [][2]int32 { return e.echoPieces }

// RemakeWritten is Remake for JSON its reader wrote itself, not validated
// again: a second pass over every byte of each event was a fifth of the
// time of a Gemini stream's small lines. valid says raw is valid JSON (the
// reader's own, or made of the values of a line that was validated in
// full); otherwise (values copied from a line whose framing alone was
// checked, Checked) its framing is checked here as it is indexed, and the
// rest is left to Validate, as for a decoder's line.
func (e *Event) RemakeWritten(raw []byte, source string, line int64, valid bool) error {
	own := append(e.own[:0], raw...)
	e.point(own, source, line, 0)
	e.own = own
	if err := e.frame(); err != nil {
		return newSyntaxError(source, line, 0, own, err)
	}
	e.classify()
	e.valid = valid
	return nil
}

// RemakeIndexed is RemakeWritten for JSON whose writer knows its
// top-level members: top, each member's key and value slices of raw as
// written (raw[i:j]), becomes the event's member index, moved onto its
// copy, rather than found again by a framing walk (on a Codex stream's
// small lines, the walk over each event written was a sixth of a run).
// The writer answers for raw being one object of those members.
func (e *Event) RemakeIndexed(raw []byte, top []jsonx.Member, source string, line int64, valid bool) {
	e.remakeIndexed(raw, top, source, line)
	e.classify()
	e.valid = valid
}

// remakeIndexed is RemakeIndexed up to the classification.
func (e *Event) remakeIndexed(raw []byte, top []jsonx.Member, source string, line int64) {
	own := append(e.own[:0], raw...)
	e.point(own, source, line, 0)
	e.own = own
	for _, m := range top {
		k, v := cap(raw)-cap(m.Key), cap(raw)-cap(m.Val)
		e.top = append(e.top, jsonx.Member{Key: own[k : k+len(m.Key)], Val: jsonx.Value(own[v : v+len(m.Val)])})
	}
	e.haveTop = true
}

// Class is an event's classification as its writer knows it: the
// discriminators and the Kind that classify would find in the JSON it
// wrote (RemakeClassified). The zero Class knows nothing.
type Class struct {
	Type, Subtype string
	Kind          Kind
}

// RemakeClassified is RemakeIndexed for JSON whose writer also knows its
// classification, cls (when cls.Type is set; else it is found, as
// RemakeIndexed finds it): the classifier read again what was just
// written, walking a tool call's input or a command's output to the
// block's type after it (a seventh of a Codex stream's types run). The
// writer answers for cls being what classify finds in raw, which a test
// of each writer checks over its real captures.
func (e *Event) RemakeClassified(raw []byte, top []jsonx.Member, cls Class, source string, line int64, valid bool) {
	if cls.Type == "" {
		e.RemakeIndexed(raw, top, source, line, valid)
		return
	}
	e.remakeIndexed(raw, top, source, line)
	e.Type, e.Subtype, e.Kind = cls.Type, cls.Subtype, cls.Kind
	e.valid = valid
}

// Checked reports whether the event's JSON is known to be valid in full
// (a CheckAll decoder's, or validated since), for a reader that copies
// its values into events of its own (RemakeWritten).
func (e *Event) Checked() bool { return e.valid }

// Remake aims e, an event made by NewEvent that its reader handed out
// before (and so may reuse at its next Next), at the line raw, copied into
// e's own buffer: what NewEvent does, without its allocations, for a
// reader that makes an event of each line it translates.
func (e *Event) Remake(raw []byte, source string, line int64) error {
	if err := jsonx.Validate(raw); err != nil {
		return newSyntaxError(source, line, 0, raw, err)
	}
	return e.RemakeWritten(raw, source, line, true)
}

// Echo is what a pass-through of the input prints for the event: its echo
// when set (SetEcho), else Raw; false when it stands for no line.
func (e *Event) Echo() ([]byte, bool) {
	if e.echoSet {
		return e.echo, len(e.echo) > 0
	}
	return e.Raw, true
}

// Echoed reports the echo set by SetEcho, and whether one was.
func (e *Event) Echoed() ([]byte, bool) { return e.echo, e.echoSet }

// SetParent says whose an event is: the Agent call whose subagent made it,
// for a reader that knows it other than from the event's own
// parent_tool_use_id (a transcript's subagent files).
func (e *Event) SetParent(id string) { e.setParent(id) }

func (e *Event) setParent(id string) {
	e.parent, e.hasParent = id, true
	if e.Kind == KindPrompt && id != "" {
		e.Kind = KindSubagentPrompt
	}
}

// AgentID returns the subagent id claude-code 2.1.328 writes on subagent
// events ("agent_id"; it equals the task_id of the task_* events), or "".
// A subagent's retry names its agent inside subagent_retry.
func (e *Event) AgentID() string {
	if id := e.field("agent_id"); id != nil || e.Kind != KindRetry {
		return id.Str()
	}
	return e.field("subagent_retry").Get("agent_id").Str()
}

// IsSubagent reports whether the event belongs to a subagent.
func (e *Event) IsSubagent() bool {
	if e.hasParent {
		return e.parent != ""
	}
	p := e.field("parent_tool_use_id")
	return p.Type() == jsonx.String && len(p) > 2
}

// Timestamp returns the event's "timestamp" string, or "".
func (e *Event) Timestamp() string { return e.field("timestamp").Str() }

// internTable holds the type and subtype names that are returned without
// allocating.
var internTable = func() map[string]string {
	m := map[string]string{"system": "system", "assistant": "assistant", "user": "user"}
	for k := range systemKinds {
		m[k] = k
	}
	for k := range otherKinds {
		m[k] = k
	}
	for _, k := range []string{"success", "error_during_execution", "error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"} {
		m[k] = k
	}
	// A stream_event's discriminators (Delta): a --include-partial-messages
	// run is mostly deltas.
	for _, k := range []string{"content_block_delta", "content_block_start", "content_block_stop", "message_start", "message_delta", "message_stop",
		"text_delta", "thinking_delta", "input_json_delta", "signature_delta",
		"text", "thinking", "tool_use", "redacted_thinking", "server_tool_use"} {
		m[k] = k
	}
	return m
}()

// intern returns the string value v decoded, without allocating when it is
// in internTable.
func intern(v jsonx.Value) string {
	if v.Type() != jsonx.String || len(v) < 2 {
		return ""
	}
	body := v[1 : len(v)-1]
	// The hot types without a map lookup (a tenth of final's time on short
	// lines).
	switch string(body) {
	case "assistant":
		return "assistant"
	case "user":
		return "user"
	case "stream_event":
		return "stream_event"
	case "system":
		return "system"
	case "thinking_tokens": // (the subtype of two lines in five of a real run)
		return "thinking_tokens"
	}
	if s, ok := internTable[string(body)]; ok {
		return s
	}
	return v.Str()
}

// discriminators finds the top-level "type" and "subtype". claude-code
// writes "type" first and "subtype" second on almost every line, so those
// are tried before a scan over all top-level keys (result lines of API-error
// turns put "type" last).
func discriminators(raw []byte) (typ, subtype string) {
	const tp = `{"type":"`
	if bytes.HasPrefix(raw, []byte(tp)) {
		rest := raw[len(tp):]
		if q := bytes.IndexByte(rest, '"'); q >= 0 && bytes.IndexByte(rest[:q], '\\') < 0 {
			typ = intern(jsonx.Value(raw[len(tp)-1 : len(tp)+q+1]))
			after := rest[q+1:]
			const st = `,"subtype":"`
			if bytes.HasPrefix(after, []byte(st)) {
				r2 := after[len(st):]
				if q2 := bytes.IndexByte(r2, '"'); q2 >= 0 && bytes.IndexByte(r2[:q2], '\\') < 0 {
					return typ, intern(jsonx.Value(after[len(st)-1 : len(st)+q2+1]))
				}
			}
			switch typ {
			case "assistant", "user", "stream_event":
				return typ, "" // the hot types; they have no subtype
			}
		}
	}
	var tv, sv jsonx.Value
	jsonx.Value(raw).EachMember(func(k []byte, val jsonx.Value) bool {
		switch string(k) {
		case "type":
			tv = val
		case "subtype":
			sv = val
		}
		return tv == nil || sv == nil
	})
	return intern(tv), intern(sv)
}

// indexedDiscriminators is discriminators read from the member index, in
// one pass over it: the last "type" and "subtype" win, as in jq.
func indexedDiscriminators(top []jsonx.Member) (typ, subtype string) {
	var tv, sv jsonx.Value
	for i := range top {
		k := top[i].Key
		if len(k) == 0 {
			continue
		}
		switch k[0] {
		case 't', 's', '\\':
		default:
			// A key that starts with another byte (ASCII or not)
			// decodes to a name that does not start with t or s.
			continue
		}
		switch {
		case string(k) == "type":
			tv = top[i].Val
		case string(k) == "subtype":
			sv = top[i].Val
		case bytes.IndexByte(k, '\\') < 0:
		case top[i].Is("type"): // an escaped key, "\u0074ype"
			tv = top[i].Val
		case top[i].Is("subtype"):
			sv = top[i].Val
		}
	}
	return intern(tv), intern(sv)
}

// classify computes an event's Kind from its discriminators and, for
// assistant and user events, the first content block.
func classify(e *Event) Kind {
	switch e.Type {
	case "system":
		if k, ok := systemKinds[e.Subtype]; ok {
			return k
		}
		return KindUnknown
	case "assistant":
		return classifyAssistant(e)
	case "user":
		return classifyUser(e)
	}
	if k, ok := otherKinds[e.Type]; ok {
		if k == KindProgress && e.head("subagent_retry").Type() == jsonx.Object {
			// A subagent's API retry: claude-code writes a subagent's
			// retries as tool_progress, the main agent's as api_retry.
			return KindRetry
		}
		return k
	}
	return KindUnknown
}

// head returns a top-level member for classification: from the member
// index when the framing check built one (nearly always), else found from
// the line's start without indexing the rest of the line (CheckEnds and
// CheckAll build none).
func (e *Event) head(key string) jsonx.Value {
	if e.haveTop {
		return jsonx.Lookup(e.top, key)
	}
	return e.v().Find(key)
}

func classifyAssistant(e *Event) Kind {
	// Classification reads only the head of the line (Find, not Get): the
	// keys it needs come before the long parts (text, tool input).
	msg := e.head("message")
	// Only claude-code's own synthetic messages (model "<synthetic>", the
	// first or fourth key of message) can be API errors; testing that first
	// keeps the top-level keys after a long message unread on every other
	// assistant line.
	if msg.Find("model").Trim().StrEqual("<synthetic>") && (e.field("is_api_error_message").Bool() || e.field("error").Type() == jsonx.String) {
		return KindAPIError
	}
	content := msg.Find("content")
	if content.Type() == jsonx.String {
		return KindText
	}
	return blockKind(content)
}

// blockKind is the kind of an assistant event by its first content block.
func blockKind(content jsonx.Value) Kind {
	switch block := content.First().Find("type").Trim(); {
	case block.StrEqual("text"):
		return KindText
	case block.StrEqual("thinking"), block.StrEqual("redacted_thinking"):
		return KindThinking
	case block.StrEqual("tool_use"), block.StrEqual("server_tool_use"), block.StrEqual("mcp_tool_use"):
		return KindToolUse
	}
	return KindUnknown
}

const interruptPrefix = "[Request interrupted by user"

func classifyUser(e *Event) Kind {
	content := e.head("message").Find("content")
	var text jsonx.Value
	switch content.Type() {
	case jsonx.String:
		text = content.Trim()
	case jsonx.Array:
		if content.First().Find("type").Trim().StrEqual("tool_result") {
			// The common case, decided without walking a long result.
			return KindToolResult
		}
		content = content.Trim()
		isResult := false
		content.Each(func(_ int, b jsonx.Value) bool {
			t := b.Get("type")
			if t.StrEqual("tool_result") {
				isResult = true
				return false
			}
			if text == nil && t.StrEqual("text") {
				text = b.Get("text")
			}
			return true
		})
		if isResult {
			return KindToolResult
		}
	}
	switch {
	case text.StrHasPrefix(interruptPrefix):
		return KindInterrupt
	case e.field("isSynthetic").Bool():
		// (a transcript's reminders and compaction summaries, which no one
		// typed, are spelled isMeta and isCompactSummary there)
		return KindSynthetic
	case e.field("parent_tool_use_id").Type() == jsonx.String:
		return KindSubagentPrompt
	}
	return KindPrompt
}

// Synthetic is the value of the "ccfilter" key of the events the
// transcript reader makes.
const Synthetic = "synthetic"
