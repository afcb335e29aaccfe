package input

import (
	"bytes"
	"encoding/json"
	"io"
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
//	  delta:true                turn's end one assistant text event joining them
//	                            (which echoes no line of its own)
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
	in    stream.Reader
	opts  stream.DecoderOptions
	queue []*stream.Event
	ended bool
	err   error // a failure making an event, handed out in turn

	session string
	// the turn's text: the pieces of the current attempt, joined
	msgID   string // the attempt's message id ("" when no text is open)
	attempt int
	text    []byte
	first   []byte // the attempt's first piece
	replay  int    // how much of text a restarted attempt has sent again; -1: not replaying
	textTS  string
	textAt  int64 // the line of the turn's first piece
	// lastText is the text after the last tool result: the answer.
	lastText  string
	lastError string
	// tools names the open calls by id (a result names no tool): at most
	// maxOpenGeminiCalls, the oldest forgotten past that.
	tools     map[string]string
	toolOrder []string
}

// maxOpenGeminiCalls bounds the calls whose names are kept for their result.
const maxOpenGeminiCalls = 4096

// NewGeminiReader returns the reader of a Gemini CLI stream read from r.
func NewGeminiReader(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
	return &geminiReader{in: stream.NewReader(r, opts), opts: opts, replay: -1, tools: map[string]string{}}
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
			g.queue = g.queue[1:]
			return ev, nil
		}
		if g.ended {
			return nil, io.EOF
		}
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
	v := jsonx.Value(ev.Raw)
	ts := v.Get("timestamp").Str()
	switch ev.Type {
	case "init":
		g.session = v.Get("session_id").Str()
		g.emit(ev, gmInit{Type: "system", Subtype: "init", CCFilter: stream.Synthetic, CLI: geminiCLI,
			SessionID: g.session, Model: v.Get("model").Str(), Timestamp: ts, Tools: []string{}, MCPServers: []string{}})
		return
	case "message":
		switch role := v.Get("role"); {
		case role.StrEqual("user"):
			g.flush()
			g.emit(ev, g.message("user", ts, "", v.Get("content").Str()))
			return
		case role.StrEqual("assistant") && v.Get("delta").Bool():
			g.delta(ev, v.Get("content"), ts)
			return
		case role.StrEqual("assistant"):
			g.flush()
			g.delta(ev, v.Get("content"), ts)
			g.flush()
			return
		}
	case "tool_use":
		g.flush()
		id, name := v.Get("tool_id").Str(), v.Get("tool_name").Str()
		g.remember(id, name)
		input := json.RawMessage(v.Get("parameters").Trim())
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		g.emit(ev, g.blocks("assistant", ts, id, gmBlock{Type: "tool_use", ID: id, Name: name, Input: input}))
		return
	case "tool_result":
		g.flush()
		g.lastText = ""
		id := v.Get("tool_id").Str()
		content, failed := geminiOutcome(g.tools[id], v.Get("status").Str(), v.Get("output").Str(),
			v.Path("error", "type").Str(), v.Path("error", "message").Str())
		m := g.blocks("user", ts, "", gmBlock{Type: "tool_result", ToolUseID: id, Content: &content, IsError: &failed})
		if g.tools[id] == geminiSubagent && !failed {
			m.ToolUseResult = &gmToolUseResult{Status: "completed"}
		}
		g.forget(id)
		g.emit(ev, m)
		return
	case "error":
		g.flush()
		msg := v.Get("message").Str()
		if v.Get("severity").StrEqual("warning") {
			g.emit(ev, map[string]any{"type": "system", "subtype": "informational", "ccfilter": stream.Synthetic,
				"content": msg, "level": "warning", "session_id": g.session, "timestamp": ts})
			return
		}
		g.lastError = msg
		m := g.message("assistant", ts, "", "")
		m.Message.Model, m.Message.Content = "<synthetic>", []gmBlock{{Type: "text", Text: str(msg)}}
		g.emit(ev, struct {
			gmEvent
			APIError bool   `json:"is_api_error_message"`
			Error    string `json:"error"`
		}{m, true, "unknown"})
		return
	case "result":
		g.flush()
		g.emit(ev, g.result(v, ts))
		return
	}
	// A type (or role) this reader does not know: passed through as it
	// is, counted by types, never taken for one of Claude Code's (Gemini's
	// "result" is not).
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
func (g *geminiReader) delta(ev *stream.Event, content jsonx.Value, ts string) {
	piece := content.AppendStr(nil)
	switch {
	case g.msgID == "":
		g.open(ev.Line, ts)
		g.text = append(g.text, piece...)
	case g.replay >= 0:
		if rest := g.text[g.replay:]; bytes.HasPrefix(rest, piece) {
			g.replay += len(piece)
		} else {
			// the retry says otherwise from here on: its text stands
			g.text = append(g.text[:g.replay], piece...)
			g.replay = len(g.text)
		}
	case len(piece) > 0 && bytes.Equal(piece, g.first) && bytes.HasPrefix(g.text, piece):
		// Sent again: the stream was retried. The pieces sent so far are
		// abandoned (as Claude Code marks a broken stream's), the retry's
		// are the text.
		if stop := g.make(nil, map[string]any{"type": "stream_event", "ccfilter": stream.Synthetic,
			"event":            map[string]any{"type": "message_stop"},
			"abandoned_blocks": map[string]any{"api_message_id": g.msgID, "from_block_index": 0},
			"session_id":       g.session, "timestamp": ts}); stop != nil {
			stop.Line = ev.Line
			g.queue = append(g.queue, stop)
		}
		g.attempt++
		g.msgID = g.attemptID()
		g.replay = len(piece)
	default:
		g.text = append(g.text, piece...)
	}
	if g.replay >= len(g.text) {
		g.replay = -1
	}
	if len(g.first) == 0 {
		g.first = piece
	}
	g.emit(ev, map[string]any{"type": "stream_event", "ccfilter": stream.Synthetic,
		"event":          map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": string(piece)}},
		"api_message_id": g.msgID, "session_id": g.session, "timestamp": ts})
}

