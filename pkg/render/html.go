package render

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Limits of the HTML report: what one tool output or folded text shows
// (--full-output: all of it), the troubles listed at the top, the tools
// the table of where time went names, and the bytes of subagents' blocks
// held until the Agent call that started them ends.
const (
	htmlBlockBytes = 64 << 10
	htmlBlockLines = 1000
	htmlTroubles   = 50
	htmlTools      = 40
	htmlHeldBytes  = 8 << 20
)

// htmlRenderer writes a report as one self-contained HTML page (see
// html_page.go): a layout of the same Parts as the markdown report. Each
// event is a block with an anchor of its line (#L12; a subagent's own file
// in a transcript: #l<hash>-12); a tool call is one folded block with its
// input and its result, written when the result arrives; a subagent's
// events are folded inside the block of the Agent call that started it.
// What only the run's end knows (the outcome, the troubles, where the time
// and tokens went) is written at Close and shown first (CSS order), so the
// page is written as the events arrive. Its state is bounded: capped
// lists, and the subagents' blocks held (at most htmlHeldBytes; past it the
// largest is written where it stands).
type htmlRenderer struct {
	out
	o Options
	describer
	started bool
	id      string // this run's prefix of ids on a page of several runs
	// evTrouble: the event being rendered signals trouble; troubled: it
	// is listed already (one entry per event).
	evTrouble, troubled bool
	troubleLine         string // the event's trouble in words (TroubleLine)
	mainSrc             string // the run's own input (a transcript's subagents have theirs)
	// the events' blocks
	evOpen   bool
	anchored bool                 // the event's anchor is written
	sink     *agentBox            // nil: the page; else the subagent's block being written
	boxes    map[string]*agentBox // by Agent call id
	order    []string             // the boxes' ids, oldest first
	// answered are the Agent calls whose result is out: a background
	// agent's later events are written at the next main-agent event.
	answered map[string]bool
	// failures are the failures (failed tool calls, errors) written inside
	// each subagent's block, and its parents', by Agent call id: its
	// Agent call and its block's banner say so, not the Trouble list only.
	failures map[string]int
	// what Close says
	init     *stream.Init
	first    string // the first event's timestamp (a transcript's)
	turn     int
	last     *stream.Result
	apiError string
	results  int
	troubles []htmlTrouble
	more     int
	tools    map[string]*toolFigures
	hidden   int
	table    bool // the tools preset's table is open
	records  bool
	reported bool // a preset's report was written (Summary): it is the page
}

type htmlTrouble struct{ id, agent, text string }

// toolFigures are one tool's calls, errors, time and output.
type toolFigures struct {
	name          string
	calls, errors int
	time          time.Duration
	bytes         int
}

func newHTML(w io.Writer, o Options) *htmlRenderer {
	h := &htmlRenderer{out: newOut(w), o: o, describer: newDescriber(" — ", htmlBlockBytes*16, o),
		boxes: map[string]*agentBox{}, answered: map[string]bool{}, failures: map[string]int{}, tools: map[string]*toolFigures{}}
	if o.Shared != nil && o.Run != "" {
		h.id = "r" + strconv.Itoa(o.Shared.Runs) + "-"
		o.Shared.Runs++
	}
	return h
}

// w writes s where the current event goes: the page, or a subagent's block.
func (h *htmlRenderer) w(s string) {
	if h.sink != nil {
		h.sink.WriteString(s)
		return
	}
	h.str(s)
}

func (h *htmlRenderer) start() {
	if h.started {
		return
	}
	h.started = true
	title := h.o.cliName() + " run"
	if h.o.Run != "" {
		title += ": " + h.o.Run
	}
	if sh := h.o.Shared; sh == nil || !sh.PageOpen {
		h.str(pageHead(title))
		if sh != nil {
			sh.PageOpen = true
		}
	}
	h.str(`<section class="run" id="` + h.id + `run">` + "\n")
	if h.o.Run != "" {
		h.str("<h1>" + htmlText(title) + "</h1>\n")
	}
}

func (h *htmlRenderer) Render(rec Record) error {
	if len(rec.Rows) > 0 {
		return errNoRows{}
	}
	h.start()
	ev := rec.Event
	if ev == nil {
		for _, c := range rec.Calls {
			h.callRow(c)
		}
		return h.err
	}
	h.records = true
	h.endTable()
	if h.first == "" {
		h.first = ev.Timestamp()
	}
	parts := h.describe(ev, rec.Calls)
	// The trouble list holds the events the one rule says (stream.TroubleOf,
	// what the errors preset lists and the account counts), each once: in
	// the words of its part that says it, else of its first part, unlinked
	// when the page has no anchor of it.
	h.evTrouble, h.troubled = stream.TroubleOf(ev) != "", false
	if h.evTrouble {
		h.troubleLine = TroubleLine(ev, rec.Calls, h.describer.apiError) // (the reason the part says, as the page's outcome: h.apiError is the last result's)
	}
	for i := range parts {
		h.part(ev, &parts[i])
	}
	if h.evTrouble && !h.troubled && len(parts) > 0 {
		h.addTrouble(ev, parts[0].Agent, h.anchored) // (linked when its anchor is on the page)
	}
	h.closeEvent()
	return h.err
}

