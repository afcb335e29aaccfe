package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/ccfilter/ccfilter/pkg/archive"
	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/follow"
	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/redact"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// plan is what the arguments ask for.
type plan struct {
	preset preset.Preset // a registry's preset, or preset.Expression
	expr   *filter.Expr  // set when FILTER is an expression
	where  *filter.Expr
	files  []string
	// noFiles: no FILE was named (files is stdin's "-"; with --follow,
	// the working directory's project).
	noFiles bool
	agent   filter.Agent
	format  render.Format
}

// resolve decides between preset, expression and file for the first
// argument.
func (o *options) resolve() (*plan, error) {
	p := &plan{}
	p.format, _ = render.ParseFormat(o.Format)
	args := o.args
	all, _ := o.presets.Lookup("all")
	switch {
	case len(args) == 0:
		p.preset = all
	default:
		if pr, ok := o.presets.Lookup(args[0]); ok {
			p.preset = pr
			args = args[1:]
			break
		}
		if path := o.sessionPath(args[0]); path != "" {
			args[0] = path // a session, named by its id: found once
			p.preset = all
			break
		}
		x, err := filter.Compile(args[0], o.Vars, nil, o.exprEnviron)
		if err != nil {
			// Not an expression: a file (there, or named like one, to be
			// reported missing), a typo, or a jq error.
			if exists(args[0]) || looksLikePath(args[0]) {
				p.preset = all
				break
			}
			path, serr := o.findSession(args[0], shortSessionID)
			if path != "" {
				args[0] = path // a prefix too short to be tried before the expression
				p.preset = all
				break
			}
			if serr != nil && !bareWord.MatchString(args[0]) {
				return nil, &exitError{code: exitInput, msg: serr.Error()} // with where it looked
			}
			if err := o.typo(args[0], false); err != nil {
				return nil, err
			}
			if bareWord.MatchString(args[0]) {
				return nil, o.notAnything(args[0])
			}
			return nil, compileError(err)
		}
		if err := o.typo(args[0], true); err != nil {
			return nil, err
		}
		p.expr = x
		p.preset = preset.Expression(x)
		if !o.formatChanged && (o.jsonFlags || x.IsIdentity()) {
			// jq's output flags ask for JSON, and so does jq's identity
			// (the human view is ccfilter with no FILTER): an event an
			// expression outputs is written as JSON, as jq writes it.
			p.format = render.JSON
		}
		args = args[1:]
	}
	// (Which of the two prints it is checked when the grouping is
	// decided: groupingOf.)
	if !p.preset.PrintsOrGroups(p.format) {
		return nil, &flagError{o.formatRefused(p.preset, p.format)}
	}
	p.files = args
	if len(p.files) == 0 {
		p.files, p.noFiles = []string{"-"}, true
	}
	if o.Where != "" {
		if p.expr != nil {
			return nil, &flagError{errors.New("--where combines with a preset, not with an expression (put the condition in the expression)")}
		}
		if err := p.preset.CheckWhere(); err != nil {
			return nil, &flagError{err}
		}
		x, err := filter.Compile(o.Where, o.Vars, nil, o.exprEnviron)
		if err != nil {
			return nil, compileError(err)
		}
		p.where = x
	}
	p.agent = filter.Agent(p.preset.DefaultAgent)
	if o.agentChanged {
		if err := p.preset.CheckAgent(); err != nil {
			return nil, &flagError{err}
		}
		p.agent = filter.Agent(o.Agent)
	}
	return p, nil
}

// exprEnviron is the environment an expression reads ($ENV, env): when
// redacting, its values redacted as the run's are (the same markers; not
// counted, since they are not the run's).
func (o *options) exprEnviron() []string {
	if o.redactor == nil {
		return o.environ
	}
	red := o.redactor.Quiet()
	env := make([]string, len(o.environ))
	for i, kv := range o.environ {
		env[i] = kv
		if name, value, ok := strings.Cut(kv, "="); ok {
			env[i] = name + "=" + red.String(value)
		}
	}
	return env
}

