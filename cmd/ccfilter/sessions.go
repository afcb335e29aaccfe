package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
)

// newSessionsCmd is `ccfilter sessions [PATH...]`: the sessions Claude
// Code keeps, a row each.
func newSessionsCmd(o *options) *cobra.Command {
	format := "text"
	cmd := &cobra.Command{
		Use:   "sessions [PATH...]",
		Short: "List the sessions under ~/.claude/projects and ~/.codex/sessions (or the paths given), oldest first",
		Long: `List the sessions Claude Code keeps: when each started and was last active,
its project's directory, its id, its title (the first prompt), the runs that
wrote to it (a resumed or continued session is one file), its turns, tool
calls, subagents, the main agent's tokens as the file holds them; its own
tokens and cost (every agent's calls, each counted once where it was
made: a fork's copies are its parent's; see docs/usage.md); the cost its
last cost-state records (what /cost shows: a fork's includes its
parent's), and the session a --fork-session copied. PATH is what a preset
reads: a session file (.gz and .zst too), a session's id or the start of it,
a project folder or a folder of them, a Codex sessions folder, a Gemini chats
folder, each maybe named for the machine it was copied from, NAME=PATH, as
usage --by reads them (a call two trees hold is the first named's); none means every agent CLI's default tree that exists:
~/.claude/projects ($CLAUDE_CONFIG_DIR/projects), Codex's ~/.codex/sessions
($CODEX_HOME/sessions) and Gemini's ~/.gemini/tmp ($GEMINI_CLI_HOME/.gemini/tmp),
the CLI column telling them apart. Then: ccfilter SESSION-ID (or a unique
prefix of it) reads one session; ccfilter DIR reads every session of a
project folder.`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			f, err := render.ParseFormat(format)
			if err != nil {
				return &flagError{err}
			}
			if len(dirs) == 0 {
				dirs = o.sessionTrees()
			}
			return o.listSessions(dirs, f)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "F", "text", "output format: text, markdown, ndjson, csv, json")
	mustComplete(cmd, "format", formatNames()...)
	return cmd
}

// projectsDir is where Claude Code keeps its sessions, as it decides it:
// $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects. One place, for
// sessions, usage --by, a session's id and the working directory's
// project under --follow.
func (o *options) projectsDir() string {
	if dir, ok := o.getenv("CLAUDE_CONFIG_DIR"); ok && dir != "" {
		return filepath.Join(dir, "projects")
	}
	home, _ := o.getenv("HOME")
	return filepath.Join(home, ".claude", "projects")
}

// sessionTrees are the default trees of sessions of every agent CLI
// whose kind declares one (input.SessionTrees: Claude Code's projects,
// Codex's sessions), those that exist; Claude Code's when none does (to
// say where nothing was found).
func (o *options) sessionTrees() []string {
	getenv := func(k string) string { v, _ := o.getenv(k); return v }
	home, _ := o.getenv("HOME")
	var out []string
	for _, t := range input.SessionTrees(getenv, home) {
		if t.Kind == input.Transcript {
			t.Dir = o.projectsDir() // (the one place that decides it)
		}
		if fi, err := os.Stat(t.Dir); err == nil && fi.IsDir() {
			out = append(out, t.Dir)
		}
	}
	if len(out) == 0 {
		out = []string{o.projectsDir()}
	}
	return out
}

