package preset

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// Formats lists the formats the grouping prints (nil: the preset's).
	Formats []render.Format
	// Start checks the flags' values (by name, as given or their
	// defaults) and returns the grouped run; where (--where, nil
	// without) keeps the rows it is true for, each seen as its JSON row.
	// metrics says whether the report's metrics (Report.Metrics, which
	// only the OTLP format lays out) are wanted: without, their series
	// are not kept.
	Start func(values map[string]string, where *filter.Expr, metrics bool) (*GroupRun, error)
}

// Prints reports whether the grouping prints format f.
func (g *Grouping) Prints(f render.Format) bool {
	return g.Formats == nil || slices.Contains(g.Formats, f)
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
	Key: "by", Tree: spend.ByModel.Name,
	Flags: []Flag{
		{Name: "by", Usage: "usage: the spend of every session under PATH (a session, a project folder, the projects tree; none: the whole tree; NAME=PATH names a tree, for machine), grouped by " +
			strings.Join(spend.KeyNames(), ", ") + ", or several keys: day,model (see docs/usage.md)",
			Complete: spend.KeyNames()},
		{Name: "since", Usage: "usage --by: from this day on (YYYY-MM-DD, in --tz)"},
		{Name: "until", Usage: "usage --by: up to this day (YYYY-MM-DD, in --tz)"},
		{Name: "prices", Usage: "usage --by: a JSON file of prices per million input tokens by model name prefix, over the shipped list prices (pkg/spend/prices.json), for runs that recorded no cost (see docs/usage.md)"},
		{Name: "tz", Value: "Local", Usage: "usage --by: the time zone days are counted in (an IANA name, UTC, Local)"},
	},
	// otlp: the metrics of every session × model × subagent × machine
	// (usageMetrics), whatever --by says.
	Formats: []render.Format{render.Text, render.Markdown, render.NDJSON, render.CSV, render.JSON, render.HTML, render.OTLP},
	Start:   startUsageBy,
}

// seriesBy is the grouping of usage --by's metrics: one series per
// session, model, subagent and machine, whatever --by says, so that
// sending them again (any --by, any day) sends the same series.
var seriesBy = spend.By{spend.BySession, spend.ByModel, spend.BySubagent, spend.ByMachine}

