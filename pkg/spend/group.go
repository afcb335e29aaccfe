package spend

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Key is one key calls are grouped by: its name (as --by says it), the
// name of its field in a row (CSV, JSON), its title in a table, and its
// value for a call. A new key is one entry of Keys.
type Key struct {
	Name, Field, Title string
	// value is the call's key; day is its date in the totals' zone
	// ("" when the call has no time).
	value func(c Call, day string, loc *time.Location) string
}

// The keys.
var (
	BySession  = Key{"session", "session_id", "Session", func(c Call, _ string, _ *time.Location) string { return c.Session }}
	ByDay      = Key{"day", "date", "Date", func(_ Call, day string, _ *time.Location) string { return day }}
	ByWeek     = Key{"week", "week", "Week of", weekOf}
	ByMonth    = Key{"month", "month", "Month", func(_ Call, day string, _ *time.Location) string { return day[:min(len(day), 7)] }}
	ByProject  = Key{"project", "project", "Project", func(c Call, _ string, _ *time.Location) string { return c.Project }}
	ByModel    = Key{"model", "model", "Model", func(c Call, _ string, _ *time.Location) string { return c.Model }}
	BySubagent = Key{"subagent", "subagent", "Subagent", func(c Call, _ string, _ *time.Location) string { return c.Agent() }}
	ByMachine  = Key{"machine", "machine", "Machine", func(c Call, _ string, _ *time.Location) string { return c.Machine }}
	// ByCLI is the agent CLI that made the call: Claude Code's, Codex's
	// and Gemini's sessions in one table.
	ByCLI = Key{"cli", "cli", "CLI", func(c Call, _ string, _ *time.Location) string { return stream.CLIOf(c.CLI, "").Name }}
)

// Keys lists them, in the order help texts show them.
var Keys = []Key{BySession, ByDay, ByWeek, ByMonth, ByProject, ByModel, BySubagent, ByMachine, ByCLI}

// weekOf is a call's week by its Monday: 2026-11-30.
func weekOf(c Call, _ string, loc *time.Location) string {
	if c.Time.IsZero() {
		return ""
	}
	d := c.Time.In(loc)
	d = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	return d.Format("2006-01-02")
}

// By is a grouping: one key or several (usage --by day,model), a row
// per combination of their values.
type By []Key

// KeyNames are the keys' names, for messages and completions.
func KeyNames() []string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	return names
}

// ParseBy reads a grouping: keys' names separated by commas, each once.
func ParseBy(s string) (By, error) {
	var by By
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		i := slices.IndexFunc(Keys, func(k Key) bool { return k.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("unknown grouping %q (want %s, or several: day,model)", name, strings.Join(KeyNames(), ", "))
		}
		if by.Has(Keys[i]) {
			return nil, fmt.Errorf("grouping %q: %s twice", s, name)
		}
		by = append(by, Keys[i])
	}
	return by, nil
}

// Has reports whether the grouping has the key k.
func (b By) Has(k Key) bool {
	return slices.ContainsFunc(b, func(o Key) bool { return o.Name == k.Name })
}

// String is the grouping as --by says it: "day,model".
func (b By) String() string {
	names := make([]string, len(b))
	for i, k := range b {
		names[i] = k.Name
	}
	return strings.Join(names, ",")
}

// Fields are the names of the grouping's keys in a row (CSV, JSON).
func (b By) Fields() []string {
	out := make([]string, len(b))
	for i, k := range b {
		out[i] = k.Field
	}
	return out
}

// Side is one agent side's figures of a row.
type Side struct {
	Usage stream.Usage
	nanos int64
	// UnpricedTokens are the tokens of its calls no price is known for
	// (Call.Unpriced): their cost is not in CostUSD.
	UnpricedTokens int64
	// priced and unpriced count its calls with a cost and without.
	priced, unpriced int
}

// CostUSD is the side's cost: of its priced calls (CostKnown).
func (s Side) CostUSD() float64 { return float64(s.nanos) / 1e9 }

// CostKnown reports whether CostUSD says what the side cost: false when
// it has calls and none of them has a price, so that its cost is not $0
// but unknown. (When some have one, CostUSD is theirs, and
// UnpricedTokens says what it leaves out.)
func (s Side) CostKnown() bool { return s.unpriced == 0 || s.priced > 0 }

func (s *Side) add(c Call) {
	s.Usage = s.Usage.Add(c.Usage)
	s.nanos += nanos(c.CostUSD)
	if c.Unpriced {
		s.unpriced++
		s.UnpricedTokens += c.Usage.Total()
	} else {
		s.priced++
	}
}

// Row is one group's spend.
type Row struct {
	Keys  []string // the values of the grouping's keys, in its order
	Calls int      // model calls (hidden parts not counted)
	// All is the row's figures; Main and Subagents split them.
	All, Main, Subagents Side
	Hidden               stream.Usage // tokens no assistant record holds
	Unread               stream.Usage // the same, in sessions with lines that could not be read (Call.Unread)
	// Start is the earliest of its calls' sessions' starts
	// (Call.SessionStart).
	Start time.Time
	// Estimated: some of the cost is a rate's (a run without cost-state);
	// Unpriced: some calls have no rate at all (their cost is not in),
	// of the models UnpricedModels names (sorted; "" a run that names
	// none).
	Estimated, Unpriced bool
	UnpricedModels      []string
}

