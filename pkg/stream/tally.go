package stream

import (
	"sort"
)

// MaxToolNames caps the tool names a Tally counts one by one; calls of
// further names are counted in OtherTools.
const MaxToolNames = 200

// maxResultFigures caps the results whose figures a Tally keeps one by one.
const maxResultFigures = 8

// Tally counts what a run's summary reports: tool calls by tool, the kinds
// of trouble, and the results' turns and durations. A Tracker keeps one
// over every event it follows (Tracker.Tally); a consumer that sees only
// some events may keep its own. Its memory is bounded.
type Tally struct {
	ToolCalls  int
	Tools      map[string]int // calls by tool name, MaxToolNames names at most
	OtherTools int            // calls of the names beyond

	ToolErrors   int // tool_result blocks with is_error
	APIErrors    int // synthetic API-error messages
	Retries      int // api_retry events and subagent retries (tool_progress)
	Denials      int // permission_denied events
	HookFailures int // failed hooks: a hook_response with outcome "error" or a non-zero exit, a stop_hook_summary with errors
	Interrupts   int

	// Results counts the result events; Turns and DurationMs sum their
	// num_turns and duration_ms (a run with background work prints one
	// result per turn of it, each with its own figures); PerResult keeps
	// the first few results' figures.
	Results    int
	Turns      int64
	DurationMs int64
	// Timed counts the results that say their duration_ms: a result made
	// for an input that gives none (Codex's stream) says none, and its
	// 0 is no duration.
	Timed     int
	PerResult []ResultFigures
}

// ResultFigures are one result event's own figures.
type ResultFigures struct {
	Turns      int64
	DurationMs int64
	// Timed: the result says its duration_ms.
	Timed bool
}

// Add counts one event.
func (t *Tally) Add(e *Event) { t.add(e, true) }

// add counts one event; without tools, no tool call or tool error
// (Needs.NoToolTally): finding them walks every message's content blocks
// and every tool result.
func (t *Tally) add(e *Event, tools bool) {
	switch e.Kind {
	case KindInterrupt:
		t.Interrupts++
	case KindRetry:
		t.Retries++
	case KindPermissionDenied:
		t.Denials++
	case KindAPIError:
		t.APIErrors++
		return // its blocks are the error's text
	case KindHook:
		if e.Hook().Failed {
			t.HookFailures++
		}
	case KindToolResult:
		if !tools {
			break
		}
		for _, r := range e.toolResults(false) {
			if r.IsError {
				t.ToolErrors++
			}
		}
	case KindResult:
		t.addResult(e)
	}
	if e.Type == "assistant" && tools {
		t.addToolUses(e)
	}
}

func (t *Tally) addResult(e *Event) {
	d := e.keys().Get("duration_ms")
	t.AddResult(ResultFigures{Turns: e.keys().Get("num_turns").Int(), DurationMs: d.Int(), Timed: d.Exists()})
}

// AddResult counts one result's figures: for a view that sums some of a
// run's results (the text view's closing line folds the results that come
// together) as the run's tally sums them all.
func (t *Tally) AddResult(f ResultFigures) {
	t.Results++
	t.Turns += f.Turns
	t.DurationMs += f.DurationMs
	if f.Timed {
		t.Timed++
	}
	if len(t.PerResult) < maxResultFigures {
		t.PerResult = append(t.PerResult, f)
	}
}

// addToolUses counts the tool_use blocks of an assistant event.
func (t *Tally) addToolUses(e *Event) {
	if e.Kind != KindToolUse && e.Kind != KindUnknown && e.Kind != KindText && e.Kind != KindThinking {
		return
	}
	for _, b := range e.blockHeads() {
		if isToolUse(b.Type) {
			t.addTool(b.Name.Str())
		}
	}
}

func (t *Tally) addTool(name string) {
	t.ToolCalls++
	if t.Tools == nil {
		t.Tools = map[string]int{}
	}
	if _, ok := t.Tools[name]; ok || len(t.Tools) < MaxToolNames {
		t.Tools[name]++
	} else {
		t.OtherTools++
	}
}

// Account is the part of a run's account a tally knows, for a view that
// has no tracker (an expression's): tool calls by tool (no failures, no
// times), troubles by the kinds it counts, turns and durations by result.
func (t Tally) Account() Account {
	a := Account{Turns: Turns{Count: t.Turns, Meaning: "num_turns"}, Troubles: Troubles{ByKind: map[string]int{}}}
	if t.Results > 0 {
		ms := t.DurationMs
		a.Times.ReportedMs = &ms
	}
	a.ToolCalls = ToolAccount{Calls: t.ToolCalls, Failures: t.ToolErrors}
	for name, n := range t.Tools {
		a.ToolCalls.ByTool = append(a.ToolCalls.ByTool, ToolTotal{Name: name, Calls: n})
	}
	if t.OtherTools > 0 {
		a.ToolCalls.ByTool = append(a.ToolCalls.ByTool, ToolTotal{Name: "(other)", Calls: t.OtherTools})
	}
	sort.Slice(a.ToolCalls.ByTool, func(i, j int) bool { return a.ToolCalls.ByTool[i].Name < a.ToolCalls.ByTool[j].Name })
	for k, n := range map[string]int{TroubleToolError: t.ToolErrors, TroubleAPIError: t.APIErrors, TroubleRetry: t.Retries,
		TroubleDenial: t.Denials, TroubleHook: t.HookFailures, TroubleInterrupt: t.Interrupts} {
		if n > 0 {
			a.Troubles.ByKind[k] = n
			a.Troubles.Count += n
		}
	}
	return a
}
