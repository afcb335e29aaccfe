package main

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccfilter/ccfilter/internal/cores"
	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// groupingFlags declares the flags the presets' groupings declare (usage
// --by, --since, ...), once each, with their completions.
func (o *options) groupingFlags(cmd *cobra.Command) {
	o.grouping, o.grouped = map[string]*string{}, map[string]bool{}
	for _, p := range o.presets.List() {
		if p.Grouping == nil {
			continue
		}
		for _, f := range p.Grouping.Flags {
			if _, ok := o.grouping[f.Name]; ok || cmd.Flags().Lookup(f.Name) != nil {
				continue
			}
			o.grouping[f.Name] = cmd.Flags().String(f.Name, f.Value, f.Usage)
			if f.Complete != nil {
				mustComplete(cmd, f.Name, f.Complete...)
			}
		}
	}
}

// groupedFlag is the first grouping flag given (for messages).
func (o *options) groupedFlag() string {
	names := make([]string, 0, len(o.grouped))
	for name := range o.grouped {
		names = append(names, name)
	}
	slices.Sort(names)
	return names[0]
}

// grouping says whether p runs as its preset's grouping (usage --by:
// asked for, or a PATH is a tree of projects) and refuses a grouping
// flag it does not declare, or one given without the flag that asks for
// the grouping.
func (o *options) groupingOf(p *plan) (*preset.Grouping, error) {
	g := p.preset.Grouping
	if g != nil && (o.grouped[g.Key] || !p.noFiles && anyProjectsTree(treePaths(p.files))) {
		if !g.Prints(p.format) {
			return nil, &flagError{fmt.Errorf("%s --%s does not print %s", p.preset.Name, g.Key, p.format)}
		}
		return g, nil
	}
	if !p.preset.Prints(p.format) {
		return nil, &flagError{o.formatRefused(p.preset, p.format)}
	}
	if len(o.grouped) == 0 {
		return nil, nil
	}
	flag := o.groupedFlag()
	declares := func(q preset.Preset) bool {
		return q.Grouping != nil && slices.ContainsFunc(q.Grouping.Flags, func(f preset.Flag) bool { return f.Name == flag })
	}
	if declares(p.preset) {
		return nil, &flagError{fmt.Errorf("--%s goes with --%s: ccfilter %s --%s ... --%s ... [PATH...]", flag, g.Key, p.preset.Name, g.Key, flag)}
	}
	var by []string
	for _, q := range o.presets.List() {
		if declares(q) {
			by = append(by, fmt.Sprintf("ccfilter %s --%s ... [PATH...]", q.Name, q.Grouping.Key))
		}
	}
	return nil, &flagError{fmt.Errorf("--%s groups sessions with the preset that declares it: %s", flag, strings.Join(by, ", "))}
}

