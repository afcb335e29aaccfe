package filter

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Var is a named value for an expression ($name), from --arg or --argjson.
type Var struct {
	Name  string
	Value any
}

// JSONVar is --argjson NAME JSON's variable: the JSON decoded by the same
// tree builder as events' (the number types gojq expects), or why it is
// not JSON.
func JSONVar(name, text string) (Var, error) {
	if err := jsonx.Validate([]byte(text)); err != nil {
		return Var{}, fmt.Errorf("--argjson %s: invalid JSON: %v", name, err)
	}
	return Var{Name: name, Value: jsonx.Parse([]byte(text)).Decode()}, nil
}

// Expr is a compiled gojq expression run once per event, like jq over
// NDJSON. Besides jq's builtins it has ccfilter's functions (see Funcs),
// which read the event being processed.
type Expr struct {
	src    string
	code   *gojq.Code
	values []any
	// typeGuard is X when the expression is `select(.type == "X") | ...`:
	// any event of another type yields nothing, so it is skipped without
	// building its tree. Exactly equivalent, and the common case.
	typeGuard string
	// paths are the parts of an event the expression reads, when it can
	// tell (readPaths): the tree it runs on is cut to them.
	paths *stream.Paths

	cur   *stream.Event
	agent func(*stream.Event) string
}

// UsesAgent reports whether the expression may call agent, whose answer
// for a nested subagent comes from the subagent tree (a tracker that
// follows everything). Conservative: the word anywhere in the source, a
// string literal included, counts; a false yes only costs speed.
func (x *Expr) UsesAgent() bool { return strings.Contains(x.src, "agent") && !onlyIsSubagent(x.src) }

// onlyIsSubagent: every "agent" in src is part of is_subagent, which the
// event answers alone.
func onlyIsSubagent(src string) bool {
	return strings.Count(src, "agent") == strings.Count(src, "is_subagent")
}

// IsIdentity reports whether the expression is jq's identity, ".".
func (x *Expr) IsIdentity() bool { return strings.TrimSpace(x.src) == "." }

// SetAgent has the agent function answer with resolve (nil: AgentOf
// without a tracker). A caller that follows the stream's subagents sets it
// for each input, before the expression runs on it.
func (x *Expr) SetAgent(resolve func(*stream.Event) string) {
	if resolve == nil {
		resolve = func(e *stream.Event) string { return AgentOf(e, nil) }
	}
	x.agent = resolve
}

// AgentOf is whose an event is: "main", or its subagent's agent id (the
// event's agent_id, else the one tr knows for its Agent call), else the
// id of that Agent call. One identity, the one the subagents preset, the
// tools preset and --agent show.
func AgentOf(e *stream.Event, tr *stream.Tracker) string {
	p := e.ParentToolUseID()
	if p == "" {
		return stream.MainAgent
	}
	if id := e.AgentID(); id != "" {
		return id
	}
	if tr != nil {
		if s := tr.Subagent(p); s != nil {
			return s.Label()
		}
	}
	return p
}

// FuncDoc documents one of ccfilter's extra expression functions.
type FuncDoc struct {
	Name string
	Doc  string
}

// Funcs lists the functions ccfilter adds to gojq. They describe the event
// currently being processed, whatever `.` is at the point of the call.
var Funcs = []FuncDoc{
	{"kind", `the event's classification, e.g. "tool_use", "text", "result" (see docs/stream-format.md)`},
	{"agent", `"main", or the id of the subagent the event belongs to: its agent id, as subagents, tools and --agent show it (the id of the Agent call that started it when the stream never says the agent id)`},
	{"is_subagent", "true when the event comes from a subagent"},
	{"line", "the event's line number in its input"},
	{"source", `the input's name ("<stdin>" or the file name)`},
	{"text", "the text of an assistant or user message (text blocks joined by newlines), else null"},
	{"tool_uses", "the event's tool_use blocks ([] for other events)"},
	{"tool_results", "the event's tool_result blocks ([] for other events)"},
	{"is_error", "true when the event signals trouble (what the errors preset selects)"},
}

