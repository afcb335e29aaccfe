package input

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// A Gemini CLI chat file (~/.gemini/tmp/<project>/chats/session-*.jsonl):
// a header line {sessionId, projectHash, startTime, lastUpdated, kind},
// records {id, timestamp, type:"user"|"gemini", content, thoughts,
// tokens{input,output,cached,thoughts,tool,total}, model, toolCalls} and
// patch lines {"$set":{…}}. A record written again with the same id (the
// CLI adds its toolCalls) replaces the earlier one.
//
// The reader translates it as the stream reader does (gemini_stream.go),
// with what the stream lacks: each "gemini" record is one model call, its
// tokens the call's usage (a row of its model), its thoughts thinking
// blocks, its toolCalls tool_use and tool_result blocks (a shell command's
// exit code read from its output), an invoke_agent call's subagent read
// from its own file, chats/<session id>/<agentId>.jsonl, attributed to the
// call. The header makes the init; the end of the file a result (the last
// text; the file says nothing of how the run ended).
//
// Memory: one record is held back (with the $set lines after it) until a
// record with another id comes: a rewrite is joined when it follows its
// record with only $set lines between, which is what Gemini CLI 0.61
// writes; a rewrite further on would be read as a record of its own.

type geminiSessionReader struct {
	in    stream.Reader
	opts  stream.DecoderOptions
	path  string
	sub   bool // a subagent's file, read into its parent's: no init, no result
	queue []*stream.Event
	held  []*stream.Event // the record held back, then the $set lines after it
	ended bool
	err   error

	session  string
	cwd      string // the first workspace directory its session context names
	inited   bool   // the init was made (from the header, or before the first record when it is cut)
	records  bool   // a line of a chat file's was read: without one, no result is made
	lastText string
	turns    int // the main agent's model responses (its "gemini" records)
}

// NewGeminiSessionReader returns the reader of a Gemini CLI chat file read
// from r; path ("" for stdin) finds its subagents' files.
func NewGeminiSessionReader(r io.Reader, path string, opts stream.DecoderOptions) stream.Reader {
	return &geminiSessionReader{in: stream.NewReader(r, opts), opts: opts, path: path}
}

func (g *geminiSessionReader) Next() (*stream.Event, error) {
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
			g.release()
			// (No result for a file its reader cut, Ctrl-C under
			// --follow: the one made here says the session ended.)
			if !g.sub && g.records && (g.opts.Cut == nil || !g.opts.Cut()) {
				g.emit(nil, g.result())
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		g.read(ev)
	}
}

func (g *geminiSessionReader) Buffered() bool {
	return len(g.queue) > 0 || g.ended || g.in.Buffered()
}

func (g *geminiSessionReader) Close() error { return g.in.Close() }

// read takes one line of the file.
func (g *geminiSessionReader) read(ev *stream.Event) {
	v := jsonx.Value(ev.Raw)
	switch {
	case v.Get("projectHash").Exists() && v.Get("sessionId").Exists() && !v.Get("type").Exists():
		g.session = v.Get("sessionId").Str()
		g.records = true
		if g.sub || g.inited {
			g.record(ev)
			return
		}
		g.inited = true
		g.emit(ev, gmInit{Type: "system", Subtype: "init", CCFilter: stream.Synthetic, CLI: geminiCLI,
			SessionID: g.session, Timestamp: v.Get("startTime").Str(), Tools: []string{}, MCPServers: []string{}})
	case v.Get("$set").Type() == jsonx.Object:
		g.records = true
		if g.cwd == "" {
			g.cwd = geminiWorkspace(v.Get("$set"))
		}
		if len(g.held) > 0 {
			g.held = append(g.held, g.kept(ev))
			return
		}
		g.record(ev)
	case !v.Get("id").Exists():
		// No line of a chat file's: passed through as it is (unknown to
		// types, echoed by NDJSON), after the record held before it.
		g.release()
		g.queue = append(g.queue, ev.Clone())
	default:
		g.records = true
		if !g.inited && !g.sub {
			// The header is cut or lost: the init is made without it.
			g.inited = true
			g.emit(nil, gmInit{Type: "system", Subtype: "init", CCFilter: stream.Synthetic, CLI: geminiCLI,
				Timestamp: v.Get("timestamp").Str(), Tools: []string{}, MCPServers: []string{}})
		}
		if len(g.held) > 0 && jsonx.Value(g.held[0].Raw).Get("id").Str() == v.Get("id").Str() {
			// The record written again: the later version stands; the
			// earlier one's line is still echoed, in its place.
			old := g.held
			g.held = nil
			for _, e := range old {
				e.Kind = stream.KindRecord
			}
			g.queue = append(g.queue, old...)
			g.held = []*stream.Event{g.kept(ev)}
			return
		}
		g.release()
		g.held = []*stream.Event{g.kept(ev)}
	}
}