// anchorOf is the id of an event's block: its line, and for another file
// than the run's own (a subagent's, in a transcript) the anchor the glance
// uses.
func (h *htmlRenderer) anchorOf(ev *stream.Event) string {
	if ev.Line <= 0 {
		return ""
	}
	if h.mainSrc == "" {
		h.mainSrc = ev.Source
	}
	if ev.Source == h.mainSrc {
		return h.id + "L" + i64(ev.Line)
	}
	return h.id + anchorID(ev.Source, ev.Line)
}

// openEvent starts the block of the event a part belongs to, where its
// agent's events go.
func (h *htmlRenderer) openEvent(ev *stream.Event, agent string) {
	if h.evOpen {
		return
	}
	h.into(agent)
	h.evOpen = true
	id := h.anchorOf(ev)
	if id == "" || h.anchored {
		h.w(`<div class="ev">`)
		return
	}
	h.anchored = true
	h.w(`<div class="ev" id="` + id + `"><a class="ln" href="#` + id + `">` + i64(ev.Line) + `</a>`)
}

// anchorOnly marks an event that shows nothing of its own here (a tool
// call, shown with its result): its line's anchor, no block.
func (h *htmlRenderer) anchorOnly(ev *stream.Event, agent string) {
	if !h.evOpen {
		h.into(agent)
	}
	if id := h.anchorOf(ev); id != "" && !h.anchored {
		h.anchored = true
		h.w(`<span id="` + id + `"></span>`)
	}
}

func (h *htmlRenderer) closeEvent() {
	if h.evOpen {
		h.w("</div>\n")
		h.evOpen = false
	}
	h.anchored = false
	h.sink = nil
}

// into sends what follows to the block of agent ("": the page). A main
// agent's event first writes out what background subagents did since their
// Agent call's result.
func (h *htmlRenderer) into(agent string) {
	if agent == "" {
		h.sink = nil
		for _, id := range slices.Clone(h.order) {
			if h.answered[id] {
				h.emitBox(nil, id, " (went on after its call returned)")
			}
		}
		return
	}
	b := h.boxes[agent]
	if b == nil {
		b = &agentBox{}
		h.boxes[agent] = b
		h.order = append(h.order, agent)
	}
	h.sink = b
}

// hold counts what subagents' blocks hold in memory (each goes to a file
// of its own past boxMemory), and past the bound (no temporary directory)
// writes the largest where it stands.
func (h *htmlRenderer) hold() {
	held := 0
	var big string
	for _, id := range h.order {
		b := h.boxes[id]
		held += b.inMemory()
		if big == "" || b.inMemory() > h.boxes[big].inMemory() {
			big = id
		}
	}
	if held > htmlHeldBytes && big != "" {
		h.emitBox(nil, big, " (written here: the subagents' blocks held were too large)")
	}
}

// emitBox writes a subagent's block held so far, folded, into sink (nil:
// the page), and lets go of it.
func (h *htmlRenderer) emitBox(sink *agentBox, id, note string) {
	b := h.boxes[id]
	if b == nil {
		return
	}
	delete(h.boxes, id)
	h.order = slices.DeleteFunc(h.order, func(o string) bool { return o == id })
	defer b.close()
	if b.Len() == 0 {
		return
	}
	class, title := "subagent", h.agentTitle(id)
	if n := h.failures[id]; n > 0 {
		class, title = "subagent error", "✗ "+title+" · "+plural(int64(n), "failure")
	}
	head := `<details class="` + class + `"><summary>` + htmlText(title) + htmlText(note) + "</summary>\n<div class=\"body\">\n"
	const foot = "</div></details>\n"
	if sink != nil {
		sink.WriteString(head)
		if err := b.copyTo(sink); err != nil && h.err == nil {
			h.err = err
		}
		sink.WriteString(foot)
		return
	}
	h.str(head)
	if h.err == nil {
		h.err = b.copyTo(h.out.w)
	}
	h.str(foot)
}

// agentTitle names a subagent with its figures: "Subagent Explore — find
// the handler · completed · 12 calls · 40,321 tokens · 1m2s".
func (h *htmlRenderer) agentTitle(id string) string {
	title := "Subagent"
	tr := h.o.Tracker
	if tr == nil {
		return title
	}
	s := tr.Subagent(id)
	if s == nil {
		return title
	}
	if s.Type != "" {
		title += " " + s.Type
	}
	if s.Description != "" {
		title += " — " + s.Description
	}
	if s.EndLine == 0 {
		// Not ended yet (a background agent's block at its launch): its
		// figures so far are not the run's, which the tables at the end
		// give.
		return title
	}
	var figs []string
	if s.Status != "" && s.Status != "running" {
		// ("running" is all a transcript says of a foreground agent,
		// which its call's result ends: the block's mark says how.)
		figs = append(figs, s.Status)
	}
	figs = append(figs, plural(int64(s.ToolCalls), "call"))
	if t := accountTokens(tr.AgentAccount(s), true); t != "" {
		figs = append(figs, t)
	}
	if s.Usage.DurationMs > 0 {
		figs = append(figs, fmtMs(s.Usage.DurationMs))
	}
	return title + " · " + strings.Join(figs, " · ")
}

