package render

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// MaxGlanceTrouble is how many troubles a glance lists; the rest are
// counted.
const MaxGlanceTrouble = 50

// Glance is a whole run in brief, known before its report is written: the
// command reads a file twice for it (a pipe cannot be), so that a long
// session's report says how it ended, what it cost and what went wrong
// at its top, not only at its end. Options.Glance; the markdown report
// opens with it and anchors each trouble it links to.
type Glance struct {
	// Result is the last result's view when Results > 0; APIError is the
	// category of an API error that ended the main agent's last turn.
	Result   stream.Result
	APIError string
	// Account is the run's (stream.Account): its figures are the
	// glance's.
	Account stream.Account
	// Trouble are the first MaxGlanceTrouble events that signal trouble
	// (filter.IsTrouble), MoreTrouble the count past them.
	Trouble     []GlanceItem
	MoreTrouble int
	anchors     map[string]bool
}

// GlanceItem is one trouble: where it is (its input, a subagent's file
// in a transcript, and line), whose it is, and what it was.
type GlanceItem struct {
	Source string
	Line   int64
	Agent  string
	Text   string
}

// AddTrouble lists one trouble (or counts it past the first
// MaxGlanceTrouble).
func (g *Glance) AddTrouble(it GlanceItem) {
	if len(g.Trouble) >= MaxGlanceTrouble {
		g.MoreTrouble++
		return
	}
	if g.anchors == nil {
		g.anchors = map[string]bool{}
	}
	if it.Line > 0 {
		g.anchors[anchorID(it.Source, it.Line)] = true // an event of ccfilter's own (line 0) has no place to link to
	}
	g.Trouble = append(g.Trouble, it)
}

// anchored reports whether the glance links to the event.
func (g *Glance) anchored(ev *stream.Event) bool {
	return g != nil && ev.Line > 0 && g.anchors[anchorID(ev.Source, ev.Line)]
}

// anchorID is the id of the anchor before the event on line of source:
// unique in a report of several runs, and in a transcript's whose
// subagents' files number their own lines (a short hash of the source
// tells them apart).
func anchorID(source string, line int64) string {
	h := fnv.New32a()
	h.Write([]byte(source))
	return "l" + strconv.FormatUint(uint64(h.Sum32()), 36) + "-" + strconv.FormatInt(line, 10)
}

// glanceMarkdown is the glance as the markdown report's opening: one line
// of facts, then the troubles, each linking to its place in the report.
func glanceMarkdown(g *Glance) string {
	var facts []string
	a := g.Account
	if a.Outcome.Results == 0 {
		facts = append(facts, "no result (the stream ended without one)")
	} else {
		outcome := "✓ ok (" + outcomeTitle(g.Result, g.APIError) + ")"
		if g.Result.IsError {
			outcome = "✗ " + outcomeTitle(g.Result, g.APIError)
		}
		facts = append(facts, outcome, plural(a.Turns.Count, "turn"))
		if a.Times.ReportedMs != nil {
			facts = append(facts, fmtMs(*a.Times.ReportedMs))
		}
		facts = append(facts, a.CostLabel(g.Result))
	}
	facts = append(facts, plural(a.Tokens.TotalTokens, "token"), plural(int64(a.ToolCalls.Calls), "tool call"))
	if a.ToolCalls.Failures > 0 {
		facts = append(facts, plural(int64(a.ToolCalls.Failures), "failed tool call"))
	}
	var b strings.Builder
	b.WriteString("**At a glance:** " + mdInline(strings.Join(facts, " · ")) + "\n\n")
	n := len(g.Trouble) + g.MoreTrouble
	if n == 0 {
		b.WriteString("No trouble: no error, retry, denial, failed tool call or interrupt.\n")
		return b.String()
	}
	b.WriteString("Trouble (" + strconv.Itoa(n) + ", each linked to its place below):\n\n")
	// Bulleted with "*": the init facts right after are a "-" list, which
	// a list with the same bullet would swallow (CommonMark joins them).
	for _, it := range g.Trouble {
		who := ""
		if it.Agent != "" && it.Agent != stream.MainAgent {
			who = " (" + it.Agent + ")"
		}
		where := "at the end"
		if it.Line > 0 {
			where = "[line " + strconv.FormatInt(it.Line, 10) + "](#" + anchorID(it.Source, it.Line) + ")"
		}
		b.WriteString("* " + where + mdInline(who) + ": " + mdInline(truncate(line(it.Text), 160)) + "\n")
	}
	if g.MoreTrouble > 0 {
		b.WriteString("* and " + strconv.Itoa(g.MoreTrouble) + " more (see the errors preset)\n")
	}
	return b.String()
}