// runGrouping is a preset's grouping (`ccfilter usage --by GROUPING
// [PATH...]`): the spend of every session under the paths (none: the
// whole projects tree), each call counted once where it was made
// (pkg/spend), added up as the preset says.
func (o *options) runGrouping(p *plan, g *preset.Grouping) (int, error) {
	values := map[string]string{}
	for _, f := range g.Flags {
		values[f.Name] = *o.grouping[f.Name]
	}
	if !o.grouped[g.Key] {
		values[g.Key] = g.Tree
	}
	run, err := g.Start(values, p.where, p.format == render.OTLP)
	switch {
	case errors.Is(err, preset.ErrPrices):
		return 0, errorf(exitInput, "%v", err)
	case err != nil:
		return 0, &flagError{err}
	}
	paths := p.files
	if p.noFiles || slices.Contains(paths, "-") {
		if !p.noFiles || !o.stdinIsNothing() {
			return 0, errorf(exitInput, "%s --%s: stdin is not read: --%s groups session transcripts; name them (a session file or id, a project folder, the projects tree), or leave stdin a terminal or empty for the whole tree (%s)",
				p.preset.Name, g.Key, g.Key, o.projectsDir())
		}
		paths = o.sessionTrees()
	}
	ledgers, code := o.readLedgers(o.namedTranscripts(paths), spend.Options{Prices: run.Prices})
	if len(ledgers) == 0 {
		if code == exitOK {
			return 0, errorf(exitInput, "no session transcript under %s", strings.Join(treePaths(paths), ", "))
		}
		return code, nil
	}
	spend.Account(ledgers, spend.Options{Prices: run.Prices}, run.Add)
	ro := render.Options{Color: o.useColor(o.terminalOut()), Terminal: o.terminalOut(), Width: o.width(o.stdout), Producer: buildVersion(), Now: time.Now}
	var sender *otlpSender
	if o.OTLPEndpoint != "" {
		// The metrics go to the collector (/v1/metrics), by the
		// exporter the traces use.
		if sender, err = o.startOTLP(signalMetrics); err != nil {
			return 0, err
		}
		ro.Metrics = func(req *render.MetricsRequest) error { return sender.sendMetrics(o.ctx, req) }
	}
	r, err := render.New(p.format, o.stdout, ro)
	if err != nil {
		return 0, &flagError{err}
	}
	rep, err := run.Report()
	if err != nil {
		return 0, errorf(exitInput, "%v", err)
	}
	if err := r.Summary(rep); err != nil {
		return 0, err
	}
	if err := r.Close(nil); err != nil {
		return 0, err
	}
	if sender != nil {
		if err := sender.stop(); err != nil {
			return 0, err
		}
		say(o.stderr, sender.delivered())
	}
	return code, nil
}

// stdinIsNothing reports whether stdin gives nothing to read: a
// terminal, or empty (/dev/null, as under cron and CI). It reads a pipe
// until its first byte or its end.
func (o *options) stdinIsNothing() bool {
	if o.stdin == nil || o.stdinTerminal(o.stdin) {
		return true
	}
	var b [1]byte
	for {
		n, err := o.stdin.Read(b[:])
		if n > 0 {
			return false
		}
		if err != nil {
			return true
		}
	}
}

// anyProjectsTree reports whether a path is a folder of project folders
// (~/.claude/projects): no session of its own, sessions one level down.
func anyProjectsTree(paths []string) bool { return projectsTreeIn(nil, paths) }

// projectsTreeIn is anyProjectsTree over the listings of l (nil: none kept).
func projectsTreeIn(l *input.Listing, paths []string) bool {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if !l.HasJSONL(filepath.Join(p, "*.jsonl")) && l.HasJSONL(filepath.Join(p, "*", "*.jsonl")) {
			return true
		}
	}
	return false
}