// part lays out one part of an event.
func (h *htmlRenderer) part(ev *stream.Event, p *Part) {
	if p.Form == FormHidden || p.Form == FormLine && p.Say == SayHidden {
		h.hidden++
		return
	}
	if p.Form == FormCall {
		h.anchorOnly(ev, p.Agent.ID)
		h.w(`<span id="` + h.id + "tu-" + htmlText(p.Use.ID) + `"></span>`)
		return
	}
	h.openEvent(ev, p.Agent.ID)
	switch p.Form {
	case FormLine:
		h.line(ev, p)
	case FormProse:
		h.w(`<div class="prose">` + proseHTML(p.Body) + "</div>")
	case FormPrompt:
		h.w(`<div class="prompt"><div class="who">Prompt</div>` + proseHTML(p.Body) + "</div>")
	case FormFold:
		h.fold(p.sentence(), p.Stats, p.Body)
	case FormToolResult:
		h.toolBlock(ev, p)
	case FormInit:
		h.initPart(p.Init)
	case FormOutcome:
		h.outcome(p)
	}
	if h.sink != nil {
		h.hold()
	}
}

// line writes a one-line part as a report states it; trouble is listed
// for the top of the page.
func (h *htmlRenderer) line(ev *stream.Event, p *Part) {
	tone := toneClass(p.Tone)
	switch p.Say {
	case SayCallout:
		h.w(`<div class="callout ` + tone + `"><b>` + htmlText(p.Label) + ":</b> " + htmlText(p.sentence()) + "</div>")
	case SayStrong:
		h.w(`<div class="line ` + tone + `"><b>` + htmlText(p.sentence()) + "</b></div>")
	case SayCode:
		h.w(`<div class="line ` + tone + `"><i>` + htmlText(p.Label) + ":</i> <code>" + htmlText(p.sentence()) + "</code></div>")
	case SayDivider:
		h.w(`<div class="turn">` + htmlText(p.sentence()) + "</div>")
	default:
		h.w(`<div class="line ` + tone + `"><span class="mark">` + htmlText(p.Mark) + "</span> " + htmlText(p.sentence()) +
			statsSpan(p.Stats) + "</div>")
	}
	if p.Tone == ToneError || p.Tone == ToneWarn {
		h.trouble(ev, p.Agent)
	}
	if p.Tone == ToneError {
		h.failed(p.Agent.ID)
	}
}

// failed counts a failure inside subagent id ("": the main agent's, not
// counted) and the subagents whose calls started it, up to the main agent.
func (h *htmlRenderer) failed(id string) {
	for seen := 0; id != "" && seen < 64; seen++ { // (a cycle in a hostile stream ends)
		if _, ok := h.failures[id]; !ok && len(h.failures) >= 4096 {
			return
		}
		h.failures[id]++
		s := (*stream.Subagent)(nil)
		if h.o.Tracker != nil {
			s = h.o.Tracker.Subagent(id)
		}
		if s == nil {
			return
		}
		id = s.Parent
	}
}

// trouble lists the trouble of the event being rendered, once, linked to
// the part of it the page shows.
func (h *htmlRenderer) trouble(ev *stream.Event, agent AgentRef) {
	if !h.evTrouble || h.troubled {
		return
	}
	h.addTrouble(ev, agent, true)
}

// addTrouble lists the event's trouble in the words of every report's
// list (TroubleLine), as agent's.
func (h *htmlRenderer) addTrouble(ev *stream.Event, agent AgentRef, shown bool) {
	text := h.troubleLine
	h.troubled = true
	if len(h.troubles) >= htmlTroubles {
		h.more++
		return
	}
	who := ""
	if agent.ID != "" {
		who = h.agentTitle(agent.ID)
		if i := strings.Index(who, " · "); i > 0 {
			who = who[:i]
		}
	}
	id := ""
	if shown {
		id = h.anchorOf(ev)
	}
	h.troubles = append(h.troubles, htmlTrouble{id: id, agent: who, text: truncate(line(text), 200)})
}

// fold writes a text folded behind its summary, cut to the block's limits.
func (h *htmlRenderer) fold(summary, stats, body string) {
	if strings.Contains(summary, stats) {
		stats = "" // ("Thinking (3 lines)" says it)
	}
	h.w(`<details class="fold"><summary>` + htmlText(summary) + statsSpan(stats) + "</summary><div class=\"body\">" +
		h.pre("", body) + "</div></details>")
}

// pre is a text in a <pre>, cut (but with --full-output) with a note.
func (h *htmlRenderer) pre(class, s string) string {
	cut := ""
	if !h.o.SavedOutputs {
		s, cut = capText(s, htmlBlockBytes, htmlBlockLines)
	}
	return preCut(class, s, cut)
}

// preJSON is pre of JSON text b indented: only the part shown is made
// (indentedCapped).
func (h *htmlRenderer) preJSON(class string, b []byte) string {
	if h.o.SavedOutputs {
		return preCut(class, string(indentedWhole(b, "  ")), "")
	}
	s, cut := indentedCapped(b, "  ", true, htmlBlockBytes, htmlBlockLines)
	return preCut(class, s, cut)
}

