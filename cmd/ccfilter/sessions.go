package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// newSessionsCmd is `ccfilter sessions [DIR...]`: the sessions Claude
// Code keeps, a row each.
func newSessionsCmd(o *options) *cobra.Command {
	format := "text"
	cmd := &cobra.Command{
		Use:   "sessions [DIR...]",
		Short: "List the session transcripts under ~/.claude/projects (or the folders given), oldest first",
		Long: `List the sessions Claude Code keeps: when each started and was last active,
its project's directory, its id, its title (the first prompt), the runs that
wrote to it (a resumed or continued session is one file), its turns, tool
calls, subagents, the main agent's tokens, the cost it records, and the
session a --fork-session copied. DIR is a project folder or a folder of
them; none means ~/.claude/projects. Then: ccfilter SESSION-ID (or a unique
prefix of it) reads one session; ccfilter DIR reads every session of a
project folder.`,
		RunE: func(cmd *cobra.Command, dirs []string) error {
			f, err := render.ParseFormat(format)
			if err != nil {
				return &flagError{err}
			}
			if len(dirs) == 0 {
				dirs = []string{o.projectsDir()}
			}
			return o.listSessions(dirs, f)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "F", "text", "output format: text, markdown, ndjson, csv, json")
	mustComplete(cmd, "format", formatNames()...)
	return cmd
}

// projectsDir is ~/.claude/projects.
func (o *options) projectsDir() string {
	home, _ := o.getenv("HOME")
	return filepath.Join(home, ".claude", "projects")
}

func (o *options) listSessions(dirs []string, f render.Format) error {
	files, err := input.Projects(dirs)
	if err != nil {
		return errorf(exitInput, "%v", err)
	}
	if len(files) == 0 {
		return errorf(exitInput, "no session transcript under %s", strings.Join(dirs, ", "))
	}
	var list []input.Session
	for _, p := range files {
		s, err := input.ScanSession(p)
		if err != nil {
			say(o.stderr, "warning: "+err.Error())
			continue
		}
		list = append(list, s)
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
	return r.Close(nil)
}

// sessionsReport is the listing in the report shape every format renders.
func sessionsReport(list []input.Session) *render.Report {
	num := func(n int64) render.Cell { return render.Cell{Text: strconv.FormatInt(n, 10), Style: render.Number} }
	plain := func(s string) render.Cell { return render.Cell{Text: s} }
	cost := func(s input.Session) string {
		if !s.HaveCost {
			return ""
		}
		return fmt.Sprintf("$%.4f", s.CostUSD)
	}
	cols := []render.Column{{Name: "Start"}, {Name: "Last activity", Short: "last"}, {Name: "Session"}, {Name: "Project"},
		{Name: "Title"}, {Name: "Runs", Right: true}, {Name: "Turns", Right: true}, {Name: "Tool calls", Short: "tools", Right: true},
		{Name: "Subagents", Short: "agents", Right: true}, {Name: "Main tokens", Short: "tokens", Right: true}, {Name: "Cost", Right: true}, {Name: "Forked from", Short: "from"}}
	table := &render.Table{Columns: cols}
	// What CSV, NDJSON and JSON write: cost_usd is null (empty) when the
	// session's file has no cost-state.
	rows := render.NewRowSet("session_id", "path", "cwd", "start", "last_activity", "runs", "turns", "tool_calls", "subagents", "main_tokens", "cost_usd", "forked_from", "title")
	for _, s := range list {
		table.Rows = append(table.Rows, []render.Cell{plain(when(s.Start)), plain(when(s.Last)), {Text: s.ID, Style: render.Code}, {Text: s.CWD, Style: render.Prose},
			{Text: s.Title, Style: render.Prose}, num(int64(s.Runs)), num(int64(s.Turns)), num(int64(s.ToolCalls)), num(int64(s.Subagents)), num(s.Tokens),
			plain(cost(s)), {Text: s.ForkedFrom, Style: render.Code}})
		var c any
		if s.HaveCost {
			c = s.CostUSD
		}
		rows.Add(s.ID, s.Path, s.CWD, s.Start, s.Last, s.Runs, s.Turns, s.ToolCalls, s.Subagents, s.Tokens, c, s.ForkedFrom, s.Title)
	}
	return &render.Report{Title: "Sessions", Blocks: []render.Block{{Table: table}}, Rows: rows}
}

// when is a timestamp as a listing shows it: "2026-12-03 15:10".
func when(ts string) string {
	if len(ts) >= 16 {
		return strings.Replace(ts[:16], "T", " ", 1)
	}
	return ts
}
