package input

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"slices"
	"strconv"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// The stream of gemini -p --output-format stream-json, translated line by
// line into Claude Code's stream (STREAMS.md §2, §3):
//
//	init                      → system/init ("cli":"gemini"; the model is the configured alias)
//	message role user         → user prompt
//	message role assistant    → stream_event text_delta (one per piece), and at the
//	  delta:true                turn's end one assistant text event joining them,
//	                            which echoes the pieces' lines (the pieces' events
//	                            echo none: each line is echoed once)
//	tool_use                  → assistant tool_use block (name, id, input)
//	tool_result               → user tool_result block (is_error: status "error", or a
//	                            shell command whose output gives a non-zero exit code)
//	error                     → an API error (severity error) or a notice
//	result                    → result (status error: is_error, error_max_turns for
//	                            FatalTurnLimitedError; stats: the run's totals)
//	anything else             → passed through as it is, kind unknown
//
// The stream names no model for a call and gives no per-call usage: its
// assistant events carry the model "<synthetic>" (Claude Code's own mark of
// a message no model call accounts for), so no call row is invented; the
// result's stats are the run's totals, by model (stats.models). After a
// stream retry Gemini sends the pieces already sent again, with nothing
// marking the restart: a piece that starts the turn's text over (the
// attempt's first piece again) starts a new attempt, the old one marked
// abandoned as Claude Code marks a broken stream, so the text is the one the
// user last saw, not doubled.

type geminiReader struct {
	w jw // the buffer events are written in (made copies them)
	// made makes the events, remaking those handed out before (valid
	// until the reader's next Next, as a decoder's).
	made  eventMaker
	in    stream.Reader
	opts  stream.DecoderOptions
	queue []*stream.Event
	ended bool
	err   error // a failure making an event, handed out in turn

	session  string
	sessionQ []byte // session written as a JSON string, once (it is in every event)
	// the turn's text: the pieces of the current attempt, joined
	msgID   string // the attempt's message id ("" when no text is open)
	msgIDQ  []byte // msgID written as a JSON string (in each of its pieces' events)
	attempt int
	text    []byte
	first   []byte // the attempt's first piece
	piece   []byte // the line's piece, decoded
	replay  int    // how much of text a restarted attempt has sent again; -1: not replaying
	// echo is the turn's piece lines (every attempt's), joined by '\n',
	// which its text event echoes; spans are where in echo each piece's
	// content lies (stream.Event.MarkEchoPieces). Kept when the run reads
	// text events; handed to the event at the turn's end.
	echo   []byte
	spans  [][2]int32
	textTS string
	textAt int64 // the line of the turn's first piece
	// lastText is the text after the last tool result: the answer.
	lastText  string
	lastError string
	// turns counts the model's responses: one begins with its first
	// piece of text or tool call after a prompt or a tool result
	// (Gemini's maxSessionTurns counts these: 11 stops after 2).
	turns    int
	answered bool // the current response has begun
	// tools names the open calls by id (a result names no tool): at most
	// maxOpenGeminiCalls, the oldest forgotten past that.
	tools     map[string]string
	toolOrder []string
	models    []string // appendResult's, kept
	// marshalled is the member index of the last event marshalled (make).
	marshalled  []jsonx.Member
	resultClass stream.Class            // the last result's (appendResult)
	modelUsage  map[string]gmModelUsage // the last result's (result)
	name        []byte                  // a model's name, quoted (result)
}

// The classes of the events the reader writes whose class it knows (jw's
// done): what classification finds of them, which need not read them
// again (TestGeminiEventsIndexedAsFramed). A prompt's is left to
// classification (its text can make it an interruption).
var (
	gmInitClass  = stream.Class{Type: "system", Subtype: "init", Kind: stream.KindInit}
	gmDelta      = stream.Class{Type: "stream_event", Kind: stream.KindDelta}
	gmText       = stream.Class{Type: "assistant", Kind: stream.KindText}
	gmToolUse    = stream.Class{Type: "assistant", Kind: stream.KindToolUse}
	gmToolResult = stream.Class{Type: "user", Kind: stream.KindToolResult}
)

// maxOpenGeminiCalls bounds the calls whose names are kept for their result.
const maxOpenGeminiCalls = 4096

// NewGeminiReader returns the reader of a Gemini CLI stream read from r.
func NewGeminiReader(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
	g := &geminiReader{opts: opts, replay: -1, tools: map[string]string{}}
	inner := opts
	if g.passes() {
		inner.Want = g.read
	}
	g.in = stream.NewReader(r, inner)
	return g
}

