package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	"golang.org/x/term"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// plan is what the arguments ask for.
type plan struct {
	preset filter.Preset
	expr   *filter.Expr // set when FILTER is an expression
	where  *filter.Expr
	files  []string
	agent  filter.Agent
	format render.Format
}

// resolve decides between preset, expression and file for the first
// argument.
func (o *options) resolve() (*plan, error) {
	p := &plan{}
	p.format, _ = render.ParseFormat(o.Format)
	args := o.args
	all, _ := filter.Lookup("all")
	switch {
	case len(args) == 0:
		p.preset = all
	default:
		if pr, ok := filter.Lookup(args[0]); ok {
			p.preset = pr
			args = args[1:]
			break
		}
		x, err := filter.Compile(args[0], o.Vars, nil, func() []string { return o.environ })
		if err != nil {
			if isFile(args[0]) {
				p.preset = all
				break
			}
			return nil, compileError(err)
		}
		p.expr = x
		p.preset = all
		args = args[1:]
	}
	p.files = args
	if len(p.files) == 0 {
		p.files = []string{"-"}
	}
	if o.Where != "" {
		if p.expr != nil {
			return nil, &flagError{errors.New("--where combines with a preset, not with an expression (put the condition in the expression)")}
		}
		switch p.preset.Name {
		case "final", "usage", "init":
			return nil, &flagError{fmt.Errorf("--where does not apply to the %s preset", p.preset.Name)}
		}
		x, err := filter.Compile(o.Where, o.Vars, nil, func() []string { return o.environ })
		if err != nil {
			return nil, compileError(err)
		}
		p.where = x
	}
	p.agent = filter.Agent(p.preset.DefaultAgent)
	if o.agentChanged {
		p.agent = filter.Agent(o.Agent)
	}
	return p, nil
}

func compileError(err error) error {
	msg := "invalid filter: " + err.Error()
	var pe *filter.ParseError
	if errors.As(err, &pe) {
		if c := pe.Caret(); c != "" {
			msg += "\n" + c
		}
	}
	return &exitError{code: exitCompile, msg: msg}
}

func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && !fi.IsDir()
}

// run processes every input and returns the exit code.
func (o *options) run(ctx context.Context) (int, error) {
	p, err := o.resolve()
	if err != nil {
		return 0, err
	}
	out := o.stdout
	tty := isTerminal(out)
	code := exitOK
	for _, name := range p.files {
		c, err := o.runOne(ctx, p, name, out, tty)
		if err != nil {
			if isBrokenPipe(err) {
				return exitOK, nil
			}
			var ee *exitError
			if errors.As(err, &ee) && ee.code == exitInput {
				printError(o.stderr, ee.msg)
				code = worse(code, exitInput)
				continue
			}
			return 0, err
		}
		code = worse(code, c)
	}
	return code, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (o *options) getenv(k string) (string, bool) {
	for i := len(o.environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(o.environ[i], k+"="); ok {
			return v, true
		}
	}
	return "", false
}

func (o *options) useColor(tty bool) bool {
	switch o.Color {
	case "always":
		return true
	case "never":
		return false
	}
	if _, ok := o.getenv("NO_COLOR"); ok {
		return false
	}
	if t, _ := o.getenv("TERM"); t == "dumb" {
		return false
	}
	return tty
}

func (o *options) width(out io.Writer) int {
	if f, ok := out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 20 {
			return w
		}
	}
	if c, ok := o.getenv("COLUMNS"); ok {
		if n, err := strconv.Atoi(c); err == nil && n > 20 {
			return n
		}
	}
	return 120
}