var typeGuardRE = regexp.MustCompile(`^\s*select\(\s*\.type\s*==\s*"([A-Za-z0-9_]+)"\s*\)\s*(\|[\s\S]*)?$`)

// ParseError is an expression that does not compile, with the position of
// the problem when gojq reports one.
type ParseError struct {
	Src    string
	Offset int // byte offset in Src, -1 when unknown
	Err    error
}

func (e *ParseError) Error() string { return e.Err.Error() }
func (e *ParseError) Unwrap() error { return e.Err }

// Caret renders the expression's line with a caret under the error, as
// gojq's CLI does.
func (e *ParseError) Caret() string {
	if e.Offset < 0 || e.Offset > len(e.Src) {
		return ""
	}
	start := strings.LastIndexByte(e.Src[:e.Offset], '\n') + 1
	end := strings.IndexByte(e.Src[e.Offset:], '\n')
	if end < 0 {
		end = len(e.Src)
	} else {
		end += e.Offset
	}
	return "    " + e.Src[start:end] + "\n    " + strings.Repeat(" ", len([]rune(e.Src[start:e.Offset]))) + "^"
}

// Compile parses and compiles an expression once. agent resolves the
// `agent` function (nil: AgentOf); environ gives
// $ENV and env (nil: empty, so a library caller's environment never leaks
// in unasked).
func Compile(src string, vars []Var, agent func(*stream.Event) string, environ func() []string) (*Expr, error) {
	if environ == nil {
		environ = func() []string { return nil }
	}
	q, err := gojq.Parse(src)
	if err != nil {
		pe := &ParseError{Src: src, Offset: -1, Err: err}
		var gpe *gojq.ParseError
		if errors.As(err, &gpe) {
			pe.Offset = gpe.Offset
			if pe.Offset > len(src) {
				pe.Offset = len(src)
			}
			// gojq reports the offset just past the bad token.
			if tok := gpe.Token; pe.Offset >= len(tok) && tok != "" {
				pe.Offset -= len(tok)
			}
		}
		return nil, pe
	}
	x := &Expr{src: src, agent: agent}
	if x.agent == nil {
		x.agent = func(e *stream.Event) string { return AgentOf(e, nil) }
	}
	if m := typeGuardRE.FindStringSubmatch(src); m != nil {
		x.typeGuard = m[1]
	}
	x.paths = readPaths(q)
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = "$" + v.Name
		x.values = append(x.values, v.Value)
	}
	opts := []gojq.CompilerOption{gojq.WithVariables(names), gojq.WithEnvironLoader(environ)}
	opts = append(opts, x.functions()...)
	code, err := gojq.Compile(q, opts...)
	if err != nil {
		return nil, &ParseError{Src: src, Offset: -1, Err: err}
	}
	x.code = code
	return x, nil
}

func (x *Expr) functions() []gojq.CompilerOption {
	ev := func() *stream.Event { return x.cur }
	fn := func(name string, f func(e *stream.Event) any) gojq.CompilerOption {
		return gojq.WithFunction(name, 0, 0, func(any, []any) any {
			if e := ev(); e != nil {
				return f(e)
			}
			return nil
		})
	}
	return []gojq.CompilerOption{
		fn("kind", func(e *stream.Event) any { return e.Kind.String() }),
		fn("agent", func(e *stream.Event) any { return x.agent(e) }),
		fn("is_subagent", func(e *stream.Event) any { return e.IsSubagent() }),
		fn("line", func(e *stream.Event) any { return int(e.Line) }),
		fn("source", func(e *stream.Event) any {
			if e.Source == "" {
				return "<stdin>"
			}
			return e.Source
		}),
		fn("text", func(e *stream.Event) any {
			if e.Type != "assistant" && e.Type != "user" {
				return nil
			}
			return e.Text()
		}),
		fn("tool_uses", func(e *stream.Event) any { return blocksOf(e, "tool_use") }),
		fn("tool_results", func(e *stream.Event) any { return blocksOf(e, "tool_result") }),
		fn("is_error", func(e *stream.Event) any { return IsTrouble(e) }),
	}
}

