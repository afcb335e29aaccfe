package input

import (
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// The live transcript reader's joining of subagents
// (NewLiveTranscriptReader): a subagent's file is read once the subagent
// has finished, when the records say so.

// await notes the Agent calls of ev: their subagents run now.
func (t *transcriptReader) await(ev *stream.Event) {
	jsonx.Value(ev.Get("message", "content")).Each(func(_ int, b jsonx.Value) bool {
		if id := b.Get("id").Str(); id != "" && stream.StartsSubagent(b.Get("name").Str()) {
			t.awaiting[id] = true
		}
		return true
	})
}

// asyncLaunched starts the result of an Agent call whose subagent runs in
// the background (a subagent's file has no toolUseResult to say so).
const asyncLaunched = "Async agent launched"

// finished reads the subagent of each foreground Agent call ev holds the
// result of; a background one's result only says it started.
func (t *transcriptReader) finished(ev *stream.Event) {
	if !t.live || len(t.awaiting) == 0 {
		return
	}
	status := jsonx.Value(ev.ToolUseResult()).Get("status")
	for _, r := range ev.ToolResults() {
		if !t.awaiting[r.ToolUseID] {
			continue
		}
		if status.StrEqual("async_launched") || strings.HasPrefix(strings.TrimSpace(r.Text()), asyncLaunched) {
			continue // read at its task notification
		}
		t.join(r.ToolUseID)
	}
}

// notified reads the subagent whose end the task notification n reports.
func (t *transcriptReader) notified(n *stream.Event) {
	if !t.live || n == nil || n.Subtype != "task_notification" {
		return
	}
	if id := n.Str("tool_use_id"); t.awaiting[id] {
		t.join(id)
	}
}

// join reads the records of the subagent the Agent call id started next.
func (t *transcriptReader) join(id string) {
	delete(t.awaiting, id)
	t.rescan()
	if _, ok := t.agents[id]; ok {
		t.pending = append(t.pending, id)
	}
}

// rescan looks for the .meta.json files written since the last look:
// the subagents and Workflow runs not read yet.
func (t *transcriptReader) rescan() {
	agents, runs, _ := sidechains(t.dir)
	for id, scs := range agents {
		if !t.joined[id] {
			t.agents[id] = scs
		}
	}
	for run, scs := range runs {
		if !t.joined["run:"+run] {
			t.runs[run] = scs
		}
	}
}