// openInput opens a file or stdin, decompressing gzip and zstd by their
// magic bytes.
func (o *options) openInput(name string) (io.Reader, func(), error) {
	var r io.Reader
	closeFn := func() {}
	if name == "-" {
		r = o.stdin
		widenPipe(r)
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		r = f
		closeFn = func() { f.Close() }
	}
	// The magic bytes are read ahead and put back with a MultiReader rather
	// than a bufio.Reader, which would copy every byte of the input once more.
	var head [4]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		closeFn()
		return nil, nil, err
	}
	magic := head[:n]
	br := io.MultiReader(bytes.NewReader(magic), r)
	if sk, ok := r.(io.Seeker); ok {
		if _, err := sk.Seek(-int64(n), io.SeekCurrent); err == nil {
			// A seekable file is handed over as it is, so the decoder can
			// look ahead in it to size the buffer of a long line.
			br = r
		}
	}
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			closeFn()
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		c := closeFn
		return zr, func() { zr.Close(); c() }, nil
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br)
		if err != nil {
			closeFn()
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		c := closeFn
		return zr, func() { zr.Close(); c() }, nil
	}
	return br, closeFn, nil
}

func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// countResultSizes has every run count tool result sizes, also where none
// is shown: for the test that proves those runs print the same without.
var countResultSizes = false

// trackEverything has the runs that need only part of the tracker feed
// the whole of it all the same (Tracker.Observe, tool calls followed): for
// the test that proves they print the same with ObserveOutcome or
// TrackerOptions.NoToolCalls.
var trackEverything = false

// usageOnly reports whether the run shows only usage and the outcome (the
// usage preset): the tracker then follows no tool calls, and no tool
// result is looked into.
func (p *plan) usageOnly() bool { return p.expr == nil && p.preset.Name == "usage" }

// outcomeOnly reports whether the run needs nothing of the tracker beyond
// the outcome, the final answer and the type counts (ObserveOutcome):
// final and types, and text printed as text for the main agent, the
// subagents or all of them (a subagent named by its id needs the subagent
// tree, --where may look at anything). Tool calls are then not paired,
// usage not summed, tool results not looked into, and tool calls not
// validated: on a stream of long tool results that work was a third of
// text's time.
func (p *plan) outcomeOnly() bool {
	if p.expr != nil {
		return false
	}
	switch p.preset.Name {
	case "final", "types":
		return true
	case "text":
		switch p.agent {
		case "", "all", "main", "sub":
			return p.format == render.Text && p.where == nil
		}
	}
	return false
}

