package preset

import (
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// types counts each (type, subtype), marking the ones ccfilter does not
// know.
var types = Preset{
	Name: "types", DefaultAgent: "all",
	Summary: "a count of each (type, subtype), with the ones ccfilter does not know marked",
	Dot:     rowDot(typesColumns),
	Example: "ccfilter types run.jsonl",
	Words:   []string{"kinds", "counts"},
	Needs:   agentNeeds(stream.Needs{Follow: stream.FollowOutcome, NoOwners: true, NoFinalText: true}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		if c.Agent == "" || c.Agent == "all" {
			return startReport(c, tr, reportRun{uses: keepsOutcome, report: func(b *base) (*render.Report, error) { return typesReport(b, b.tr.Types()) }})
		}
		// --agent: the events of that agent, counted here (the
		// tracker counts every event).
		picked := stream.NewTypeCounter(0)
		run, err := startReport(c, tr, reportRun{uses: keepsOutcome, report: func(b *base) (*render.Report, error) {
			b.unmatchedAgent()
			return typesReport(b, picked.Counts())
		}})
		if err != nil {
			return nil, err
		}
		r := run.(*reportRun)
		r.keep = func(ev *stream.Event) {
			if r.agentMatch(ev) {
				picked.Add(ev)
			}
		}
		return r, nil
	},
}

// typesColumns are a types row's: what CSV, NDJSON, JSON and --where see.
var typesColumns = []string{"type", "subtype", "count", "known"}

func typesReport(b *base, all []stream.TypeCount) (*render.Report, error) {
	counts, rows, err := rowsWhere(b, all, typesColumns, func(t stream.TypeCount) []any {
		return []any{t.Type, t.Subtype, t.Count, t.Known}
	})
	if err != nil {
		return nil, err
	}
	table := &render.Table{Columns: columns([]string{"Type", "Subtype", "Count", "Known"}, 2)}
	for _, c := range counts {
		known := plain("yes")
		if !c.Known {
			known = strong("no")
		}
		table.Rows = append(table.Rows, []render.Cell{code(c.Type), code(c.Subtype), num(c.Count), known})
	}
	return &render.Report{Title: "Event types", Blocks: []render.Block{{Table: table}}, Rows: rows}, nil
}
