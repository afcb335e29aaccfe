package input

import (
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// CodexSession is the session file Codex CLI keeps of a thread:
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl, lines
// {"timestamp","type","payload"}. Unlike its stream it has the model
// (turn_context), the CLI's version (session_meta), the times, and each
// model call's usage (token_count's last_token_usage).
const CodexSession Kind = "codex-session"

var codexSessionFormat = Format{
	Kind:   CodexSession,
	CLI:    codexCLI,
	Detect: isCodexSessionLine,
	Events: NewCodexSessionReader,
	// $CODEX_HOME/sessions, else ~/.codex/sessions.
	SessionsTree: func(getenv func(string) string, home string) string {
		if dir := getenv("CODEX_HOME"); dir != "" {
			return filepath.Join(dir, "sessions")
		}
		return filepath.Join(home, ".codex", "sessions")
	},
	SessionGlob: filepath.Join("*", "*", "*", "rollout-*.jsonl"),
}

// codexSessionTypes are the types of a session file's lines.
var codexSessionTypes = []string{"session_meta", "turn_context", "response_item", "event_msg", "world_state", "token_usage_record"}

func isCodexSessionLine(head []byte) bool {
	v := jsonx.Value(head)
	if v.Get("payload").Type() != jsonx.Object || v.Get("timestamp").Type() != jsonx.String {
		return false
	}
	for _, t := range codexSessionTypes {
		if v.Get("type").StrEqual(t) {
			return true
		}
	}
	return false
}

// codexSessionReader yields a session file as Claude Code's stream: an
// init (thread, cwd, model, version), the conversation (prompts, text,
// reasoning summaries, tool calls and their outputs), each model call's
// events carrying that call's usage, and a result at the end (the last
// turn's answer, or why it failed), as the transcript reader does for a
// Claude Code session. Lines it does not know pass through as they are.
type codexSessionReader struct {
	in     stream.Reader
	opts   stream.DecoderOptions
	queue  []*stream.Event
	ended  bool
	inited bool
	// pending are the events of the model call under way, held until its
	// token_count gives its usage (each call's events share a message id,
	// as a Claude Code message's do).
	pending []codexPending
	calls   int
	// records: a line of a session file's was read. Without one (JSON
	// lines of no type it knows, read as a session because --input said
	// so), no result is made: there was no run to say succeeded.
	records bool
	f       codexSessionFacts
	echo    echoes
	made    eventMaker
}

type codexPending struct {
	v      map[string]any
	line   int64
	source string
}

type codexSessionFacts struct {
	thread, cwd, version, model string
	lastText, failed            string
	turns                       int
	durationMs                  int64
}

// NewCodexSessionReader returns the reader of a Codex session file.
func NewCodexSessionReader(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
	inner := opts
	inner.Prepare, inner.Screen, inner.Want, inner.Spellings = nil, nil, nil, nil
	// Every line is validated before it is read (Next): in the pass that
	// indexes it, not in a second one.
	inner.Check = stream.CheckAll
	return &codexSessionReader{in: stream.NewReader(r, inner), opts: opts}
}

func (c *codexSessionReader) Next() (*stream.Event, error) {
	for {
		if len(c.queue) > 0 {
			ev := c.queue[0]
			c.queue = c.queue[1:]
			return ev, nil
		}
		// (every event made before was handed out: they are made again)
		c.made.reset()
		if c.ended {
			return nil, io.EOF
		}
		raw, err := c.in.Next()
		if err == io.EOF {
			c.ended = true
			if err := c.flush(nil); err != nil {
				return nil, err
			}
			if c.records && (c.opts.Cut == nil || !c.opts.Cut()) {
				if err := c.emit(c.result(), c.opts.Source, 0); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		// Its values are copied into the events made of it, and kept:
		// validated in full first, so that a bad line is reported with
		// its number, and its values used nowhere, as --full-check does.
		if err := raw.Validate(); err != nil {
			return nil, err
		}
		c.echo.add(raw.Raw)
		known, err := c.translate(raw)
		if err != nil {
			return nil, err
		}
		c.records = c.records || known
		if !known {
			raw.SetEcho(c.echo.take())
			if c.opts.Prepare != nil {
				if err := c.opts.Prepare(raw); err != nil {
					return nil, err
				}
			}
			return raw, nil
		}
	}
}

func (c *codexSessionReader) emit(v map[string]any, source string, line int64) error {
	// (every line is validated before its values are used)
	ev, err := c.made.makeAt(v, source, line, true, c.echo.take(), c.opts.Prepare)
	if err != nil {
		return err
	}
	c.queue = append(c.queue, ev)
	return nil
}

// hold keeps an event of the model call under way.
func (c *codexSessionReader) hold(v map[string]any, raw *stream.Event) {
	c.init(raw)
	c.pending = append(c.pending, codexPending{v, raw.Line, raw.Source})
}

// flush hands out the held events of a model call, its assistant events
// with usage (nil when the call's usage is not known: a cut file).
func (c *codexSessionReader) flush(usage map[string]any) error {
	if len(c.pending) == 0 {
		return nil
	}
	c.calls++
	// Unique across threads: a usage account over many sessions knows
	// a call by its id (a copy of it in another session is not counted).
	id := "codex_" + c.f.thread + "_" + strconv.Itoa(c.calls)
	for _, p := range c.pending {
		if msg, ok := p.v["message"].(map[string]any); ok && p.v["type"] == "assistant" {
			msg["id"], msg["model"] = id, c.f.model
			p.v["cwd"] = c.f.cwd
			if usage != nil {
				msg["usage"], msg["stop_reason"] = usage, "end_turn"
			}
		}
		if err := c.emit(p.v, p.source, p.line); err != nil {
			return err
		}
	}
	c.pending = c.pending[:0]
	return nil
}

// init puts the session's init first, once the model is known (or the
// conversation begins without it).
func (c *codexSessionReader) init(raw *stream.Event) {
	if c.inited {
		return
	}
	c.inited = true
	_ = c.emit(map[string]any{"type": "system", "subtype": "init", "cli": codexCLI, "cli_version": c.f.version,
		"session_id": c.f.thread, "cwd": c.f.cwd, "model": c.f.model, "tools": []string{}, "mcp_servers": []string{},
		"timestamp": raw.Str("timestamp")}, raw.Source, raw.Line)
}

// codexExit finds a tool output's exit code ("Process exited with code
// 2", apply_patch's "Exit code: 0").
var codexExit = regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:) (-?\d+)`)

// translate turns one line into events; false: a line it does not know.
func (c *codexSessionReader) translate(raw *stream.Event) (bool, error) {
	v := jsonx.Value(raw.Raw)
	p := v.Get("payload")
	ts := v.Get("timestamp").Str()
	f := &c.f
	switch raw.Type {
	case "session_meta":
		f.thread, f.cwd, f.version = p.Get("id").Str(), p.Get("cwd").Str(), p.Get("cli_version").Str()
		return true, nil
	case "turn_context":
		if m := p.Get("model").Str(); m != "" {
			f.model = m
		}
		if f.cwd == "" {
			f.cwd = p.Get("cwd").Str()
		}
		c.init(raw)
		return true, nil
	case "world_state", "token_usage_record":
		return true, nil // (the model's context; token_count has the usage)
	case "response_item":
		return c.responseItem(raw, p, ts)
	case "event_msg":
		return c.eventMsg(raw, p)
	}
	return false, nil
}

func (c *codexSessionReader) responseItem(raw *stream.Event, p jsonx.Value, ts string) (bool, error) {
	assistant := func(block map[string]any) {
		c.hold(map[string]any{"type": "assistant", "session_id": c.f.thread, "parent_tool_use_id": nil, "timestamp": ts,
			"message": map[string]any{"type": "message", "role": "assistant", "content": []any{block}}}, raw)
	}
	result := func(id, content string, failed bool) {
		c.hold(map[string]any{"type": "user", "session_id": c.f.thread, "parent_tool_use_id": nil, "timestamp": ts,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
				"tool_use_id": id, "content": content, "is_error": failed}}}}, raw)
	}
	switch p.Get("type").Str() {
	case "message":
		text := codexText(p.Get("content"))
		switch role := p.Get("role").Str(); {
		case role == "assistant":
			c.f.lastText = text
			assistant(map[string]any{"type": "text", "text": text})
		case role == "user" && !strings.HasPrefix(text, "<"):
			// The prompt (the CLI's own context and notes are tagged
			// "<environment_context>", "<turn_aborted>").
			if err := c.flush(nil); err != nil {
				return true, err
			}
			c.init(raw)
			c.f.turns++
			c.f.failed = ""
			return true, c.emit(map[string]any{"type": "user", "session_id": c.f.thread, "timestamp": ts,
				"message": map[string]any{"role": "user", "content": text}}, raw.Source, raw.Line)
		}
	case "reasoning":
		var parts []string
		p.Get("summary").Each(func(_ int, s jsonx.Value) bool { parts = append(parts, s.Get("text").Str()); return true })
		if len(parts) > 0 {
			assistant(map[string]any{"type": "thinking", "thinking": strings.Join(parts, "\n")})
		}
	case "function_call":
		name, args := p.Get("name").Str(), json.RawMessage(p.Get("arguments").Str())
		var input any = args
		if jsonx.Validate(args) != nil {
			input = map[string]any{"arguments": string(args)}
		}
		if name == "exec_command" || name == "shell" {
			// Claude Code's Bash, as the stream's command_execution.
			name, input = "Bash", map[string]any{"command": jsonx.Value(args).Get("cmd").Str()}
		}
		assistant(map[string]any{"type": "tool_use", "id": p.Get("call_id").Str(), "name": name, "input": input})
	case "custom_tool_call":
		assistant(map[string]any{"type": "tool_use", "id": p.Get("call_id").Str(), "name": p.Get("name").Str(),
			"input": map[string]any{"patch": p.Get("input").Str()}})
	case "function_call_output", "custom_tool_call_output":
		out := p.Get("output").Str()
		failed := false
		if m := codexExit.FindStringSubmatch(out); m != nil {
			failed = m[1] != "0"
		}
		result(p.Get("call_id").Str(), out, failed)
	case "web_search_call":
		id := p.Get("id").Str()
		q := p.Path("action", "query").Str()
		assistant(map[string]any{"type": "tool_use", "id": id, "name": "WebSearch", "input": map[string]any{"query": q}})
		result(id, q, false)
	}
	return true, nil
}

func (c *codexSessionReader) eventMsg(raw *stream.Event, p jsonx.Value) (bool, error) {
	switch p.Get("type").Str() {
	case "token_count":
		u := p.Path("info", "last_token_usage")
		if u.Type() != jsonx.Object {
			return true, nil
		}
		in, cached := u.Get("input_tokens").Int(), u.Get("cached_input_tokens").Int()
		return true, c.flush(map[string]any{"input_tokens": max(in-cached, 0), "cache_read_input_tokens": cached,
			"cache_creation_input_tokens": u.Get("cache_write_input_tokens").Int(), "output_tokens": u.Get("output_tokens").Int()})
	case "task_complete":
		if t := p.Get("last_agent_message").Str(); t != "" {
			c.f.lastText = t
		}
		c.f.durationMs += p.Get("duration_ms").Int()
		if msg := p.Path("error", "message").Str(); msg != "" {
			c.f.failed = msg
		}
	case "turn_aborted":
		c.f.failed = "the last turn was interrupted (" + p.Get("reason").Str() + ")"
	case "error":
		return true, c.emit(map[string]any{"type": "system", "subtype": "informational", "level": "error",
			"content": p.Get("message").Str(), "session_id": c.f.thread}, raw.Source, raw.Line)
	}
	return true, nil
}

// codexText joins a message's text parts.
func codexText(content jsonx.Value) string {
	var parts []string
	content.Each(func(_ int, b jsonx.Value) bool {
		if t := b.Get("text"); t.Type() == jsonx.String {
			parts = append(parts, t.Str())
		}
		return true
	})
	return strings.Join(parts, "\n")
}

// result is the session's: the last turn's answer, or why it failed.
func (c *codexSessionReader) result() map[string]any {
	f := c.f
	m := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": f.lastText,
		"num_turns": f.turns, "session_id": f.thread, "duration_ms": f.durationMs}
	if f.failed != "" {
		m["subtype"], m["is_error"], m["result"] = "error_during_execution", true, f.failed
		if contextExceeded(f.failed) {
			// (said as the stream's turn.failed is: Claude Code's)
			m["subtype"], m["terminal_reason"] = "success", contextExhausted
		}
	}
	return m
}

func (c *codexSessionReader) Buffered() bool { return len(c.queue) > 0 || c.in.Buffered() }

func (c *codexSessionReader) Close() error { return c.in.Close() }
