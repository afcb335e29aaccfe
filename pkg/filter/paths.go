package filter

import (
	"strconv"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// The paths an expression reads. `select(.type=="user") |
// .message.content[0].tool_use_id` looks at two small values of an event
// whose tool result text may be megabytes: building the whole tree for it
// (unquoting the text) was most of the expression's cost. readPaths walks
// the parsed expression and, when every use of the event is a path of
// constant keys and indexes from its root, returns those paths: the event
// is then decoded through them (Event.ValueOf) and the expression gives
// what it gives on the whole tree. Anything it cannot follow (a function
// of its own, a variable bound to the event, reduce, a path expression)
// makes it give up: the whole tree, as before. A value is needed whole
// wherever the expression does more than go down into it: compares it,
// prints it, hands it to a function.

// flow is where a value comes from: the event at a path (rooted), or
// computed from values needed whole already.
type flow struct {
	rooted bool
	path   []any
}

type pathReader struct {
	paths  *stream.Paths
	failed bool
}

// readPaths returns the paths q reads of its input (none at all, for an
// expression of ccfilter's functions), or nil when it reads the whole of
// it or cannot tell.
func readPaths(q *gojq.Query) *stream.Paths {
	r := &pathReader{paths: &stream.Paths{}}
	for _, f := range r.query(q, []flow{{rooted: true}}) {
		r.need(f) // the outputs are printed
	}
	if r.failed || r.paths.Whole() {
		return nil
	}
	return r.paths
}

func (r *pathReader) fail() []flow {
	r.failed = true
	return nil
}

// need marks a value as needed whole.
func (r *pathReader) need(f flow) {
	if f.rooted {
		r.paths.Add(f.path...)
	}
}

func (r *pathReader) needAll(fs []flow) {
	for _, f := range fs {
		r.need(f)
	}
}

var computed = []flow{{}}

func (r *pathReader) query(q *gojq.Query, in []flow) []flow {
	if r.failed || q == nil {
		return nil
	}
	if q.Meta != nil || len(q.Imports) > 0 || len(q.FuncDefs) > 0 || len(q.Patterns) > 0 {
		return r.fail()
	}
	if q.Term != nil {
		return r.term(q.Term, in)
	}
	switch q.Op {
	case gojq.OpPipe:
		return r.query(q.Right, r.query(q.Left, in))
	case gojq.OpComma:
		return append(r.query(q.Left, in), r.query(q.Right, in)...)
	case gojq.OpAdd, gojq.OpSub, gojq.OpMul, gojq.OpDiv, gojq.OpMod,
		gojq.OpEq, gojq.OpNe, gojq.OpGt, gojq.OpLt, gojq.OpGe, gojq.OpLe,
		gojq.OpAnd, gojq.OpOr, gojq.OpAlt:
		r.needAll(r.query(q.Left, in))
		r.needAll(r.query(q.Right, in))
		return computed
	}
	return r.fail() // assignments and updates
}

func (r *pathReader) term(t *gojq.Term, in []flow) []flow {
	var out []flow
	switch t.Type {
	case gojq.TermTypeIdentity:
		out = in
	case gojq.TermTypeIndex:
		out = r.index(t.Index, in)
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber:
		out = computed
	case gojq.TermTypeString:
		out = r.str(t.Str, in)
	case gojq.TermTypeQuery:
		out = r.query(t.Query, in)
	case gojq.TermTypeArray:
		if t.Array.Query != nil {
			r.needAll(r.query(t.Array.Query, in))
		}
		out = computed
	case gojq.TermTypeObject:
		out = r.object(t.Object, in)
	case gojq.TermTypeUnary:
		r.needAll(r.term(t.Unary.Term, in))
		out = computed
	case gojq.TermTypeFormat:
		if t.Str != nil {
			return r.fail()
		}
		r.needAll(in) // @csv, @json, ...: of .
		out = computed
	case gojq.TermTypeIf:
		out = r.ifThen(t.If, in)
	case gojq.TermTypeTry:
		out = r.query(t.Try.Body, in)
		if t.Try.Catch != nil {
			r.needAll(r.query(t.Try.Catch, computed)) // on the error's message
			out = append(out, computed...)
		}
	case gojq.TermTypeFunc:
		out = r.function(t.Func, in)
	default:
		return r.fail() // .., reduce, foreach, label, break
	}
	for _, s := range t.SuffixList {
		if r.failed {
			return nil
		}
		switch {
		case s.Index != nil:
			out = r.index(s.Index, out)
		case s.Iter:
			r.needAll(out) // .[] goes over all of it
			out = computed
		}
		// Optional (?) changes which errors are shown, not what is read.
	}
	return out
}

// object is an object construction: its keys and values read the input.
func (r *pathReader) object(o *gojq.Object, in []flow) []flow {
	for _, kv := range o.KeyVals {
		switch {
		case kv.KeyQuery != nil:
			r.needAll(r.query(kv.KeyQuery, in))
		case kv.KeyString != nil:
			r.needAll(r.str(kv.KeyString, in))
		}
		switch {
		case kv.Val != nil:
			r.needAll(r.query(kv.Val, in))
		case kv.KeyString != nil && len(kv.KeyString.Queries) == 0:
			r.needAll(r.step(in, kv.KeyString.Str)) // {"a b"}: ."a b"
		case kv.Key != "" && !strings.HasPrefix(kv.Key, "$"):
			r.needAll(r.step(in, kv.Key)) // {a}: .a
		case kv.Key != "":
			// {$x}: a variable
		default:
			return r.fail()
		}
	}
	return computed
}

// ifThen is if-then-elif-else: the conditions are read whole, the branches
// flow on.
func (r *pathReader) ifThen(t *gojq.If, in []flow) []flow {
	r.needAll(r.query(t.Cond, in))
	out := r.query(t.Then, in)
	for _, e := range t.Elif {
		r.needAll(r.query(e.Cond, in))
		out = append(out, r.query(e.Then, in)...)
	}
	if t.Else != nil {
		return append(out, r.query(t.Else, in)...)
	}
	return append(out, in...) // if without else: . when no branch is taken
}

// str is a string literal, whose interpolations read the input.
func (r *pathReader) str(s *gojq.String, in []flow) []flow {
	for _, q := range s.Queries {
		r.needAll(r.query(q, in))
	}
	return computed
}

// step follows one constant key or index. The way down is kept in the
// cut tree even when nothing at its end is read: going down into a value
// of another kind fails, with a message that shows that value.
func (r *pathReader) step(in []flow, key any) []flow {
	out := make([]flow, len(in))
	for i, f := range in {
		if f.rooted {
			out[i] = flow{rooted: true, path: append(append([]any(nil), f.path...), key)}
			r.paths.Reach(out[i].path...)
		}
	}
	return out
}

func (r *pathReader) index(ix *gojq.Index, in []flow) []flow {
	switch {
	case ix.IsSlice:
		r.needAll(r.query(ix.Start, in))
		r.needAll(r.query(ix.End, in))
	case ix.Name != "":
		return r.step(in, ix.Name)
	case ix.Str != nil && len(ix.Str.Queries) == 0:
		return r.step(in, ix.Str.Str)
	case ix.Start != nil && ix.End == nil:
		if k, ok := constantKey(ix.Start); ok {
			return r.step(in, k)
		}
		r.needAll(r.query(ix.Start, in))
	default:
		if ix.Str != nil {
			r.needAll(r.str(ix.Str, in))
		}
	}
	// A computed key or a slice: all of it.
	r.needAll(in)
	return computed
}

// constantKey is the key of .["a"] or the index of .[2].
func constantKey(q *gojq.Query) (any, bool) {
	if q.Term == nil || len(q.Term.SuffixList) > 0 || q.Op != 0 {
		return nil, false
	}
	switch t := q.Term; t.Type {
	case gojq.TermTypeNumber:
		if n, err := strconv.Atoi(t.Number); err == nil && n >= 0 {
			return n, true
		}
	case gojq.TermTypeString:
		if len(t.Str.Queries) == 0 {
			return t.Str.Str, true
		}
	}
	return nil, false
}

// eventFuncs are ccfilter's functions: they read the event, not `.`
// (those that decode it, tool_uses and tool_results, use its whole tree).
var eventFuncs = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range Funcs {
		m[f.Name] = true
	}
	return m
}()