// runOne processes one input: its own tracker, its own final answer.
func (o *options) runOne(ctx context.Context, p *plan, name string, out io.Writer, tty bool) (code int, err error) {
	in, closeIn, err := o.openInput(name)
	if err != nil {
		return 0, errorf(exitInput, "%s: %v", displayName(name), unwrapPathError(err))
	}
	defer closeIn()
	light := p.expr == nil && (p.preset.Name == "final" || p.preset.Name == "types")
	outcomeOnly := p.outcomeOnly()
	// Every line is checked to be one whole object, so cut and merged lines
	// are reported (CheckEnds, '{' … '}', misses a merged line, and then
	// final and types miss an event silently); the events the run prints
	// or keeps are validated in full (session.uses), the rest is read where
	// needed and passed over.
	check := stream.CheckFraming
	if o.FullCheck {
		check = stream.CheckAll
	}
	opts := stream.DecoderOptions{Source: displayName(name), MaxLineBytes: o.MaxLineBytes, Check: check}
	if !outcomeOnly && (!p.usageOnly() || trackEverything) {
		opts.ToolResults = true // the tracker reads them all (usage: none)
		// usage, the text of text, and events written as JSON (their own
		// bytes, no tool-call records) print no tool result size.
		opts.NoResultSizes = p.expr == nil && !countResultSizes && (p.preset.Name == "usage" || p.preset.Name == "text" && p.format == render.Text ||
			p.preset.Mode == filter.Events && (p.format == render.NDJSON || p.format == render.JSON))
	}
	// How many times the longest line is in memory at once, beyond what
	// the base limit leaves room for: once (the decoder keeps the longest
	// line's buffer for the next long line), twice for whole trees (below).
	perLine := 1
	if x := p.expr; x != nil {
		opts.Prepare = x.Prepare
		if x.Paths() == nil {
			perLine = 2 // a line and its whole tree
		}
	}
	dec := stream.NewReader(in, opts)
	defer dec.Close()
	tr := stream.NewTracker(stream.TrackerOptions{NoResultSizes: opts.NoResultSizes, NoToolCalls: p.usageOnly() && !trackEverything})
	s := &session{o: o, p: p, tr: tr, tty: tty, source: displayName(name), light: light, outcomeOnly: outcomeOnly}
	if err := s.open(out); err != nil {
		return 0, err
	}
	for {
		if !dec.Buffered() || o.LineBuffered {
			// About to wait for input (or asked to): show what we have.
			if err := s.flush(); err != nil {
				return 0, err
			}
		}
		if ctx.Err() != nil {
			break
		}
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err == nil {
			memory.line(len(ev.Raw), perLine)
		}
		if err != nil {
			if stream.IsLineError(err) {
				if err := s.badLine(err); err != nil {
					return exitInput, err
				}
				continue
			}
			return 0, errorf(exitInput, "%s: read error: %v", displayName(name), err)
		}
		if check != stream.CheckAll && s.uses(ev) {
			// The decoder left validation of the events we use to us; an
			// event for jq is validated while its tree is built.
			validate := ev.Validate
			switch {
			case p.expr != nil:
				validate = func() error { return p.expr.Prepare(ev) } // done by the decoder already (DecoderOptions.Prepare)
			case p.where != nil && p.preset.Mode == filter.Events:
				validate = ev.ValidateValue // (--where on tool calls runs on the call, not the event)
			}
			if err := validate(); err != nil {
				if err := s.badLine(err); err != nil {
					return exitInput, err
				}
				continue
			}
		}
		if err := s.event(ctx, ev); err != nil {
			var h *filter.Halt
			if errors.As(err, &h) {
				s.flush()
				return s.halt(h)
			}
			return 0, err
		}
	}
	memory.end()
	return s.finish()
}

// uses reports whether the run prints the event, hands it to an
// expression, or keeps data from it beyond the few fields the tracker reads
// (ids, flags, sizes, usage); those events are validated in full.
func (s *session) uses(ev *stream.Event) bool {
	switch {
	case s.light:
		return ev.Kind == stream.KindResult || ev.Kind == stream.KindText
	case s.outcomeOnly: // text
		// Of the deltas, only a text_delta's text is printed (a partial-
		// messages run is mostly other deltas: thinking, tool input).
		return ev.Kind == stream.KindResult || ev.Kind == stream.KindText ||
			ev.Kind == stream.KindDelta && ev.Delta().DeltaType == "text_delta"
	case s.p.expr != nil:
		return !s.p.expr.Skips(ev)
	case ev.Kind == stream.KindToolUse || ev.Kind == stream.KindInit || ev.Kind == stream.KindResult:
		return true // tool inputs, the init, the final answer are kept
	case s.text != nil:
		return ev.Kind == stream.KindText || ev.Kind == stream.KindDelta
	}
	return s.p.preset.Mode == filter.Events && s.p.preset.Select(ev)
}