func (g *geminiReader) Next() (*stream.Event, error) {
	for {
		if g.err != nil {
			err := g.err
			g.err = nil
			return nil, err
		}
		if len(g.queue) > 0 {
			ev := g.queue[0]
			g.queue = g.queue[:copy(g.queue, g.queue[1:])]
			return ev, nil
		}
		if g.ended {
			return nil, io.EOF
		}
		// (every event made before was handed out: they are made again)
		g.made.reset()
		ev, err := g.in.Next()
		if err == io.EOF {
			g.ended = true
			g.flush() // a run cut off mid-text: no result (interrupted)
			continue
		}
		if err != nil {
			return nil, err
		}
		g.translate(ev)
	}
}

func (g *geminiReader) Buffered() bool { return len(g.queue) > 0 || g.ended || g.in.Buffered() }

func (g *geminiReader) Close() error { return g.in.Close() }

// translate queues the events the Gemini line ev stands for.
func (g *geminiReader) translate(ev *stream.Event) {
	v := topKeys{ev} // (the decoder's index of the line's members: each key found once)
	// (the timestamp as a string only where one is written from it: a
	// string made for every line was a tenth of the allocations)
	ts := func() string { return v.Get("timestamp").Str() }
	switch ev.Type {
	case "init":
		g.session = v.Get("session_id").Str()
		g.sessionQ = (&jw{}).str(g.session).b
		if !g.wants(stream.KindInit) {
			return
		}
		g.emitOwn(ev, g.appendInit(v.Get("model").Str(), ts()))
		return
	case "message":
		switch role := v.Get("role"); {
		case role.StrEqual("user"):
			g.flush()
			g.answered = false
			if !g.wants(stream.KindPrompt) {
				return
			}
			g.emit(ev, g.line("user", v.Get("timestamp"), "", "").raw(`"content":`).val(v.Get("content"), `""`).end(nil))
			return
		case role.StrEqual("assistant") && v.Get("delta").Bool():
			g.delta(ev, v.Get("content"), v.Get("timestamp"))
			return
		case role.StrEqual("assistant"):
			g.flush()
			g.delta(ev, v.Get("content"), v.Get("timestamp"))
			g.flush()
			return
		}
	case "tool_use":
		g.flush()
		g.respond()
		id := v.Get("tool_id").Str()
		if g.wants(stream.KindToolResult) {
			// (only a tool result's event reads the name)
			g.remember(id, v.Get("tool_name").Str())
		}
		if !g.wants(stream.KindToolUse) {
			return
		}
		g.emit(ev, g.line("assistant", v.Get("timestamp"), id, `"content":[{"type":"tool_use","id":`).val(v.Get("tool_id"), `""`).
			raw(`,"name":`).val(v.Get("tool_name"), `""`).raw(`,"input":`).val(v.Get("parameters"), `{}`).raw(`}]`).end(&gmToolUse))
		return
	case "tool_result":
		g.flush()
		g.answered = false
		g.lastText = ""
		id := v.Get("tool_id").Str()
		if !g.wants(stream.KindToolResult) {
			g.forget(id)
			return
		}
		content, failed := geminiOutcome(g.tools[id], v.Get("status").Str(), v.Get("output").Str(),
			v.Path("error", "type").Str(), v.Path("error", "message").Str())
		w := g.line("user", v.Get("timestamp"), "", `"content":[{"type":"tool_result","tool_use_id":`).val(v.Get("tool_id"), `""`).
			raw(`,"is_error":`).raw(strconv.FormatBool(failed)).raw(`,"content":`)
		if out := v.Get("output"); !failed && out.Type() == jsonx.String {
			w.val(out, `""`) // the output as it is, not decoded and written again
		} else {
			w.str(content)
		}
		w.raw(`}]}`)
		if g.tools[id] == geminiSubagent && !failed {
			w.key("tool_use_result").raw(`{"status":"completed"}`) // (the tracker's sign of a subagent's end)
		}
		g.forget(id)
		g.emit(ev, w.done(&gmToolResult))
		return
	case "error":
		g.flush()
		msg := v.Get("message").Str()
		if v.Get("severity").StrEqual("warning") {
			if !g.wants(stream.KindNotice) {
				return
			}
			g.emitValue(ev, map[string]any{"type": "system", "subtype": "informational", "ccfilter": stream.Synthetic,
				"content": msg, "level": "warning", "session_id": g.session, "timestamp": ts()})
			return
		}
		g.lastError = msg
		if !g.wants(stream.KindAPIError) {
			return
		}
		m := g.message("assistant", ts(), "", "")
		m.Message.Model, m.Message.Content = "<synthetic>", []gmBlock{{Type: "text", Text: str(msg)}}
		g.emitValue(ev, struct {
			gmEvent
			APIError bool   `json:"is_api_error_message"`
			Error    string `json:"error"`
		}{m, true, "unknown"})
		return
	case "result":
		g.flush()
		if !g.wants(stream.KindResult) {
			return
		}
		r := g.result(v, ts())
		g.emitOwn(ev, g.appendResult(&r))
		return
	}
	// A type (or role) this reader does not know: passed through as it
	// is, counted by types, never taken for one of Claude Code's (Gemini's
	// "result" is not).
	// (A copy: the queue's events are the reader's own, remade once
	// handed out; the decoder's is its own.)
	if !g.wants(stream.KindUnknown) {
		return
	}
	ev = ev.Clone()
	ev.Kind = stream.KindUnknown
	g.queue = append(g.queue, ev)
}

