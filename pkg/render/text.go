package render

import (
	"hash/fnv"
	"io"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ANSI styles (SGR parameters); only written when Options.Color is set.
const (
	stBold   = "1"
	stDim    = "2"
	stRed    = "31"
	stGreen  = "32"
	stYellow = "33"
	stCyan   = "36"
)

// seg is a piece of a one-line summary: sanitized text and its style.
type seg struct{ st, s string }

// textRenderer writes the stream for a person at a terminal: one line per
// tool call, result, notice or state change, assistant text as is, and
// subagent events indented under the Agent call that started them. Every
// string from the stream is sanitized; one-line summaries are truncated to
// Options.Width columns.
type textRenderer struct {
	out
	o Options
	describer
	// ctx is the subagent (its Agent call id) of the last line written, ""
	// for the main agent; lastCall is the Agent call written last, when it
	// was the last line (its subagent's first events need no header).
	ctx, lastCall string
	callsSeen     bool
	// closing is the line of the results written last, not yet written:
	// results that come together (a run with background work writes all
	// of them at its end) fold into one closing line.
	closing *closingLine
}

// closingLine is the results a text view's closing line says: the last
// decides how the run went; the figures are summed over them.
type closingLine struct {
	last   stream.Result
	status string // the last one's Part.Line
	tone   Tone   // the last one's
	mark   string
	cost   string // the last one's Part.Cost
	index  int64  // the first one's result_index
	sum    stream.Tally
	errors []string // the failed ones' errors, in order
}

func newText(w io.Writer, o Options) *textRenderer {
	t := &textRenderer{out: newOut(w), o: o, describer: newDescriber(": ", 64<<10, o)}
	if o.Run != "" {
		// As head and tail name each of several files.
		t.str(t.paint(stBold, "==> "+line(o.Run)+" <==") + "\n")
	}
	return t
}

func (t *textRenderer) paint(st, s string) string {
	if !t.o.Color || st == "" || s == "" {
		return s
	}
	return "\x1b[" + st + "m" + s + "\x1b[0m"
}

// emit writes one line at indent: the segments, cut to the width so that
// the last keep segments (sizes, durations) stay whole.
func (t *textRenderer) emit(indent int, segs []seg, keep int) {
	avail := t.o.Width - indent
	if avail < 20 {
		avail = 20
	}
	tail := 0
	for _, s := range segs[len(segs)-keep:] {
		tail += displayWidth(s.s)
	}
	head := avail - tail
	t.str(strings.Repeat(" ", indent))
	for _, s := range segs[:len(segs)-keep] {
		w := displayWidth(s.s)
		if w <= head {
			t.str(t.paint(s.st, s.s))
			head -= w
			continue
		}
		t.str(t.paint(s.st, truncate(s.s, head)))
		break
	}
	for _, s := range segs[len(segs)-keep:] {
		t.str(t.paint(s.st, s.s))
	}
	t.byte('\n')
	t.lastCall = ""
}

// simple writes a one-line summary: a mark and a text.
func (t *textRenderer) simple(indent int, st, mark, text string) {
	t.emit(indent, []seg{{st, mark + " "}, {st, text}}, 0)
}

// prose writes multi-line text as is (sanitized, tabs and newlines kept),
// the first line after prefix and the others aligned under it.
func (t *textRenderer) prose(indent int, prefix, text, st string) {
	text = strings.Trim(Sanitize(text, true), "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	pad := strings.Repeat(" ", indent)
	cont := pad + strings.Repeat(" ", displayWidth(prefix))
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t")
		switch {
		case i == 0:
			t.str(pad + t.paint(st, prefix+l))
		case l == "":
		default:
			t.str(cont + t.paint(st, l))
		}
		t.byte('\n')
	}
	t.lastCall = ""
}

// enter switches to the subagent ctx ("" for the main agent) and returns
// the indentation of its lines. A subagent's lines get a header when the
// previous line was someone else's, unless that line was the call that
// started it.
func (t *textRenderer) enter(ctx, typ, desc string) int {
	if ctx == "" {
		t.ctx = ""
		return 0
	}
	a := t.lookup(ctx, typ, desc)
	ind := 2 * a.depth
	if t.ctx != ctx {
		first := t.lastCall == ctx
		t.ctx = ctx
		if !first {
			t.emit(ind, []seg{{stCyan, "▸ "}, {stCyan, line(a.label)}}, 0)
		}
	}
	return ind
}

func textHash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(strings.TrimSpace(s)))
	return h.Sum64()
}