// preCut is a <pre> of s, and the note of what was cut of it.
func preCut(class, s, cut string) string {
	out := "<pre"
	if class != "" {
		out += ` class="` + class + `"`
	}
	out += ">" + escMulti(s) + "</pre>"
	if cut != "" {
		out += `<p class="cut">` + htmlText(cut) + " (--full-output shows it whole)</p>"
	}
	return out
}

// toolBlock writes a tool call and its result as one folded block: the
// call's target and figures in its summary; its input (a command, a diff,
// or the input as JSON); the subagent it started; its output.
func (h *htmlRenderer) toolBlock(ev *stream.Event, p *Part) {
	r, c := p.Result, p.Call
	text, name, target, stats, mark := p.Body, p.Label, p.Target, p.Stats, p.Mark
	h.figures(name, r, c)
	class, open := "tool ok", ""
	if r.IsError {
		class, open = "tool error", " open"
		h.trouble(ev, p.Agent)
		h.failed(p.Agent.ID)
	}
	if c != nil && isAgentTool(c.Name) && h.failures[c.ID] > 0 {
		// The call succeeded, its subagent met failures on the way.
		if !r.IsError {
			class, mark = "tool warn", "!"
		}
		stats = strings.TrimPrefix(stats+" · "+plural(int64(h.failures[c.ID]), "failure")+" inside", " · ")
	}
	h.w(`<details class="` + class + `" id="` + h.id + "tr-" + htmlText(r.ToolUseID) + `"` + open + "><summary>" +
		`<span class="mark">` + mark + "</span> <b>" + htmlText(name) + "</b>")
	if target != "" {
		h.w(" <code>" + htmlText(truncate(line(target), h.o.Width)) + "</code>")
	}
	h.w(statsSpan(stats) + "</summary><div class=\"body\">")
	if c != nil {
		h.toolInput(c, p.Patch)
		if c.Line > 0 {
			h.w(`<p class="stats">called at line ` + i64(c.Line) + "</p>")
		}
	}
	if c != nil && isAgentTool(c.Name) {
		// Inside this block, wherever it goes.
		h.emitBox(h.sink, c.ID, "")
		if len(h.answered) < 4096 {
			h.answered[c.ID] = true
		}
	}
	label := "Output"
	if r.IsError {
		label = "Error"
	}
	h.w(`<div class="who">` + label + "</div>")
	if strings.TrimSpace(text) == "" {
		h.w(`<p class="stats">(empty)</p>`)
	} else {
		h.w(h.pre("output", text))
	}
	h.w("</div></details>")
}

// toolInput writes what a call was asked: a command as a script, an edit
// as a diff, else the input as JSON.
func (h *htmlRenderer) toolInput(c *stream.ToolCall, patch []stream.Hunk) {
	if cmd, desc, ok := script(c.Name, c.Input); ok {
		if desc != "" {
			h.w(`<p class="stats">` + htmlText(desc) + "</p>")
		}
		h.w(h.pre("cmd", "$ "+cmd))
		return
	}
	if len(patch) > 0 {
		h.w(h.diff(patch))
		return
	}
	if old, new, ok := stream.EditOf(c.Name, c.Input); ok {
		h.w(h.editDiff(old, new))
		return
	}
	h.w(`<div class="who">Input</div>` + h.preJSON("input", c.Input))
}

// editDiff is the diff of an edit the stream gives no patch for: the old
// text's lines out, the new one's in. The lines are taken one at a time:
// a 100 MB Write made eight million strings that the diff only counted
// past the block's limits.
func (h *htmlRenderer) editDiff(old, new string) string {
	d := h.newDiff()
	for l := range textLines(old) {
		d.line("-", l)
	}
	for l := range textLines(new) {
		d.line("+", l)
	}
	d.endHunk()
	return d.end()
}

// textLines are the lines of s without their newlines (none when s is
// empty; a last newline ends the last line).
func textLines(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if s == "" {
			return
		}
		s := strings.TrimSuffix(s, "\n")
		for {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				yield(s)
				return
			}
			if !yield(s[:i]) {
				return
			}
			s = s[i+1:]
		}
	}
}

// diff is hunks as a coloured diff, cut to the block's limits.
func (h *htmlRenderer) diff(hunks []stream.Hunk) string {
	d := h.newDiff()
	for _, hk := range hunks {
		if hk.OldStart > 0 || hk.NewStart > 0 {
			d.b.WriteString(`<span class="hunk">@@ -` + i64(hk.OldStart) + "," + i64(hk.OldLines) + " +" + i64(hk.NewStart) + "," + i64(hk.NewLines) + " @@</span>\n")
		}
		for _, l := range hk.Lines {
			d.line("", l)
		}
		d.endHunk()
	}
	return d.end()
}

// diffWriter lays out a diff's lines as they come, up to the block's
// limits, and counts the rest.
type diffWriter struct {
	b     strings.Builder
	full  bool   // --full-output: no limits
	n     int    // bytes of the lines shown
	lines int    // lines seen
	open  string // the class of the open span
}