func startUsageBy(v map[string]string, where *filter.Expr, metrics bool) (*GroupRun, error) {
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
	// The metrics' series, by session, model, agent and machine, only
	// for a format that lays them out: every call added to them too was
	// a tenth of what a tree's account does after its files are read, on
	// one goroutine (issue 41).
	var series *spend.Totals
	g.Add = total.Add
	if metrics {
		series = spend.NewTotals(seriesBy, loc, v["since"], v["until"])
		g.Add = func(c spend.Call) {
			total.Add(c)
			series.Add(c)
		}
	}
	g.Report = func() (*render.Report, error) {
		rows, err := spendRowsWhere(by, total, where)
		if err != nil {
			return nil, err
		}
		rep := spendReport(by, rows)
		if series != nil {
			all, _ := series.Rows()
			rep.Metrics = usageMetrics(all)
		}
		return rep, nil
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
	set := render.NewRowSet(append(by.Fields(), "calls", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "total_tokens",
		"cost_usd", "main_tokens", "main_cost_usd", "subagent_tokens", "subagent_cost_usd", "hidden_tokens", "unread_tokens", "estimated", "unpriced",
		"unpriced_tokens", "unpriced_models")...)
	for _, r := range rows {
		u := r.All.Usage
		vals := make([]any, 0, len(r.Keys)+17)
		for _, k := range r.Keys {
			vals = append(vals, k)
		}
		set.Add(append(vals, r.Calls, u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens, u.Total(),
			CostValue(r.All), r.Main.Usage.Total(), CostValue(r.Main), r.Subagents.Usage.Total(), CostValue(r.Subagents),
			r.Hidden.Total(), r.Unread.Total(), r.Estimated, r.Unpriced, r.All.UnpricedTokens, UnpricedModels(r))...)
	}
	return set
}

// CostText is a cost as a table shows it (usage --by's and sessions'
// cells): "?" when none of its calls has a price (a cost not known, never
// $0), else the dollars, "+" after them when they leave out calls no
// price is known for, "*" when some are estimated (CostNotes says both).
func CostText(s spend.Side, estimated bool) string {
	if !s.CostKnown() {
		return "?"
	}
	c := fmt.Sprintf("$%.4f", s.CostUSD())
	if s.UnpricedTokens > 0 {
		c += "+"
	}
	if estimated {
		c += "*"
	}
	return c
}

// CostValue is a cost as CSV, NDJSON and JSON write it: null when none of
// its calls has a price (the row's unpriced_models say which).
func CostValue(s spend.Side) any {
	if !s.CostKnown() {
		return nil
	}
	return RoundUSD(s.CostUSD())
}

// UnpricedModels are the models of a row no price is known for, as CSV
// and JSON write them: comma-separated, "(none named)" for a run that
// names no model.
func UnpricedModels(r spend.Row) string {
	names := slices.Clone(r.UnpricedModels)
	for i, m := range names {
		if m == "" {
			names[i] = "(none named)"
		}
	}
	return strings.Join(names, ",")
}

// CostNotes are the lines under a table of costs (CostText) that say
// what its marks mean, for the figures of total (all its rows).
func CostNotes(total spend.Row) []render.Block {
	var notes []render.Block
	if total.Estimated {
		notes = append(notes, render.Block{Line: "* estimated: runs that recorded no cost (killed, or of a CLI that reports none) are priced at the session's recorded rate for the model, else at list prices"})
	}
	if total.Unpriced {
		notes = append(notes, render.Block{Line: fmt.Sprintf("? unpriced: no price is known for %s (%d tokens): a cost of those calls alone is ?, a cost that leaves them out is marked +; --prices FILE gives one (see docs/usage.md)",
			strings.ReplaceAll(UnpricedModels(total), ",", ", "), total.All.UnpricedTokens)})
	}
	return notes
}

// spendReport is the grouped spend in the report shape every format
// renders: a table with a total row (of the rows shown); rows (CSV,
// NDJSON, JSON) of the groups alone.
func spendReport(by spend.By, rows []spend.Row) *render.Report {
	total := spend.Sum(rows)
	money := func(s spend.Side, r spend.Row) render.Cell {
		return render.Cell{Text: CostText(s, r.Estimated), Style: render.Number}
	}
	var cols []render.Column
	for _, k := range by {
		cols = append(cols, render.Column{Name: k.Title, Short: strings.ToLower(k.Title)})
	}
	cols = append(cols, []render.Column{{Name: "Calls", Right: true}, {Name: "Input", Right: true}, {Name: "Output", Right: true},
		{Name: "Cache write", Short: "cache w", Right: true}, {Name: "Cache read", Short: "cache r", Right: true}, {Name: "Total tokens", Short: "tokens", Right: true},
		{Name: "Cost", Right: true}, {Name: "Main cost", Short: "main", Right: true}, {Name: "Subagents cost", Short: "subagents", Right: true},
		{Name: "Hidden tokens", Short: "hidden", Right: true}}...)
	table := &render.Table{Columns: cols}
	line := func(r spend.Row, keys []render.Cell) []render.Cell {
		u := r.All.Usage
		return append(keys, num(int64(r.Calls)), num(u.InputTokens), num(u.OutputTokens), num(u.CacheCreationInputTokens), num(u.CacheReadInputTokens),
			num(u.Total()), money(r.All, r), money(r.Main, r), money(r.Subagents, r), num(r.Hidden.Total()))
	}
	for _, r := range rows {
		keys := make([]render.Cell, len(by))
		for i, k := range by {
			keys[i] = render.Cell{Text: r.Keys[i], Style: keyStyle(k)}
		}
		table.Rows = append(table.Rows, line(r, keys))
	}
	// (the total's key cells: "total", then blanks)
	keys := make([]render.Cell, len(by))
	keys[0] = render.Cell{Text: "total", Style: render.Strong}
	table.Rows = append(table.Rows, line(total, keys))
	blocks := append([]render.Block{{Table: table}}, CostNotes(total)...)
	if n := total.Unread.Total(); n > 0 {
		blocks = append(blocks, render.Block{Line: fmt.Sprintf("%d tokens the sessions recorded are not in a call read here: lines that could not be read (warned above) may hold them. They are in the totals, not in hidden.", n)})
	}
	blocks = append(blocks, render.Block{Line: "Each call counted once, where it was made (a fork's copies in their own session); hidden tokens: compaction and helper calls no assistant record holds. See docs/usage.md."})
	return &render.Report{Title: "Usage by " + strings.ReplaceAll(by.String(), ",", ", "), Blocks: blocks, Rows: spendRowSet(by, rows)}
}

func keyStyle(k spend.Key) render.Style {
	switch k.Name {
	case spend.BySession.Name:
		return render.Code
	case spend.ByProject.Name:
		return render.Prose // (a long directory is cut in a table)
	}
	return render.Plain
}

// usageMetrics are the rows of seriesBy as OpenTelemetry metrics, named
// as ccfilter's own (so that they never add up with Claude Code's
// claude_code.* by accident) with Claude Code's attribute names
// (session.id, model, type; its token types: input, output, cacheRead,
// cacheCreation), so that a dashboard's queries carry over by changing
// the metric's name; each sum counts from its session's first record.
// Tokens and cost are every call's, hidden ones too, as the rows'; calls
// are the model calls.
func usageMetrics(rows []spend.Row) *render.Metrics {
	tokens := render.MetricSum{Name: "ccfilter.token.usage", Unit: "tokens", Description: "Tokens used, each call counted once where it was made (ccfilter usage --by)"}
	cost := render.MetricSum{Name: "ccfilter.cost.usage", Unit: "USD", Description: "Cost in US dollars: the CLI's own cost-state figures, each call once (ccfilter usage --by)", Double: true}
	calls := render.MetricSum{Name: "ccfilter.calls", Unit: "{call}", Description: "Model calls, each counted once where it was made (ccfilter usage --by)"}
	for _, r := range rows {
		attrs := []render.MetricAttr{{Key: "session.id", Value: r.Keys[0]}, {Key: "model", Value: r.Keys[1]}, {Key: "subagent", Value: r.Keys[2]}, {Key: "machine", Value: r.Keys[3]}}
		u := r.All.Usage
		for _, t := range []struct {
			typ string
			n   int64
		}{{"input", u.InputTokens}, {"output", u.OutputTokens}, {"cacheRead", u.CacheReadInputTokens}, {"cacheCreation", u.CacheCreationInputTokens}} {
			tokens.Points = append(tokens.Points, render.MetricPoint{Attrs: append(slices.Clone(attrs), render.MetricAttr{Key: "type", Value: t.typ}), Start: r.Start, Int: t.n})
		}
		if r.All.CostKnown() {
			// (a series of a model no price is known for has no cost
			// point: a sum of 0 would say it cost nothing)
			cost.Points = append(cost.Points, render.MetricPoint{Attrs: attrs, Start: r.Start, Float: RoundUSD(r.All.CostUSD())})
		}
		calls.Points = append(calls.Points, render.MetricPoint{Attrs: attrs, Start: r.Start, Int: int64(r.Calls)})
	}
	return &render.Metrics{Sums: []render.MetricSum{tokens, cost, calls}}
}

// RoundUSD keeps a cost to the nano-dollar, as it was added up.
func RoundUSD(usd float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(usd, 'f', 9, 64), 64)
	return v
}