func (t *textRenderer) Render(rec Record) error {
	if len(rec.Rows) > 0 {
		return errNoRows{}
	}
	ev := rec.Event
	if ev == nil {
		t.closeRun()
		t.callsSeen = true
		for _, c := range rec.Calls {
			t.callLine(c)
		}
		return t.err
	}
	for i := range t.describe(ev, rec.Calls) {
		t.part(&t.parts[i])
	}
	return t.err
}

// tones are the ANSI styles of the tones.
var tones = [...]string{TonePlain: "", ToneDim: stDim, ToneOK: stGreen, ToneWarn: stYellow, ToneError: stRed, ToneInfo: stCyan}

// part lays out one part of an event: a line, or text as is.
func (t *textRenderer) part(p *Part) {
	if p.Form == FormHidden {
		return
	}
	if p.Form != FormOutcome {
		t.closeRun()
	}
	ind := t.enter(p.Agent.ID, p.Agent.Type, p.Agent.Desc)
	st := tones[p.Tone]
	switch p.Form {
	case FormLine, FormFold:
		segs := []seg{{st, p.Mark + " "}, {st, line(p.Line)}}
		if p.Stats == "" {
			t.emit(ind, segs, 0)
			break
		}
		t.emit(ind, append(segs, seg{stDim, "  (" + p.Stats + ")"}), 1)
	case FormProse:
		t.prose(ind, "", p.Body, "")
	case FormPrompt:
		t.prose(ind, "» ", p.Body, stBold)
	case FormCall:
		t.emit(ind, []seg{{stCyan, "→ "}, {stBold, line(p.Use.Name)}, {"", "  " + line(p.Target)}}, 0)
		if isAgentTool(p.Use.Name) {
			t.lastCall = p.Use.ID
		}
	case FormToolResult:
		t.result(ind, p)
	case FormInit:
		t.init(p.Init)
	case FormOutcome:
		t.outcome(p)
	}
}

// typeName is "type/subtype", or "type".
func typeName(ev *stream.Event) string {
	if ev.Subtype == "" {
		return ev.Type
	}
	return ev.Type + "/" + ev.Subtype
}

func (t *textRenderer) init(in *stream.Init) {
	// The run's CLI, by id ("claude-code 2.1.328"; "codex" when its
	// input gives no version).
	cli := strings.TrimSpace(stream.CLIOf(in.CLI, "").ID + " " + in.Version)
	parts := []string{in.Model, cli, in.CWD, in.PermissionMode}
	if len(in.MCPServers) > 0 {
		parts = append(parts, "mcp: "+strings.Join(in.MCPServers, ", "))
	}
	for i := 0; i < len(parts); i++ {
		if parts[i] == "" {
			parts = append(parts[:i], parts[i+1:]...)
			i--
		}
	}
	t.emit(0, []seg{{stCyan, "◆ "}, {stBold, line(strings.Join(parts, " · "))}}, 0)
}