func (o *options) listSessions(dirs []string, f render.Format) error {
	// The trees are read as usage --by reads them (NAME=PATH too, see
	// namedTranscripts): a call two trees hold is the first named's, so
	// the listing's spend is usage --by session's.
	files := o.namedTranscripts(dirs)
	list, code := o.scanSessions(files)
	if len(list) == 0 {
		if code == exitOK {
			return errorf(exitInput, "no session transcript under %s", strings.Join(dirs, ", "))
		}
		return &exitError{code: code}
	}
	// By start, then last activity: a fork starts with its parent's
	// copied records and goes on after it (input.SessionFiles' order).
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Start != list[j].Start {
			return list[i].Start < list[j].Start
		}
		return list[i].Last < list[j].Last
	})
	r, err := render.New(f, o.stdout, render.Options{Color: o.useColor(o.terminalOut()), Terminal: o.terminalOut(), Width: o.width(o.stdout)})
	if err != nil {
		return &flagError{err}
	}
	if err := r.Summary(sessionsReport(list)); err != nil {
		return err
	}
	if err := r.Close(nil); err != nil {
		return err
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// listed is a session as the listing shows it: what its file holds, and
// what it spent, each call counted once where it was made (pkg/spend).
type listed struct {
	input.Session
	spend spend.Row // its own calls' tokens and cost (a fork's copies not again)
}

// scanSessions reads the sessions on every core, keeping their order,
// then counts each call once, in the session that made it, over all of
// them (spend.Account); a file that is no session transcript is said and
// passed over (a named one: exit 5).
func (o *options) scanSessions(files []inputFile) ([]listed, int) {
	out := make([]listed, len(files))
	ledgers := make([]*spend.Ledger, len(files))
	ok, code := o.readSessions(files, func(w *worker, i int) ([]error, error) {
		// The spend in the same pass as the listing: one read (the
		// listing's lines hold every line the spend reads).
		sc := spend.NewScanner(files[i].path, spend.Options{Machine: files[i].machine, Tree: files[i].tree})
		s, err := input.ScanSessionWith(files[i].path, w.buf, w.scratch, &input.Also{Agent: sc.AgentRecord, Main: sc.Record, Line: sc.Line})
		if err != nil {
			return nil, err
		}
		ledgers[i] = sc.End()
		out[i] = listed{Session: s}
		return s.Bad, nil
	})
	list := make([]listed, len(ok))
	read := make([]*spend.Ledger, len(ok))
	for k, i := range ok {
		list[k], read[k] = out[i], ledgers[i]
	}
	totals := make([]*spend.Totals, len(read))
	for i := range read {
		totals[i] = spend.NewTotals(spend.By{spend.BySession}, time.UTC, "", "")
	}
	sums := spend.AccountEach(read, spend.Options{}, func(i int, c spend.Call) { totals[i].Add(c) })
	for i := range list {
		_, all := totals[i].Rows()
		list[i].spend = all
		if list[i].ForkedFrom == "" {
			// (a fork whose copies name no origin: the session that
			// owns what it copied)
			list[i].ForkedFrom = sums[i].ForkedFrom
		}
	}
	return list, code
}

// sessionsReport is the listing in the report shape every format renders.
func sessionsReport(list []listed) *render.Report {
	num := func(n int64) render.Cell { return render.Cell{Text: strconv.FormatInt(n, 10), Style: render.Number} }
	plain := func(s string) render.Cell { return render.Cell{Text: s} }
	recorded := func(s listed) string {
		if !s.HaveCost {
			return ""
		}
		return fmt.Sprintf("$%.4f", s.CostUSD)
	}
	cols := []render.Column{{Name: "Start"}, {Name: "Last activity", Short: "last"}, {Name: "CLI", Short: "cli"}, {Name: "Session"}, {Name: "Project"},
		{Name: "Title"}, {Name: "Runs", Right: true}, {Name: "Turns", Right: true}, {Name: "Tool calls", Short: "tools", Right: true},
		{Name: "Subagents", Short: "agents", Right: true}, {Name: "Main tokens", Short: "main tok", Right: true}, {Name: "Tokens", Right: true},
		{Name: "Cost", Right: true}, {Name: "Recorded cost", Short: "/cost", Right: true}, {Name: "Forked from", Short: "from"}}
	table := &render.Table{Columns: cols}
	// What CSV, NDJSON and JSON write. main_tokens: the main agent's
	// calls, as the file holds them (a fork's copies too); total_tokens and
	// cost_usd: the session's own calls, every agent's, each counted once
	// where it was made (usage --by session's figures); recorded_cost_usd:
	// the last cost-state's figure, what /cost shows (a fork's includes
	// its parent's; null when the file has none).
	// cost_usd is null when no call of the session has a price
	// (unpriced_models names their models), estimated says some of it is
	// a rate's, as usage --by's rows.
	rows := render.NewRowSet("session_id", "cli", "path", "cwd", "start", "last_activity", "runs", "turns", "tool_calls", "subagents", "main_tokens",
		"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "total_tokens", "cost_usd", "recorded_cost_usd", "forked_from", "title",
		"estimated", "unpriced_tokens", "unpriced_models")
	spent := make([]spend.Row, len(list))
	for i, s := range list {
		u, sp := s.spend.All.Usage, s.spend
		spent[i] = sp
		table.Rows = append(table.Rows, []render.Cell{plain(when(s.Start)), plain(when(s.Last)), plain(input.CLIName(s.CLI)), {Text: s.ID, Style: render.Code}, {Text: s.CWD, Style: render.Prose},
			{Text: s.Title, Style: render.Prose}, num(int64(s.Runs)), num(int64(s.Turns)), num(int64(s.ToolCalls)), num(int64(s.Subagents)), num(s.Tokens),
			num(u.Total()), plain(preset.CostText(sp.All, sp.Estimated)), plain(recorded(s)), {Text: s.ForkedFrom, Style: render.Code}})
		var c any
		if s.HaveCost {
			c = s.CostUSD
		}
		rows.Add(s.ID, s.CLI, s.Path, s.CWD, s.Start, s.Last, s.Runs, s.Turns, s.ToolCalls, s.Subagents, s.Tokens,
			u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.Total(), preset.CostValue(sp.All), c, s.ForkedFrom, s.Title,
			sp.Estimated, sp.All.UnpricedTokens, preset.UnpricedModels(sp))
	}
	blocks := append([]render.Block{{Table: table}}, preset.CostNotes(spend.Sum(spent))...)
	return &render.Report{Title: "Sessions", Blocks: blocks, Rows: rows}
}

// when is a timestamp as a listing shows it: "2026-12-03 15:10".
func when(ts string) string {
	if len(ts) >= 16 {
		return strings.Replace(ts[:16], "T", " ", 1)
	}
	return ts
}
