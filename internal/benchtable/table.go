package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Measurements are one run of scripts/bench-table.sh: each series' median
// (seconds, or KiB for a peak RSS) by key, and the run's facts (corpus,
// page cache state, runs) by name.
type Measurements struct {
	Values map[string]float64
	Facts  map[string]string
}

// Direction says which way a figure gets worse.
type Direction int

const (
	// LowerIsBetter: a ratio against wc -l, a cost (--redact against
	// --no-redact), a peak RSS. Worse when larger.
	LowerIsBetter Direction = iota
	// HigherIsBetter: how many times faster than jq, jaq or ccusage.
	// Worse when smaller.
	HigherIsBetter
)

// tolerance is how much worse than its baseline a figure may be before it
// is a regression: 10%, measured in ccfilter's time (or memory) relative
// to the other side, so both directions mean the same thing: a figure where
// lower is better regresses above baseline×1.10, one where higher is
// better below baseline/1.10.
const tolerance = 1.10

// Goal is what the issue asks of a figure: Op is "<=", "<" or ">=".
type Goal struct {
	Op    string
	Value float64
}

// Met says whether v meets the goal.
func (g Goal) Met(v float64) bool {
	switch g.Op {
	case "<=":
		return v <= g.Value
	case "<":
		return v < g.Value
	default:
		return v >= g.Value
	}
}

// Figure is one number of the table, compared with its goal and its
// baseline.
type Figure struct {
	Key   string // the baseline's key, e.g. "final/wc"
	Label string // what it is against, after the number: "× wc -l"
	Dir   Direction
	// Value computes it from the measurements; false when a series is
	// missing (the tool is not installed, a run failed).
	Value func(Measurements) (float64, bool)
	// Goal is the issue's, if it sets one for this figure.
	Goal *Goal
}

// Row is one task of issue 41's table.
type Row struct {
	Task string
	// Time is the series whose median the "now" column shows, if any.
	Time    string
	Figures []Figure
	// Detail, if set, says more in the "now" column (which preset and
	// format took the most memory).
	Detail func(Measurements) string
}

// ratio is a/b of two series.
func ratio(a, b string) func(Measurements) (float64, bool) {
	return func(m Measurements) (float64, bool) {
		x, ok1 := m.Values[a]
		y, ok2 := m.Values[b]
		if !ok1 || !ok2 || y <= 0 {
			return 0, false
		}
		return x / y, true
	}
}

// ratioOr is ratio(a, b), or ratio(a, c) when there is no series b (a
// run before wc -l was timed in turn with each task).
func ratioOr(a, b, c string) func(Measurements) (float64, bool) {
	return func(m Measurements) (float64, bool) {
		if _, ok := m.Values[b]; ok {
			return ratio(a, b)(m)
		}
		return ratio(a, c)(m)
	}
}

const kib = 1024.0
const mib = 1024 * 1024.0

// maxUnder is the largest series under prefix, in MiB (a peak RSS, kept in
// KiB).
func maxUnder(prefix string) func(Measurements) (float64, bool) {
	return func(m Measurements) (float64, bool) {
		_, v, ok := largest(m, prefix)
		return v / kib, ok
	}
}

// largest is the key under prefix with the largest value.
func largest(m Measurements, prefix string) (string, float64, bool) {
	best, bv, ok := "", 0.0, false
	for _, k := range sortedKeys(m.Values) {
		if strings.HasPrefix(k, prefix) && (!ok || m.Values[k] > bv) {
			best, bv, ok = k, m.Values[k], true
		}
	}
	return best, bv, ok
}

// perLine is the long line's cost: (the largest peak under prefix − 32
// MiB) over the line's size (the "line_bytes" series), which the issue
// caps at 3 (the line, its decoded value, a redacted copy).
func perLine(prefix string) func(Measurements) (float64, bool) {
	return func(m Measurements) (float64, bool) {
		_, peak, ok := largest(m, prefix)
		line, ok2 := m.Values["line_bytes"]
		if !ok || !ok2 || line <= 0 {
			return 0, false
		}
		return (peak*kib - 32*mib) / line, true
	}
}