func blocksOf(e *stream.Event, typ string) any {
	out := []any{}
	if e.Type != "assistant" && e.Type != "user" {
		return out
	}
	m, _ := e.Value().(map[string]any)
	msg, _ := m["message"].(map[string]any)
	content, _ := msg["content"].([]any)
	for _, b := range content {
		if bm, ok := b.(map[string]any); ok && bm["type"] == typ {
			out = append(out, bm)
		}
	}
	return out
}

// Prepare validates e in full and builds the tree the expression runs on
// (the whole tree, or the tree cut to the paths it reads), unless Skips.
// It is safe to call from several goroutines on different events: for
// DecoderOptions.Prepare. Its error is a *stream.SyntaxError.
func (x *Expr) Prepare(e *stream.Event) error {
	if x.Skips(e) {
		return nil
	}
	return e.ValidateValueOf(x.paths)
}

// Paths returns the parts of each event the expression reads (its trees
// are cut to them), or nil when it reads events whole or cannot tell.
func (x *Expr) Paths() *stream.Paths { return x.paths }

// Skips reports whether the expression certainly yields nothing for e, so
// that e's tree need not be built.
func (x *Expr) Skips(e *stream.Event) bool {
	return x.typeGuard != "" && e.Type != x.typeGuard
}

// RuntimeError is an error an expression raised on one event.
type RuntimeError struct {
	Source string
	Line   int64
	Err    error
}

func (e *RuntimeError) Error() string {
	src := e.Source
	if src == "" {
		src = "<stdin>"
	}
	// gojq words error("x") as "error: x"; after "jq error:" once is enough.
	return fmt.Sprintf("%s:%d: jq error: %s", src, e.Line, strings.TrimPrefix(e.Err.Error(), "error: "))
}

func (e *RuntimeError) Unwrap() error { return e.Err }

// Halt is returned by Run when the expression called halt or halt_error.
type Halt struct {
	Code  int
	Value any // nil for halt; the message for halt_error
}

func (h *Halt) Error() string { return fmt.Sprintf("halt with code %d", h.Code) }

// Run runs the expression on an event (or on root, when not nil: a value to
// use as `.` instead of the event's tree, for --where on a tool call) and
// calls emit for each output; isEvent tells an output that is the event
// itself (e.g. from select), which is rendered as an event.
func (x *Expr) Run(ctx context.Context, e *stream.Event, root any, emit func(v any, isEvent bool) error) error {
	if root == nil && x.Skips(e) {
		return nil
	}
	x.cur = e
	defer func() { x.cur = nil }()
	input := root
	if input == nil {
		input = e.ValueOf(x.paths)
	}
	iter := x.code.RunWithContext(ctx, input, x.values...)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := v.(error); isErr {
			var he *gojq.HaltError
			if errors.As(err, &he) {
				return &Halt{Code: he.ExitCode(), Value: he.Value()}
			}
			return &RuntimeError{Source: e.Source, Line: e.Line, Err: err}
		}
		if err := emit(v, root == nil && sameMap(v, input)); err != nil {
			return err
		}
	}
}

// sameMap reports whether v is the very map the expression started from.
func sameMap(v, input any) bool {
	vm, ok1 := v.(map[string]any)
	im, ok2 := input.(map[string]any)
	return ok1 && ok2 && reflect.ValueOf(vm).UnsafePointer() == reflect.ValueOf(im).UnsafePointer()
}

// Truthy reports jq's truthiness: everything but false and null.
func Truthy(v any) bool { return v != nil && v != false }