// formatRefused says a preset does not print a format, and what does.
func (o *options) formatRefused(pr preset.Preset, f render.Format) error {
	var formats, presets []string
	for _, g := range render.Formats {
		if pr.Prints(g) {
			formats = append(formats, string(g))
		}
	}
	for _, q := range o.presets.List() {
		switch {
		case q.Prints(f):
			presets = append(presets, q.Name)
		case q.Grouping != nil && q.Grouping.Prints(f):
			presets = append(presets, q.Name+" --"+q.Grouping.Key)
		}
	}
	return fmt.Errorf("the %s preset does not print %s (it prints %s); %s is printed by %s",
		pr.Name, f, strings.Join(formats, ", "), f, strings.Join(presets, ", "))
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

// run processes every input and returns the exit code.
func (o *options) run(ctx context.Context) (int, error) {
	if o.redacting() {
		// Before the expression is compiled: its $ENV is redacted too.
		o.redactor = redact.New(o.environ)
	}
	p, err := o.resolve()
	if err != nil {
		return 0, err
	}
	// A preset's grouping (usage --by), which it declares: asked for, or
	// the usage of a tree of projects, its spend (by model: each call
	// once where it was made).
	g, err := o.groupingOf(p)
	if err != nil {
		return 0, err
	}
	if g != nil {
		return o.runGrouping(p, g)
	}
	if o.OTLPEndpoint != "" {
		return o.sendTraces(ctx, p)
	}
	return o.runPlan(ctx, p)
}

// sendTraces runs p with the traces sent to --otlp-endpoint: a failure to
// deliver ends the run with exit 5.
func (o *options) sendTraces(ctx context.Context, p *plan) (int, error) {
	s, err := o.startOTLP(signalTraces)
	if err != nil {
		return 0, err
	}
	o.spans = func(req *render.OTLPBatch) error {
		// Made of values already redacted (runOne's stage), as the
		// written trace is.
		return s.sendSpans(ctx, req)
	}
	code, err := o.runPlan(ctx, p)
	if serr := s.stop(); serr != nil && err == nil {
		return code, serr
	} else if serr == nil {
		// Sent: nothing on stdout says so, and a wrong endpoint that
		// takes anything would look the same.
		say(o.stderr, s.delivered())
	}
	return code, err
}

// runPlan processes every input of p and returns the exit code.
func (o *options) runPlan(ctx context.Context, p *plan) (int, error) {
	defer o.startWatch(p)()
	var out io.Writer = o.stdout
	tty := o.terminalOut()
	code := exitOK
	if red := o.redactor; red != nil {
		// The values are redacted as each input is read (runOne); the
		// count is said once, at the end.
		defer func() {
			if s := red.Summary(); s != "" {
				say(o.stderr, "redacted "+s)
			}
		}()
	}
	if o.Follow && !readLive(p) {
		return o.followInputs(ctx, p, out, tty)
	}
	files := o.sessionFiles(p.files)
	if p.format == render.HTML {
		// A page of sessions opens with the newest (its index, then its
		// reports, in that order).
		slices.Reverse(files)
	}
	// Several runs in one output each say which run they are.
	o.multiRun = len(files) > 1
	o.shared = &render.Shared{}
	for _, name := range files {
		if name.err != nil {
			say(o.stderr, name.err.Error())
			code = worse(code, exitInput)
			continue
		}
		c, err := o.runOne(ctx, p, name.path, out, tty)
		if err != nil {
			if isBrokenPipe(err) {
				return exitOK, nil
			}
			var ee *exitError
			if errors.As(err, &ee) && ee.code == exitInput {
				say(o.stderr, ee.msg)
				code = worse(code, exitInput)
				continue
			}
			return 0, err
		}
		code = worse(code, c)
	}
	// A page of several runs ends after the last.
	if err := o.shared.End(out); err != nil && !isBrokenPipe(err) {
		return 0, err
	}
	return code, nil
}

// stdinTerminal reports whether r, the standard input, is a terminal.
func (o *options) stdinTerminal(r io.Reader) bool {
	if o.terminalIn != nil {
		return o.terminalIn()
	}
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// sessionID matches what may be a session's id or the start of one, tried
// before the first argument is compiled; shortSessionID, a shorter start,
// only after it failed to (and for a FILE).
var (
	sessionID      = regexp.MustCompile(`^[0-9a-f]{6}[0-9a-f-]{0,30}$`)
	shortSessionID = regexp.MustCompile(`^[0-9a-f]{4}[0-9a-f-]{0,32}$`)
)

// sessionPath returns the transcript under ~/.claude/projects of the
// session whose id is (or starts with) name, when name is no file here;
// "" otherwise (a prefix several sessions have is warned about).
func (o *options) sessionPath(name string) string {
	path, err := o.findSession(name, sessionID)
	if err != nil && !errors.Is(err, errNoSession) {
		say(o.stderr, "warning: "+err.Error())
	}
	return path
}

// errNoSession: a name that looks like a session id, and no session has it.
var errNoSession = errors.New("no such file, and no session")

// findSession finds the session name (an id or its start, as id matches)
// names, when no file has that name. With no session, the error says where
// it looked.
func (o *options) findSession(name string, id *regexp.Regexp) (string, error) {
	if !id.MatchString(name) || exists(name) {
		return "", nil
	}
	path, err := input.FindSession(o.projectsDir(), name)
	if err == nil && path == "" {
		// A session Claude Code's cleanup deleted: in the archive, if
		// `ccfilter archive` kept it.
		path, err = input.FindSession(filepath.Join(o.archiveDir(), archive.ProjectsDir), name)
	}
	if err == nil && path == "" {
		err = fmt.Errorf("%s: %w under %s or the archive %s has an id starting with it", name, errNoSession, o.projectsDir(), filepath.Join(o.archiveDir(), archive.ProjectsDir))
	}
	return path, err
}

// inputFile is one input to read, or why a directory holds none.
type inputFile struct {
	path  string
	err   error
	found bool // found in a folder, not named
	// machine and tree: the tree a grouping found it in (usage --by
	// machine: namedTranscripts), and that tree's place among the trees
	// given.
	machine string
	tree    int
}

// sessionFiles expands the directories among the inputs into the session
// transcripts they hold (input.SessionFiles): a project folder is every
// session in it, each its own run, oldest first.
func (o *options) sessionFiles(names []string) []inputFile {
	var out []inputFile
	for _, name := range names {
		if path, err := o.findSession(name, shortSessionID); path != "" || err != nil {
			out = append(out, inputFile{path: path, err: err})
			continue
		}
		if fi, err := os.Stat(name); name == "-" || err != nil || !fi.IsDir() {
			out = append(out, inputFile{path: name})
			continue
		}
		files, skipped, err := input.SessionFiles(name)
		for _, s := range skipped {
			say(o.stderr, "warning: "+s.Error())
		}
		if err != nil {
			out = append(out, inputFile{err: fmt.Errorf("%s: %w", name, err)})
			continue
		}
		for _, f := range files {
			out = append(out, inputFile{path: f, found: true})
		}
	}
	return out
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
	if f, ok := out.(interface{ Fd() uintptr }); ok {
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

// openInput opens a file or stdin, and recognises what it holds
// (input.Open: compression, kind of input).
func (o *options) openInput(name string) (*input.Input, func(), error) {
	var r io.Reader
	closeFile := func() {}
	path := name
	if name == "-" {
		path = ""
		r = o.stdin
		widenPipe(r)
		if o.stdinTerminal(r) {
			// Nothing is piped in: say what ccfilter waits for, rather
			// than sit silently on the keyboard.
			say(o.stderr, "reading a stream-json stream from stdin (a terminal): pipe claude -p ... --output-format stream-json --verbose into ccfilter, or name a file; Ctrl-D ends the input, Ctrl-C quits")
		}
	} else if f := o.followed; f != nil && f.Path() == name {
		r = f // read as it is written; followFile closes it
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		r = f
		closeFile = func() { f.Close() }
	}
	if o.wrapInput != nil {
		r = o.wrapInput(r)
	}
	kind := input.Kind(o.Input)
	if o.Input == "auto" {
		kind = ""
	}
	in, err := input.Open(r, path, kind)
	if err != nil {
		closeFile()
		return nil, nil, err
	}
	if o.followed != nil && r == io.Reader(o.followed) {
		in.Live()
	}
	return in, func() { in.Close(); closeFile() }, nil
}

func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// config is the preset's view of one input's run.
func (o *options) config(p *plan, name string, out io.Writer, tty bool) *preset.Config {
	indent := strings.Repeat(" ", o.Indent)
	if o.Tab {
		indent = "\t"
	}
	cfg := &preset.Config{
		Format: p.format,
		Render: render.Options{
			Color:    o.useColor(tty),
			Terminal: tty,
			Run:      o.runName(p, name),
			Shared:   o.shared,
			Glance:   o.glanceFor(p, name),
			Redacted: o.redactedSince(),
			Width:    o.width(out),
			Indent:   indent,
			Compact:  o.Compact || o.Indent == 0 && !o.Tab,
			Raw:      o.Raw || o.Join,
			Join:     o.Join,

			SavedOutputs: o.FullOutput,
			SavedValue:   o.savedValue(),
		},
		Out:        out,
		Stderr:     o.stderr,
		Source:     displayName(name),
		Terminal:   tty,
		Agent:      p.agent,
		Where:      p.where,
		ExitStatus: o.ExitStatus,
		Strict:     o.Strict,
	}
	if p.format == render.OTLP {
		o.traceOptions(&cfg.Render)
	}
	return cfg
}

// glanceFor is the glance of the input name when p's report opens with
// one.
func (o *options) glanceFor(p *plan, name string) *render.Glance {
	if p.format != render.Markdown || !p.preset.Glance || o.followed != nil {
		return nil
	}
	return o.glance(name, p.agent)
}

// glance reads the file name ahead of its report for the run in brief
// (render.Glance); nil for stdin and anything but a regular file, which
// cannot be read twice, and when the file cannot be read (the report's
// own pass says why).
func (o *options) glance(name string, agent filter.Agent) *render.Glance {
	fi, err := input.RegularFile(name)
	if name == "-" || err != nil {
		return nil
	}
	defer memory.pass(fi.Size())
	in, closeIn, err := o.openInput(name)
	if err != nil {
		return nil
	}
	defer closeIn()
	var red *redact.Redactor
	var scr func() stream.Screen
	if o.redactor != nil {
		// The same markers as the report's pass, counted by it; what
		// the scan for secrets finds, the report's pass takes again.
		red = o.redactor.Quiet()
		o.screens = &glanceScreens{name: name, Screens: red.Screens()}
		scr = o.screens.Screen
	}
	events := in.Events(stream.DecoderOptions{Source: displayName(name), MaxLineBytes: o.MaxLineBytes, Check: stream.CheckFraming, Prepare: o.redacted(red, nil), Screen: scr})
	defer events.Close()
	g, err := preset.ScanGlance(events, agent)
	if err != nil {
		return nil
	}
	return g
}

// runName names the run of the input name when the output holds several.
func (o *options) runName(p *plan, name string) string {
	if !o.multiRun || p.expr != nil {
		return "" // an expression's output is jq's: values, nothing between them
	}
	return displayName(name)
}

// redactedByDefault are the formats people share or send: a report, a
// page, traces (--otlp-endpoint sends otlp). Off for the others: a
// pipeline's bytes are not changed behind its back.
var redactedByDefault = []render.Format{render.Markdown, render.HTML, render.OTLP}

// redactDefault says redactedByDefault, as --help says it and README and
// docs/redaction.md repeat it word for word (TestRedactDefaultSaidOnce).
func redactDefault() string {
	names := make([]string, len(redactedByDefault))
	for i, f := range redactedByDefault {
		names[i] = string(f)
	}
	last := len(names) - 1
	return "on by default for " + strings.Join(names[:last], ", ") + " and " + names[last] + " (also what --otlp-endpoint sends)"
}

// redacting says whether secrets are replaced: --redact, --no-redact, or
// by default for the formats of redactedByDefault.
func (o *options) redacting() bool {
	switch {
	case o.NoRedact:
		return false
	case o.Redact:
		return true
	}
	f, _ := render.ParseFormat(o.Format)
	return slices.Contains(redactedByDefault, f)
}

// runOne processes one input: its own tracker, its own run of the preset.
func (o *options) runOne(ctx context.Context, p *plan, name string, out io.Writer, tty bool) (code int, err error) {
	in, closeIn, err := o.openInput(name)
	if err != nil {
		return 0, errorf(exitInput, "%s: %v", displayName(name), unwrapPathError(err))
	}
	defer closeIn()
	if f := o.followed; f != nil && in.Empty() && f.Why() != follow.Following {
		return 0, nil // interrupted or switched before the first line: no run to report
	}
	o.watch.start(in.Kind())
	cfg := o.config(p, name, out, tty)
	cfg.Render.CLI = in.CLI().Name
	// An expression is jq over JSON lines, any JSON: only a preset, which
	// reads Claude Code events, diagnoses an input that holds none.
	diagnose := p.expr == nil
	var d diagnosis
	if diagnose && in.Empty() {
		o.diagnose(&d, cfg.Source, preset.EmptyInput)
	}
	needs := p.preset.NeedsOf(cfg)
	if o.needs != nil {
		needs = o.needs(needs)
	}
	tr := stream.NewTracker(stream.TrackerOptions{Needs: needs, Prices: spend.Prices})
	run, err := p.preset.Start(cfg, tr)
	if err != nil {
		return 0, &flagError{err}
	}
	// Every line is checked to be one whole object, so cut and merged lines
	// are reported (CheckEnds, '{' … '}', misses a merged line, and then
	// final and types miss an event silently); the events the run prints
	// or keeps are validated in full by its Prepare, the rest is read
	// where needed and passed over.
	check := stream.CheckFraming
	if o.FullCheck {
		check = stream.CheckAll
	}
	dec := in.Events(stream.DecoderOptions{Source: cfg.Source, MaxLineBytes: o.MaxLineBytes, Check: check, Prepare: o.redacted(o.redactor, run.Prepare), Screen: o.screen(name), Cut: o.interrupted, Kinds: o.kindsMade(needs), ValidateAhead: needs.ValidatesCalls,
		NoEcho: p.format != render.NDJSON})
	defer dec.Close()
	// How many times the longest line is in memory at once, beyond what
	// the base limit leaves room for (the preset says: an expression that
	// reads whole trees holds a line and its tree).
	perLine := max(1, p.preset.LinesHeld)
	lead := &leading{stderr: o.stderr}
	foreign := &foreignLines{kind: in.Kind(), cli: in.CLI(), source: cfg.Source}
	path := o.eventPath(run, tr)
	for {
		if !dec.Buffered() || o.LineBuffered {
			// About to wait for input (or asked to): show what we have.
			if err := run.Flush(); err != nil {
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
		if err != nil {
			if !stream.IsLineError(err) {
				return 0, errorf(exitInput, "%s: read error: %v", cfg.Source, err)
			}
			if code, stop, err := o.badLine(err, run, lead); stop {
				return code, err
			}
			continue
		}
		lead.event()
		foreign.see(ev, o.stderr)
		o.watch.event(ev)
		memory.line(len(ev.Raw), perLine)
		if code, done, err := path.pass(ctx, ev); done {
			return code, err
		}
	}
	if code, done, err := path.end(ctx); done {
		return code, err
	}
	memory.end()
	o.diagnoseEnd(&d, cfg.Source, tr, lead, diagnose)
	refused := d.what != "" && d.what != preset.EmptyInput
	st, err := run.Finish(preset.End{Diagnosis: d.what, Refused: refused})
	code = exitCodeOf[st]
	switch {
	case d.what == preset.EmptyInput && diagnose:
		// Nothing to show and no result, for every preset: a script
		// learns it from the code, not only from stderr.
		code = worse(code, exitNoResult)
	case refused:
		code = worse(code, exitInput)
	}
	return code, stopped(err)
}

// badLine deals with a malformed line: passed over with a warning (held
// before the first event), or, with --strict, the end of the input
// (stop). A line a followed input's reading cut is no bad line.
func (o *options) badLine(err error, run preset.Run, lead *leading) (code int, stop bool, _ error) {
	switch {
	case o.cutByTheReader():
		// the line was being written when the reading stopped
	case o.Strict:
		run.Flush()
		return exitInput, true, errorf(exitInput, "%v", err)
	default:
		lead.hold(err)
	}
	return 0, false, nil
}

// redactedSince returns, when redacting, what says how many secrets were
// replaced in the values of the run starting now.
func (o *options) redactedSince() func() string {
	if o.redactor == nil {
		return nil
	}
	before := o.redactor.Counts()
	return func() string { return o.redactor.SummarySince(before) }
}

// screen is, when redacting, its scan for secrets run on the input name
// as it is read ahead, beside the decoding (redact.Redactor.Screen): the
// stage then looks again only at the lines it did not find clean. The
// scan of the glance's pass over the same input is taken again.
func (o *options) screen(name string) func() stream.Screen {
	switch g := o.screens; {
	case o.redactor == nil:
		return nil
	case g != nil && g.name == name:
		o.screens = nil
		g.Again()
		return g.Screen
	}
	return o.redactor.Screen
}

// glanceScreens are the scans of the glance's pass over the input name.
type glanceScreens struct {
	name string
	*redact.Screens
}

// savedValue redacts, when redacting, a tool output a session saved in
// full (--full-output), which the views read from its file: a value of
// the run that is in none of its events.
func (o *options) savedValue() func(string) string {
	if o.redactor == nil {
		return nil
	}
	return o.redactor.String
}

// redacted is the decoder's Prepare with, when red is set, the redaction
// of each event's values first (redact.Redactor.Event): one stage, before
// the tracker, the preset and every format read the event, so that all of
// them see the same redacted values. Strings ccfilter adds of its own (a
// file name given, a session folder's name) are the caller's words and
// are not redacted.
func (o *options) redacted(red *redact.Redactor, prepare func(*stream.Event) error) func(*stream.Event) error {
	if red == nil {
		return prepare
	}
	return func(ev *stream.Event) error {
		red.Event(ev)
		if prepare == nil {
			return nil
		}
		return prepare(ev)
	}
}

// kindsMade are the kinds of events a reader of another CLI's records
// makes for the run: the preset's, but every kind when redacting, so that
// every value is redacted and counted (the count stderr gives is the
// input's whatever the preset: a Codex reader that made only final's
// events counted 2 secrets of 5).
func (o *options) kindsMade(needs stream.Needs) stream.KindSet {
	if o.redactor != nil {
		return 0 // (all)
	}
	return needs.Kinds
}

// eventPath passes the events of one input through its preset: directly,
// or when redacting, through the stage that holds a block's deltas first
// (redact.Deltas).
type eventPath struct {
	o      *options
	run    preset.Run
	tr     *stream.Tracker
	deltas *redact.Deltas
}

func (o *options) eventPath(run preset.Run, tr *stream.Tracker) *eventPath {
	p := &eventPath{o: o, run: run, tr: tr}
	if o.redactor != nil {
		p.deltas = redact.NewDeltas(o.redactor)
	}
	return p
}

// pass runs ev through; done: the input ends here, with code or err (the
// expression halted, the output failed).
func (p *eventPath) pass(ctx context.Context, ev *stream.Event) (code int, done bool, err error) {
	if p.deltas == nil {
		return p.event(ctx, ev)
	}
	return p.events(ctx, p.deltas.Event(ev))
}

// end runs through what the stage held (the input ended, or an interrupt).
func (p *eventPath) end(ctx context.Context) (code int, done bool, err error) {
	if p.deltas == nil {
		return 0, false, nil
	}
	code, done, err = p.events(ctx, p.deltas.Flush())
	if derr := p.deltas.Err(); derr != nil {
		say(p.o.stderr, "warning: a partial-message delta was not recut for redaction: "+derr.Error())
	}
	return code, done, err
}

func (p *eventPath) events(ctx context.Context, evs []*stream.Event) (code int, done bool, err error) {
	for _, ev := range evs {
		if code, done, err = p.event(ctx, ev); done {
			break
		}
	}
	return code, done, err
}

func (p *eventPath) event(ctx context.Context, ev *stream.Event) (code int, done bool, err error) {
	if err = p.run.Event(ctx, ev, p.tr.Observe(ev)); err == nil {
		return 0, false, nil
	}
	// (Declared here: errors.As takes its address, which put it on the
	// heap for every event.)
	var h *filter.Halt
	if errors.As(err, &h) {
		p.run.Flush()
		return p.o.halt(h), true, nil
	}
	return 0, true, stopped(err)
}

// notJSONLines is how many malformed lines before the first event are
// kept to be said one by one; the rest are counted.
const notJSONLines = 10

// leading holds the malformed lines before the first event. If an event
// comes (a stream after a message or two on the same pipe, or after many
// lines of a log merged into it), they are said then, the first
// notJSONLines one by one and the rest counted, and reading goes on: no
// line after them is lost. If none comes, the input is no stream at all,
// and that is said once at its end (diagnoseEnd).
type leading struct {
	stderr io.Writer
	read   bool // an event was read
	held   []error
	more   int // malformed lines past the held ones
}

// hold warns about a line error, or holds (or counts) it before the first
// event.
func (l *leading) hold(err error) {
	switch {
	case l.read || !errors.As(err, new(*stream.SyntaxError)):
		say(l.stderr, "warning: "+err.Error())
	case len(l.held) < notJSONLines:
		l.held = append(l.held, err)
	default:
		l.more++
	}
}

// event is called at each event: the first says the lines held.
func (l *leading) event() {
	if l.read {
		return
	}
	l.read = true
	for _, e := range l.held {
		say(l.stderr, "warning: "+e.Error())
	}
	if l.more > 0 {
		say(l.stderr, fmt.Sprintf("warning: and %d more lines before the first event that are not JSON", l.more))
	}
	l.held, l.more = nil, 0
}

// diagnoseEnd diagnoses, at the end of the input, one with no event but
// malformed lines, or, for a preset, JSON lines of no type ccfilter knows.
func (o *options) diagnoseEnd(d *diagnosis, source string, tr *stream.Tracker, lead *leading, preset_ bool) {
	switch {
	case len(lead.held) > 0:
		o.diagnose(d, source, notJSONDiagnosis(lead.held, lead.more))
	case preset_ && d.what == "" && knowsNoType(tr):
		o.diagnose(d, source, preset.NotAStream)
	}
}

// notJSONDiagnosis says what an input with no event but malformed lines
// (a log, a binary file) is, with the first line's error.
func notJSONDiagnosis(held []error, more int) string {
	var se *stream.SyntaxError
	errors.As(held[0], &se)
	return fmt.Sprintf("not a Claude Code event stream: none of its %d lines is JSON (line %d: %v)", len(held)+more, se.Line, se.Err)
}

// diagnosis is what is wrong with one input as a whole ("" when
// nothing is), which its run is told when it ends (preset.End).
type diagnosis struct{ what string }

// diagnose says on stderr, once, what is wrong with the input as a whole,
// and keeps it for the run's end.
func (o *options) diagnose(d *diagnosis, source, what string) {
	d.what = what
	say(o.stderr, source+": "+what)
}

// knowsNoType reports whether the input had events and none of a type
// ccfilter knows: JSON lines, but not a Claude Code stream.
func knowsNoType(tr *stream.Tracker) bool {
	types := tr.Types()
	for _, t := range types {
		if stream.KnownType(t.Type) {
			return false
		}
	}
	return len(types) > 0
}

// stopped turns a run stopped by --strict at a runtime error into the
// input error it is (the next file is still read).
func stopped(err error) error {
	if errors.Is(err, preset.ErrStopped) {
		return errorf(exitInput, "%v", err)
	}
	return err
}

// exitCodeOf maps how a run ended to the exit code.
var exitCodeOf = map[preset.Status]int{
	preset.OK: exitOK, preset.Failed: exitFailed, preset.NoResult: exitNoResult, preset.BadInput: exitInput,
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// halt ends the run as an expression's halt or halt_error asks: its value
// on stderr, its exit code.
func (o *options) halt(h *filter.Halt) int {
	if h.Value != nil {
		if str, ok := h.Value.(string); ok {
			fmt.Fprint(o.stderr, str)
		} else {
			b, _ := json.Marshal(h.Value)
			fmt.Fprintf(o.stderr, "%s\n", b)
		}
	}
	return h.Code
}
