package preset

import (
	"context"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// errorsPreset prints every event that signals trouble (filter.IsTrouble),
// and a record of its own when the stream has no result: in text and
// markdown as the events are shown; in CSV, NDJSON and JSON as a table
// with a row per trouble (errorColumns), for a script or a spreadsheet.
var errorsPreset = Preset{
	Name: "errors", DefaultAgent: "all",
	Summary: "everything that signals trouble: retries (subagents' too), denials, failed tools, API errors, interrupts, refusals, answers cut at the output limit, failed tasks, hooks and compactions, failed results, a missing result; csv, ndjson and json: a row each",
	Dot:     "the event object",
	Example: "ccfilter errors --format csv run.jsonl",
	Words:   []string{"fail", "failure", "failures", "failed", "problems", "trouble", "troubles"},
	Needs: func(c *Config) stream.Needs {
		if rowFormat(c) {
			// Rows need the outcome (the missing result) and whose each
			// event is; the tool of a failed call the run notes itself
			// (toolNames), so the tracker pairs no calls.
			return agentNeeds(stream.Needs{Follow: stream.FollowOutcome, NoOwners: (c.Agent == "" || c.Agent == "all") && c.Where == nil})(c)
		}
		return eventsNeeds(c)
	},
	Start: func(c *Config, tr *stream.Tracker) (Run, error) {
		r, err := startEvents(c, tr, filter.IsTrouble)
		if err != nil {
			return nil, err
		}
		r.finish = noResultRecord
		if rowFormat(c) {
			return &errorRowsRun{eventsRun: r, names: toolNames{byID: map[string]string{}}}, nil
		}
		return r, nil
	},
}

// rowFormat: the errors are rows (CSV, NDJSON, JSON), not events.
func rowFormat(c *Config) bool {
	return c.Format == render.CSV || c.Format == render.NDJSON || c.Format == render.JSON
}

// errorColumns are the columns of an errors row: where (line, timestamp,
// agent and subagent_type, as the tools rows give them), what (kind,
// subtype), of which call (tool, tool_use_id), the HTTP status of an API
// error or retry, a retry's category, attempt, max_retries and wait_ms
// (what its text line says), and a one-line message.
var errorColumns = []string{"line", "timestamp", "agent", "subagent_type", "kind", "subtype", "tool", "tool_use_id",
	"status", "category", "attempt", "max_retries", "wait_ms", "message"}

// trouble is what one errors row says: the columns after where it was.
type trouble struct {
	kind, tool, id string
	status         int64
	retry          *stream.Retry // a retry's category, attempt and wait
	msg            string
}

// errorRowsRun writes the trouble as rows as it comes.
type errorRowsRun struct {
	*eventsRun
	names toolNames
}

// toolNames remembers the tool of the last maxToolCalls calls, by id: a
// failed result's row names its tool without the tracker pairing calls.
type toolNames struct {
	byID  map[string]string
	order []string
	next  int
}

const maxToolCalls = 10_000

func (n *toolNames) note(ev *stream.Event) {
	// Read the first members only, in order, and stop there: the block's
	// input, often a whole file, is never walked (Get would walk it).
	var content jsonx.Value
	jsonx.Value(ev.Get("message")).EachMember(func(k []byte, v jsonx.Value) bool {
		if string(k) == "content" {
			content = v
			return false
		}
		return true
	})
	content.Each(func(_ int, b jsonx.Value) bool {
		var id, name string
		b.EachMember(func(k []byte, v jsonx.Value) bool {
			switch string(k) {
			case "id":
				id = v.Str()
			case "name":
				name = v.Str()
			}
			return id == "" || name == ""
		})
		if id == "" {
			return true
		}
		if _, seen := n.byID[id]; seen {
			n.byID[id] = name // (a repeated id takes no second place)
			return true
		}
		if len(n.order) < maxToolCalls {
			n.order = append(n.order, id)
		} else { // forget the oldest
			delete(n.byID, n.order[n.next])
			n.order[n.next] = id
			n.next = (n.next + 1) % maxToolCalls
		}
		n.byID[id] = name
		return true // (a message can hold several calls)
	})
}

func (r *errorRowsRun) Event(ctx context.Context, ev *stream.Event, done []*stream.ToolCall) error {
	if ev.Kind == stream.KindToolUse {
		r.names.note(ev)
	}
	if ok, err := r.picks(ctx, ev); !ok {
		return err
	}
	return r.r.Render(render.Record{Rows: errorRows(ev, r.names.byID, filter.AgentOf(ev, r.tr), subagentType(ev, r.tr))})
}

// Finish writes the missing result's row, and the header of a table that
// has no row.
func (r *errorRowsRun) Finish(end End) (Status, error) {
	if err := r.r.Render(render.Record{Rows: []*render.Row{{Columns: errorColumns}}}); err != nil {
		return 0, err
	}
	return r.eventsRun.Finish(end)
}

// subagentType is the type of the subagent an event belongs to, as the
// tools rows give it: the tracker's, or the one a subagent's retry names.
func subagentType(ev *stream.Event, tr *stream.Tracker) string {
	if s := tr.AgentOf(ev); s != nil && s.Type != "" {
		return s.Type
	}
	if ev.Kind == stream.KindRetry {
		return ev.Retry().SubagentType
	}
	return ""
}

// errorRow is one row of errorColumns.
func errorRow(ev *stream.Event, agent, agentType string, t trouble) *render.Row {
	var line any
	if ev != nil && ev.Line > 0 {
		line = ev.Line
	}
	ts, sub := "", ""
	if ev != nil {
		ts, sub = ev.Timestamp(), ev.Subtype
	}
	var category, attempt, maxRetries, wait any // null but for a retry
	if rt := t.retry; rt != nil {
		if rt.Category != "" {
			category = rt.Category
		}
		attempt, maxRetries, wait = rt.Attempt, rt.MaxRetries, rt.DelayMs
	}
	return &render.Row{Columns: errorColumns, Values: []any{line, ts, agent, agentType, t.kind, sub, t.tool, t.id,
		nonZero(t.status), category, attempt, maxRetries, wait, oneLine(t.msg)}}
}

// nonZero is n, or nil (null, an empty cell) for 0: a status not known.
func nonZero(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

// oneLine is a message as a row holds it: its first line, at most 500
// bytes (on a character boundary).
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 500 {
		i := 500
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
		s = s[:i] + "…"
	}
	return s
}

// errorRows are the rows of one trouble event: one per failed tool result
// of a user event, one for any other.
func errorRows(ev *stream.Event, names map[string]string, agent, agentType string) []*render.Row {
	row := func(kind, tool, id string, status int64, msg string) []*render.Row {
		return []*render.Row{errorRow(ev, agent, agentType, trouble{kind: kind, tool: tool, id: id, status: status, msg: msg})}
	}
	if stop := filter.Stopped(ev); stop != "" {
		return row(stop, "", "", 0, ev.Text())
	}
	switch ev.Kind {
	case stream.KindToolResult:
		var rows []*render.Row
		for _, res := range ev.ToolResults() {
			if res.IsError {
				rows = append(rows, errorRow(ev, agent, agentType, trouble{kind: "tool_error", tool: names[res.ToolUseID], id: res.ToolUseID, msg: res.Text()}))
			}
		}
		return rows
	case stream.KindRetry:
		// What the text's line says, in columns (attempt, category,
		// status and wait) and as the message; whose it is the agent
		// columns say (a subagent's by its agent id and type).
		rt := ev.Retry()
		return []*render.Row{errorRow(ev, agent, agentType, trouble{kind: "retry", status: rt.Status, retry: &rt, msg: render.RetryText(rt)})}
	case stream.KindPermissionDenied:
		d := ev.Denial()
		return row("permission_denied", d.ToolName, d.ToolUseID, 0, d.Message)
	case stream.KindAPIError:
		a := ev.Assistant()
		return row("api_error", "", "", int64(a.APIErrorStatus), a.Error+": "+ev.Text())
	case stream.KindInterrupt:
		return row("interrupt", "", "", 0, ev.Text())
	case stream.KindResult:
		res := ev.Result()
		msg := strings.Join(res.Errors, "; ")
		if msg == "" {
			msg = res.Text
		}
		return row("result_failed", "", "", int64(res.APIErrorStatus), msg)
	case stream.KindTask:
		t := ev.Task()
		return row("task_"+t.Status, "", t.ToolUseID, 0, t.Description+": "+t.Summary)
	case stream.KindHook:
		h := ev.Hook()
		return row("hook_failed", h.Name, "", 0, h.Message)
	case stream.KindProgress:
		return row("compaction_failed", "", "", 0, ev.Progress().CompactError)
	}
	return row(ev.Kind.String(), "", "", 0, ev.Str("content")+ev.Str("message"))
}

// noResultRecord writes, for a stream without a result, a record saying
// so: a missing result is the first trouble a killed run shows.
func noResultRecord(r *eventsRun, end End) error {
	if !r.tr.ResultMissing() { // (as the account counts it)
		return nil
	}
	msg := stream.NoResultSaid
	if end.Diagnosis != "" {
		msg = end.Diagnosis
	}
	if !rowFormat(r.c) {
		// For people (text, markdown, a page): a line of trouble like the
		// others, not a row.
		return r.r.Summary(&render.Report{Trouble: "no result: " + msg})
	}
	return r.r.Render(render.Record{Rows: []*render.Row{errorRow(nil, "", "", trouble{kind: "no_result", msg: msg})}})
}