// kept is a copy of ev that outlives the reader's next line.
func (g *geminiSessionReader) kept(ev *stream.Event) *stream.Event { return ev.Clone() }

// record passes a line through as bookkeeping: echoed by NDJSON, counted
// by types, shown by no view.
func (g *geminiSessionReader) record(ev *stream.Event) {
	ev = ev.Clone()
	ev.Kind = stream.KindRecord
	g.queue = append(g.queue, ev)
}

// release translates the record held back, then the lines after it.
func (g *geminiSessionReader) release() {
	if len(g.held) == 0 {
		return
	}
	held := g.held
	g.held = nil
	g.translate(held[0])
	for _, e := range held[1:] {
		e.Kind = stream.KindRecord
		g.queue = append(g.queue, e)
	}
}

// translate queues the events a record stands for; the first echoes its
// line.
func (g *geminiSessionReader) translate(ev *stream.Event) {
	v := jsonx.Value(ev.Raw)
	ts, id := v.Get("timestamp").Str(), v.Get("id").Str()
	switch {
	case v.Get("type").StrEqual("user"):
		var text []string
		v.Get("content").Each(func(_ int, p jsonx.Value) bool {
			if t := p.Get("text"); t.Type() == jsonx.String {
				text = append(text, t.Str())
			}
			return true
		})
		if v.Get("content").Type() == jsonx.String {
			text = append(text, v.Get("content").Str())
		}
		if len(text) == 0 {
			// a function response: the gemini record's toolCalls give
			// the results
			ev.Kind = stream.KindRecord
			g.queue = append(g.queue, ev)
			return
		}
		g.emit(ev, gmEvent{Type: "user", CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: ts,
			Message: gmMessage{ID: id, Role: "user", Content: strings.Join(text, "\n")}})
	case v.Get("type").StrEqual("gemini"):
		g.call(ev, v, ts, id)
	default:
		ev.Kind = stream.KindUnknown
		g.queue = append(g.queue, ev)
	}
}

// call queues a model call's events: its thoughts, its text, its tool
// calls (and their results), each carrying the call's usage and model.
func (g *geminiSessionReader) call(ev *stream.Event, v jsonx.Value, ts, id string) {
	g.turns++
	tok := v.Get("tokens")
	u := geminiTokens(tok.Get("input").Int(), tok.Get("cached").Int(), tok.Get("output").Int(), tok.Get("total").Int())
	model := v.Get("model").Str()
	src := ev
	block := func(b gmBlock) {
		g.emit(src, gmEvent{Type: "assistant", CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: ts, Cwd: g.cwd,
			Message: gmMessage{ID: id, Role: "assistant", Model: model, Content: []gmBlock{b}, StopReason: str("end_turn"), Usage: &u}})
		src = nil // the record's line is echoed once
	}
	v.Get("thoughts").Each(func(_ int, t jsonx.Value) bool {
		th := t.Get("subject").Str()
		if d := t.Get("description").Str(); d != "" {
			th += ": " + d
		}
		block(gmBlock{Type: "thinking", Thinking: &th})
		return true
	})
	if text := v.Get("content").Str(); text != "" {
		g.lastText = text
		block(gmBlock{Type: "text", Text: &text})
	}
	var results []gmBlock
	var done *gmToolUseResult
	rts := ""
	v.Get("toolCalls").Each(func(_ int, c jsonx.Value) bool {
		cid, name := c.Get("id").Str(), c.Get("name").Str()
		input := json.RawMessage(c.Get("args").Trim())
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		block(gmBlock{Type: "tool_use", ID: cid, Name: name, Input: input})
		if agent := c.Get("agentId").Str(); name == geminiSubagent && agent != "" {
			g.subagent(cid, agent)
		}
		status := c.Get("status").Str()
		resp := c.Get("result").Index(0).Path("functionResponse", "response")
		content, failed := geminiOutcome(name, status, resp.Get("output").Str(), "", resp.Get("error").Str())
		failed = failed || status == "cancelled"
		results = append(results, gmBlock{Type: "tool_result", ToolUseID: cid, Content: &content, IsError: boolp(failed)})
		if name == geminiSubagent && !failed {
			done = &gmToolUseResult{Status: "completed", AgentID: c.Get("agentId").Str()}
		}
		rts = max(rts, c.Get("timestamp").Str())
		return true
	})
	if src != nil {
		// a call that said nothing: its usage still counts
		g.emit(src, gmEvent{Type: "assistant", CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: ts, Cwd: g.cwd,
			Message: gmMessage{ID: id, Role: "assistant", Model: model, Content: []gmBlock{}, StopReason: str("end_turn"), Usage: &u}})
	}
	if len(results) > 0 {
		// The results of the record's calls, one event (as Claude Code
		// writes a parallel batch's), at the record's line.
		g.emit(nil, gmEvent{Type: "user", CCFilter: stream.Synthetic, SessionID: g.session, Timestamp: rts,
			Message: gmMessage{Role: "user", Content: results}, ToolUseResult: done})
		if n := len(g.queue); n > 0 {
			g.queue[n-1].Line = ev.Line
		}
		g.lastText = ""
	}
}

