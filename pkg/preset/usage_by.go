package preset

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Grouping is a preset's account over many sessions at once, grouped
// (usage --by): the flags it declares, which the command adds to its own
// and hands back by name, and the report of the sessions' calls, each
// counted once where it was made (pkg/spend). The command reads the
// sessions; the preset says what they add up to.
type Grouping struct {
	Flags []Flag
	// Key is the flag that asks for the grouping; Tree is its value when
	// no flag is given and a PATH is a tree of projects (whose usage is
	// its spend, not one run's).
	Key, Tree string
	// Start checks the flags' values (by name, as given or their
	// defaults) and returns the grouped run; where (--where, nil
	// without) keeps the rows it is true for, each seen as its JSON row.
	Start func(values map[string]string, where *filter.Expr) (*GroupRun, error)
}

// Flag is a string flag a preset declares.
type Flag struct {
	Name, Value, Usage string
	Complete           []string // its values, for completion (nil: none)
}

// GroupRun is one grouped account: the prices of runs that recorded no
// cost, each call added, and the report at the end.
type GroupRun struct {
	Prices spend.PriceTable
	Add    func(spend.Call)
	Report func() (*render.Report, error)
}

// ErrPrices wraps a --prices file that cannot be read: an input error,
// not a usage one.
var ErrPrices = errors.New("--prices")

// usageGrouping is usage --by.
var usageGrouping = &Grouping{
	Key: "by", Tree: string(spend.ByModel),
	Flags: []Flag{
		{Name: "by", Usage: "usage: the spend of every session under PATH (a session, a project folder, the projects tree; none: the whole tree), grouped by session, day, week, month, project, model or cli (the agent CLI: Claude Code, Codex; see docs/usage.md)",
			Complete: []string{"session", "day", "week", "month", "project", "model", "cli"}},
		{Name: "since", Usage: "usage --by: from this day on (YYYY-MM-DD, in --tz)"},
		{Name: "until", Usage: "usage --by: up to this day (YYYY-MM-DD, in --tz)"},
		{Name: "prices", Usage: "usage --by: a JSON file of prices per million input tokens by model name prefix, over the shipped table, for runs that recorded no cost (see docs/usage.md)"},
		{Name: "tz", Value: "Local", Usage: "usage --by: the time zone days are counted in (an IANA name, UTC, Local)"},
	},
	Start: startUsageBy,
}

func startUsageBy(v map[string]string, where *filter.Expr) (*GroupRun, error) {
	by, err := spend.ParseBy(v["by"])
	if err != nil {
		return nil, err
	}
	loc, err := time.LoadLocation(v["tz"])
	if err != nil {
		return nil, fmt.Errorf("--tz: %v", err)
	}
	for _, d := range []string{"since", "until"} {
		if _, err := time.Parse("2006-01-02", v[d]); v[d] != "" && err != nil {
			return nil, fmt.Errorf("--%s %q: want a day, YYYY-MM-DD", d, v[d])
		}
	}
	g := &GroupRun{}
	if v["prices"] != "" {
		if g.Prices, err = spend.ReadPrices(v["prices"]); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPrices, err)
		}
	}
	total := spend.NewTotals(by, loc, v["since"], v["until"])
	g.Add = total.Add
	g.Report = func() (*render.Report, error) {
		rows, err := spendRowsWhere(by, total, where)
		if err != nil {
			return nil, err
		}
		return spendReport(by, rows), nil
	}
	return g, nil
}