// Totals adds calls up by a grouping, over a time window. The cost is
// kept in nano-dollars, so that sums do not depend on the order calls
// arrive in (several files are read at once).
type Totals struct {
	by           By
	loc          *time.Location
	since, until string // dates, YYYY-MM-DD in loc, inclusive; "" for open
	rows         map[string]*Row
	id           []byte // Add's buffer
	// the last day named (dayOf): calls come in their sessions' order
	lastY, lastD int
	lastM        time.Month
	lastDay      string
}

// dayOf is the call time's date in the totals' zone, YYYY-MM-DD ("" for
// no time): time.Format's, made without its layout walk, and the last one
// said again while the date is the same.
func (t *Totals) dayOf(tm time.Time) string {
	if tm.IsZero() {
		return ""
	}
	y, m, d := tm.In(t.loc).Date()
	if y == t.lastY && m == t.lastM && d == t.lastD && t.lastDay != "" {
		return t.lastDay
	}
	if y < 0 || y > 9999 {
		t.lastDay = tm.In(t.loc).Format("2006-01-02") // (as Format writes such a year)
	} else {
		b := [10]byte{byte('0' + y/1000), byte('0' + y/100%10), byte('0' + y/10%10), byte('0' + y%10), '-',
			byte('0' + int(m)/10), byte('0' + int(m)%10), '-', byte('0' + d/10), byte('0' + d%10)}
		t.lastDay = string(b[:])
	}
	t.lastY, t.lastM, t.lastD = y, m, d
	return t.lastDay
}

// NewTotals returns empty totals by b, days in loc, between since and
// until (YYYY-MM-DD, either may be "").
func NewTotals(b By, loc *time.Location, since, until string) *Totals {
	return &Totals{by: b, loc: loc, since: since, until: until, rows: map[string]*Row{}}
}

// Add counts a call, if its day is in the window.
func (t *Totals) Add(c Call) {
	day := t.dayOf(c.Time)
	if t.since != "" && (day == "" || day < t.since) || t.until != "" && (day == "" || day > t.until) {
		return
	}
	// The row's id is its keys joined; made in a buffer kept from call
	// to call, and the keys kept only for a new row: an account adds
	// every call of a tree to two Totals, after its files are read, on
	// one goroutine (issue 41).
	id := t.id[:0]
	for i, k := range t.by {
		if i > 0 {
			id = append(id, 0)
		}
		id = append(id, k.value(c, day, t.loc)...)
	}
	t.id = id
	r := t.rows[string(id)]
	if r == nil {
		keys := make([]string, len(t.by))
		for i, k := range t.by {
			keys[i] = k.value(c, day, t.loc)
		}
		r = &Row{Keys: keys}
		t.rows[string(id)] = r
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
	r.Start = earliest(r.Start, c.SessionStart)
	if c.Subagent {
		r.Subagents.add(c)
	} else {
		r.Main.add(c)
	}
	// (an unpriced call is in no figure: nothing of it is estimated)
	r.Estimated = r.Estimated || c.Estimated && !c.Unpriced
	if c.Unpriced {
		r.Unpriced = true
		r.UnpricedModels = withName(r.UnpricedModels, c.Model)
	}
}

// withName is the sorted names with name in them, once.
func withName(names []string, name string) []string {
	if i, found := slices.BinarySearch(names, name); !found {
		return slices.Insert(names, i, name)
	}
	return names
}

// Merge adds o's rows to t's (the same grouping).
func (t *Totals) Merge(o *Totals) {
	for k, r := range o.rows {
		m := t.rows[k]
		if m == nil {
			m = &Row{Keys: r.Keys}
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
	r.Start = earliest(r.Start, o.Start)
	r.Estimated = r.Estimated || o.Estimated
	r.Unpriced = r.Unpriced || o.Unpriced
	for _, m := range o.UnpricedModels {
		r.UnpricedModels = withName(r.UnpricedModels, m)
	}
}

func (s Side) plus(o Side) Side {
	return Side{Usage: s.Usage.Add(o.Usage), nanos: s.nanos + o.nanos, UnpricedTokens: s.UnpricedTokens + o.UnpricedTokens,
		priced: s.priced + o.priced, unpriced: s.unpriced + o.unpriced}
}

// Rows returns the rows, by their keys (the first key's order, then the
// next's: a date, oldest first), and their total.
func (t *Totals) Rows() (rows []Row, total Row) {
	for _, r := range t.rows {
		rows = append(rows, *r)
	}
	sort.Slice(rows, func(i, j int) bool { return slices.Compare(rows[i].Keys, rows[j].Keys) < 0 })
	return rows, Sum(rows)
}

// Sum is the total of rows (a part of a grouping's: the rows --where
// kept).
func Sum(rows []Row) Row {
	total := Row{Keys: []string{"total"}}
	for _, r := range rows {
		total.plus(r)
	}
	return total
}

// earliest is the earlier of two times, a zero one unknown.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

func nanos(usd float64) int64 { return int64(math.Round(usd * 1e9)) }
