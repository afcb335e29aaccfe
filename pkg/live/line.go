package live

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// quietShown is how long nothing is written before the line says so: a
// producer that died (or waits on something) leaves the line unchanged,
// which would look like a run going on.
const quietShown = time.Minute

// maxShownCalls is how many running tool calls the line names; the rest
// are counted.
const maxShownCalls = 3

// Line is the run's state in one line of at most width columns (0: no
// bound), as of now; times of day in loc. Nothing of the stream reaches it
// unescaped: a tool's name is sanitized for a terminal.
//
//	⏵ 3m12s · 7 model calls · Bash 12s, Read 0s · 2 subagents · 48.2k tokens ~$0.41 · retry 3/10 in 2s (529 overloaded) · five_hour limit 82%, resets 14:05
//
// Times are counted to the clock (the latest record's time until
// something is written while watched: Watching); how long nothing has
// been written, to now.
func (s *State) Line(now time.Time, width int, loc *time.Location) string {
	quiet := now.Sub(s.arrived)
	now = s.clock(now)
	parts := []string{s.elapsed(now)}
	if t := s.turns(); t != "" {
		parts = append(parts, t)
	}
	if c := s.running(now); c != "" {
		parts = append(parts, c)
	}
	if n := s.subagentsRunning(); n > 0 {
		parts = append(parts, render.Plural(int64(n), "subagent"))
	}
	if n := len(s.background); n > 0 && s.lastResult {
		parts = append(parts, render.Plural(int64(n), "background task"))
	}
	if t := s.spent(); t != "" {
		parts = append(parts, t)
	}
	if r := s.retrying(now); r != "" {
		parts = append(parts, r)
	}
	if l := s.limited(loc); l != "" {
		parts = append(parts, l)
	}
	if s.events > 0 && quiet >= quietShown {
		parts = append(parts, "nothing written for "+duration(quiet))
	}
	return fit("⏵ "+strings.Join(parts, " · "), width)
}

func (s *State) elapsed(now time.Time) string {
	if s.events == 0 {
		return "waiting for the run"
	}
	return duration(now.Sub(s.start))
}

// turns: once there is a result, the run's turns as the account counts
// them (the CLI's num_turns, summed over the results, as the closing line
// and every view say them: a run whose background agents end it with
// three results has the turns of the three), else the main agent's model
// calls so far, called what they are: the CLI counts its turns its own way.
func (s *State) turns() string {
	if s.tr.Outcome().Results > 0 {
		if n := s.tr.Tally().Turns; n > 0 {
			return render.Plural(n, "turn")
		}
	}
	if s.mainCalls == 0 {
		return ""
	}
	return render.Plural(int64(s.mainCalls), "model call")
}

// running names the tool calls waiting for their result, the longest
// running first, with how long each has run.
func (s *State) running(now time.Time) string {
	calls := s.tr.OpenCalls()
	if len(calls) == 0 {
		return ""
	}
	type call struct {
		name string
		for_ time.Duration
	}
	list := make([]call, 0, len(calls))
	for _, c := range calls {
		d := time.Duration(0)
		if at, ok := s.starts[c.ID]; ok {
			d = now.Sub(at)
		}
		list = append(list, call{render.Sanitize(c.Name, false), d})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].for_ > list[j].for_ })
	var b []string
	for _, c := range list[:min(len(list), maxShownCalls)] {
		b = append(b, c.name+" "+duration(c.for_))
	}
	if len(list) > maxShownCalls {
		b = append(b, fmt.Sprintf("+%d more", len(list)-maxShownCalls))
	}
	return strings.Join(b, ", ")
}

func (s *State) subagentsRunning() int {
	n := 0
	for _, a := range s.tr.Subagents() {
		if a.Status == "running" {
			n++
		}
	}
	return n
}

// spent is the tokens so far, and the cost: the result's figure, else an
// estimate at list prices (marked ~), none when a model has no price (the
// account's figures: stream.Tracker.Tokens and Cost).
func (s *State) spent() string {
	total := s.tr.Tokens().TotalTokens
	cost, _ := s.tr.Cost()
	if total == 0 && cost == nil {
		return ""
	}
	out := count(total) + " tokens"
	switch {
	case cost == nil:
		return out
	case cost.Source == "estimated":
		return out + fmt.Sprintf(" ~$%.2f", cost.USD)
	}
	return out + fmt.Sprintf(" $%.2f", cost.USD)
}

// retrying says the API retry in progress: which attempt, when it is
// made, and why.
func (s *State) retrying(now time.Time) string {
	r := s.retry
	if r == nil {
		return ""
	}
	out := fmt.Sprintf("retry %d/%d", r.attempt, r.max)
	if left := r.at.Add(r.delay).Sub(now); left > 0 {
		out += " in " + duration(left)
	}
	var why []string
	if r.status != 0 && !strings.HasPrefix(r.err, fmt.Sprint(r.status)) { // a transcript's error starts with it
		why = append(why, fmt.Sprint(r.status))
	}
	if r.err != "" {
		why = append(why, render.Sanitize(r.err, false))
	}
	if len(why) > 0 {
		out += " (" + strings.Join(why, " ") + ")"
	}
	return out
}

// limited says the subscription's rate-limit state: which limit, how much
// of it is used, when it resets; nothing while it is allowed and no use
// is reported.
func (s *State) limited(loc *time.Location) string {
	l := s.limit
	if l == nil || l.status == "allowed" && !l.hasUtil {
		return ""
	}
	kind := render.Sanitize(l.kind, false)
	if kind == "" {
		kind = "rate"
	}
	out := kind + " limit"
	if l.status == "rejected" {
		out += " reached"
	}
	if l.hasUtil {
		u := l.utilization
		if u <= 1 {
			u *= 100 // a fraction
		}
		out += fmt.Sprintf(" %.0f%%", u)
	}
	if !l.resets.IsZero() {
		out += ", resets " + l.resets.In(loc).Format("15:04")
	}
	return out
}

// duration: 0s, 42s, 3m12s, 1h02m. Whole seconds, unlike the views'
// render.Millis (2.1s): a line redrawn four times a second would flicker
// in its tenths.
func duration(d time.Duration) string {
	d = max(d, 0).Truncate(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// count: 950, 48.2k, 1.3M.
func count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// fit cuts s to width columns as the views cut a line; 0: no bound.
func fit(s string, width int) string {
	if width <= 0 {
		return s
	}
	return render.Truncate(s, width)
}

// Outcome is the run's outcome so far (its last result's, when it has
// one).
func (s *State) Outcome() stream.Outcome { return s.tr.Outcome() }
