package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
)

// usageBy is `ccfilter usage --by GROUPING [PATH...]`: the spend of every
// session under the paths (none: the whole projects tree), each call
// counted once where it was made (pkg/spend), grouped.
func (o *options) usageBy(p *plan) (int, error) {
	if p.preset.Name != "usage" {
		return 0, &flagError{errors.New("--by groups the usage preset: ccfilter usage --by day [PATH...]")}
	}
	by, err := spend.ParseBy(o.By)
	if err != nil {
		return 0, &flagError{err}
	}
	loc, err := time.LoadLocation(o.TZ)
	if err != nil {
		return 0, &flagError{fmt.Errorf("--tz: %v", err)}
	}
	for _, d := range []struct{ flag, v string }{{"--since", o.Since}, {"--until", o.Until}} {
		if _, err := time.Parse("2006-01-02", d.v); d.v != "" && err != nil {
			return 0, &flagError{fmt.Errorf("%s %q: want a day, YYYY-MM-DD", d.flag, d.v)}
		}
	}
	var prices spend.PriceTable
	if o.Prices != "" {
		if prices, err = spend.ReadPrices(o.Prices); err != nil {
			return 0, errorf(exitInput, "--prices: %v", err)
		}
	}
	paths := p.files
	if len(paths) == 0 {
		paths = []string{o.projectsTree()}
	}
	files, err := sessionTranscripts(paths)
	if err != nil {
		return 0, errorf(exitInput, "%v", err)
	}
	if len(files) == 0 {
		return 0, errorf(exitInput, "no session transcript under %s", paths)
	}
	total := o.scanSpend(files, prices, func() *spend.Totals { return spend.NewTotals(by, loc, o.Since, o.Until) })
	r, err := render.New(p.format, o.stdout, render.Options{Color: o.useColor(o.terminalOut()), Terminal: o.terminalOut(), Width: o.width(o.stdout)})
	if err != nil {
		return 0, &flagError{err}
	}
	if err := r.Summary(spendReport(by, total)); err != nil {
		return 0, err
	}
	return exitOK, r.Close(nil)
}

// anyProjectsTree reports whether a path is a folder of project folders
// (~/.claude/projects): no session of its own, sessions one level down.
func anyProjectsTree(paths []string) bool {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		own, _ := filepath.Glob(filepath.Join(p, "*.jsonl"))
		below, _ := filepath.Glob(filepath.Join(p, "*", "*.jsonl"))
		if len(own) == 0 && len(below) > 0 {
			return true
		}
	}
	return false
}

// projectsTree is $CLAUDE_CONFIG_DIR/projects, or ~/.claude/projects.
func (o *options) projectsTree() string {
	if dir, ok := o.getenv("CLAUDE_CONFIG_DIR"); ok && dir != "" {
		return filepath.Join(dir, "projects")
	}
	return o.projectsDir()
}