func (h *htmlRenderer) newDiff() *diffWriter {
	d := &diffWriter{full: h.o.SavedOutputs}
	d.b.WriteString(`<pre class="diff">`)
	return d
}

// line adds the line sign+l ("+", "-" or none: l then carries it).
func (d *diffWriter) line(sign, l string) {
	d.lines++
	if d.cut() {
		return
	}
	l = sign + l
	d.n += len(l)
	class := ""
	switch {
	case strings.HasPrefix(l, "+"):
		class = "add"
	case strings.HasPrefix(l, "-"):
		class = "del"
	}
	// Lines of one kind in one span: a text cut by markup line by line
	// could hide a secret from the redaction (a key's body).
	if class != d.open {
		if d.open != "" {
			d.b.WriteString("</span>")
		}
		if class != "" {
			d.b.WriteString(`<span class="` + class + `">`)
		}
		d.open = class
	}
	d.b.WriteString(escMulti(l) + "\n")
}

func (d *diffWriter) cut() bool {
	return !d.full && (d.n > htmlBlockBytes || d.lines > htmlBlockLines)
}

func (d *diffWriter) endHunk() {
	if d.open != "" {
		d.b.WriteString("</span>")
		d.open = ""
	}
}

func (d *diffWriter) end() string {
	d.b.WriteString("</pre>")
	if shown := min(d.lines, htmlBlockLines); d.cut() {
		d.b.WriteString(`<p class="cut">` + htmlText("truncated: "+plural(int64(shown), "line")+" of "+plural(int64(d.lines), "line")+" shown") + " (--full-output shows it whole)</p>")
	}
	return d.b.String()
}

// toolFigures are the rows of the table of where the time went: the
// account's (acc), by tool; without a tracker (acc nil), the calls the
// page showed.
func (h *htmlRenderer) toolFigures(acc *stream.Account) []*toolFigures {
	var figs []*toolFigures
	if acc != nil {
		for _, t := range acc.ToolCalls.ByTool {
			figs = append(figs, &toolFigures{name: t.Name, calls: t.Calls, errors: t.Failures,
				time: time.Duration(t.DurationMs) * time.Millisecond, bytes: int(t.Bytes)})
		}
		return figs
	}
	for _, f := range h.tools {
		figs = append(figs, f)
	}
	return figs
}

// figures counts a call for the table of where the time went.
func (h *htmlRenderer) figures(name string, r *stream.ToolResult, c *stream.ToolCall) {
	f := h.tools[name]
	if f == nil {
		if len(h.tools) >= htmlTools {
			name = "(other tools)"
			f = h.tools[name]
		}
		if f == nil {
			f = &toolFigures{name: name}
			h.tools[name] = f
		}
	}
	f.calls++
	if r.IsError {
		f.errors++
	}
	f.bytes += r.Size()
	if c != nil {
		if d, ok := durationOf(c); ok {
			f.time += d
		}
	}
}

func (h *htmlRenderer) initPart(in *stream.Init) {
	if h.init == nil {
		c := *in
		h.init = &c
	}
	h.turn++
	if h.turn > 1 {
		h.w(`<div class="turn">Turn ` + strconv.Itoa(h.turn) + " · " + htmlText(in.Model) + " · permission mode " + htmlText(in.PermissionMode) + "</div>")
		return
	}
	started := strings.TrimSpace(stream.CLIOf(in.CLI, "").Name + " " + in.Version)
	if in.Model != "" {
		started = in.Model + ", " + started
	}
	h.w(`<div class="line tone-dim">Session started: ` + htmlText(started) + "</div>")
}

// outcome writes a result: how the run ended, its figures, its errors and
// the final answer (unless the main agent just said it).
func (h *htmlRenderer) outcome(p *Part) {
	r := *p.Outcome
	structured := r.StructuredOutput
	r.StructuredOutput = nil
	h.last, h.apiError = &r, p.APIError
	h.results++
	class := "ok"
	if r.IsError {
		class = "failed"
	}
	h.w(`<section class="outcome-block"><h3 class="` + toneClass(p.Tone) + `">Result: ` + htmlText(p.Label) + "</h3>")
	duration := "" // (none when the result says none: another CLI's)
	if r.HasDuration {
		duration = "<dt>Duration</dt><dd>" + htmlText(fmtMs(r.DurationMs)) + "</dd>"
	}
	h.w(`<dl class="facts"><dt>Status</dt><dd class="` + class + `">` + htmlText(class) + "</dd><dt>Turns</dt><dd>" + i64(r.NumTurns) +
		"</dd>" + duration + "<dt>Cost</dt><dd>" + htmlText(p.Cost) + "</dd></dl>")
	for _, e := range p.Errors {
		h.w(`<div class="callout tone-error"><b>Error:</b> ` + htmlText(e) + "</div>")
	}
	if p.Body != "" {
		h.w(`<div class="prose">` + proseHTML(p.Body) + "</div>")
	}
	if len(structured) > 0 && string(structured) != "null" {
		h.w(`<div class="who">Structured output</div>` + h.preJSON("json", structured))
	}
	h.w("</section>")
}