// subagent reads the subagent's file of the invoke_agent call id, its
// events attributed to the call.
func (g *geminiSessionReader) subagent(id, agent string) {
	if g.path == "" {
		return
	}
	p := filepath.Join(filepath.Dir(g.path), g.session, agent+".jsonl")
	if g.sub {
		p = filepath.Join(filepath.Dir(g.path), agent+".jsonl")
	}
	if err := regular(p); err != nil {
		g.err = &stream.PassedOver{Source: g.opts.Source, Err: fmt.Errorf("the records of subagent %s are not read: %v", agent, err)}
		return
	}
	f, err := os.Open(p)
	if err != nil {
		g.err = &stream.PassedOver{Source: g.opts.Source, Err: fmt.Errorf("the records of subagent %s are missing: %v", agent, err)}
		return
	}
	defer f.Close()
	opts := g.opts
	opts.Source = p
	sub := &geminiSessionReader{in: stream.NewReader(f, opts), opts: opts, path: p, sub: true}
	for {
		ev, err := sub.Next()
		if err != nil {
			break
		}
		ev = ev.Clone()
		ev.SetParent(id)
		g.queue = append(g.queue, ev)
	}
}

// result is the session's result: the file does not say how the run
// ended, so it is a success with the main agent's last text.
func (g *geminiSessionReader) result() gmResult {
	return gmResult{Type: "result", Subtype: "success", CCFilter: stream.Synthetic, SessionID: g.session, Result: str(g.lastText), NumTurns: g.turns}
}

// emit queues the event made of v, echoing src's line (none when nil).
func (g *geminiSessionReader) emit(src *stream.Event, v any) {
	ev, err := makeEvent(v, g.opts, src)
	if err != nil {
		g.err = err
		return
	}
	g.queue = append(g.queue, ev)
}

// geminiWorkspace is the first workspace directory a chat file's session
// context names (its first user message, in a "$set" of the messages:
// "- **Workspace Directories:**" then "  - /home/user/project"), the
// session's working directory, which the file says nowhere else.
func geminiWorkspace(set jsonx.Value) string {
	var cwd string
	set.Get("messages").Each(func(_ int, m jsonx.Value) bool {
		m.Get("content").Each(func(_ int, p jsonx.Value) bool {
			if t := p.Get("text").Str(); strings.Contains(t, "<session_context>") {
				if w := workspaceDir.FindStringSubmatch(t); w != nil {
					cwd = strings.TrimSpace(w[1])
				}
			}
			return cwd == ""
		})
		return cwd == ""
	})
	return cwd
}

// workspaceDir finds the first of the session context's workspace
// directories.
var workspaceDir = regexp.MustCompile(`Workspace Directories:\*\*\s*\n\s*- ([^\n]+)`)
