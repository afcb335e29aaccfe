package spend

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// By is a grouping of calls.
type By string

// The groupings.
const (
	BySession By = "session"
	ByDay     By = "day"
	ByWeek    By = "week"
	ByMonth   By = "month"
	ByProject By = "project"
	ByModel   By = "model"
	ByCLI     By = "cli" // the agent CLI: Claude Code's, Codex's sessions in one table
)

// Groupings lists them, in the order help texts show them.
var Groupings = []By{BySession, ByDay, ByWeek, ByMonth, ByProject, ByModel, ByCLI}

// ParseBy checks a grouping's name.
func ParseBy(s string) (By, error) {
	for _, b := range Groupings {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("unknown grouping %q (want session, day, week, month, project, model or cli)", s)
}

// KeyName is the name of the grouping's key in a row (CSV, JSON).
func (b By) KeyName() string {
	switch b {
	case BySession:
		return "session_id"
	case ByDay:
		return "date"
	}
	return string(b)
}

// Side is one agent side's figures of a row.
type Side struct {
	Usage stream.Usage
	nanos int64
}

// CostUSD is the side's cost.
func (s Side) CostUSD() float64 { return float64(s.nanos) / 1e9 }

func (s *Side) add(c Call) {
	s.Usage = s.Usage.Add(c.Usage)
	s.nanos += nanos(c.CostUSD)
}

// Row is one group's spend.
type Row struct {
	Key   string
	Calls int // model calls (hidden parts not counted)
	// All is the row's figures; Main and Subagents split them.
	All, Main, Subagents Side
	Hidden               stream.Usage // tokens no assistant record holds
	Unread               stream.Usage // the same, in sessions with lines that could not be read (Call.Unread)
	// Estimated: some of the cost is a rate's (a run without cost-state);
	// Unpriced: some calls have no rate at all (their cost is not in).
	Estimated, Unpriced bool
}

// Totals adds calls up by a grouping, over a time window. The cost is
// kept in nano-dollars, so that sums do not depend on the order calls
// arrive in (several files are read at once).
type Totals struct {
	by           By
	loc          *time.Location
	since, until string // dates, YYYY-MM-DD in loc, inclusive; "" for open
	rows         map[string]*Row
}

// NewTotals returns empty totals by b, days in loc, between since and
// until (YYYY-MM-DD, either may be "").
func NewTotals(b By, loc *time.Location, since, until string) *Totals {
	return &Totals{by: b, loc: loc, since: since, until: until, rows: map[string]*Row{}}
}

// Add counts a call, if its day is in the window.
func (t *Totals) Add(c Call) {
	day := ""
	if !c.Time.IsZero() {
		day = c.Time.In(t.loc).Format("2006-01-02")
	}
	if t.since != "" && (day == "" || day < t.since) || t.until != "" && (day == "" || day > t.until) {
		return
	}
	key := t.key(c, day)
	r := t.rows[key]
	if r == nil {
		r = &Row{Key: key}
		t.rows[key] = r
	}
	switch {
	case c.Hidden:
		r.Hidden = r.Hidden.Add(c.Usage)
	case c.Unread:
		r.Unread = r.Unread.Add(c.Usage)
	default:
		r.Calls++
	}
	r.All.add(c)
	if c.Subagent {
		r.Subagents.add(c)
	} else {
		r.Main.add(c)
	}
	r.Estimated = r.Estimated || c.Estimated
	r.Unpriced = r.Unpriced || c.Unpriced
}

func (t *Totals) key(c Call, day string) string {
	switch t.by {
	case BySession:
		return c.Session
	case ByDay:
		return day
	case ByWeek:
		if c.Time.IsZero() {
			return ""
		}
		// The week by its Monday: 2026-11-30.
		d := c.Time.In(t.loc)
		d = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		return d.Format("2006-01-02")
	case ByMonth:
		if len(day) < 7 {
			return ""
		}
		return day[:7]
	case ByProject:
		return c.Project
	case ByCLI:
		return stream.CLIOf(c.CLI, "").Name
	}
	return c.Model
}

// Merge adds o's rows to t's (the same grouping).
func (t *Totals) Merge(o *Totals) {
	for k, r := range o.rows {
		m := t.rows[k]
		if m == nil {
			m = &Row{Key: k}
			t.rows[k] = m
		}
		m.plus(*r)
	}
}

// plus adds o's figures to r's.
func (r *Row) plus(o Row) {
	r.Calls += o.Calls
	r.All = r.All.plus(o.All)
	r.Main = r.Main.plus(o.Main)
	r.Subagents = r.Subagents.plus(o.Subagents)
	r.Hidden = r.Hidden.Add(o.Hidden)
	r.Unread = r.Unread.Add(o.Unread)
	r.Estimated = r.Estimated || o.Estimated
	r.Unpriced = r.Unpriced || o.Unpriced
}

func (s Side) plus(o Side) Side { return Side{Usage: s.Usage.Add(o.Usage), nanos: s.nanos + o.nanos} }

// Rows returns the rows, by key (a session, the order of keys; a date,
// oldest first), and their total.
func (t *Totals) Rows() (rows []Row, total Row) {
	for _, r := range t.rows {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Key < rows[j].Key })
	return rows, Sum(rows)
}

// Sum is the total of rows (a part of a grouping's: the rows --where
// kept).
func Sum(rows []Row) Row {
	total := Row{Key: "total"}
	for _, r := range rows {
		total.plus(r)
	}
	return total
}

func nanos(usd float64) int64 { return int64(math.Round(usd * 1e9)) }