// callRow writes a tools-preset record as a row of the calls table.
func (h *htmlRenderer) callRow(c *stream.ToolCall) {
	if !h.table {
		h.str(`<section class="where"><table><tr><th>Line</th><th>Agent</th><th>Tool</th><th>Target</th><th>Status</th><th>Duration</th><th>Result</th></tr>` + "\n")
		h.table = true
	}
	row := describeCall(c)
	h.str("<tr><td class=\"n\">" + i64(c.Line) + "</td><td>" + htmlText(row.Agent) + "</td><td>" + htmlText(row.Name) + "</td><td><code>" +
		htmlText(truncate(line(row.Target), 60)) + "</code></td><td>" + row.Mark + " " + row.Status + "</td><td class=\"n\">" + row.Duration + "</td><td class=\"n\">" + row.Size + "</td></tr>\n")
}

func (h *htmlRenderer) endTable() {
	if h.table {
		h.table = false
		h.str("</table></section>\n")
	}
}

func (h *htmlRenderer) Value(v any) error {
	h.start()
	if s, ok := v.(string); ok && (h.o.Raw || h.o.Join) {
		h.str(`<div class="ev prose">` + proseHTML(s) + "</div>\n")
		return h.err
	}
	b, err := encodeValue(v, h.o.Indent, h.o.Compact)
	if err != nil {
		return err
	}
	h.str(`<div class="ev">` + h.pre("json", string(b)) + "</div>\n")
	return h.err
}

// Summary writes a summary preset's report: its blocks as tables and
// lists.
func (h *htmlRenderer) Summary(r *Report) error {
	h.start()
	h.endTable()
	if r.Trouble != "" {
		h.str(`<div class="callout tone-error"><b>Error:</b> ` + htmlText(r.Trouble) + "</div>\n")
		return h.err
	}
	h.reported = true
	h.str(`<section class="where"><h2>` + htmlText(r.Title) + "</h2>\n")
	for _, b := range r.Blocks {
		if !b.shows(Markdown) {
			continue
		}
		switch {
		case b.Table != nil:
			rows := b.Table.lines(HTML) // (cells as HTML, titles as they are)
			h.str("<table><tr>")
			for _, c := range rows[0] {
				h.str("<th>" + htmlText(c) + "</th>")
			}
			h.str("</tr>\n")
			for _, row := range rows[1:] {
				h.str("<tr>")
				for i, c := range row {
					if b.Table.Columns[i].Right {
						h.str(`<td class="n">` + c + "</td>")
					} else {
						h.str("<td>" + c + "</td>")
					}
				}
				h.str("</tr>\n")
			}
			h.str("</table>\n")
		case b.Entry != nil:
			h.str("<p><b>" + htmlText(b.Entry.Title) + "</b></p><ul>")
			for _, d := range b.Entry.Details {
				h.str("<li>" + htmlText(d) + "</li>")
			}
			h.str("</ul>\n")
		default:
			h.str("<p>" + htmlText(b.Line) + "</p>\n")
		}
	}
	h.str("</section>\n")
	return h.err
}

// Close writes what was held (subagents whose call never returned, calls
// without a result), then what only the end knows, shown first: the
// header, the troubles, where the time and tokens went; and ends the page
// (a page of several runs: the command ends it after the last, Shared.End).
func (h *htmlRenderer) Close(open []*stream.ToolCall) error {
	h.start()
	h.endTable()
	h.closeEvent()
	for len(h.order) > 0 {
		note := " (its call never returned)"
		if h.answered[h.order[0]] {
			note = " (went on after its call returned)"
		}
		h.emitBox(nil, h.order[0], note)
	}
	if len(open) > 0 {
		h.str("<h2>Calls without a result</h2>\n<ul>")
		for _, c := range open {
			row := describeCall(c)
			h.str("<li><b>" + htmlText(row.Name) + "</b> <code>" + htmlText(truncate(line(row.Target), h.o.Width)) + "</code> (line " + i64(c.Line) + ", " + htmlText(row.Agent) + ")</li>")
		}
		h.str("</ul>\n")
	}
	if !h.reported && (h.records || h.o.Tracker != nil && !h.table) {
		// The account once, for the facts, the troubles and the tables
		// (nil without a tracker: an expression's page).
		var acc *stream.Account
		if tr := h.o.Tracker; tr != nil {
			a := tr.Account()
			acc = &a
		}
		h.header(acc)
		h.troubleList(acc)
		h.where(acc)
	}
	h.str("</section>\n")
	if h.o.Shared == nil || h.o.Run == "" {
		h.str(pageEnd())
		if h.o.Shared != nil {
			h.o.Shared.PageOpen = false
		}
	} else {
		title := h.o.Run
		if h.first != "" {
			title += " · " + h.first
		}
		if h.last != nil {
			title += " · " + outcomeTitle(*h.last, h.apiError) + " · " + runCostLabel(*h.last, h.o.Tracker)
		}
		h.str(`<div class="index-entry"><a href="#` + h.id + `run">` + htmlText(title) + "</a></div>\n")
	}
	return h.Flush()
}

