package render

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyReaders are the methods that read a JSON field by its key: the
// Event's Str, Int, Float, Has and Get (and the Path of its top level),
// jsonx.Value's Get and Path. A call of one of them with a key in the
// views is a read of event JSON that pkg/stream's typed views exist for.
var keyReaders = map[string]bool{"Str": true, "Int": true, "Float": true, "Has": true, "Get": true, "Path": true, "Bool": true}

// jsonxAllowed are the internal/jsonx functions a view may call: they
// read no field, they copy or check bytes (AppendCompact, IsCompact: a tool input
// printed whole; StringEnd: indentation skipping a string; Validate: an
// event printed as a JSON document). jsonx.Value(x) is allowed only to
// decode a row's cell whole (.Decode()), which names no key either.
var jsonxAllowed = map[string]bool{"AppendCompact": true, "IsCompact": true, "StringEnd": true, "Validate": true}

// keyReads lists, in the non-test Go files of dir, every read of a JSON
// field by its key: a key reader called with a string literal or with an
// argument at all where the reader takes a key (Event.Str(k) with a
// variable k is a read by key too), and every use of jsonx beyond
// jsonxAllowed (Lookup, Members, a Value walked).
func keyReads(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	var out []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		out = append(out, fileKeyReads(fset, f)...)
	}
	sort.Strings(out)
	return out
}

// fileKeyReads lists the reads by key of one parsed file.
func fileKeyReads(fset *token.FileSet, f *ast.File) []string {
	jsonx := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == "github.com/ccfilter/ccfilter/internal/jsonx" {
			jsonx = "jsonx"
			if im.Name != nil {
				jsonx = im.Name.Name
			}
		}
	}
	var out []string
	decoded := map[token.Pos]bool{} // jsonx.Value of jsonx.Value(x).Decode()
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if inner, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := inner.X.(*ast.CallExpr); ok && inner.Sel.Name == "Decode" && len(n.Args) == 0 {
					decoded[x.Fun.Pos()] = true // (visited before its inner call)
				}
			}
			if r, ok := callRead(n, jsonx); ok {
				out = append(out, fset.Position(n.Pos()).String()+": "+r)
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && jsonx != "" && id.Name == jsonx && !jsonxAllowed[n.Sel.Name] &&
				!(n.Sel.Name == "Value" && decoded[n.Pos()]) {
				out = append(out, fset.Position(n.Pos()).String()+": jsonx."+n.Sel.Name)
			}
		}
		return true
	})
	return out
}

// callRead says whether a call is a key reader's with a key: any
// argument for Str, Int, Float and Has (Event.Str(k) with a variable k
// is a read by key too), a literal one for Get, Path and Bool (which a
// map-like value or a flag may have too).
func callRead(n *ast.CallExpr, jsonx string) (string, bool) {
	sel, ok := n.Fun.(*ast.SelectorExpr)
	if !ok || !keyReaders[sel.Sel.Name] || len(n.Args) == 0 || httpHeader(sel.X) {
		return "", false
	}
	if id, isPkg := sel.X.(*ast.Ident); isPkg && id.Name == jsonx {
		return "", false // (a jsonx function: the selector rule)
	}
	switch sel.Sel.Name {
	case "Get", "Path", "Bool":
		if !anyLiteral(n.Args) {
			return "", false
		}
	}
	return sel.Sel.Name + "(" + argText(n.Args) + ")", true
}

// httpHeader: resp.Header.Get("Content-Type") reads an HTTP header (the
// OTLP endpoint's answer), not event JSON.
func httpHeader(x ast.Expr) bool {
	s, ok := x.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Header"
}

func anyLiteral(args []ast.Expr) bool {
	for _, a := range args {
		if l, ok := a.(*ast.BasicLit); ok && l.Kind == token.STRING {
			return true
		}
	}
	return false
}

func argText(args []ast.Expr) string {
	var s []string
	for _, a := range args {
		if l, ok := a.(*ast.BasicLit); ok {
			s = append(s, l.Value)
		} else {
			s = append(s, "…")
		}
	}
	return strings.Join(s, ", ")
}

// TestNoEventReadByKey proves the views read no event field by its JSON
// key: the renderers (pkg/render), the live status (pkg/live) and the
// command (cmd/ccfilter) read the describer's Parts and pkg/stream's
// typed views (ev.Retry(), ev.Task(), ev.Denial(), stream.ReadToolInput,
// …), so how an input spells a field is known in the core alone. A
// transcript's api_error read by the stream's api_retry spelling is how
// the status line came to say "retry 0/0". Nothing is allow-listed but
// an HTTP header and the jsonx functions that read no key (above).
func TestNoEventReadByKey(t *testing.T) {
	for _, dir := range []string{".", "../live", "../../cmd/ccfilter"} {
		t.Run(filepath.Base(filepath.Clean(dir)), func(t *testing.T) {
			assert.Empty(t, keyReads(t, dir), "read through a typed view in pkg/stream (fields.go, views.go), or the describer's Parts")
		})
	}
}

// TestKeyReadsAreFound proves the check above sees what it refuses, on
// a file that reads events by key in each way it knows.
func TestKeyReadsAreFound(t *testing.T) {
	dir := t.TempDir()
	src := `package x

import (
	"net/http"

	j "github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

func f(ev *stream.Event, resp *http.Response, k string, m map[string]int) {
	_ = ev.Str("tool_name")
	_ = ev.Str(k)
	_ = ev.Int("attempt")
	_ = ev.Has("abandoned_blocks")
	_ = ev.Get("message", "id")
	_ = j.Value(ev.Raw).Get("sessionId").Str()
	var buf [4]j.Member
	ms, _ := j.Members(ev.Raw, buf[:0])
	_ = j.Lookup(ms, "k")
	_ = j.Value(ev.Raw).Decode()
	_ = j.AppendCompact
	_ = resp.Header.Get("Content-Type")
	_ = m
}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644))
	got := keyReads(t, dir)
	var short []string
	for _, r := range got {
		short = append(short, r[strings.Index(r, "x.go:"):])
	}
	assert.Equal(t, []string{
		"x.go:11:6: Str(\"tool_name\")",
		"x.go:12:6: Str(…)",
		"x.go:13:6: Int(\"attempt\")",
		"x.go:14:6: Has(\"abandoned_blocks\")",
		"x.go:15:6: Get(\"message\", \"id\")",
		"x.go:16:6: Get(\"sessionId\")",
		"x.go:16:6: jsonx.Value",
		"x.go:17:13: jsonx.Member",
		"x.go:18:11: jsonx.Members",
		"x.go:19:6: jsonx.Lookup",
	}, short)
}
