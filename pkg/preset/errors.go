package preset

import (
	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// errorsPreset prints every event that signals trouble (filter.IsTrouble),
// and a record of its own when the stream has no result.
var errorsPreset = Preset{
	Name: "errors", DefaultAgent: "all",
	Summary: "everything that signals trouble: retries (subagents' too), denials, failed tools, API errors, interrupts, failed tasks, hooks and compactions, failed results, a missing result",
	Dot:     "the event object",
	Example: "ccfilter errors run.jsonl",
	// Events of every kind, not a table: no csv.
	Formats: []render.Format{render.Text, render.Markdown, render.NDJSON, render.JSON},
	Needs:   eventsNeeds,
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		r, err := startEvents(c, tr, filter.IsTrouble)
		if err != nil {
			return nil, err
		}
		r.finish = noResultRecord
		return r, nil
	},
}

// noResultRecord writes, for a stream without a result, a record saying
// so: a missing result is the first trouble a killed run shows.
func noResultRecord(r *eventsRun) error {
	if r.tr.Outcome().Status != stream.NoResult {
		return nil
	}
	msg := "the stream ended without a result event (the run was killed or cut off)"
	if r.c.Diagnosis != "" {
		msg = r.c.Diagnosis
	}
	rec := map[string]any{"type": "ccfilter", "subtype": "no_result", "source": r.c.Source, "message": msg}
	if r.c.Format == render.Text || r.c.Format == render.Markdown {
		// For people: a line of trouble like the others, not a JSON block.
		return r.r.Summary(&render.Report{Trouble: "no result: " + msg, Data: rec})
	}
	return r.r.Value(rec)
}