func findCall(calls []*stream.ToolCall, id string) *stream.ToolCall {
	for _, c := range calls {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// expandTabs replaces tabs for one-line previews.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\t", "    ")
}

// result writes a tool result's line and the first lines of its text; a
// result whose call is not known is named by its call's id.
func (t *textRenderer) result(ind int, p *Part) {
	name, target := p.Label, p.Target
	if p.Call == nil {
		name, target = "result", p.Result.ToolUseID
	}
	st := tones[p.Tone]
	t.emit(ind, []seg{{st, p.Mark + " "}, {stBold, line(name)}, {"", "  " + line(target)}, {stDim, "  (" + p.Stats + ")"}}, 1)
	lines, more := firstLines(p.Body, 3)
	for _, l := range lines {
		t.emit(ind+2, []seg{{stDim, "│ "}, {"", line(expandTabs(l))}}, 0)
	}
	if more > 0 {
		t.emit(ind+2, []seg{{stDim, "│ … " + plural(int64(more), "more line")}}, 0)
	}
}

// callLine is the tools preset's line for a call: mark, agent, tool,
// target, and the duration and result size.
func (t *textRenderer) callLine(c *stream.ToolCall) {
	row := describeCall(c)
	stats := row.Status // (no result)
	if row.Size != "" {
		if stats = row.Size; row.Duration != "" {
			stats = row.Duration + ", " + stats
		}
	}
	st := tones[row.Tone]
	t.emit(0, []seg{{st, row.Mark + " "}, {stDim, line(row.Agent) + "  "}, {stBold, line(row.Name)}, {"", "  " + line(row.Target)}, {stDim, "  (" + stats + ")"}}, 1)
}

// outcome writes a result's final answer, unless the main agent just said
// it, and keeps its line for closeRun: results that follow each other
// make one closing line.
func (t *textRenderer) outcome(p *Part) {
	r := p.Outcome
	if p.Body != "" {
		t.closeRun() // an answer between two results: each its own line
		t.prose(0, "", p.Body, "")
	}
	c := t.closing
	if c == nil {
		c = &closingLine{index: r.ResultIndex}
		t.closing = c
	}
	c.last, c.status, c.tone, c.mark, c.cost = *r, p.Line, p.Tone, p.Mark, p.Cost
	c.last.StructuredOutput = nil // (aliases the event)
	c.sum.AddResult(stream.ResultFigures{Turns: r.NumTurns, DurationMs: r.DurationMs, Timed: r.HasDuration})
	if r.IsError {
		// (A failed result's text the main agent just said, as an API
		// error's line, is not said again under the closing line.)
		errs := p.Errors
		if p.Repeated {
			errs = r.Errors
		}
		c.errors = append(c.errors, errs...)
	}
}

// closeRun writes the closing line of the results kept by outcome: how
// the last says the run went, how many results it folds, and their
// figures summed (the cost is the run's so far, the last one's); then the
// errors of the failed ones.
func (t *textRenderer) closeRun() {
	c := t.closing
	if c == nil {
		return
	}
	t.closing = nil
	r := &c.last
	parts := []string{"run " + c.status}
	switch {
	case c.sum.Results > 1:
		parts = append(parts, plural(int64(c.sum.Results), "result"))
	case c.index > 0:
		parts = append(parts, "result "+strconv.FormatInt(c.index, 10))
	}
	parts = append(parts, plural(c.sum.Turns, "turn"))
	if c.sum.Timed > 0 { // (no duration when no result says one)
		parts = append(parts, fmtMs(c.sum.DurationMs))
	}
	parts = append(parts, c.cost)
	if r.PermissionDenials > 0 {
		parts = append(parts, plural(int64(r.PermissionDenials), "permission denial"))
	}
	t.ctx = ""
	t.simple(0, tones[c.tone], c.mark, line(strings.Join(parts, " · ")))
	for _, m := range c.errors {
		t.emit(2, []seg{{stRed, line(m)}}, 0)
	}
}

func (t *textRenderer) Value(v any) error {
	t.closeRun()
	if s, ok := v.(string); ok && (t.o.Raw || t.o.Join) {
		t.str(Sanitize(s, true))
	} else {
		b, err := encodeValue(v, t.o.Indent, t.o.Compact)
		if err != nil {
			return err
		}
		t.bytes(jsonSafe(b))
	}
	if !t.o.Join {
		t.byte('\n')
	}
	return t.err
}

func (t *textRenderer) Summary(r *Report) error {
	t.closeRun()
	if r.Trouble != "" {
		t.simple(0, stRed, "✗", line(r.Trouble))
		return t.err
	}
	for _, b := range r.Blocks {
		if !b.shows(Text) {
			continue
		}
		switch {
		case b.Table != nil:
			t.table(b.Table.lines(Text))
		case b.Entry != nil:
			t.emit(0, []seg{{stCyan, "◆ "}, {stBold, line(b.Entry.Title)}}, 0)
			for _, d := range b.Entry.Details {
				t.emit(2, []seg{{"", line(d)}}, 0)
			}
		default:
			t.str(line(b.Line) + "\n")
		}
	}
	return t.err
}

// table writes rows with aligned columns: the first row is the header;
// columns whose cells are all numbers are right-aligned.
func (t *textRenderer) table(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	n := len(rows[0])
	widths := make([]int, n)
	numeric := make([]bool, n)
	for i := range numeric {
		numeric[i] = len(rows) > 1
	}
	for r, row := range rows {
		for i := range row {
			row[i] = line(row[i])
			if w := displayWidth(row[i]); w > widths[i] {
				widths[i] = w
			}
			if r > 0 && row[i] != "" {
				if _, err := strconv.ParseFloat(row[i], 64); err != nil {
					numeric[i] = false
				}
			}
		}
	}
	for r, row := range rows {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			if numeric[i] {
				b.WriteString(padLeft(c, widths[i]))
			} else if i < len(row)-1 {
				b.WriteString(padRight(c, widths[i]))
			} else {
				b.WriteString(c)
			}
		}
		s := strings.TrimRight(b.String(), " ")
		if r == 0 {
			s = t.paint(stBold, s)
		}
		t.str(s + "\n")
	}
}

func (t *textRenderer) Close(open []*stream.ToolCall) error {
	t.closeRun()
	for _, c := range open {
		t.callLine(c)
	}
	return t.Flush()
}