// peakOf names the largest and the smallest peak under prefix.
func peakOf(prefix string) func(Measurements) string {
	return func(m Measurements) string {
		hi, hv, ok := largest(m, prefix)
		if !ok {
			return ""
		}
		lo, lv := hi, hv
		for k, v := range m.Values {
			if strings.HasPrefix(k, prefix) && v < lv {
				lo, lv = k, v
			}
		}
		return fmt.Sprintf("%.0f–%.0f MiB (%s … %s)", lv/kib, hv/kib, strings.TrimPrefix(lo, prefix), strings.TrimPrefix(hi, prefix))
	}
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func le(v float64) *Goal { return &Goal{"<=", v} }
func ge(v float64) *Goal { return &Goal{">=", v} }

// againstWc is a task's figures against wc -l, jq and jaq, measured in the
// same run: wc -l's time over the same file is the floor.
func againstWc(task string, wcGoal float64, jaqGoal *Goal) []Figure {
	return []Figure{
		{Key: task + "/wc", Label: "× wc -l", Dir: LowerIsBetter, Value: ratioOr(task, "wc@"+task, "wc"), Goal: le(wcGoal)},
		{Key: task + "/jq", Label: "× faster than jq", Dir: HigherIsBetter, Value: ratio(task+"/jq", task)},
		{Key: task + "/jaq", Label: "× faster than jaq", Dir: HigherIsBetter, Value: ratio(task+"/jaq", task), Goal: jaqGoal},
	}
}

// againstCcusage is a tree task's figures: against ccusage, whose goal
// is the issue's, and against the floor (bench/floor: reading the tree,
// picking the lines an account reads and checking their framing, and
// nothing else), timed in turn with both: what is left of ccfilter's
// time to cut, and a regression check that ccusage's own speed does not
// move.
func againstCcusage(task string, goal float64) []Figure {
	return []Figure{
		{Key: task + "/ccusage", Label: "× faster than ccusage", Dir: HigherIsBetter, Value: ratio(task+"/ccusage", task), Goal: ge(goal)},
		{Key: task + "/floor", Label: "× the floor", Dir: LowerIsBetter, Value: ratio(task, task+"/floor")},
	}
}

// floorBudget says, beside a tree task's time, what its goal against
// ccusage leaves it, in times the floor measured in the same run: the
// time the goal allows over the least any reader of the tree takes.
func floorBudget(task string, goal float64) func(Measurements) string {
	return func(m Measurements) string {
		now := ""
		if t, ok := m.Values[task]; ok {
			now = fmt.Sprintf("%.3f s", t)
		}
		cu, ok1 := m.Values[task+"/ccusage"]
		fl, ok2 := m.Values[task+"/floor"]
		if !ok1 || !ok2 || fl <= 0 {
			return now
		}
		return fmt.Sprintf("%s (floor %.3f s; the goal allows %.3f s, %.2f× the floor)", now, fl, cu/goal, cu/goal/fl)
	}
}

// Rows is issue 41's table, row for row: the series each figure divides
// (named as scripts/bench-table.sh writes them) and the goal.
func Rows() []Row {
	return []Row{
		{Task: "`final`", Time: "final", Figures: againstWc("final", 2.5, ge(10))},
		{Task: "`types`", Time: "types", Figures: againstWc("types", 2.5, nil)},
		{Task: "`text`", Time: "text", Figures: againstWc("text", 5, nil)},
		{Task: "`tools --format csv`", Time: "tools", Figures: againstWc("tools", 6, nil)},
		{Task: "`usage --format json`", Time: "usage", Figures: againstWc("usage", 5, nil)},
		{Task: "`all --format ndjson --redact` vs `--no-redact`", Time: "redact-ndjson/redacted", Figures: []Figure{
			{Key: "redact-ndjson", Label: "×", Dir: LowerIsBetter, Value: ratio("redact-ndjson/redacted", "redact-ndjson/plain"), Goal: le(1.15)},
		}},
		{Task: "`all --format markdown` (redacted by default) vs `--no-redact`", Time: "redact-markdown/redacted", Figures: []Figure{
			{Key: "redact-markdown", Label: "×", Dir: LowerIsBetter, Value: ratio("redact-markdown/redacted", "redact-markdown/plain"), Goal: le(1.1)},
		}},
		{Task: "`all --format otlp --no-redact` vs `--format ndjson`", Time: "otlp", Figures: []Figure{
			{Key: "otlp/ndjson", Label: "×", Dir: LowerIsBetter, Value: ratio("otlp", "ndjson"), Goal: le(2)},
		}},
		{Task: "`all --format html` vs `--format markdown`", Time: "html", Figures: []Figure{
			{Key: "html/markdown", Label: "×", Dir: LowerIsBetter, Value: ratio("html", "markdown"), Goal: le(1)},
		}},
		{Task: "`usage --by day` vs `ccusage daily` (transcripts)", Time: "spend-day", Detail: floorBudget("spend-day", 4), Figures: againstCcusage("spend-day", 4)},
		{Task: "`sessions` vs `ccusage session` (transcripts)", Time: "spend-session", Detail: floorBudget("spend-session", 5), Figures: againstCcusage("spend-session", 5)},
		agentRow("codex", "Codex CLI"),
		agentRow("gemini", "Gemini CLI"),
		{Task: "peak RSS, every preset × format, real corpus with 19-big-tool-result", Detail: peakOf("rss/"), Figures: []Figure{
			{Key: "rss-corpus", Label: " MiB (largest)", Dir: LowerIsBetter, Value: maxUnder("rss/"), Goal: &Goal{"<", 48}},
		}},
		{Task: "peak RSS on one long line (02-write-read's Write)", Detail: peakOf("rssline/"), Figures: []Figure{
			{Key: "rss-line", Label: "× the line + 32 MiB (largest)", Dir: LowerIsBetter, Value: perLine("rssline/"), Goal: le(3)},
		}},
	}
}

// agentTasks are the presets issue 43 times on each other CLI's stream.
var agentTasks = []string{"final", "text", "tools", "usage", "types"}

// agentRow is issue 43's goal for one other CLI: each preset on a corpus
// of its streams (series "CLI/TASK", its size "CLI_bytes") within 1.5×
// of the same preset on Claude Code's (TASK, "real_bytes"), per byte.
func agentRow(cli, name string) Row {
	r := Row{Task: name + "'s stream, per byte, against Claude Code's: `" + strings.Join(agentTasks, "`; `") + "` (issue 43)", Time: cli + "/final"}
	for _, task := range agentTasks {
		r.Figures = append(r.Figures, Figure{Key: cli + "/" + task, Label: "× (" + task + ")", Dir: LowerIsBetter,
			Value: perByte(cli+"/"+task, cli+"_bytes", task, "real_bytes"), Goal: le(1.5)})
	}
	return r
}

// perByte is series a over series b, each divided by the bytes of its
// input (the series aBytes and bBytes): a/b times bBytes/aBytes.
func perByte(a, aBytes, b, bBytes string) func(Measurements) (float64, bool) {
	times, sizes := ratio(a, b), ratio(bBytes, aBytes)
	return func(m Measurements) (float64, bool) {
		t, ok1 := times(m)
		s, ok2 := sizes(m)
		return t * s, ok1 && ok2 && s > 0
	}
}

// Verdict is a figure's comparison with its baseline.
type Verdict int

const (
	NoBaseline Verdict = iota
	Within
	Regression
	Improved // better by more than the tolerance: time to update the baseline?
)

// Compare says how v stands against its baseline b in direction d.
func Compare(v, b float64, d Direction) Verdict {
	if b <= 0 || math.IsNaN(b) {
		return NoBaseline
	}
	worse := v / b // how many times ccfilter's share grew
	if d == HigherIsBetter {
		if v <= 0 {
			return Regression
		}
		worse = b / v
	}
	switch {
	case worse > tolerance:
		return Regression
	case worse < 1/tolerance:
		return Improved
	default:
		return Within
	}
}

// format writes a figure's number: two decimals under 10, one above.
func format(v float64) string {
	if v < 10 {
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