// function: select passes its input through; empty and error end it;
// other builtins are given their input whole, as are their arguments'
// results. Those that read other inputs or paths fail.
func (r *pathReader) function(f *gojq.Func, in []flow) []flow {
	switch {
	case strings.HasPrefix(f.Name, "$"):
		return computed // a variable ($ENV, --arg, $__loc__)
	case eventFuncs[f.Name] && len(f.Args) == 0:
		return computed
	}
	switch f.Name {
	case "select":
		if len(f.Args) == 1 {
			r.needAll(r.query(f.Args[0], in))
			return in
		}
	case "empty":
		if len(f.Args) == 0 {
			return nil
		}
	case "not", "length", "type", "keys", "tostring", "tojson", "test", "startswith", "endswith",
		"contains", "has", "ascii_downcase", "ascii_upcase", "split", "join", "map", "add", "any", "all",
		"sort", "sort_by", "unique", "min", "max", "first", "last", "tonumber", "ltrimstr", "rtrimstr",
		"error", "values", "to_entries", "utf8bytelength", "floor", "fromjson", "match", "capture",
		"sub", "gsub", "explode", "implode", "flatten", "reverse", "isempty", "limit", "debug", "stderr":
		r.needAll(in)
		for _, a := range f.Args {
			r.needAll(r.query(a, in))
		}
		return computed
	}
	return r.fail()
}