// header writes the run's facts, its outcome first; acc is the run's
// account (nil: no tracker).
func (h *htmlRenderer) header(acc *stream.Account) {
	h.str("<header>\n")
	if h.o.Run == "" {
		h.str("<h1>" + htmlText(h.o.cliName()) + " run</h1>\n")
	}
	last := h.last
	if h.o.Tracker != nil && h.o.Tracker.Tally().Results > 0 {
		l := h.o.Tracker.Outcome().Last
		l.StructuredOutput = nil
		last = &l
	}
	switch {
	case last == nil:
		h.str(`<div class="outcome none">No result: the run ended without one</div>` + "\n")
	case last.IsError:
		h.str(`<div class="outcome failed">✗ ` + htmlText(outcomeTitle(*last, h.apiError)) + "</div>\n")
	default:
		h.str(`<div class="outcome ok">✓ ok (` + htmlText(last.Subtype) + ")</div>\n")
	}
	h.str(`<dl class="facts">`)
	fact := func(k, v string) {
		if v != "" {
			h.str("<dt>" + k + "</dt><dd>" + htmlText(v) + "</dd>")
		}
	}
	if in := h.init; in != nil {
		fact("Model", in.Model)
		fact(stream.CLIOf(in.CLI, "").Name, in.Version)
		fact("Working directory", in.CWD)
		fact("Permission mode", in.PermissionMode)
		fact("Session", in.SessionID)
	}
	fact("Started", h.first)
	if tr := h.o.Tracker; tr != nil && acc != nil {
		t, a := tr.Tally(), *acc
		if last != nil {
			if a.Times.ReportedMs != nil {
				// (none when no result says one: another CLI's input)
				fact("Duration", perResult(t, fmtMs(*a.Times.ReportedMs), func(r stream.ResultFigures) string { return fmtMs(r.DurationMs) }))
			}
			fact("Turns", perResult(t, i64(a.Turns.Count), func(r stream.ResultFigures) string { return i64(r.Turns) }))
			fact("Cost", a.CostLabel(*last))
		}
		fact("Tokens", groupDigits(a.Tokens.InputTokens)+" in, "+groupDigits(a.Tokens.OutputTokens)+totalMark(tr.Usage())+" out, "+
			groupDigits(a.Tokens.CacheReadInputTokens)+" cache read, "+groupDigits(a.Tokens.CacheCreationInputTokens)+" cache write")
		fact("Tool calls", toolSummary(a.ToolCalls, func(s string) string { return s })) // (escaped as HTML by fact)
	}
	if h.o.Redacted != nil && h.Flush() == nil {
		if s := h.o.Redacted(); s != "" {
			fact("Redacted", s+" in this report")
		}
	}
	if h.hidden > 0 {
		fact("Events not shown", hiddenSaid(h.hidden))
	}
	h.str("</dl>\n</header>\n")
}

func (h *htmlRenderer) troubleList(acc *stream.Account) {
	if acc != nil && acc.Troubles.ByKind[stream.TroubleNoResult] > 0 {
		// The account's trouble that is no event's (the errors preset's
		// last row): the list counts what the account counts.
		h.troubles = append(h.troubles, htmlTrouble{text: "no result: " + stream.NoResultSaid})
	}
	if len(h.troubles) == 0 {
		return
	}
	h.str(`<nav class="troubles"><b>Trouble</b> (` + strconv.Itoa(len(h.troubles)+h.more) + ")<ol>")
	for _, t := range h.troubles {
		who := ""
		if t.agent != "" {
			who = " <span class=\"stats\">(" + htmlText(t.agent) + ")</span>"
		}
		if t.id != "" {
			h.str(`<li><a href="#` + t.id + `">` + htmlText(t.text) + "</a>" + who + "</li>")
		} else {
			h.str("<li>" + htmlText(t.text) + who + "</li>")
		}
	}
	h.str("</ol>")
	if h.more > 0 {
		h.str("<p class=\"stats\">and " + strconv.Itoa(h.more) + " more</p>")
	}
	h.str("</nav>\n")
}