// treeName reads a PATH of a grouping as a tree named for its machine:
// NAME=PATH (laptop=~/sync/laptop/projects), or a bare PATH, named by
// this host (hostname). An argument that exists as it is written is a
// bare PATH, whatever it holds.
var treeName = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]*)=(.+)$`)

func splitTree(arg string, hostname func() (string, error)) (machine, path string) {
	if m := treeName.FindStringSubmatch(arg); m != nil {
		if _, err := os.Stat(arg); err != nil {
			return m[1], m[2]
		}
	}
	host, _ := hostname()
	return cmp.Or(host, "localhost"), arg
}

// treePaths are the paths of a grouping's arguments, their names taken
// off.
func treePaths(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		_, out[i] = splitTree(a, func() (string, error) { return "", nil })
	}
	return out
}

// namedTranscripts are the session transcripts of a grouping's
// arguments (transcripts), each with the name of the tree it was found
// in (its machine) and the tree's place among those given: a call two
// trees hold is the first's (spend.Options.Tree).
func (o *options) namedTranscripts(args []string) []inputFile {
	var out []inputFile
	for i, arg := range args {
		machine, path := splitTree(arg, os.Hostname)
		for _, f := range o.transcripts([]string{path}) {
			f.machine, f.tree = machine, i
			out = append(out, f)
		}
	}
	return out
}

// transcripts are the session transcripts the names stand for, as every
// preset reads its inputs (sessionFiles: a file, compressed or not, a
// session's id or the start of it, a project folder's sessions, a
// session's folder), and a tree of project folders' sessions. A name
// that stands for none is an error.
func (o *options) transcripts(names []string) []inputFile {
	var out []inputFile
	for _, name := range names {
		if p := filepath.Join(name, "projects"); anyProjectsTree([]string{p}) {
			// A folder laid out as ~/.claude (an archive's DIR, or
			// ~/.claude itself): its projects tree.
			name = p
		}
		fi, err := os.Stat(name)
		// The tree's folders are listed once for every kind's pattern
		// (input.Listing), another CLI's first.
		l := input.NewListing()
		var tree []string
		if err == nil && fi.IsDir() {
			tree, _ = l.TreeSessions(name)
		}
		switch {
		case tree != nil:
			for _, f := range tree {
				out = append(out, inputFile{path: f, found: true})
			}
		case err == nil && fi.IsDir() && projectsTreeIn(l, []string{name}):
			files, err := l.Projects([]string{name})
			if err != nil {
				out = append(out, inputFile{err: fmt.Errorf("%s: %w", name, err)})
			}
			for _, f := range files {
				out = append(out, inputFile{path: f, found: true})
			}
		case errors.Is(err, os.ErrNotExist) && !shortSessionID.MatchString(name):
			out = append(out, inputFile{err: fmt.Errorf("no session transcript under %s (it does not exist)", name)})
		default:
			out = append(out, o.sessionFiles([]string{name})...)
		}
	}
	return out
}

// readLedgers reads the sessions on every core (pkg/spend), each into
// its ledger, keeping their order (see readSessions).
func (o *options) readLedgers(files []inputFile, opts spend.Options) ([]*spend.Ledger, int) {
	ledgers := make([]*spend.Ledger, len(files))
	read, code := o.readSessions(files, func(w *worker, i int) ([]error, error) {
		o := opts
		o.Buffer, o.Scratch, o.Machine, o.Tree = w.buf, w.scratch, files[i].machine, files[i].tree
		l, err := spend.Read(files[i].path, o)
		if err != nil {
			return nil, err
		}
		ledgers[i] = l
		return l.BadLines(), nil
	})
	out := make([]*spend.Ledger, len(read))
	for k, i := range read {
		out[k] = ledgers[i]
	}
	return out, code
}

// readSessions reads the files on every core with read (which returns a
// file's bad lines), then says, in the files' order, what went wrong: a
// file that cannot be read, or a named one that is no session transcript
// (exit 5); a file found in a folder that is none, or no regular file,
// passed over with a warning; and each line that may hold what the file
// is read for and is not one whole record, with its number. It returns
// the indexes of the files read.
func (o *options) readSessions(files []inputFile, read func(w *worker, i int) (bad []error, err error)) ([]int, int) {
	memory.account()
	bad := make([][]error, len(files))
	errs := make([]error, len(files))
	onEveryCore(len(files), func(w *worker, i int) {
		if errs[i] = files[i].err; errs[i] == nil {
			bad[i], errs[i] = read(w, i)
		}
	})
	code := exitOK
	var ok []int
	for i, err := range errs {
		switch {
		case err != nil && files[i].found:
			say(o.stderr, "warning: "+err.Error())
		case err != nil:
			say(o.stderr, err.Error())
			code = exitInput
		default:
			for _, b := range bad[i] {
				say(o.stderr, "warning: "+b.Error()+" (passed over: what it holds is not counted)")
			}
			ok = append(ok, i)
		}
	}
	return ok, code
}

// worker is what one of onEveryCore's goroutines reads its files with,
// reused from file to file: a read buffer (a fresh one per file made the
// collector run every few files) and the long lines' buffers (a fresh
// one per file with a line of a few MB was three quarters of the bytes
// usage --by day allocated: issue 41).
type worker struct {
	buf     *bufio.Reader
	scratch *stream.Scratch
}

// onEveryCore calls read(w, i) for every i below n, one goroutine per
// core at a time, each with a worker of its own.
func onEveryCore(n int, read func(w *worker, i int)) {
	ws := make([]*worker, runtime.GOMAXPROCS(0))
	cores.Each(0, n, len(ws), func(k, i int) {
		if ws[k] == nil {
			ws[k] = &worker{buf: bufio.NewReaderSize(nil, 1<<20), scratch: &stream.Scratch{}}
		}
		read(ws[k], i)
	})
}
