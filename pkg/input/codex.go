package input

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Codex is the output of OpenAI's Codex CLI `codex exec --json`: one
// event per line (thread.started, turn.started, item.started /
// item.updated / item.completed, error, turn.completed, turn.failed).
const Codex Kind = "codex"

// codexCLI is the id the init this kind's reader makes carries
// (stream.CLIOf names it "Codex CLI").
const codexCLI = "codex"

// codexFormat recognises Codex's stream by its first event's type: the
// "thread." / "turn." / "item." families, which Claude Code's stream has
// none of.
var codexFormat = Format{
	Kind:   Codex,
	CLI:    codexCLI,
	Detect: isCodexEvent,
	Events: NewCodexReader,
}

// isCodexEvent recognises a line of the stream by its type: a thread.*,
// turn.* or item.* event, or an error event of Codex's shape.
func isCodexEvent(head []byte) bool {
	v := jsonx.Value(head)
	typ := v.Get("type").Str()
	if typ == "error" {
		// A stream error (a retry, or why the run stopped): a message
		// alone, where Gemini CLI's has a severity and a timestamp.
		return v.Get("message").Type() == jsonx.String && v.Get("severity").Type() == jsonx.Missing &&
			v.Get("timestamp").Type() == jsonx.Missing
	}
	return strings.HasPrefix(typ, "thread.") || strings.HasPrefix(typ, "turn.") || strings.HasPrefix(typ, "item.")
}

// codexReader yields Codex's stream as Claude Code's: each line is
// translated into the events Claude Code's stream has for the same thing
// (see codexTranslate), marked "ccfilter":"synthetic", with the line's
// number. A line it does not know is passed through as it is: an event of
// unknown kind, counted by types, never an error (Codex renames its
// events between releases without a version marker).
type codexReader struct {
	in    stream.Reader
	check stream.Check // the run's (DecoderOptions.Check), which want applies to the lines it passes over
	// head is the look at the head of the line the decoder reads next
	// (want's), when it read one.
	head codexHead
	opts stream.DecoderOptions
	// queue holds the events made of a line, handed out from queued on;
	// its array is reused from line to line (a slice cut from its front
	// lost its room, and a new array was made for nearly every line).
	queue  []*stream.Event
	queued int
	c      codexTranslator
	echo   echoes
	made   eventMaker
}

// echoes are the input's lines read and not yet given to an event as its
// echo (stream.Event.SetEcho): the next event made carries them, so a
// pass-through of the events prints the input's bytes, each line once,
// in their order, whatever the translation made of them. One buffer
// serves every line: the lines taken stay in it, as the event that
// carries them needs, until the reader's next line (an event's bytes are
// valid until its reader's next Next); a buffer per event was an
// allocation per line.
type echoes struct {
	b     []byte
	taken bool
}

// add keeps a line (copied: it is the reader's buffer).
func (e *echoes) add(line []byte) {
	if e.taken {
		e.b, e.taken = e.b[:0], false
	}
	if len(e.b) > 0 {
		e.b = append(e.b, '\n')
	}
	e.b = append(e.b, line...)
}

// take hands the lines kept over (nil when none).
func (e *echoes) take() []byte {
	if e.taken || len(e.b) == 0 {
		return nil
	}
	e.taken = true
	return e.b
}

// NewCodexReader returns the reader of a Codex `exec --json` stream.
func NewCodexReader(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
	inner := opts
	// The translated events, not the CLI's lines, are what the run
	// validates, screens and keeps.
	inner.Prepare, inner.Screen, inner.Want, inner.Spellings = nil, nil, nil, nil
	c := &codexReader{opts: opts, c: codexTranslator{kinds: opts.Kinds}}
	if opts.Kinds != 0 {
		// A line the run makes no event of is passed over at a look at
		// its head, before the decoder indexes or classifies it, checked
		// as the run asks (want).
		c.check = opts.Check
		inner.Want = c.want
	}
	if opts.Check != stream.CheckEnds {
		// Every line the decoder hands out is validated before it is read
		// (Next): in the pass that indexes it, not in a second one. (A
		// line Next passes over, one whose head want could not read, is
		// then validated in full too.)
		inner.Check = stream.CheckAll
	}
	c.in = stream.NewReader(r, inner)
	return c
}

// want is the decoder's DecoderOptions.Want: it turns down a line whose
// head (lookAtHead) says the run makes no event of it (passOver), once it
// has checked it as the decoder checks a line (its framing; in full with
// --full-check; with CheckEnds its framing too, which the head's reading
// needs): a line the check fails is left to the decoder, which reports it
// with its number. A line whose head it cannot read is read
// in full, as every line was before, and passed over there if it must
// be (Next): the same rule on the same types, the line spelled otherwise.
// The decoder calls it on the reader's goroutine, in Next.
func (c *codexReader) want(line []byte) bool {
	h, ok := lookAtHead(line)
	if !ok {
		c.head.line = nil
		return true
	}
	pass, msg := c.c.passOver(codexEventOf(string(h.typ)), h.item)
	if !pass {
		// (kept for Next, which reads the event of this same line)
		c.head = h
		return true
	}
	c.head.line = nil
	if !h.framed() || c.check == stream.CheckAll && jsonx.Validate(line) != nil {
		return true
	}
	if msg {
		c.c.msgs++
	}
	// (Not echoed: a line the run makes no event of is no line of what it
	// selects, and kept for the next event it was printed with it, a stray
	// turn.started in text -F ndjson, and piled up without bound on a run
	// of such lines.)
	return false
}

