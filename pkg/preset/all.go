package preset

import (
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// all prints the whole run, every event as the format shows it.
var all = Preset{
	Name: "all", DefaultAgent: "all", Glance: true,
	Formats: render.Formats, // the trace (otlp) too
	Summary: "the whole run, readable: prompts, text, tool calls and results, errors, results",
	Dot:     "the event object",
	Example: "ccfilter all run.jsonl",
	Words:   []string{"everything", "events", "show", "view"},
	Needs:   eventsNeeds,
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		r, err := startEvents(c, tr, func(*stream.Event) bool { return true })
		if err != nil {
			return nil, err
		}
		r.openCalls = true
		return r, nil
	},
}