// badLine reports a malformed or over-long line: a warning, or with
// --strict the error that stops the run.
func (s *session) badLine(err error) error {
	if s.o.Strict {
		s.flush()
		return errorf(exitInput, "%v", err)
	}
	printError(s.o.stderr, "warning: "+err.Error())
	return nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// session is the state of one input's run.
type session struct {
	o      *options
	p      *plan
	tr     *stream.Tracker
	tty    bool
	source string

	r     render.Renderer // nil for the plain text/final printers
	plain *bufio.Writer
	text  *textPrinter

	light       bool // final/types: a lazy decoder, the outcome tracker, nothing printed per event
	outcomeOnly bool // the tracker follows the outcome only (plan.outcomeOnly)

	inits      []stream.Init
	outputs    int // expression outputs
	lastValue  any
	runtimeErr bool
}

func (s *session) open(out io.Writer) error {
	p := s.p
	if (p.preset.Name == "final" && p.expr == nil) || (p.preset.Name == "text" && p.expr == nil && p.format == render.Text) {
		s.plain = bufio.NewWriterSize(out, 64<<10)
		if p.preset.Name == "text" {
			s.text = newTextPrinter(s.plain, s.tty)
		}
		return nil
	}
	indent := strings.Repeat(" ", s.o.Indent)
	if s.o.Tab {
		indent = "\t"
	}
	r, err := render.New(p.format, out, render.Options{
		Color:     s.o.useColor(s.tty),
		Width:     s.o.width(out),
		Tracker:   s.tr,
		Indent:    indent,
		Compact:   s.o.Compact || s.o.Indent == 0 && !s.o.Tab,
		Raw:       s.o.Raw || s.o.Join,
		Join:      s.o.Join,
		ToolCalls: p.preset.Mode == filter.Calls && p.expr == nil,
	})
	if err != nil {
		return &flagError{err}
	}
	s.r = r
	return nil
}

func (s *session) flush() error {
	if s.r != nil {
		return s.r.Flush()
	}
	return s.plain.Flush()
}

// agentMatch applies --agent to an event.
func (s *session) agentMatch(ev *stream.Event) bool {
	if s.p.agent == "" || s.p.agent == "all" {
		return true
	}
	parent := ev.ParentToolUseID()
	return s.p.agent.Match(parent, s.tr.Subagent(parent))
}

func (s *session) event(ctx context.Context, ev *stream.Event) error {
	var done []*stream.ToolCall
	if s.outcomeOnly && !trackEverything {
		s.tr.ObserveOutcome(ev)
	} else {
		done = s.tr.Observe(ev)
	}
	if s.light {
		return nil
	}
	p := s.p
	if ev.Kind == stream.KindInit && p.preset.Name == "init" && len(s.inits) < 1000 {
		s.inits = append(s.inits, ev.Init())
	}
	if p.expr != nil {
		if !s.agentMatch(ev) {
			return nil
		}
		return s.runExpr(ctx, ev, done)
	}
	switch p.preset.Mode {
	case filter.Events:
		if s.text != nil {
			if !s.agentMatch(ev) {
				return nil
			}
			if p.where != nil {
				if ev.Kind == stream.KindDelta {
					// --where judges whole assistant events: their text is
					// printed once complete, not streamed.
					return nil
				}
				if ev.Kind == stream.KindText {
					ok, err := s.whereEvent(ctx, ev, nil)
					if err != nil || !ok {
						return err
					}
				}
			}
			return s.text.event(ev)
		}
		if !p.preset.Select(ev) || !s.agentMatch(ev) {
			return nil
		}
		if p.where != nil {
			ok, err := s.whereEvent(ctx, ev, nil)
			if err != nil || !ok {
				return err
			}
		}
		return s.r.Render(render.Record{Event: ev, Calls: done})
	case filter.Calls:
		var keep []*stream.ToolCall
		for _, c := range done {
			if !s.p.agent.Match(c.ParentToolUseID, c.Agent) {
				continue
			}
			if p.where != nil {
				ok, err := s.whereEvent(ctx, ev, callObject(c))
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
			}
			keep = append(keep, c)
		}
		if len(keep) > 0 {
			return s.r.Render(render.Record{Calls: keep})
		}
	}
	return nil
}

// whereEvent runs --where on an event (root nil) or on another value.
func (s *session) whereEvent(ctx context.Context, ev *stream.Event, root any) (bool, error) {
	ok := false
	err := s.p.where.Run(ctx, ev, root, func(v any, _ bool) error {
		if filter.Truthy(v) {
			ok = true
		}
		return nil
	})
	var re *filter.RuntimeError
	if errors.As(err, &re) {
		return false, s.runtimeError(re)
	}
	return ok, err
}

func (s *session) runtimeError(re *filter.RuntimeError) error {
	printError(s.o.stderr, re.Error())
	s.runtimeErr = true
	if s.o.Strict {
		return errorf(exitInput, "stopping at the first error (--strict)")
	}
	return nil
}

func (s *session) runExpr(ctx context.Context, ev *stream.Event, done []*stream.ToolCall) error {
	err := s.p.expr.Run(ctx, ev, nil, func(v any, isEvent bool) error {
		s.outputs++
		s.lastValue = v
		if isEvent {
			return s.r.Render(render.Record{Event: ev, Calls: done})
		}
		return s.r.Value(v)
	})
	var re *filter.RuntimeError
	if errors.As(err, &re) {
		return s.runtimeError(re)
	}
	return err
}

func (s *session) halt(h *filter.Halt) (int, error) {
	if h.Value != nil {
		if str, ok := h.Value.(string); ok {
			fmt.Fprint(s.o.stderr, str)
		} else {
			b, _ := json.Marshal(h.Value)
			fmt.Fprintf(s.o.stderr, "%s\n", b)
		}
	}
	return h.Code, nil
}

// callObject is the tool-call view for --where with the tools preset.
func callObject(c *stream.ToolCall) map[string]any {
	// The input was validated with its line; an absent one decodes as null.
	input := jsonx.Value(c.Input).Decode()
	m := map[string]any{
		"id": c.ID, "name": c.Name, "input": input, "agent": c.AgentLabel(),
		"is_error": c.IsError, "result_bytes": c.ResultBytes, "line": int(c.Line), "done": c.Done,
		"subagent_type": nil, "duration_ms": nil,
	}
	if c.Agent != nil {
		m["subagent_type"] = c.Agent.Type
	}
	if c.HasDuration {
		m["duration_ms"] = int(c.Duration.Milliseconds())
	}
	return m
}

// finish writes the end-of-stream output and decides the exit code.
func (s *session) finish() (int, error) {
	p := s.p
	out := s.tr.Outcome()
	runCode := exitOK
	switch out.Status {
	case stream.Failed:
		runCode = exitFailed
	case stream.NoResult:
		runCode = exitNoResult
	}
	if p.preset.Name == "final" && p.expr == nil {
		return s.finishFinal(out)
	}
	if s.text != nil {
		if err := s.text.close(); err != nil {
			return 0, err
		}
		if err := s.plain.Flush(); err != nil {
			return 0, err
		}
		return s.exitCode(runCode), nil
	}
	if p.expr == nil {
		switch p.preset.Name {
		case "errors":
			if out.Status == stream.NoResult {
				if err := s.r.Value(map[string]any{"type": "ccfilter", "subtype": "no_result", "source": s.source,
					"message": "the stream ended without a result event (the run was killed or cut off)"}); err != nil {
					return 0, err
				}
			}
		case "usage":
			if err := s.r.Summary(render.Summary{Name: "usage", Data: s.tr.Usage()}); err != nil {
				return 0, err
			}
		case "subagents":
			subs, err := whereRows(s, s.tr.Subagents(), subagentObject)
			if err != nil {
				return 0, err
			}
			if err := s.r.Summary(render.Summary{Name: "subagents", Data: subs}); err != nil {
				return 0, err
			}
		case "types":
			types, err := whereRows(s, s.tr.Types(), func(t stream.TypeCount) map[string]any {
				return map[string]any{"type": t.Type, "subtype": t.Subtype, "count": int(t.Count), "known": t.Known}
			})
			if err != nil {
				return 0, err
			}
			if err := s.r.Summary(render.Summary{Name: "types", Data: types}); err != nil {
				return 0, err
			}
		case "init":
			if err := s.r.Summary(render.Summary{Name: "init", Data: s.inits}); err != nil {
				return 0, err
			}
		}
	}
	var open []*stream.ToolCall
	if p.expr == nil && (p.preset.Name == "tools" || p.preset.Name == "all") {
		for _, c := range s.tr.OpenCalls() {
			if p.agent.Match(c.ParentToolUseID, c.Agent) {
				open = append(open, c)
			}
		}
	}
	if err := s.r.Close(open); err != nil {
		return 0, err
	}
	if p.expr != nil {
		code := exitOK
		if s.o.ExitStatus {
			switch {
			case s.outputs == 0:
				code = exitNoResult
			case !filter.Truthy(s.lastValue):
				code = exitFailed
			}
		}
		if s.runtimeErr {
			code = exitInput
		}
		return code, nil
	}
	if s.runtimeErr {
		return exitInput, nil
	}
	return s.exitCode(runCode), nil
}

func (s *session) exitCode(runCode int) int {
	if s.o.ExitStatus {
		return runCode
	}
	return exitOK
}

// whereRows keeps the summary rows --where is true for, each seen as
// obj(row); all of them without --where.
func whereRows[T any](s *session, rows []T, obj func(T) map[string]any) ([]T, error) {
	if s.p.where == nil {
		return rows, nil
	}
	var keep []T
	for _, r := range rows {
		ok, err := s.whereValue(obj(r))
		if err != nil {
			return nil, err
		}
		if ok {
			keep = append(keep, r)
		}
	}
	return keep, nil
}

func (s *session) whereValue(v any) (bool, error) {
	return s.whereEvent(context.Background(), &stream.Event{Source: s.source}, v)
}

func subagentObject(sa *stream.Subagent) map[string]any {
	return map[string]any{
		"tool_use_id": sa.ToolUseID, "agent_id": sa.AgentID, "description": sa.Description, "type": sa.Type,
		"status": sa.Status, "background": sa.Background, "tokens": int(sa.Usage.TotalTokens),
		"tool_uses": int(sa.Usage.ToolUses), "duration_ms": int(sa.Usage.DurationMs), "report": sa.Report,
	}
}

// finishFinal prints the final answer, or explains on stderr why there is
// none.
func (s *session) finishFinal(out stream.Outcome) (int, error) {
	switch out.Status {
	case stream.NoResult:
		printError(s.o.stderr, fmt.Sprintf("%s: no result: the stream ended without a result event (the run was killed or cut off)", s.source))
		return exitNoResult, s.plain.Flush()
	case stream.Failed:
		r := out.Last
		var parts []string
		parts = append(parts, "subtype "+r.Subtype)
		if r.TerminalReason != "" {
			parts = append(parts, "terminal_reason "+r.TerminalReason)
		}
		if r.APIErrorStatus != 0 {
			parts = append(parts, fmt.Sprintf("api_error_status %d", r.APIErrorStatus))
		}
		msg := fmt.Sprintf("%s: the run failed: %s", s.source, strings.Join(parts, ", "))
		for _, e := range r.Errors {
			msg += "\n  " + e
		}
		if r.HasText && r.Text != "" {
			msg += "\n  " + r.Text
		}
		printError(s.o.stderr, msg)
		return exitFailed, s.plain.Flush()
	}
	switch s.p.format {
	case render.JSON:
		var buf bytes.Buffer
		indent := strings.Repeat(" ", s.o.Indent)
		if s.o.Tab {
			indent = "\t"
		}
		if s.o.Compact {
			if err := json.Compact(&buf, s.tr.LastResult()); err != nil {
				return 0, err
			}
		} else if err := json.Indent(&buf, s.tr.LastResult(), "", indent); err != nil {
			return 0, err
		}
		buf.WriteByte('\n')
		s.plain.Write(buf.Bytes())
	case render.NDJSON:
		s.plain.Write(s.tr.LastResult())
		s.plain.WriteByte('\n')
	default:
		text, fellBack := s.tr.FinalText()
		if fellBack {
			printError(s.o.stderr, fmt.Sprintf("note: %s: the result has no text; printing the main agent's last assistant text instead", s.source))
		}
		if s.tty {
			text = sanitize(text)
		}
		s.plain.WriteString(text)
		s.plain.WriteByte('\n')
	}
	return exitOK, s.plain.Flush()
}