// sessionTranscripts are the session files the paths stand for: a file
// itself, a project folder's sessions, a tree's projects' sessions.
func sessionTranscripts(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := input.Projects([]string{p})
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// scanSpend reads the sessions on every core, each into totals of its
// own, and adds them up (in whole nano-dollars: the same whatever order
// they finish in). A file that cannot be read is said and passed over.
func (o *options) scanSpend(files []string, prices spend.PriceTable, newTotals func() *spend.Totals) *spend.Totals {
	var mu sync.Mutex
	all := newTotals()
	errs := make([]error, len(files))
	onEveryCore(len(files), func(buf *bufio.Reader, i int) {
		mine := newTotals()
		_, errs[i] = spend.ScanWith(files[i], spend.Options{Buffer: buf, Prices: prices}, mine.Add)
		mu.Lock()
		all.Merge(mine)
		mu.Unlock()
	})
	for _, err := range errs {
		if err != nil {
			say(o.stderr, "warning: "+err.Error())
		}
	}
	return all
}

// onEveryCore calls read(buf, i) for every i below n, one goroutine per
// core at a time, each with a read buffer of its own reused from file to
// file (a fresh one per file made the collector run every few files).
func onEveryCore(n int, read func(buf *bufio.Reader, i int)) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := bufio.NewReaderSize(nil, 1<<20)
			for i := range jobs {
				read(buf, i)
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// spendReport is the grouped spend in the report shape every format
// renders: a table with a total row; rows (CSV, NDJSON, JSON) of the
// groups alone.
func spendReport(by spend.By, t *spend.Totals) *render.Report {
	rows, total := t.Rows()
	num := func(n int64) render.Cell { return render.Cell{Text: strconv.FormatInt(n, 10), Style: render.Number} }
	money := func(s spend.Side, r spend.Row) render.Cell {
		c := fmt.Sprintf("$%.4f", s.CostUSD())
		if r.Estimated || r.Unpriced {
			c += "*"
		}
		return render.Cell{Text: c, Style: render.Number}
	}
	cols := []render.Column{{Name: keyTitle(by)}, {Name: "Calls", Right: true}, {Name: "Input", Right: true}, {Name: "Output", Right: true},
		{Name: "Cache write", Short: "cache w", Right: true}, {Name: "Cache read", Short: "cache r", Right: true}, {Name: "Total tokens", Short: "tokens", Right: true},
		{Name: "Cost", Right: true}, {Name: "Main cost", Short: "main", Right: true}, {Name: "Subagents cost", Short: "subagents", Right: true},
		{Name: "Hidden tokens", Short: "hidden", Right: true}}
	table := &render.Table{Columns: cols}
	set := render.NewRowSet(by.KeyName(), "calls", "input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens", "total_tokens",
		"cost_usd", "main_tokens", "main_cost_usd", "subagent_tokens", "subagent_cost_usd", "hidden_tokens", "estimated", "unpriced")
	line := func(r spend.Row, key render.Cell) []render.Cell {
		u := r.All.Usage
		return []render.Cell{key, num(int64(r.Calls)), num(u.InputTokens), num(u.OutputTokens), num(u.CacheCreationInputTokens), num(u.CacheReadInputTokens),
			num(u.Total()), money(r.All, r), money(r.Main, r), money(r.Subagents, r), num(r.Hidden.Total())}
	}
	for _, r := range rows {
		table.Rows = append(table.Rows, line(r, render.Cell{Text: r.Key, Style: keyStyle(by)}))
		u := r.All.Usage
		set.Add(r.Key, r.Calls, u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.Total(),
			round(r.All.CostUSD()), r.Main.Usage.Total(), round(r.Main.CostUSD()), r.Subagents.Usage.Total(), round(r.Subagents.CostUSD()),
			r.Hidden.Total(), r.Estimated, r.Unpriced)
	}
	table.Rows = append(table.Rows, line(total, render.Cell{Text: "total", Style: render.Strong}))
	blocks := []render.Block{{Table: table}}
	if total.Estimated || total.Unpriced {
		blocks = append(blocks, render.Block{Line: "* estimated: runs that recorded no cost (killed) are priced at the session's recorded rate for the model, else the price table; unpriced models count 0"})
	}
	blocks = append(blocks, render.Block{Line: "Each call counted once, where it was made (a fork's copies in their own session); hidden tokens: compaction and helper calls no assistant record holds. See docs/usage.md."})
	return &render.Report{Title: "Usage by " + string(by), Blocks: blocks, Rows: set}
}

func keyTitle(by spend.By) string {
	switch by {
	case spend.ByDay:
		return "Date"
	case spend.ByWeek:
		return "Week of"
	}
	return map[spend.By]string{spend.BySession: "Session", spend.ByMonth: "Month", spend.ByProject: "Project", spend.ByModel: "Model"}[by]
}

func keyStyle(by spend.By) render.Style {
	switch by {
	case spend.BySession:
		return render.Code
	case spend.ByProject:
		return render.Prose // (a long directory is cut in a table)
	}
	return render.Plain
}

// round keeps a cost to the nano-dollar, as it was added up.
func round(usd float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(usd, 'f', 9, 64), 64)
	return v
}
