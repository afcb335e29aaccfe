package preset

import (
	"strconv"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// types counts each (type, subtype), marking the ones ccfilter does not
// know.
var types = Preset{
	Name: "types", DefaultAgent: "all",
	Summary: "a count of each (type, subtype), with the ones ccfilter does not know marked",
	Dot:     "a row: {type, subtype, count, known}",
	Example: "ccfilter types run.jsonl",
	Needs:   fixed(stream.Needs{Follow: stream.FollowOutcome, NoOwners: true}),
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		return startReport(c, tr, reportRun{uses: keepsOutcome, report: typesReport})
	},
}

func typesReport(b *base) (*render.Report, error) {
	counts, err := whereRows(b, b.tr.Types(), func(t stream.TypeCount) map[string]any {
		return map[string]any{"type": t.Type, "subtype": t.Subtype, "count": int(t.Count), "known": t.Known}
	})
	if err != nil {
		return nil, err
	}
	table := &render.Table{Columns: columns([]string{"Type", "Subtype", "Count", "Known"}, 2)}
	rows := render.Table{Columns: columns([]string{"type", "subtype", "count", "known"})}
	for _, c := range counts {
		known := plain("yes")
		if !c.Known {
			known = strong("no")
		}
		table.Rows = append(table.Rows, []render.Cell{code(c.Type), code(c.Subtype), num(c.Count), known})
		rows.Rows = append(rows.Rows, []render.Cell{plain(c.Type), plain(c.Subtype), num(c.Count), plain(strconv.FormatBool(c.Known))})
	}
	return &render.Report{Title: "Event types", Blocks: []render.Block{{Table: table}}, Rows: rows, Data: counts}, nil
}
