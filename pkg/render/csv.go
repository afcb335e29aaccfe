package render

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// CSVHeader is the column list of the tool-call CSV. It is fixed, so every
// row has every column; an open call (no result) has empty is_error,
// result_bytes and duration_ms.
var CSVHeader = []string{"line", "timestamp", "agent", "subagent_type", "tool_use_id", "tool", "summary", "input", "is_error", "result_bytes", "duration_ms"}

// csvRenderer writes a CSV of tool calls: the header once, then a row per
// call when its result arrives (Record.Calls), and at Close a row per call
// that never got one. Events themselves are not rows.
//
// Values and summaries, which are not tool calls, are written as their own
// small tables instead (a summary-only run has no tool-call header):
//
//   - a value is one row of one cell: a string as is, anything else as
//     compact JSON;
//   - a summary is a table with its own header row: usage: model, side
//     (main/subagent/total), calls, input_tokens, output_tokens,
//     cache_creation_input_tokens, cache_read_input_tokens, cost_usd (on the
//     total row); subagents: tool_use_id, agent_id, type, description,
//     background, status, tool_calls, total_tokens, tool_uses, duration_ms,
//     start_line, end_line; types: type, subtype, count, known; init: model,
//     claude_code_version, cwd, permission_mode, session_id, tools,
//     mcp_servers (lists joined by spaces).
//
// Every cell that comes from the stream and starts with =, +, -, @, a tab
// or a CR gets a leading ' so that spreadsheets do not run it as a formula.
type csvRenderer struct {
	out
	o      Options
	header bool // the tool-call header was written
	other  bool // a value or summary was written
	// cells and scratch are each row's fields and the compact JSON they
	// alias, reused from row to row (Row.cells).
	cells   []string
	scratch []byte
}

func newCSV(w io.Writer, o Options) *csvRenderer {
	return &csvRenderer{o: o, out: newByteOut(w, o, false)}
}

// cell protects a cell against formula injection.
func cell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// write writes one record byte for byte as encoding/csv's Writer does
// (commas, LF line ends; a field quoted when it holds a quote, comma, CR or
// LF, starts with a space or is \., with its quotes doubled), searching each
// field with IndexByte where the Writer goes a byte at a time: tool inputs
// make megabytes of cells (csv.Writer's loops were a twentieth of tools).
func (r *csvRenderer) write(rec []string) {
	for i, f := range rec {
		if i > 0 {
			r.byte(',')
		}
		if !csvNeedsQuotes(f) {
			r.str(f)
			continue
		}
		r.byte('"')
		for {
			j := strings.IndexByte(f, '"')
			if j < 0 {
				r.str(f)
				break
			}
			r.str(f[:j+1])
			r.byte('"')
			f = f[j+1:]
		}
		r.byte('"')
	}
	r.byte('\n')
}

// csvNeedsQuotes is encoding/csv's rule for a comma-separated field.
func csvNeedsQuotes(f string) bool {
	if f == "" {
		return false
	}
	if f == `\.` || strings.IndexByte(f, '"') >= 0 || strings.IndexByte(f, ',') >= 0 ||
		strings.IndexByte(f, '\n') >= 0 || strings.IndexByte(f, '\r') >= 0 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsSpace(r)
}

func (r *csvRenderer) writeHeader() {
	if !r.header {
		r.header = true
		r.writeHead(sourced(r.o.Run, CSVHeader))
	}
}

// writeHead writes a CSV's header, unless an earlier run of the same
// output wrote it (Options.Shared): the CSV of several runs has one.
func (r *csvRenderer) writeHead(head []string) {
	if sh := r.o.Shared; sh != nil {
		if sh.HeaderWritten {
			return
		}
		sh.HeaderWritten = true
	}
	r.write(head)
}

func (r *csvRenderer) call(c *stream.ToolCall) {
	r.writeHeader()
	r.cells = callCellsOf(c).cells(r.o.Run, r.cells, &r.scratch)
	r.write(r.cells)
}

func (r *csvRenderer) Render(rec Record) error {
	for _, row := range rec.Rows {
		row = row.withSource(r.o.Run)
		if !r.header {
			r.header = true
			r.writeHead(row.Columns)
		}
		if row.Values != nil {
			r.cells = row.cells(r.cells, &r.scratch)
			r.write(r.cells)
		}
	}
	for _, c := range rec.Calls {
		r.call(c)
	}
	return r.err
}

func (r *csvRenderer) Value(v any) error {
	r.other = true
	s, ok := v.(string)
	if !ok {
		b, err := encodeValue(v, "", true)
		if err != nil {
			return err
		}
		s = string(b)
	}
	r.write([]string{cell(s)})
	return r.err
}

func (r *csvRenderer) Summary(rep *Report) error {
	r.other = true
	if rep.Rows == nil {
		return r.err
	}
	set := rep.Rows.withSource(r.o.Run)
	r.writeHead(set.Columns)
	for i := range set.Rows {
		r.cells = set.Row(i).cells(r.cells, &r.scratch)
		r.write(r.cells)
	}
	return r.err
}

// Flush writes buffered rows out and reports any CSV or write error.
func (r *csvRenderer) Flush() error {
	return r.out.Flush()
}

func (r *csvRenderer) Close(open []*stream.ToolCall) error {
	if !r.other {
		r.writeHeader() // a tool-call CSV has its header even with no rows
	}
	for _, c := range open {
		r.call(c)
	}
	return r.Flush()
}