// open starts a turn's text.
func (g *geminiReader) open(line int64, ts string) {
	g.attempt++
	g.msgID, g.textAt, g.textTS = g.attemptID(), line, ts
	g.text, g.first, g.replay = g.text[:0], nil, -1
}

// attemptID is the message id of the current attempt: the stream gives
// none, so the session and a count make one.
func (g *geminiReader) attemptID() string {
	return "gemini-" + g.session + "-" + itoa(g.attempt)
}

// flush ends the turn's text: one assistant text event joining its
// pieces, which echoes no line (its pieces did).
func (g *geminiReader) flush() {
	if g.msgID == "" {
		return
	}
	text := string(g.text)
	g.lastText = text
	m := g.blocks("assistant", g.textTS, g.msgID, gmBlock{Type: "text", Text: &text})
	if ev := g.make(nil, m); ev != nil {
		ev.Line = g.textAt // where the text starts
		g.queue = append(g.queue, ev)
	}
	g.msgID, g.text, g.first, g.replay = "", g.text[:0], nil, -1
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
func (g *geminiReader) result(v jsonx.Value, ts string) gmResult {
	st := v.Get("stats")
	r := gmResult{Type: "result", Subtype: "success", CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: ts}
	if d := st.Get("duration_ms"); d.Type() == jsonx.Number {
		n := d.Int()
		r.DurationMs = &n
	}
	if st.Type() == jsonx.Object {
		u := geminiTokens(st.Get("input_tokens").Int(), st.Get("cached").Int(), st.Get("output_tokens").Int(), st.Get("total_tokens").Int())
		r.Usage = &u
		st.Get("models").EachMember(func(k []byte, m jsonx.Value) bool {
			u := geminiTokens(m.Get("input_tokens").Int(), m.Get("cached").Int(), m.Get("output_tokens").Int(), m.Get("total_tokens").Int())
			if r.ModelUsage == nil {
				r.ModelUsage = map[string]gmModelUsage{}
			}
			name := jsonx.Value(append(append([]byte{'"'}, k...), '"')).Str()
			r.ModelUsage[name] = gmModelUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadInputTokens: u.CacheReadInputTokens}
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
		r.Errors = []string{msg}
		return r
	}
	r.Result = str(g.lastText)
	return r
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

// emit queues the event made of v, standing for the line src.
func (g *geminiReader) emit(src *stream.Event, v any) {
	if ev := g.make(src, v); ev != nil {
		g.queue = append(g.queue, ev)
	}
}

// make is the event of v, at src's line, echoing src's bytes (none when
// src is nil), prepared as the decoder prepares the lines it reads.
func (g *geminiReader) make(src *stream.Event, v any) *stream.Event {
	ev, err := makeEvent(v, g.opts, src)
	if err != nil {
		g.err = err
		return nil
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
	ev, err := stream.NewEvent(b, opts.Source, line)
	if err != nil {
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