// geminiOutcome is a tool result's text and whether it failed: status
// "error" with its error type and message, or a shell command whose output
// gives a non-zero exit code (the status says success).
func geminiOutcome(tool, status, output, errType, errMsg string) (string, bool) {
	if status == "error" {
		what := errMsg
		if what == "" {
			what = output
		}
		if errType != "" {
			what = errType + ": " + what
		}
		return what, true
	}
	if tool == geminiShell {
		if code, ok := shellExitCode(output); ok && code != 0 {
			return output, true
		}
	}
	return output, false
}

// delta adds an assistant text piece to the turn's text, telling a
// restart (the attempt's first piece again, what Gemini sends after a
// stream retry) from more text.
func (g *geminiReader) delta(ev *stream.Event, content, tsv jsonx.Value) {
	// The pieces are the answer final and text print: each is validated
	// in full, as a Claude Code line those runs use is (the events made
	// of it are not validated again, and the joined text is written
	// anew); a bad one is reported as its line's error.
	if !ev.Checked() && jsonx.Validate(content.Trim()) != nil {
		if err := ev.Validate(); err != nil {
			g.err = err
			return
		}
	}
	g.respond()
	g.piece = content.AppendStr(g.piece[:0])
	piece := g.piece
	if g.msgID == "" {
		g.open(ev.Line, tsv.Str())
	}
	g.keepPiece(ev.Raw, content.Trim())
	if abandoned := g.add(piece); abandoned != "" {
		// The pieces sent so far are abandoned (as Claude Code marks a
		// broken stream's), the retry's are the text.
		if stop := g.marshalIf(stream.KindDelta, nil, map[string]any{"type": "stream_event", "ccfilter": stream.Synthetic,
			"event":            map[string]any{"type": "message_stop"},
			"abandoned_blocks": map[string]any{"api_message_id": abandoned, "from_block_index": 0},
			"session_id":       g.session, "timestamp": tsv.Str()}); stop != nil {
			stop.Line = ev.Line
			g.queue = append(g.queue, stop)
		}
	}
	if !g.wants(stream.KindDelta) {
		return
	}
	w := g.w.start().key("type").raw(`"stream_event"`).key("ccfilter").raw(`"synthetic"`).
		key("event").raw(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`).val(content, `""`).raw(`}}`).
		key("api_message_id").quoted(g.msgIDQ).key("session_id").quoted(g.sessionQ)
	if len(tsv) > 0 {
		w.key("timestamp").val(tsv, `""`)
	}
	// Of its line's values, the event copies the piece, validated above,
	// and the timestamp: valid when that is, and not validated again in
	// full by the run that prints the pieces (text). It echoes no line:
	// the turn's text event echoes the pieces' lines (keepPiece).
	own := len(tsv) == 0 || jsonx.Validate(tsv.Trim()) == nil
	g.queueMade(g.makeAt(ev, w.done(&gmDelta), own, nil, nil))
}

// keepPiece adds line, a piece of the turn's text whose content is the
// JSON string content (a slice of line), to the lines the turn's text
// event echoes, when the run reads text events and prints events' lines
// (not DecoderOptions.NoEcho: final on 30 MB of Gemini streams counted
// 9% more instructions keeping them). The text event, not the
// pieces', stands for the lines: it is the one event text, --where and
// --agent pick, so that text -F ndjson prints the lines of the text it
// shows, each once, and a pass-through (-F ndjson) still prints every line
// once, in its place: the pieces come before the line that ends the turn,
// where the text event is made.
func (g *geminiReader) keepPiece(line, content []byte) {
	if !g.wants(stream.KindText) || g.opts.NoEcho {
		return // (no text event made, or no line of one printed)
	}
	if len(g.echo) > 0 {
		g.echo = append(g.echo, '\n')
	}
	at := len(g.echo)
	g.echo = append(g.echo, line...)
	// (Where content starts in line, by its address: a line is often
	// cut to its length, so capacities do not tell.)
	for off := 0; len(content) > 0 && off+len(content) <= len(line); off++ {
		if &line[off] == &content[0] {
			g.spans = append(g.spans, [2]int32{int32(at + off), int32(at + off + len(content))})
			return
		}
	}
}

// add adds piece to the open text: more text, or, when it is the
// attempt's first piece again (the stream was retried), the start of a new
// attempt, whose message id it then returns the old one of ("" else).
func (g *geminiReader) add(piece []byte) (abandoned string) {
	switch {
	case g.replay >= 0:
		if rest := g.text[g.replay:]; bytes.HasPrefix(rest, piece) {
			g.replay += len(piece)
		} else {
			// the retry says otherwise from here on: its text stands
			g.text = append(g.text[:g.replay], piece...)
			g.replay = len(g.text)
		}
	case len(piece) > 0 && bytes.Equal(piece, g.first) && bytes.HasPrefix(g.text, piece):
		// Sent again: the stream was retried.
		abandoned = g.msgID
		g.attempt++
		g.setMsgID(g.attemptID())
		g.replay = len(piece)
	default:
		g.text = append(g.text, piece...)
	}
	if g.replay >= len(g.text) {
		g.replay = -1
	}
	if len(g.first) == 0 {
		g.first = append(g.first, piece...) // (piece is the reader's buffer)
	}
	return abandoned
}

// wants reports whether the consumer reads events of kind k: the reader
// makes no other (their lines still change its state), DecoderOptions.Kinds.
func (g *geminiReader) wants(k stream.Kind) bool { return g.opts.Kinds.Has(k) }

// respond counts a model response at its first text or call.
func (g *geminiReader) respond() {
	if !g.answered {
		g.answered = true
		g.turns++
	}
}

// open starts a turn's text.
func (g *geminiReader) open(line int64, ts string) {
	g.attempt++
	g.setMsgID(g.attemptID())
	g.textAt, g.textTS = line, ts
	g.text, g.first, g.replay = g.text[:0], g.first[:0], -1
}

// setMsgID sets the attempt's message id.
func (g *geminiReader) setMsgID(id string) {
	g.msgID = id
	g.msgIDQ = (&jw{b: g.msgIDQ[:0]}).str(id).b
}

// attemptID is the message id of the current attempt: the stream gives
// none, so the session and a count make one.
func (g *geminiReader) attemptID() string {
	return "gemini-" + g.session + "-" + itoa(g.attempt)
}

// flush ends the turn's text: one assistant text event joining its
// pieces, which echoes their lines (keepPiece).
func (g *geminiReader) flush() {
	if g.msgID == "" {
		return
	}
	text := string(g.text)
	g.lastText = text
	if len(g.text) > 0 && g.wants(stream.KindDelta) {
		// The pieces' block ends, as a Claude Code stream's does: what
		// printed them as they came (text) ends the turn's line there,
		// not after the next turn's text.
		w := g.w.start().key("type").raw(`"stream_event"`).key("ccfilter").raw(`"synthetic"`).
			key("event").raw(`{"type":"content_block_stop","index":0}`).
			key("api_message_id").quoted(g.msgIDQ).key("session_id").quoted(g.sessionQ)
		if ev := g.make(nil, w.done(&gmDelta), true); ev != nil {
			ev.Line = g.textAt
			g.queue = append(g.queue, ev)
		}
	}
	if g.wants(stream.KindText) {
		var ts jsonx.Value
		if g.textTS != "" {
			ts, _ = json.Marshal(g.textTS)
		}
		w := g.line("assistant", ts, g.msgID, `"content":[{"type":"text","text":`).str(text).raw(`}]`)
		// (the event keeps the pieces' lines: the next turn's are kept in
		// a buffer of their own)
		echo, spans := g.echo, g.spans
		g.echo, g.spans = nil, nil
		if ev := g.makeAt(nil, w.end(&gmText), false, echo, spans); ev != nil {
			ev.Line = g.textAt // where the text starts
			g.queue = append(g.queue, ev)
		}
	}
	g.setMsgID("")
	g.text, g.first, g.replay = g.text[:0], g.first[:0], -1
}

// line starts a user or assistant event of the stream's shape: its
// message (id, when set) up to content, which the caller writes from
// there (content begins it), then end closes it. Written by hand from
// the Gemini line's own JSON tokens, not decoded and encoded again: the
// stream's lines are many and small (docs/performance.md).
func (g *geminiReader) line(role string, ts jsonx.Value, id, content string) *jw {
	w := g.w.start().key("type").raw(`"`).raw(role).raw(`"`).key("ccfilter").raw(`"synthetic"`).key("parent_tool_use_id").raw("null").
		key("session_id").quoted(g.sessionQ)
	if len(ts) > 0 {
		w.key("timestamp").val(ts, `""`)
	}
	w.key("message").raw(`{"role":"`).raw(role).raw(`"`)
	if role == "assistant" {
		w.raw(`,"model":"<synthetic>"`) // no model call the stream accounts for
	}
	if id != "" {
		w.raw(`,"id":`).str(id)
	}
	return w.raw(",").raw(content)
}

// message is a user or assistant event of the stream's shape with a text.
func (g *geminiReader) message(role, ts, id, text string) gmEvent {
	m := gmEvent{Type: role, CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: ts,
		Message: gmMessage{ID: id, Role: role, Content: text}}
	if role == "assistant" {
		m.Message.Model = "<synthetic>" // no model call the stream accounts for
	}
	return m
}

// blocks is a user or assistant event holding content blocks.
func (g *geminiReader) blocks(role, ts, id string, b ...gmBlock) gmEvent {
	m := g.message(role, ts, id, "")
	m.Message.Content = b
	return m
}

// result is the run's result: its status, the answer (the text after the
// last tool result), and stats as the run's totals, by model.
func (g *geminiReader) result(v topKeys, ts string) gmResult {
	st := v.Get("stats")
	r := gmResult{Type: "result", Subtype: "success", CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: ts, NumTurns: g.turns}
	if st.Type() == jsonx.Object {
		// One walk over the stats for the run's counts, its duration and
		// its models (a Get of each walked the models again: a tenth of
		// final on a stream of short runs). As with Get, a key written
		// twice counts its last value.
		var c geminiCount
		var dur, models jsonx.Value
		st.EachMember(func(k []byte, n jsonx.Value) bool {
			switch m := (jsonx.Member{Key: k}); {
			case m.Is("duration_ms"):
				dur = n
			case m.Is("models"):
				models = n
			default:
				c.read(m, n)
			}
			return true
		})
		if dur.Type() == jsonx.Number {
			n := dur.Int()
			r.DurationMs = &n
		}
		u := c.tokens()
		r.Usage = &u
		models.EachMember(func(k []byte, m jsonx.Value) bool {
			u := geminiCounts(m)
			if r.ModelUsage == nil {
				// (one map, emptied for each result: appendResult has
				// written the last one's)
				clear(g.modelUsage)
				if g.modelUsage == nil {
					g.modelUsage = map[string]gmModelUsage{}
				}
				r.ModelUsage = g.modelUsage
			}
			g.name = append(append(append(g.name[:0], '"'), k...), '"')
			r.ModelUsage[jsonx.Value(g.name).Str()] = gmModelUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadInputTokens: u.CacheReadInputTokens, bad: u.bad}
			return true
		})
	}
	if v.Get("status").StrEqual("error") {
		r.IsError, r.Subtype = true, "error_during_execution"
		if v.Path("error", "type").StrEqual(geminiMaxTurns) {
			r.Subtype = "error_max_turns"
		}
		msg := v.Path("error", "message").Str()
		if msg == "" {
			msg = g.lastError
		}
		if msg == "" {
			msg = "the run ended with status error"
		}
		if status, category := apiFailure(msg); status != 0 && r.Subtype == "error_during_execution" {
			// The API's error ended the run: said as Claude Code says it,
			// an API error message, then a result that is an error
			// (is_error) with the terminal reason and the HTTP status.
			g.apiError(msg, category, ts)
			r.Subtype, r.Result, r.TerminalReason, r.APIErrorStatus = "success", str(msg), "api_error", status
			return r
		}
		r.Errors = []string{msg}
		return r
	}
	r.Result = str(g.lastText)
	return r
}

// apiError queues the API error message that ended the run, as Claude
// Code's stream has it: a synthetic assistant message (model
// "<synthetic>") with the error's text and its category ("error").
func (g *geminiReader) apiError(msg, category, ts string) {
	g.emitValue(nil, map[string]any{"type": "assistant", "ccfilter": stream.Synthetic, "parent_tool_use_id": nil,
		"session_id": g.session, "timestamp": ts, "error": category,
		"message": map[string]any{"id": "gemini-" + g.session + "-api-error", "model": "<synthetic>", "role": "assistant", "type": "message",
			"content": []any{map[string]any{"type": "text", "text": msg}}}})
}

// appendInit writes the init of the run: as json.Marshal writes
// gmInit{Type: "system", Subtype: "init", CCFilter, CLI, SessionID, Model,
// Timestamp, Tools: [], MCPServers: []}, by hand (a marshal per run was a
// tenth of final on a stream of short runs).
func (g *geminiReader) appendInit(model, ts string) written {
	w := g.w.start().key("type").raw(`"system"`).key("subtype").raw(`"init"`).key("ccfilter").raw(`"synthetic"`).
		key("cli").raw(`"` + geminiCLI + `"`).key("session_id").quoted(g.sessionQ).key("model").str(model)
	if ts != "" {
		w.key("timestamp").str(ts)
	}
	return w.key("tools").raw(`[]`).key("mcp_servers").raw(`[]`).done(&gmInitClass)
}

// appendResult writes r as json.Marshal writes a gmResult (its members in
// their order, the models' sorted by name), by hand: a marshal per run was
// a tenth of final's time on a stream of short runs
// (TestGeminiResultWrittenAsMarshalled).
func (g *geminiReader) appendResult(r *gmResult) written {
	w := g.w.start().key("type").str(r.Type).key("subtype").str(r.Subtype).key("ccfilter").str(r.CCFilter).
		key("is_error").raw(strconv.FormatBool(r.IsError))
	if r.Result != nil {
		w.key("result").str(*r.Result)
	}
	if len(r.Errors) > 0 {
		w.key("errors").raw(`[`)
		for i, e := range r.Errors {
			if i > 0 {
				w.raw(",")
			}
			w.str(e)
		}
		w.raw("]")
	}
	if r.TerminalReason != "" {
		w.key("terminal_reason").str(r.TerminalReason).key("api_error_status").int(int64(r.APIErrorStatus))
	}
	if r.DurationMs != nil {
		w.key("duration_ms").int(*r.DurationMs)
	}
	w.key("num_turns").int(int64(r.NumTurns))
	if r.SessionID != "" {
		w.key("session_id").str(r.SessionID)
	}
	if r.Timestamp != "" {
		w.key("timestamp").str(r.Timestamp)
	}
	if u := r.Usage; u != nil {
		w.key("usage").raw(`{"input_tokens":`).count(u.bad[0], u.InputTokens).raw(`,"cache_creation_input_tokens":`).int(u.CacheCreationInputTokens).
			raw(`,"cache_read_input_tokens":`).count(u.bad[1], u.CacheReadInputTokens).raw(`,"output_tokens":`).count(u.bad[2], u.OutputTokens).raw("}")
	}
	if len(r.ModelUsage) > 0 {
		g.models = g.models[:0]
		for name := range r.ModelUsage {
			g.models = append(g.models, name)
		}
		slices.Sort(g.models)
		w.key("modelUsage").raw(`{`)
		for i, name := range g.models {
			if i > 0 {
				w.raw(",")
			}
			m := r.ModelUsage[name]
			w.str(name).raw(`:{"inputTokens":`).count(m.bad[0], m.InputTokens).raw(`,"outputTokens":`).count(m.bad[2], m.OutputTokens).
				raw(`,"cacheReadInputTokens":`).count(m.bad[1], m.CacheReadInputTokens).raw(`,"cacheCreationInputTokens":`).int(m.CacheCreationInputTokens).raw("}")
		}
		w.raw("}")
	}
	g.resultClass = stream.Class{Type: "result", Subtype: r.Subtype, Kind: stream.KindResult}
	return w.done(&g.resultClass)
}

// geminiCounts reads a Gemini token count object (the run's stats or a
// model's) in one walk, geminiTokens of its counts: a Get per count walked
// it four times, a tenth of final's time on a stream of short runs. As
// with Get, a key written twice counts its last value.
func geminiCounts(v jsonx.Value) gmUsage {
	var c geminiCount
	v.EachMember(func(k []byte, n jsonx.Value) bool {
		c.read(jsonx.Member{Key: k}, n)
		return true
	})
	return c.tokens()
}

// geminiCount is a token count object's counts, read member by member.
type geminiCount struct {
	input, cached, output, total int64
	bad                          [4]jsonx.Value // the counts that were none, as written (countOf)
}

// read reads the member m (its key), whose value is n, when it is a count.
func (c *geminiCount) read(m jsonx.Member, n jsonx.Value) {
	switch {
	case m.Is("input_tokens"):
		c.input, c.bad[0] = countOf(n)
	case m.Is("cached"):
		c.cached, c.bad[1] = countOf(n)
	case m.Is("output_tokens"):
		c.output, c.bad[2] = countOf(n)
	case m.Is("total_tokens"):
		c.total, c.bad[3] = countOf(n)
	}
}

// countOf reads n as a count: 0 and n itself when it is a number that is
// none (past 64 bits, negative), which the usage written then holds as it
// is, for the tracker to read as missing and say so, as of a Claude Code
// line.
func countOf(n jsonx.Value) (int64, jsonx.Value) {
	k, ok := n.IntOK()
	if n.Type() == jsonx.Number && (!ok || k < 0) {
		return 0, n.Trim()
	}
	return k, nil
}

// tokens are the stream's four counts of them (geminiTokens), with the
// counts that are none where they go: uncached input is input - cached,
// output total - input or output.
func (c *geminiCount) tokens() gmUsage {
	u := geminiTokens(c.input, c.cached, c.output, c.total)
	u.bad = [3]jsonx.Value{first(c.bad[0], c.bad[1]), c.bad[1], first(c.bad[2], c.bad[3])}
	return u
}

func first(a, b jsonx.Value) jsonx.Value {
	if a != nil {
		return a
	}
	return b
}

func (g *geminiReader) remember(id, name string) {
	if _, ok := g.tools[id]; !ok {
		g.toolOrder = append(g.toolOrder, id)
	}
	g.tools[id] = name
	if len(g.toolOrder) > maxOpenGeminiCalls {
		delete(g.tools, g.toolOrder[0])
		g.toolOrder = g.toolOrder[1:]
	}
}

func (g *geminiReader) forget(id string) { delete(g.tools, id) }

// emit queues the event w, standing for the line src, written of its
// values and the reader's own.
func (g *geminiReader) emit(src *stream.Event, w written) { g.queueMade(g.make(src, w, false)) }

// emitOwn is emit of an event written of the reader's own values only
// (str, raw, int; no val of a line's token): valid whatever the line.
func (g *geminiReader) emitOwn(src *stream.Event, w written) { g.queueMade(g.make(src, w, true)) }

// emitValue is emit of v marshalled.
func (g *geminiReader) emitValue(src *stream.Event, v any) { g.queueMade(g.marshal(src, v)) }

func (g *geminiReader) queueMade(ev *stream.Event) {
	if ev != nil {
		g.queue = append(g.queue, ev)
	}
}

// marshalIf is marshal when the consumer reads events of kind k, else nil.
func (g *geminiReader) marshalIf(k stream.Kind, src *stream.Event, v any) *stream.Event {
	if !g.wants(k) {
		return nil
	}
	return g.marshal(src, v)
}

// marshal is make of v marshalled (the rare events: a notice, an API
// error, a restart), indexed by a walk of it.
func (g *geminiReader) marshal(src *stream.Event, v any) *stream.Event {
	b, err := json.Marshal(v)
	if err == nil {
		g.marshalled, err = jsonx.Members(b, g.marshalled[:0])
	}
	if err != nil {
		g.err = err
		return nil
	}
	return g.make(src, written{b: b, top: g.marshalled}, true)
}

// make is the event w, at src's line, echoing src's bytes (none when src
// is nil), prepared as the decoder prepares the lines it reads. Written by
// hand, it is as valid as the values of src it copies (own: it copies
// none, or marshalled).
func (g *geminiReader) make(src *stream.Event, w written, own bool) *stream.Event {
	var echo []byte
	if src != nil {
		echo = src.Raw
	}
	return g.makeAt(src, w, own, echo, nil)
}

// makeAt is make of an event at src's line (none when src is nil) that
// echoes echo, the pieces of its text at spans in it (none: not a text
// joined of pieces; stream.Event.MarkEchoPieces).
func (g *geminiReader) makeAt(src *stream.Event, w written, own bool, echo []byte, spans [][2]int32) *stream.Event {
	var line, off int64
	if src != nil {
		line, off = src.Line, src.Offset
	}
	ev := g.made.makeWritten(&w, g.opts.Source, line, own || src == nil || src.Checked(), echo)
	ev.MarkEchoPieces(spans)
	ev.Offset = off
	if g.opts.Prepare != nil {
		if err := g.opts.Prepare(ev); err != nil {
			g.err = err
			return nil
		}
	}
	return ev
}

// makeEvent marshals v into an event echoing src (the line it stands
// for; nil: none) at its line, and runs the decoder's Prepare on it (the
// redaction of its values, the run's validation).
func makeEvent(v any, opts stream.DecoderOptions, src *stream.Event) (*stream.Event, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var line int64
	if src != nil {
		line = src.Line
	}
	ev := &stream.Event{}
	if err := ev.RemakeWritten(b, opts.Source, line, true); err != nil {
		return nil, err
	}
	if src != nil {
		ev.Offset = src.Offset
		ev.SetEcho(src.Raw)
	} else {
		ev.SetEcho(nil)
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(ev); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// jw writes an event's JSON: what is written by hand (raw), a Gemini
// line's own token (val) and a string of the reader's (str). Its
// top-level members are noted as they are written (key; done), so that
// the event is indexed as it is written (Event.RemakeIndexed, as Codex's
// are) rather than framed again: that walk over each event written was a
// sixth of a run on the stream's small lines.
type jw struct {
	b []byte
	// offs are the offsets in b of each member's key (start, end) and
	// value (start, end), top the members done made of them.
	offs []int
	top  []jsonx.Member
}

// start begins an event.
func (w *jw) start() *jw {
	w.b, w.offs = append(w.b[:0], '{'), w.offs[:0]
	return w
}

// key begins a top-level member of the event; its value is written next.
func (w *jw) key(k string) *jw {
	w.b, w.offs = memberKey(w.b, w.offs, k)
	return w
}

// done ends the event: its JSON and its members (valid until the next
// start), and its class c when the writer knows it (nil: the event is
// classified from its JSON).
func (w *jw) done(c *stream.Class) written {
	w.offs = append(w.offs, len(w.b))
	w.b = append(w.b, '}')
	w.top = w.top[:0]
	for o := w.offs; len(o) >= 4; o = o[4:] {
		w.top = append(w.top, jsonx.Member{Key: w.b[o[0]:o[1]], Val: jsonx.Value(w.b[o[2]:o[3]])})
	}
	var cls stream.Class // (the zero Class: classified from its JSON)
	if c != nil {
		cls = *c
	}
	return written{w.b, w.top, cls}
}

func (w *jw) raw(s string) *jw { w.b = append(w.b, s...); return w }

// val writes v's JSON as it is, or def when v is missing.
func (w *jw) val(v jsonx.Value, def string) *jw {
	if t := v.Trim(); len(t) > 0 {
		w.b = append(w.b, t...)
	} else {
		w.b = append(w.b, def...)
	}
	return w
}

// quoted writes q, a JSON string str wrote before ("" when none was).
func (w *jw) quoted(q []byte) *jw {
	if len(q) == 0 {
		return w.str("")
	}
	w.b = append(w.b, q...)
	return w
}

// int writes n.
func (w *jw) int(n int64) *jw { w.b = strconv.AppendInt(w.b, n, 10); return w }

// count writes the count n, or bad as it is when the input's was none.
func (w *jw) count(bad jsonx.Value, n int64) *jw {
	if bad != nil {
		w.b = append(w.b, bad...)
		return w
	}
	return w.int(n)
}

// str writes s as a JSON string.
func (w *jw) str(s string) *jw {
	if plainString(s) {
		w.b = append(append(append(w.b, '"'), s...), '"')
		return w
	}
	q, _ := json.Marshal(s)
	w.b = append(w.b, q...)
	return w
}

// plainString reports whether s is written as a JSON string as it is:
// printable ASCII, no quote nor backslash. Eight bytes at a time (a byte
// at a time was 4% of types on a Gemini stream: a text joined from its
// pieces, ids, names).
func plainString(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		q, bs := x^(ones*'"'), x^(ones*'\\')
		// a byte < 0x20, a byte >= 0x80, a zero byte of q or bs (a quote, a backslash)
		if (x-ones*0x20|x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x80 || s[i] == '"' || s[i] == '\\' {
			return false
		}
	}
	return true
}

// end closes the message and the event.
func (w *jw) end(c *stream.Class) written { return w.raw("}").done(c) }