func (c *codexReader) Next() (*stream.Event, error) {
	for {
		if c.queued < len(c.queue) {
			ev := c.queue[c.queued]
			c.queued++
			return ev, nil
		}
		c.queue, c.queued = c.queue[:0], 0
		raw, err := c.in.Next()
		if err != nil {
			return nil, err
		}
		// (every event made before was handed out: they are made again)
		c.made.reset()
		// (a line want looked at is one it did not pass over)
		kept := c.head.line != nil && len(c.head.line) == len(raw.Raw) && &c.head.line[0] == &raw.Raw[0]
		c.head.line = nil
		if pass, msg := c.passOver(raw, kept); pass {
			if msg {
				c.c.msgs++
			}
			// No event of it is read, nor its line echoed (want). (A
			// line spelled otherwise than Codex writes it, which want
			// could not look at: validated by the decoder, as every line
			// it hands out.)
			continue
		}
		// Its values are copied into the events made of it, and kept (the
		// last message is the result's): validated in full first, so that
		// a bad line is reported with its number, and its values used
		// nowhere, as --full-check does. (Most lines are small; the long
		// ones, a command's output, are passed over by a run that prints
		// none.)
		if err := raw.Validate(); err != nil {
			return nil, err
		}
		made := c.c.translate(raw)
		if made != nil && len(made) == 0 {
			// A line of no event (turn.started): in a run that selects
			// what it reads, passed over; else handed out as it is, as
			// bookkeeping (stream.KindRecord: echoed by NDJSON's
			// pass-through, counted by types, shown by no view), not kept
			// for the next event's echo, which printed it with that
			// event (a stray turn.started in text -F ndjson) and piled
			// up without bound on a run of such lines.
			if c.opts.Kinds != 0 {
				continue
			}
			raw.Kind = stream.KindRecord
			return c.passThrough(raw)
		}
		if made == nil {
			if raw.Kind == stream.KindAPIError {
				// (an assistant event after it clears it: passOver)
				c.c.apiError = true
			}
			// Not a line Codex's stream is known to have: passed through
			// as it is; another CLI's line (a Claude Code stream after
			// this one in the same file) as of unknown kind, which the
			// command's look at such events says (cmd/ccfilter foreign.go).
			if k, _, ok := Recognise(raw.Raw); ok && k != Codex {
				raw.Kind = stream.KindUnknown
			}
			return c.passThrough(raw)
		}
		c.echo.add(raw.Raw)
		for _, v := range made {
			ev, err := c.made.make(v, raw, c.echo.take(), c.opts.Prepare)
			if err != nil {
				return nil, err
			}
			c.queue = append(c.queue, ev)
		}
	}
}

// passOver is codexTranslator.passOver on a line the decoder read, its
// item's type found in it (known not passed over when want kept it).
func (c *codexReader) passOver(raw *stream.Event, kept bool) (pass, msg bool) {
	if kept || c.c.kinds == 0 {
		return false, false // (without a look at the item)
	}
	var item jsonx.Value
	if strings.HasPrefix(raw.Type, "item.") {
		item = jsonx.Value(raw.Get("item")).Get("type")
	}
	return c.c.passOver(codexEventOf(raw.Type), item)
}