// where writes where the time and tokens went: per model, per agent, per
// tool, as tables with a bar chart.
func (h *htmlRenderer) where(a *stream.Account) {
	tr := h.o.Tracker
	if tr == nil && len(h.tools) == 0 {
		return
	}
	var acc stream.Account
	if a != nil {
		acc = *a
	}
	h.str(`<section class="where"><h2>Where the time and tokens went</h2>` + "\n")
	if tr != nil {
		if len(acc.Models) > 0 {
			var bars []bar
			h.str("<h3>Per model</h3><table><tr><th>Model</th><th>Calls</th><th>Input</th><th>Output</th><th>Cache read</th><th>Cache write</th><th>Total</th></tr>")
			for _, m := range acc.Models {
				out := groupDigits(m.OutputTokens)
				if m.PlaceholderCalls > 0 && m.OutputFrom != "result" {
					out += PlaceholderMark
				}
				h.str("<tr><td>" + htmlText(m.Model) + "</td><td class=\"n\">" + strconv.Itoa(m.Calls) + "</td><td class=\"n\">" +
					groupDigits(m.InputTokens) + "</td><td class=\"n\">" + out + "</td><td class=\"n\">" +
					groupDigits(m.CacheReadInputTokens) + "</td><td class=\"n\">" + groupDigits(m.CacheCreationInputTokens) + "</td><td class=\"n\">" +
					groupDigits(m.TotalTokens) + "</td></tr>")
				bars = append(bars, bar{m.Model, float64(m.OutputTokens), out + " out"})
			}
			h.str("</table>\n")
			if note := PlaceholderNote(tr.Usage(), false); note != "" {
				h.str(`<p class="stats">` + htmlText(note) + "</p>\n")
			}
			h.str(barChart(bars))
		}
		if agents := acc.Agents[1:]; len(agents) > 0 {
			h.str("<h3>Per subagent</h3><table><tr><th>Subagent</th><th>Status</th><th>Calls</th><th>Tokens</th><th>Duration</th></tr>")
			for i, s := range agents {
				if i == htmlTools {
					h.str("<tr><td colspan=\"5\">and " + strconv.Itoa(len(agents)-i) + " more</td></tr>")
					break
				}
				name := s.Type
				if s.Description != "" {
					name += " — " + s.Description
				}
				cell := htmlText(name)
				if h.answered[s.ToolUseID] { // its call's block is on the page (not on the text preset's, say)
					cell = `<a href="#` + h.id + "tr-" + htmlText(s.ToolUseID) + `">` + cell + "</a>"
				}
				var ms int64
				if s.TaskDurationMs != nil {
					ms = *s.TaskDurationMs
				}
				h.str("<tr><td>" + cell + "</td><td>" + htmlText(s.Status) + "</td><td class=\"n\">" +
					strconv.Itoa(s.ToolCalls) + "</td><td class=\"n\">" + htmlText(cmp.Or(accountTokens(s, false), "not in the input")) + "</td><td class=\"n\">" + htmlText(fmtMs(ms)) + "</td></tr>")
			}
			h.str("</table>\n")
		}
	}
	figs := h.toolFigures(a)
	if len(figs) > 0 {
		sort.Slice(figs, func(a, b int) bool {
			if figs[a].time != figs[b].time {
				return figs[a].time > figs[b].time
			}
			if figs[a].calls != figs[b].calls {
				return figs[a].calls > figs[b].calls
			}
			return figs[a].name < figs[b].name
		})
		more := len(figs) - htmlTools
		figs = figs[:min(len(figs), htmlTools)]
		var bars []bar
		h.str("<h3>Per tool</h3><table><tr><th>Tool</th><th>Calls</th><th>Errors</th><th>Time</th><th>Output</th></tr>")
		for _, f := range figs {
			h.str("<tr><td>" + htmlText(f.name) + "</td><td class=\"n\">" + strconv.Itoa(f.calls) + "</td><td class=\"n\">" + strconv.Itoa(f.errors) +
				"</td><td class=\"n\">" + htmlText(fmtDuration(f.time)) + "</td><td class=\"n\">" + htmlText(fmtBytes(f.bytes)) + "</td></tr>")
			bars = append(bars, bar{f.name, f.time.Seconds(), fmtDuration(f.time)})
		}
		if more > 0 {
			h.str("<tr><td colspan=\"5\">and " + plural(int64(more), "more tool") + "</td></tr>")
		}
		h.str("</table>\n" + barChart(bars))
	}
	h.str("</section>\n")
}

// bar is one bar of a chart: its label, its value, and how to say it.
type bar struct {
	label string
	value float64
	say   string
}

// barChart is a small inline SVG of horizontal bars (attributes only: the
// page's policy allows no style attribute).
func barChart(bars []bar) string {
	top := 0.0
	for _, b := range bars {
		top = max(top, b.value)
	}
	if top <= 0 || len(bars) == 0 {
		return ""
	}
	const rowH, labelW, barW = 18, 220, 360
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="bars" role="img" width="%d" height="%d" viewBox="0 0 %d %d">`, labelW+barW+90, rowH*len(bars)+4, labelW+barW+90, rowH*len(bars)+4)
	for i, x := range bars {
		w := int(x.value / top * barW)
		y := i*rowH + 2
		fmt.Fprintf(&b, `<text x="0" y="%d">%s</text><rect x="%d" y="%d" width="%d" height="%d" rx="2"></rect><text x="%d" y="%d">%s</text>`,
			y+12, htmlText(truncate(line(x.label), 34)), labelW, y+2, max(w, 1), rowH-6, labelW+max(w, 1)+6, y+12, htmlText(x.say))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// escMulti is htmlText for a text of several lines (its controls and bidi
// overrides made visible by Sanitize, then escaped).
func escMulti(s string) string { return html.EscapeString(Sanitize(s, true)) }

func statsSpan(stats string) string {
	if stats == "" {
		return ""
	}
	return ` <span class="stats">` + htmlText(stats) + "</span>"
}

func toneClass(t Tone) string {
	switch t {
	case ToneDim:
		return "tone-dim"
	case ToneOK:
		return "tone-ok"
	case ToneWarn:
		return "tone-warn"
	case ToneError:
		return "tone-error"
	case ToneInfo:
		return "tone-info"
	}
	return "tone-plain"
}

// groupDigits writes n with thousands separated: 40,321.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