// spendRowsWhere are the grouped rows --where is true for (all of them
// without), each seen as the row JSON writes.
func spendRowsWhere(by spend.By, t *spend.Totals, where *filter.Expr) ([]spend.Row, error) {
	rows, _ := t.Rows()
	if where == nil {
		return rows, nil
	}
	set := spendRowSet(by, rows)
	var kept []spend.Row
	for i, r := range rows {
		ok := false
		err := where.Run(context.Background(), &stream.Event{}, set.Object(i), func(v any, _ bool) error {
			ok = ok || filter.Truthy(v)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("--where: %w", err)
		}
		if ok {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// spendRowSet is the rows as CSV, NDJSON and JSON write them.
func spendRowSet(by spend.By, rows []spend.Row) *render.RowSet {
	set := render.NewRowSet(by.KeyName(), "calls", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "total_tokens",
		"cost_usd", "main_tokens", "main_cost_usd", "subagent_tokens", "subagent_cost_usd", "hidden_tokens", "unread_tokens", "estimated", "unpriced")
	for _, r := range rows {
		u := r.All.Usage
		set.Add(r.Key, r.Calls, u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.Total(),
			RoundUSD(r.All.CostUSD()), r.Main.Usage.Total(), RoundUSD(r.Main.CostUSD()), r.Subagents.Usage.Total(), RoundUSD(r.Subagents.CostUSD()),
			r.Hidden.Total(), r.Unread.Total(), r.Estimated, r.Unpriced)
	}
	return set
}

// spendReport is the grouped spend in the report shape every format
// renders: a table with a total row (of the rows shown); rows (CSV,
// NDJSON, JSON) of the groups alone.
func spendReport(by spend.By, rows []spend.Row) *render.Report {
	total := spend.Sum(rows)
	money := func(s spend.Side, r spend.Row) render.Cell {
		c := fmt.Sprintf("$%.4f", s.CostUSD())
		if r.Estimated || r.Unpriced {
			c += "*"
		}
		return render.Cell{Text: c, Style: render.Number}
	}
	cols := []render.Column{{Name: keyTitle(by), Short: strings.ToLower(keyTitle(by))}, {Name: "Calls", Right: true}, {Name: "Input", Right: true}, {Name: "Output", Right: true},
		{Name: "Cache write", Short: "cache w", Right: true}, {Name: "Cache read", Short: "cache r", Right: true}, {Name: "Total tokens", Short: "tokens", Right: true},
		{Name: "Cost", Right: true}, {Name: "Main cost", Short: "main", Right: true}, {Name: "Subagents cost", Short: "subagents", Right: true},
		{Name: "Hidden tokens", Short: "hidden", Right: true}}
	table := &render.Table{Columns: cols}
	line := func(r spend.Row, key render.Cell) []render.Cell {
		u := r.All.Usage
		return []render.Cell{key, num(int64(r.Calls)), num(u.InputTokens), num(u.OutputTokens), num(u.CacheCreationInputTokens), num(u.CacheReadInputTokens),
			num(u.Total()), money(r.All, r), money(r.Main, r), money(r.Subagents, r), num(r.Hidden.Total())}
	}
	for _, r := range rows {
		table.Rows = append(table.Rows, line(r, render.Cell{Text: r.Key, Style: keyStyle(by)}))
	}
	table.Rows = append(table.Rows, line(total, render.Cell{Text: "total", Style: render.Strong}))
	blocks := []render.Block{{Table: table}}
	if total.Estimated || total.Unpriced {
		blocks = append(blocks, render.Block{Line: "* estimated: runs that recorded no cost (killed) are priced at the session's recorded rate for the model, else the price table; unpriced models count 0"})
	}
	if n := total.Unread.Total(); n > 0 {
		blocks = append(blocks, render.Block{Line: fmt.Sprintf("%d tokens the sessions recorded are not in a call read here: lines that could not be read (warned above) may hold them. They are in the totals, not in hidden.", n)})
	}
	blocks = append(blocks, render.Block{Line: "Each call counted once, where it was made (a fork's copies in their own session); hidden tokens: compaction and helper calls no assistant record holds. See docs/usage.md."})
	return &render.Report{Title: "Usage by " + string(by), Blocks: blocks, Rows: spendRowSet(by, rows)}
}

func keyTitle(by spend.By) string {
	switch by {
	case spend.ByDay:
		return "Date"
	case spend.ByWeek:
		return "Week of"
	}
	return map[spend.By]string{spend.BySession: "Session", spend.ByMonth: "Month", spend.ByProject: "Project", spend.ByModel: "Model", spend.ByCLI: "CLI"}[by]
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

// RoundUSD keeps a cost to the nano-dollar, as it was added up.
func RoundUSD(usd float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(usd, 'f', 9, 64), 64)
	return v
}