// passThrough hands out the line the decoder read as it is, prepared as
// the run prepares its events (it echoes itself: no line before it is
// held for an echo, as none of no event is).
func (c *codexReader) passThrough(raw *stream.Event) (*stream.Event, error) {
	if c.opts.Prepare != nil {
		if err := c.opts.Prepare(raw); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

func (c *codexReader) Buffered() bool { return c.queued < len(c.queue) || c.in.Buffered() }

func (c *codexReader) Close() error { return c.in.Close() }

// eventMaker makes a reader's own events. Their JSON is written into one
// buffer, reused from event to event, and each event is remade from it
// (its own copy) in an event handed out before: a new buffer and a new
// event per line were most of the allocations of a Codex stream's run.
type eventMaker struct {
	buf  []byte
	evs  []*stream.Event
	used int
}

// reset says every event made so far was handed out: the reader's next
// Next may remake them.
func (m *eventMaker) reset() { m.used = 0 }

// make is the event of v, at the line of src, echoing echo. Its JSON is
// not validated again: appendJSON writes valid JSON of its own and
// splices the line's values as they are, so the event is as valid as src
// (validated in full under CheckAll or since; else its framing is checked
// as it is indexed and the rest left to Event.Validate, as for a line the
// decoder hands out).
func (m *eventMaker) make(v any, src *stream.Event, echo []byte, prepare func(*stream.Event) error) (*stream.Event, error) {
	return m.makeAt(v, src.Source, src.Line, src.Checked(), echo, prepare)
}

// makeAt is make at source's line number line; valid says every value
// spliced into v was validated.
func (m *eventMaker) makeAt(v any, source string, line int64, valid bool, echo []byte, prepare func(*stream.Event) error) (*stream.Event, error) {
	var ev *stream.Event
	if w, ok := v.(*written); ok {
		ev = m.makeWritten(w, source, line, valid, echo)
	} else {
		ev = m.next()
		if mv, isMap := v.(map[string]any); isMap {
			mv["ccfilter"] = stream.Synthetic
		}
		m.buf = appendJSON(m.buf[:0], v)
		if err := ev.RemakeWritten(m.buf, source, line, valid); err != nil {
			return nil, err
		}
		ev.SetEcho(echo)
	}
	if prepare != nil {
		if err := prepare(ev); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// makeWritten is makeAt of w, for a caller that has it as it is: not
// boxed in an interface (an allocation per event), nor prepared.
func (m *eventMaker) makeWritten(w *written, source string, line int64, valid bool, echo []byte) *stream.Event {
	ev := m.next()
	ev.RemakeClassified(w.b, w.top, w.cls, source, line, valid)
	ev.SetEcho(echo)
	return ev
}

// next is an event to make: one handed out before, or a new one.
func (m *eventMaker) next() *stream.Event {
	if m.used == len(m.evs) {
		m.evs = append(m.evs, &stream.Event{})
	}
	m.used++
	return m.evs[m.used-1]
}

// appendJSON appends v as JSON: the few shapes the readers build (maps
// with their keys sorted, as encoding/json writes them; lists; strings;
// numbers; booleans; null), and json.RawMessage as it is: a value spliced
// from the input's line, whose long strings (a command's output, a
// message) are copied, not decoded and encoded again. eventMaker.make
// indexes the whole. (encoding/json's reflection and key sorting were most of a
// Codex stream's reading time.)
func appendJSON(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case string:
		return jsonx.AppendQuoted(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case commandInput:
		return append(requote(append(dst, `{"command":`...), jsonx.Value(v)), '}')
	case json.RawMessage:
		if len(v) == 0 {
			return append(dst, "null"...)
		}
		return append(dst, v...)
	case []string:
		dst = append(dst, '[')
		for i, s := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendQuoted(dst, s)
		}
		return append(dst, ']')
	case []any:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSON(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		var buf [16]string
		keys := buf[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonx.AppendQuoted(dst, k)
			dst = append(dst, ':')
			dst = appendJSON(dst, v[k])
		}
		return append(dst, '}')
	case map[string]int64:
		m := make(map[string]any, len(v))
		for k, n := range v {
			m[k] = n
		}
		return appendJSON(dst, m)
	}
	b, err := json.Marshal(v) // (a shape the readers do not build)
	if err != nil {
		return append(dst, "null"...)
	}
	return append(dst, b...)
}

// commandInput is a Bash call's input, {"command": the command}, written
// by appendJSON without a map (a tool call of most Codex turns): the
// command's value as the line spells it (requote).
type commandInput jsonx.Value

// requote appends the string value v as jsonx.AppendQuoted(dst, v.Str())
// writes it, from a line validated in full (Next validates every line it
// translates: no raw control or quote in a string): v's own bytes when
// they are what that writes (no escape, no U+2028 or U+2029, valid UTF-8),
// found at memory speed, rather than decoded into a new string and
// escaped again byte by byte (a command's heredoc, each call's id).
func requote(dst []byte, v jsonx.Value) []byte {
	if v.Type() == jsonx.String && len(v) >= 2 {
		body := v[1 : len(v)-1]
		if bytes.IndexByte(body, '\\') < 0 && bytes.IndexByte(body, 0xE2) < 0 && utf8.Valid(body) {
			return append(dst, v...)
		}
	}
	return jsonx.AppendQuoted(dst, v.Str())
}

// rawString is a string value of the input's line as it is (quotes and
// escapes), for appendJSON to copy; null when it is not a string. v is a
// member's value as an index or Get cut it (exact, never open-ended like
// Find's): a Trim here walked a command's whole output a second time.
func rawString(v jsonx.Value) json.RawMessage {
	if v.Type() != jsonx.String {
		return json.RawMessage("null")
	}
	return json.RawMessage(v)
}

// codexTranslator turns Codex's events into Claude Code's, keeping what
// the run's result is made of (the last agent message; the thread).
type codexTranslator struct {
	// kinds are the kinds of events the run reads (DecoderOptions.Kinds;
	// empty: all): of a line that stands for others only, no event is
	// made, though what it changes is kept (a subagent it starts).
	kinds  stream.KindSet
	thread string
	// w holds the events written for the line under way (written), blk
	// a content block being written; tops their members, offs the
	// offsets of the members of the one under way (open), from objAt.
	w, blk   []byte
	tops     []jsonx.Member
	itemTop  []jsonx.Member // the item's members (indexItem)
	offs     []int
	objAt    int
	out      []any           // the events of the line under way (list)
	ws       []written       // those written by hand (close)
	lastText json.RawMessage // the last agent message, as the line spells it (a copy)
	msgs     int
	// apiError says an event passed through as it is was an API error
	// (passOver).
	apiError bool
	spawned  map[string]string      // a subagent's thread → its spawn_agent call, until it ends
	totals   map[string]codexTokens // each thread's last total, for the last maxCodexThreads threads
	threads  []string               // those threads, the earliest first
	sum      codexTokens            // the input's: the threads' last totals added up
}

// maxCodexThreads bounds the threads whose last total is kept, so that a
// stream of many runs (a corpus of thousands of threads, concatenated)
// is read in the same memory as one: kept for all, the totals grew the
// heap to 28 MB on 300 MB of runs and the collector ran back to back
// (final 2.1 s, 0.9 s bounded). A thread resumed after this many others
// have ended has its earlier total counted again; a resume follows its
// run, in one stream or in the session files beside it.
const maxCodexThreads = 1024

// codexTokens are a turn.completed's usage, in the stream's meanings.
type codexTokens struct{ input, cached, written, output, reasoning int64 }

// codexBad are a turn.completed's counts that are none (past 64 bits,
// negative), as written, by place (nil: the count is one).
type codexBad [5]jsonx.Value

const (
	badInput = iota
	badCached
	badWritten
	badOutput
	badReasoning
)

// count appends the usage count at place i: the sum n, or the count as
// written when it was none (the tracker reads it as missing and says so).
func (bad *codexBad) count(b []byte, i int, n int64) []byte {
	if bad[i] != nil {
		return append(b, bad[i]...)
	}
	return strconv.AppendInt(b, n, 10)
}

// total keeps a thread's usage: after `codex exec resume` a thread's
// usage is its running total, so its later total replaces the earlier;
// the sum over the threads is kept as it goes (a corpus of many runs).
func (c *codexTranslator) total(t codexTokens) {
	if c.totals == nil {
		c.totals = map[string]codexTokens{}
	}
	old, known := c.totals[c.thread]
	if !known {
		if len(c.threads) == maxCodexThreads {
			// The earliest thread's total stays in the sum, for good.
			delete(c.totals, c.threads[0])
			c.threads = append(c.threads[:0], c.threads[1:]...)
		}
		c.threads = append(c.threads, c.thread)
	}
	c.totals[c.thread] = t
	s := c.sum
	c.sum = codexTokens{s.input - old.input + t.input, s.cached - old.cached + t.cached, s.written - old.written + t.written,
		s.output - old.output + t.output, s.reasoning - old.reasoning + t.reasoning}
}

// codexReconnect reads the text of a turn-level retry, "Reconnecting...
// 2/5 (unexpected status 401 Unauthorized: …)", as the regular expression
// ^Reconnecting\.\.\. (\d+)/(\d+) \((.*)\)$ would (the attempt, the most,
// the error), by hand: the expression was a sixth of a usage run on a
// stream of retries.
func codexReconnect(msg string) (attempt, most, why string, ok bool) {
	rest, found := strings.CutPrefix(msg, "Reconnecting... ")
	if !found {
		return "", "", "", false
	}
	attempt, rest = leadingDigits(rest)
	if attempt == "" || !strings.HasPrefix(rest, "/") {
		return "", "", "", false
	}
	most, rest = leadingDigits(rest[1:])
	if most == "" || !strings.HasPrefix(rest, " (") || !strings.HasSuffix(rest, ")") || len(rest) < 3 {
		return "", "", "", false
	}
	why = rest[2 : len(rest)-1]
	if strings.ContainsRune(why, '\n') { // ("." matches no newline)
		return "", "", "", false
	}
	return attempt, most, why, true
}

// leadingDigits splits s after its leading ASCII digits.
func leadingDigits(s string) (digits, rest string) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return s[:n], s[n:]
}

// codexStatus finds an HTTP status in an error's text ("unexpected status
// 401", "last status: 429"), as the regular expression status:? (\d{3})\b
// would (its first match).
func codexStatus(s string) (string, bool) {
	for i := 0; ; {
		at := strings.Index(s[i:], "status")
		if at < 0 {
			return "", false
		}
		rest := strings.TrimPrefix(s[i+at+len("status"):], ":")
		if d, after := leadingDigits(strings.TrimPrefix(rest, " ")); strings.HasPrefix(rest, " ") && len(d) == 3 &&
			(after == "" || !isWordByte(after[0])) {
			return d, true
		}
		i += at + 1
	}
}

// isWordByte reports whether c is a word character of a regular
// expression's \b (ASCII letters, digits, underscore).
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// translate returns the events ev stands for, nil to pass ev through.
func (c *codexTranslator) translate(ev *stream.Event) []any {
	// (the events of the line before were made: their bytes were copied)
	c.w, c.tops, c.ws = c.w[:0], c.tops[:0], c.ws[:0]
	// (its members read from the index the decoder's framing built, not
	// by a walk of the line for each)
	v := eventKeys{ev}
	switch ev.Type {
	case "thread.started":
		c.thread = v.Get("thread_id").Str()
		// Written as appendJSON writes the map it stands for (its keys
		// sorted), without the map.
		c.open()
		c.raw("cli", `"`+codexCLI+`"`)
		c.raw("mcp_servers", `[]`)
		c.str("session_id", c.thread)
		c.raw("subtype", `"init"`)
		c.raw("tools", `[]`)
		c.raw("type", `"system"`)
		return c.list(c.close().as("system", "init", stream.KindInit))
	case "turn.started":
		// Carries nothing: codex exec is one turn, its end the result.
		return c.list()
	case "item.started":
		item := c.indexItem(v.Get("item"))
		if call := c.toolUse(item); call != nil {
			return c.list(call)
		}
		return c.item(item, false)
	case "item.updated", "item.completed":
		return c.item(c.indexItem(v.Get("item")), ev.Type == "item.completed")
	case "error":
		return c.list(c.errorEvent(v.Get("message").Str()))
	case "turn.completed":
		u := v.Get("usage")
		// A count that is none (past 64 bits, negative) counts 0 and is
		// written as it is into the result's usage, where the tracker
		// reads it as missing and says so, as of a Claude Code line.
		var bad codexBad
		count := func(i int, key string) (k int64) {
			k, bad[i] = countOf(u.Get(key))
			return k
		}
		in, cached := count(badInput, "input_tokens"), count(badCached, "cached_input_tokens")
		if bad[badInput] == nil {
			bad[badInput] = bad[badCached] // (uncached is input - cached: not known either)
		}
		// Codex's input_tokens include the cached ones and its
		// output_tokens the reasoning ones: the stream's meanings are
		// uncached input, cache reads, and everything generated.
		t := codexTokens{max(in-cached, 0), cached, count(badWritten, "cache_write_input_tokens"), count(badOutput, "output_tokens"), count(badReasoning, "reasoning_output_tokens")}
		out := c.list()
		if _, again := c.totals[c.thread]; again {
			out = append(out, map[string]any{"type": "system", "subtype": "informational", "level": "info", "session_id": c.thread,
				"content": "thread " + c.thread + " resumed: Codex's usage is the thread's running total, so the later total replaces the earlier one (not added to it)"})
		}
		c.total(t)
		sum := c.sum
		last := c.lastText
		if last == nil {
			last = json.RawMessage(`""`)
		}
		// Written as appendJSON writes the maps it stands for (their keys
		// sorted), without the maps.
		c.result(false, last)
		c.raw("subtype", `"success"`)
		c.raw("type", `"result"`)
		c.key("usage")
		b := bad.count(append(c.w, `{"cache_creation_input_tokens":`...), badWritten, sum.written)
		b = bad.count(append(b, `,"cache_read_input_tokens":`...), badCached, sum.cached)
		b = bad.count(append(b, `,"input_tokens":`...), badInput, sum.input)
		b = bad.count(append(b, `,"output_tokens":`...), badOutput, sum.output)
		b = bad.count(append(b, `,"output_tokens_details":{"reasoning_tokens":`...), badReasoning, sum.reasoning)
		c.w = append(b, `}}`...)
		c.out = append(out, c.close().as("result", "success", stream.KindResult))
		return c.out
	case "turn.failed":
		if msg := v.Path("error", "message").Str(); msg != "" {
			if status, category := apiFailure(msg); status != 0 {
				// The API's error ended the run: said as Claude Code
				// says it, an API error message of its category, then
				// a result that is an error with the terminal reason
				// and the HTTP status (final: "api_error,
				// authentication_failed, HTTP 401").
				return c.list(map[string]any{"type": "assistant", "error": category, "parent_tool_use_id": nil, "session_id": c.thread,
					"message": map[string]any{"id": "codex_api_error_" + c.thread, "model": "<synthetic>", "role": "assistant", "type": "message",
						"content": []any{map[string]any{"type": "text", "text": msg}}}},
					map[string]any{"type": "result", "subtype": "success", "is_error": true, "num_turns": 1, "result": msg,
						"session_id": c.thread, "terminal_reason": "api_error", "api_error_status": status})
			}
			if contextExceeded(msg) {
				// Out of context window: said as Claude Code says its
				// prompt_too_long, a result that is an error with that
				// terminal reason (the stream's error line before it
				// is the notice that says it).
				return c.list(map[string]any{"type": "result", "subtype": "success", "is_error": true, "num_turns": 1, "result": msg,
					"session_id": c.thread, "terminal_reason": contextExhausted})
			}
		}
		c.result(true, rawString(v.Path("error", "message")))
		c.raw("subtype", `"error_during_execution"`)
		c.raw("type", `"result"`)
		return c.list(c.close().as("result", "error_during_execution", stream.KindResult))
	}
	return nil
}

// result opens a result event, written up to its session id: the
// members every result has.
func (c *codexTranslator) result(failed bool, text json.RawMessage) {
	c.open()
	c.key("is_error")
	c.w = strconv.AppendBool(c.w, failed)
	c.raw("num_turns", "1")
	c.key("result")
	c.w = append(c.w, text...)
	c.str("session_id", c.thread)
}

// open starts an event written by hand into the translator's buffer w,
// with its "ccfilter" mark, its members written in the order appendJSON
// writes a map's (keys sorted): the members are noted as they are
// written (key; close), so that the event is indexed as it is written
// (Event.RemakeIndexed) rather than framed again.
func (c *codexTranslator) open() {
	c.objAt, c.offs = len(c.w), c.offs[:0]
	c.w = append(c.w, '{')
	c.raw("ccfilter", `"`+stream.Synthetic+`"`)
}

// key starts a member of the event under way; its value is written next.
func (c *codexTranslator) key(k string) { c.w, c.offs = memberKey(c.w, c.offs, k) }

// memberKey appends to w the key k of the next member of an object being
// written, noting in offs (the object's, from its first member on) where
// the member before ends, and where k and the value written next begin:
// four offsets a member, from which its index is made as it is written
// (Event.RemakeIndexed) rather than found by framing it again.
func memberKey(w []byte, offs []int, k string) ([]byte, []int) {
	if len(offs) > 0 {
		offs = append(offs, len(w)) // (the end of the value before)
		w = append(w, ',')
	}
	at := len(w) + 1
	w = append(append(append(w, '"'), k...), `":`...)
	return w, append(offs, at, at+len(k), len(w))
}

// raw writes a member whose value is JSON as it is.
func (c *codexTranslator) raw(k, v string) {
	c.key(k)
	c.w = append(c.w, v...)
}

// str writes a member whose value is the string s.
func (c *codexTranslator) str(k, s string) {
	c.key(k)
	c.w = jsonx.AppendQuoted(c.w, s)
}

// close ends the event under way: its JSON and its members.
func (c *codexTranslator) close() *written {
	c.offs = append(c.offs, len(c.w))
	c.w = append(c.w, '}')
	b := c.w[c.objAt:len(c.w):len(c.w)]
	from := len(c.tops)
	for i := 0; i+3 < len(c.offs); i += 4 {
		o := c.offs[i : i+4]
		c.tops = append(c.tops, jsonx.Member{Key: b[o[0]-c.objAt : o[1]-c.objAt], Val: jsonx.Value(b[o[2]-c.objAt : o[3]-c.objAt])})
	}
	// (a pointer into ws: a written boxed into the line's list was an
	// allocation per event)
	c.ws = append(c.ws, written{b: b, top: c.tops[from:len(c.tops):len(c.tops)]})
	return &c.ws[len(c.ws)-1]
}

// eventKeys reads an event's members from its index (Event.Get) as
// jsonx.Value reads them from its bytes.
type eventKeys struct{ ev *stream.Event }

func (k eventKeys) Get(key string) jsonx.Value { return jsonx.Value(k.ev.Get(key)) }

func (k eventKeys) Path(keys ...string) jsonx.Value { return jsonx.Value(k.ev.Get(keys...)) }

// errorEvent is a top-level error's event: a turn-level retry
// ("Reconnecting... n/5 (…)") is the stream's api_retry; any other is a
// notice (the fatal error, which turn.failed repeats as the result).
func (c *codexTranslator) errorEvent(msg string) map[string]any {
	if a, m, why, ok := codexReconnect(msg); ok {
		attempt, _ := strconv.Atoi(a)
		most, _ := strconv.Atoi(m)
		r := map[string]any{"type": "system", "subtype": "api_retry", "attempt": attempt, "max_retries": most,
			"error": why, "session_id": c.thread}
		if s, ok := codexStatus(why); ok {
			r["error_status"], _ = strconv.Atoi(s)
		}
		return r
	}
	return map[string]any{"type": "system", "subtype": "informational", "level": "error", "content": msg, "session_id": c.thread}
}

// assistant is an assistant event of one content block, of kind k (the
// block's: text, thinking, tool_use; no model, so no API error).
// It is written as appendJSON writes the map it stands for (its keys
// sorted), without the maps: an assistant event is made of most of a
// Codex stream's lines (each tool call's start, each message).
func (c *codexTranslator) assistant(block []byte, k stream.Kind) *written {
	c.msgs++
	c.open()
	c.key("message")
	b := append(append(append(c.w, `{"content":[`...), block...), `],"id":"codex_msg_`...)
	b = strconv.AppendInt(b, int64(c.msgs), 10)
	c.w = append(b, `","role":"assistant","type":"message"}`...)
	c.raw("parent_tool_use_id", "null")
	c.str("session_id", c.thread)
	c.raw("type", `"assistant"`)
	return c.close().as("assistant", "", k)
}

// list is the events of a line: vs, in one list reused from line to
// line (the reader makes their events before it translates the next),
// never nil (nil: the line is passed through).
func (c *codexTranslator) list(vs ...any) []any {
	if c.out == nil {
		c.out = make([]any, 0, 4)
	}
	c.out = append(c.out[:0], vs...)
	return c.out
}

// written is an event's JSON as the reader wrote it (with its "ccfilter"
// mark; open), standing where a map of it would, its top-level members
// (slices of b) and its classification (as: the writer knows it, rather
// than the classifier reading it again; zero: not said).
type written struct {
	b   []byte
	top []jsonx.Member
	cls stream.Class
}

// as says w's classification: what stream's classifier finds in the JSON
// written (TestCodexDeclaredClassIsTheClassifiers checks it on every
// event of the captures).
func (w *written) as(typ, subtype string, k stream.Kind) *written {
	w.cls = stream.Class{Type: typ, Subtype: subtype, Kind: k}
	return w
}

// block writes a content block of its type with one member more (named
// key, sorted before "type"; value v's JSON as it is), into the
// translator's block buffer.
func (c *codexTranslator) block(typ, key string, v []byte) []byte {
	b := append(c.blk[:0], `{"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	b = append(b, v...)
	b = append(b, `,"type":"`...)
	b = append(b, typ...)
	c.blk = append(b, `"}`...)
	return c.blk
}

// codexToolName is the name a tool call of each item type is shown by:
// the stream's own tool where one does the same (a shell command is
// Bash; spawn_agent starts a subagent as Agent does), else Codex's.
func codexToolName(item codexItem) (string, any) {
	switch item.typ {
	case "command_execution":
		return "Bash", commandInput(item.Get("command"))
	case "file_change":
		var paths []string
		item.Get("changes").Each(func(_ int, ch jsonx.Value) bool {
			paths = append(paths, ch.Get("kind").Str()+" "+ch.Get("path").Str())
			return true
		})
		in := map[string]any{"changes": json.RawMessage(item.Get("changes"))}
		if len(paths) > 0 {
			_, in["file_path"], _ = strings.Cut(paths[0], " ")
			in["description"] = strings.Join(paths, ", ")
		}
		return "apply_patch", in
	case "mcp_tool_call":
		args := json.RawMessage(item.Get("arguments"))
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		// Named as Claude Code names an MCP server's tool.
		return "mcp__" + item.Get("server").Str() + "__" + item.Get("tool").Str(), args
	case "web_search":
		return "WebSearch", map[string]any{"query": item.Get("query").Str()}
	case "collab_tool_call":
		tool := item.Get("tool").Str()
		if tool == "spawn_agent" {
			p := item.Get("prompt").Str()
			return "Agent", map[string]any{"subagent_type": "codex", "description": codexHeadline(p, 60), "prompt": p, "run_in_background": true}
		}
		var ids []string
		item.Get("receiver_thread_ids").Each(func(_ int, id jsonx.Value) bool { ids = append(ids, id.Str()); return true })
		return tool, map[string]any{"description": strings.Join(ids, ", ")}
	}
	return "", nil
}

func codexHeadline(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// itemID is an item's exec id: the first "id" of the item (a web_search
// item has two, its exec id item_N first and the Responses id after it,
// which a JSON decoder that keeps the last would read).
func itemID(item codexItem) jsonx.Value {
	for _, m := range item.top {
		if string(m.Key) == "id" {
			return m.Val
		}
	}
	return nil
}

// codexItem is an item's object with its members indexed once: its
// translation reads up to a dozen of them, and a walk of the item for
// each (past a command's whole output, and on to look for the key
// again) was a third of a tools run.
type codexItem struct {
	top []jsonx.Member
	// typ is its "type", read once (codexItemType): the translation
	// tells items apart by it four or five times, and each Str made a
	// string of it.
	typ string
}

// Get is jsonx.Value.Get on the item (the last member of that key).
func (it codexItem) Get(key string) jsonx.Value { return jsonx.Lookup(it.top, key) }

// Path is jsonx.Value.Path on the item.
func (it codexItem) Path(keys ...string) jsonx.Value { return it.Get(keys[0]).Path(keys[1:]...) }

// indexItem indexes the members of item (none when it is not an
// object), in a buffer reused from line to line. item is the event's
// member as its index cut it (exact: no Trim, which walked the item to
// its end once more).
func (c *codexTranslator) indexItem(item jsonx.Value) codexItem {
	if item.Type() != jsonx.Object {
		return codexItem{}
	}
	// (the line was validated: no error)
	c.itemTop, _ = jsonx.Members(item, c.itemTop[:0])
	return codexItem{top: c.itemTop, typ: codexItemType(jsonx.Lookup(c.itemTop, "type"))}
}

// codexItemTypes are the item types the translator tells apart.
var codexItemTypes = append([]string{"agent_message", "reasoning", "todo_list", "error"}, codexToolTypes...)

// codexItemType is typ.Str() without a new string for the item types
// the translator knows (every item of a stream but a new one).
func codexItemType(typ jsonx.Value) string {
	for _, t := range codexItemTypes {
		if typ.StrEqual(t) {
			return t
		}
	}
	return typ.Str()
}

// toolUse is the tool_use event an item that is a tool call starts with;
// nil for other items.
func (c *codexTranslator) toolUse(item codexItem) any {
	name, input := codexToolName(item)
	if name == "" {
		return nil
	}
	// {"id","input","name","type"}, as appendJSON writes them.
	b := requote(append(c.blk[:0], `{"id":`...), itemID(item))
	b = appendJSON(append(b, `,"input":`...), input)
	b = jsonx.AppendQuoted(append(b, `,"name":`...), name)
	c.blk = append(b, `,"type":"tool_use"}`...)
	return c.assistant(c.blk, stream.KindToolUse)
}

// item translates a completed (or updated) item.
func (c *codexTranslator) item(item codexItem, completed bool) []any {
	switch item.typ {
	case "agent_message":
		c.lastText = append(c.lastText[:0], rawString(item.Get("text"))...)
		return c.list(c.assistant(c.block("text", "text", c.lastText), stream.KindText))
	case "reasoning":
		// The reasoning summaries (Codex shows no raw reasoning).
		return c.list(c.assistant(c.block("thinking", "thinking", rawString(item.Get("text"))), stream.KindThinking))
	case "todo_list":
		// The plan (update_plan): a notice, not a tool call; its
		// completion comes at the turn's end, after the answer.
		var lines []string
		item.Get("items").Each(func(_ int, t jsonx.Value) bool {
			mark := "[ ] "
			if t.Get("completed").Bool() {
				mark = "[x] "
			}
			lines = append(lines, mark+t.Get("text").Str())
			return true
		})
		return c.list(map[string]any{"type": "system", "subtype": "informational", "level": "info",
			"content": "plan: " + strings.Join(lines, "; "), "session_id": c.thread})
	case "error":
		// A warning (configuration, deprecation): the run goes on.
		return c.list(map[string]any{"type": "system", "subtype": "informational", "level": "warning",
			"content": item.Get("message").Str(), "session_id": c.thread})
	}
	if !completed {
		return nil
	}
	if !slices.Contains(codexToolTypes, item.typ) {
		return nil
	}
	out := c.list()
	if c.kinds.Has(stream.KindToolResult) {
		out = append(out, c.toolResult(item))
	} else {
		// (no result made, but the subagent it starts is known for its
		// end's task notification)
		c.spawn(item)
	}
	if c.out = append(out, c.subagentEnds(item)...); len(c.out) == 0 {
		return nil // (passed through as it is)
	}
	return c.out
}

// codexEvent is a Codex event type, as passOver tells them apart.
type codexEvent uint8

const (
	codexOther codexEvent = iota
	codexTurnStarted
	codexItemStarted
	codexItemUpdated
	codexItemCompleted
	codexError
)

func codexEventOf(typ string) codexEvent {
	switch typ {
	case "turn.started":
		return codexTurnStarted
	case "item.started":
		return codexItemStarted
	case "item.updated":
		return codexItemUpdated
	case "item.completed":
		return codexItemCompleted
	case "error":
		return codexError
	}
	return codexOther
}

// passOver reports whether the run reads no event made of a line of
// event type t (for an item.* event, its item's type item, a JSON string;
// read only then), a line that changes nothing the reader keeps, and
// whether that line would have made an assistant event (msg: its number
// is taken, so that the events made keep their ids). Passed over:
//   - a turn's start, of which no event is made;
//   - a tool item's end (the longest lines of a Codex stream, a command's
//     output) when the run reads no tool result (a collab_tool_call's
//     end, which starts and ends subagents, is read for that);
//   - an error (a retry or a notice) or a plan or warning item (a notice)
//     when it reads neither;
//   - a tool call's start and a reasoning item, when the run reads
//     neither tool results nor notices (final, text: the outcome's kinds):
//     such a run reads an assistant event that is not text only because
//     it clears an API error before it from the outcome, and Codex's
//     reader makes no API error (an error line is a retry or a notice, a
//     failed turn the result); unless a line passed through as it is was
//     one (apiError).
func (c *codexTranslator) passOver(t codexEvent, item jsonx.Value) (pass, msg bool) {
	if c.kinds == 0 {
		return false, false
	}
	notices := !c.kinds.Has(stream.KindNotice)
	results := c.kinds.Has(stream.KindToolResult)
	switch t {
	case codexTurnStarted:
		return true, false
	case codexError:
		return notices && !c.kinds.Has(stream.KindRetry), false
	case codexItemStarted, codexItemUpdated, codexItemCompleted:
	default:
		return false, false
	}
	if item.StrEqual("todo_list") || item.StrEqual("error") {
		return notices, false
	}
	outcome := notices && !results && !c.apiError
	if item.StrEqual("reasoning") {
		return outcome, outcome
	}
	if !codexToolItem(item) {
		return false, false
	}
	if t == codexItemCompleted {
		return !results && !item.StrEqual("collab_tool_call"), false
	}
	// (an update of a tool item is passed through as it is)
	return outcome && t == codexItemStarted, outcome
}

// codexToolItem reports whether an item of type typ is a tool call (one
// codexToolName names).
func codexToolItem(typ jsonx.Value) bool {
	for _, t := range codexToolTypes {
		if typ.StrEqual(t) {
			return true
		}
	}
	return false
}

// codexHead is what a look at a line's head found: the line, its event
// type and, for an item.* event, its item's type (a JSON string, quotes
// included) and where the item's object starts.
type codexHead struct {
	line, typ []byte
	item      jsonx.Value
	itemAt    int
}

// lookAtHead reads a line's event type, and its item's type, by a byte
// test, when the line is spelled as Codex writes it: {"type":"T",… or
// {"type":"T","item":{"id":"ID","type":"IT",… for an item.* event, with
// nothing after the head that could be read as a "type" key (no `ype"`
// anywhere after it, no \u escape anywhere), so that the types are those
// the decoder classifies the line by (a key written twice means its last
// value). An item.* line is then also one whose item is its last member
// (sole): framed, as want checks it. false: the line is read in full.
func lookAtHead(line []byte) (h codexHead, ok bool) {
	const pre, item, typ = `{"type":"`, `,"item":{"id":"`, `,"type":"`
	rest, found := bytes.CutPrefix(line, []byte(pre))
	if !found {
		return h, false
	}
	n := bytes.IndexByte(rest, '"')
	if n < 0 || bytes.IndexByte(rest[:n], '\\') >= 0 {
		return h, false
	}
	h.line, h.typ, rest = line, rest[:n], rest[n+1:]
	if bytes.HasPrefix(h.typ, []byte("item.")) {
		h.itemAt = len(line) - len(rest) + len(`,"item":`)
		if rest, found = bytes.CutPrefix(rest, []byte(item)); !found {
			return h, false
		}
		if n = bytes.IndexByte(rest, '"'); n < 0 || bytes.IndexByte(rest[:n], '\\') >= 0 {
			return h, false
		}
		if rest, found = bytes.CutPrefix(rest[n+1:], []byte(typ)); !found {
			return h, false
		}
		if n = bytes.IndexByte(rest, '"'); n < 0 || bytes.IndexByte(rest[:n], '\\') >= 0 {
			return h, false
		}
		at := len(line) - len(rest) - 1 // (its opening quote)
		h.item, rest = jsonx.Value(line[at:at+n+2:at+n+2]), rest[n+1:]
	}
	// (searched from their rarer first byte)
	return h, bytes.Index(rest, []byte(`ype"`)) < 0 && bytes.Index(line, []byte(`\u`)) < 0
}

// framed reports whether the line h looked at is framed (brackets
// balance, strings close, nothing after them), as
// jsonx.ValidateFraming; for an item.* event also that its item is its
// last member, so that no other "item" member after it is the one the
// decoder reads.
func (h *codexHead) framed() bool {
	if h.itemAt == 0 {
		return jsonx.ValidateFraming(h.line) == nil
	}
	last := len(h.line) - 1
	return h.line[last] == '}' && jsonx.ValidateFraming(h.line[h.itemAt:last]) == nil
}

// codexToolTypes are the item types codexToolName names.
var codexToolTypes = []string{"command_execution", "file_change", "mcp_tool_call", "web_search", "collab_tool_call"}

// subagentEnds are the task notifications of the subagents a
// collab_tool_call (wait, close_agent) says have ended: Codex's subagent
// runs beside its parent (spawn_agent returns at once), as a background
// Agent of Claude Code's does, and its end is known only from its state
// in a later call. Its own calls and usage are in its own session file,
// not in the parent's stream.
func (c *codexTranslator) subagentEnds(item codexItem) []any {
	if item.typ != "collab_tool_call" {
		return nil
	}
	var out []any
	item.Get("agents_states").EachMember(func(k []byte, st jsonx.Value) bool {
		thread, status := string(k), st.Get("status").Str()
		call, ok := c.spawned[thread]
		if !ok || status == "pending_init" || status == "running" || status == "" {
			return true
		}
		delete(c.spawned, thread)
		out = append(out, map[string]any{"type": "system", "subtype": "task_notification", "task_id": thread,
			"tool_use_id": call, "status": status, "summary": st.Get("message").Str(), "summary_is_report": true,
			"session_id": c.thread})
		return true
	})
	return out
}

// toolResult is the user event with the tool_result of a completed tool
// item: its output, failed when the item's status is "failed".
func (c *codexTranslator) toolResult(item codexItem) *written {
	failed := item.Get("status").StrEqual("failed")
	// The result's content: JSON as it is (output, a command's; spliced
	// after exitSaid when it says a failing exit code), else the string
	// content. (Written without boxing them, nor a map for the exit code,
	// which were most of the allocations of a command's line.)
	var output json.RawMessage
	var content string
	exit, exitSaid := int64(0), false
	hasExit := false
	switch item.typ {
	case "command_execution":
		output = rawString(item.Get("aggregated_output"))
		code := item.Get("exit_code")
		if code.Type() == jsonx.Number {
			exit, hasExit = code.Int(), true
			if exit != 0 && len(output) > 1 && output[0] == '"' {
				// As Claude Code's Bash result says a failing command's
				// exit code (spliced into the output's JSON string).
				exitSaid, failed = true, true
			}
		}
	case "file_change":
		var lines []string
		item.Get("changes").Each(func(_ int, ch jsonx.Value) bool {
			lines = append(lines, ch.Get("kind").Str()+" "+ch.Get("path").Str())
			return true
		})
		content = strings.Join(lines, "\n")
	case "mcp_tool_call":
		var parts []string
		item.Path("result", "content").Each(func(_ int, b jsonx.Value) bool {
			parts = append(parts, b.Get("text").Str())
			return true
		})
		if e := item.Get("error"); e.Type() != jsonx.Null && len(e) > 0 {
			failed = true
			if msg := e.Get("message").Str(); msg != "" {
				parts = append(parts, msg)
			} else {
				parts = append(parts, e.Str())
			}
		}
		content = strings.Join(parts, "\n")
	case "web_search":
		content = item.Get("query").Str()
	case "collab_tool_call":
		var parts []string
		item.Get("agents_states").EachMember(func(k []byte, st jsonx.Value) bool {
			s := string(k) + ": " + st.Get("status").Str()
			if m := st.Get("message").Str(); m != "" {
				s += ": " + m
			}
			parts = append(parts, s)
			return true
		})
		content = strings.Join(parts, "\n")
	}
	// A user event of one tool_result block, written as appendJSON writes
	// the map it stands for (its keys sorted), without the maps.
	agent, launched := c.spawn(item)
	c.open()
	c.key("message")
	b := append(c.w, `{"content":[{"content":`...)
	switch {
	case exitSaid:
		b = append(strconv.AppendInt(append(b, `"Exit code `...), exit, 10), `\n`...)
		b = append(b, output[1:]...)
	case output != nil:
		b = append(b, output...)
	default:
		b = jsonx.AppendQuoted(b, content)
	}
	b = strconv.AppendBool(append(b, `,"is_error":`...), failed)
	b = requote(append(b, `,"tool_use_id":`...), itemID(item))
	c.w = append(b, `,"type":"tool_result"}],"role":"user"}`...)
	c.raw("parent_tool_use_id", "null")
	c.str("session_id", c.thread)
	switch {
	case launched:
		// Launched, as a background Agent call is: its end comes later.
		c.key("tool_use_result")
		c.w = append(jsonx.AppendQuoted(append(c.w, `{"agentId":`...), agent), `,"status":"async_launched"}`...)
	case hasExit:
		c.key("tool_use_result")
		c.w = append(strconv.AppendInt(append(c.w, `{"exit_code":`...), exit, 10), '}')
	}
	c.raw("type", `"user"`)
	return c.close().as("user", "", stream.KindToolResult)
}

// spawn keeps the subagent a collab_tool_call spawn_agent item starts
// (until its end, subagentEnds) and returns its thread; false for another
// item.
func (c *codexTranslator) spawn(item codexItem) (string, bool) {
	if item.typ != "collab_tool_call" || !item.Get("tool").StrEqual("spawn_agent") {
		return "", false
	}
	agent := ""
	item.Get("receiver_thread_ids").Each(func(_ int, id jsonx.Value) bool { agent = id.Str(); return false })
	if agent != "" {
		if c.spawned == nil {
			c.spawned = map[string]string{}
		}
		c.spawned[agent] = itemID(item).Str()
	}
	return agent, true
}
