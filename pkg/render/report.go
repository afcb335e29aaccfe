package render

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Report is the end-of-stream output of a summary preset (usage, types,
// ...), in one typed shape that each format renders its own way: text and
// markdown show its Blocks (laid out by the same table code); CSV, NDJSON
// and JSON write its Rows, one set of columns for all three (RowSet). A
// preset builds a Report; no renderer knows which preset made it.
type Report struct {
	// Title heads the report in markdown ("Usage").
	Title string
	// Blocks are what text and markdown show, in order.
	Blocks []Block
	// Rows are what CSV, NDJSON and JSON write.
	Rows *RowSet
	// Metrics, when set, are what the otlp format writes (a grouped
	// report's cumulative sums); nil: the report is not written as otlp.
	Metrics *Metrics
	// Trouble, when set, makes the report one line of trouble in the
	// run's flow rather than a report of its own: text prints it as a
	// failure line, markdown as an error callout, with no heading and the
	// run's closing summary still after it. Blocks are not used then.
	Trouble string
}

// Block is one part of a report for people: a table, a sentence or an
// entry, shown by text and markdown or, with Only, by one of them.
type Block struct {
	// Only names the one format that shows the block (Text or Markdown);
	// empty for both.
	Only Format
	// One of:
	Table *Table
	Line  string // a sentence
	Entry *Entry
}

// Entry is a heading line and its detail lines (text: "◆ title", the
// details indented under it).
type Entry struct {
	Title   string
	Details []string
}

// Table is a header of columns and rows of cells.
type Table struct {
	Columns []Column
	Rows    [][]Cell
}

// Column is a table column.
type Column struct {
	// Name is the header in markdown and CSV; text shows it with its first
	// letter in lower case, or Short when set.
	Name  string
	Short string
	// Right aligns the column right in markdown (text right-aligns the
	// columns whose every cell is a number).
	Right bool
}

// Cell is one table cell: its text and how formats treat it.
type Cell struct {
	Text  string
	Style Style
}

// Style is how formats treat a cell's text.
type Style uint8

// The styles. Every cell is sanitized and kept to one line.
const (
	// Plain text: escaped in markdown, guarded against formulas in CSV.
	Plain Style = iota
	// Number is a figure, written as it is everywhere.
	Number
	// Code is an identifier: a code span in markdown.
	Code
	// Strong is stressed: bold in markdown.
	Strong
	// Prose is free text, cut to a table's width: 40 columns in text, 60
	// in markdown.
	Prose
)

// shows reports whether format f shows block b.
func (b Block) shows(f Format) bool { return b.Only == "" || b.Only == f }

// lines returns the table as format f writes it: the header, then the rows,
// each cell in f's form. Text, markdown and CSV all lay out these strings.
func (t *Table) lines(f Format) [][]string {
	out := make([][]string, 0, len(t.Rows)+1)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.title(f)
	}
	out = append(out, head)
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = c.in(f)
		}
		out = append(out, cells)
	}
	return out
}

// aligns is the markdown alignment row: "l" or "r" per column.
func (t *Table) aligns() string {
	var b strings.Builder
	for _, c := range t.Columns {
		if c.Right {
			b.WriteByte('r')
		} else {
			b.WriteByte('l')
		}
	}
	return b.String()
}

func (c Column) title(f Format) string {
	if f != Text {
		return c.Name
	}
	if c.Short != "" {
		return c.Short
	}
	r, n := utf8.DecodeRuneInString(c.Name)
	return string(unicode.ToLower(r)) + c.Name[n:]
}

// in returns the cell's text as format f writes it (text's table code
// sanitizes every cell itself).
func (c Cell) in(f Format) string {
	switch f {
	case Markdown:
		switch c.Style {
		case Number:
			return c.Text
		case Code:
			return mdCode(c.Text)
		case Strong:
			return "**" + mdInline(c.Text) + "**"
		case Prose:
			return mdInline(truncate(line(c.Text), 60))
		}
		return mdInline(c.Text)
	case CSV:
		if c.Style == Number {
			return c.Text
		}
		return cell(c.Text)
	case HTML:
		switch c.Style {
		case Code:
			return "<code>" + htmlText(c.Text) + "</code>"
		case Strong:
			return "<b>" + htmlText(c.Text) + "</b>"
		case Prose:
			return htmlText(truncate(line(c.Text), 80))
		}
		return htmlText(c.Text)
	}
	if c.Style == Prose {
		return truncate(line(c.Text), 40)
	}
	return c.Text
}
