package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// projectsTree copies every real transcript's project folder into one
// tree, as ~/.claude/projects holds them, and returns it.
func projectsTree(t *testing.T) string {
	t.Helper()
	tree := t.TempDir()
	dirs, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*")
	require.NotEmpty(t, dirs)
	for _, d := range dirs {
		run := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(d)))))
		require.NoError(t, os.CopyFS(filepath.Join(tree, run+filepath.Base(d)), os.DirFS(d)))
	}
	return tree
}

type spendRow map[string]any

func spendRows(t *testing.T, args ...string) []spendRow {
	t.Helper()
	res := runIn(t, append([]string{"usage", "-F", "json", "--tz", "UTC"}, args...), "")
	require.Equal(t, 0, res.Code, res.Stderr)
	var rows []spendRow
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rows), res.Stdout)
	return rows
}

func sumOf(rows []spendRow, key string) float64 {
	s := 0.0
	for _, r := range rows {
		s += r[key].(float64)
	}
	return s
}

// TestUsageByAddsUp proves usage --by over a tree of real sessions: every
// grouping's rows add up to the same tokens and cost; the rows name their
// key; the sessions' rows are one per session, the fork's its own; and the
// --since/--until window and the PATH forms (a tree, a project folder, a
// session file) hold.
func TestUsageByAddsUp(t *testing.T) {
	tree := projectsTree(t)
	base := spendRows(t, "--by", "session", tree)
	require.Greater(t, len(base), 15)
	for _, by := range []string{"day", "week", "month", "project", "model"} {
		rows := spendRows(t, "--by", by, tree)
		key := map[string]string{"day": "date"}[by]
		if key == "" {
			key = by
		}
		assert.Contains(t, rows[0], key, by)
		for _, k := range []string{"cost_usd", "total_tokens", "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "main_cost_usd", "subagent_cost_usd"} {
			assert.InDelta(t, sumOf(base, k), sumOf(rows, k), 1e-6, "%s %s", by, k)
		}
	}
	var fork spendRow
	for _, r := range base {
		if r["session_id"] == "68992e40-6f27-496d-8514-27ef389eef23" {
			fork = r
		}
	}
	require.NotNil(t, fork)
	assert.InDelta(t, 0.1252596-0.0940894, fork["cost_usd"], 1e-9, "the fork's own spend")
	assert.Equal(t, 3.0, fork["calls"], "the fork's own calls")

	none := spendRows(t, "--by", "day", "--since", "2030-01-01", tree)
	assert.Empty(t, none, "nothing after 2030")
	days := spendRows(t, "--by", "day", "--until", "2026-12-02", tree)
	for _, r := range days {
		assert.LessOrEqual(t, r["date"], "2026-12-02")
	}

	project := filepath.Join(tree, "50-multi-turn-home-user-project")
	one := spendRows(t, "--by", "session", project)
	assert.Len(t, one, 2, "a project folder's sessions")
	file := spendRows(t, "--by", "model", filepath.Join(project, "50505050-aaaa-4bbb-8ccc-000000000050.jsonl"))
	assert.InDelta(t, 0.0940894, sumOf(file, "cost_usd"), 1e-9, "one session file")

	bad := runIn(t, []string{"usage", "--by", "year", tree}, "")
	assert.Equal(t, exitUsage, bad.Code)
	assert.Contains(t, bad.Stderr, "unknown grouping")
	notUsage := runIn(t, []string{"tools", "--by", "day", tree}, "")
	assert.Equal(t, exitUsage, notUsage.Code)
	byModel := spendRows(t, "--by", "model", tree)
	treeRows := spendRows(t, tree)
	assert.Equal(t, byModel, treeRows, "usage on a tree of projects, without --by: its spend by model")
	txt := runIn(t, []string{"usage", "--by", "month", "--tz", "UTC", tree}, "")
	assert.True(t, strings.HasPrefix(txt.Stdout, "month"), txt.Stdout)
	assert.Contains(t, txt.Stdout, "total")
}

// TestSessionsSpendIsUsageBySession proves the sessions listing's own
// tokens and cost, read in the listing's one pass, are usage --by
// session's, session for session, over a tree of real sessions.
func TestSessionsSpendIsUsageBySession(t *testing.T) {
	tree := projectsTree(t)
	byID := map[string]spendRow{}
	for _, r := range spendRows(t, "--by", "session", tree) {
		byID[r["session_id"].(string)] = r
	}
	res := runIn(t, []string{"sessions", "-F", "json", tree}, "")
	require.Equal(t, 0, res.Code, res.Stderr)
	var list []map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &list))
	require.GreaterOrEqual(t, len(list), len(byID))
	for _, s := range list {
		u := byID[s["session_id"].(string)]
		if u == nil {
			// No call at all (09: the API refused the key): no row of
			// usage, nothing spent in the listing.
			assert.Equal(t, 0.0, s["total_tokens"], "%v", s["session_id"])
			assert.Equal(t, 0.0, s["cost_usd"], "%v", s["session_id"])
			continue
		}
		assert.Equal(t, u["total_tokens"], s["total_tokens"], s["session_id"])
		assert.Equal(t, u["cost_usd"], s["cost_usd"], s["session_id"])
		assert.Equal(t, u["cache_read_input_tokens"], s["cache_read_input_tokens"], s["session_id"])
	}
}

// TestUsageByPricesAKilledRun proves a session that recorded no cost (its
// cost-state taken out: a killed run; 02-write-read) is priced at the
// shipped list prices (pkg/spend/prices.json), marked estimated, near
// what the CLI had recorded; that one of a model no price knows (its
// model renamed) is unpriced, counted at $0 and said so; and that
// --prices prices it, marked estimated.
func TestUsageByPricesAKilledRun(t *testing.T) {
	dir, otherDir := t.TempDir(), t.TempDir()
	killedAs(t, "02-write-read", "", dir)
	killedAs(t, "02-write-read", "claude-nonesuch", otherDir)
	path, other := filepath.Join(dir, "0db2634f-ae79-455c-9f0e-6a3434377177.jsonl"), filepath.Join(otherDir, "0db2634f-ae79-455c-9f0e-6a3434377177.jsonl")

	rows := spendRows(t, "--by", "session", path)
	require.Len(t, rows, 1)
	assert.Equal(t, true, rows[0]["estimated"])
	assert.Equal(t, false, rows[0]["unpriced"])
	// At claude-opus-5-5's list price ($4 input, $20 output a million, a
	// 1-hour cache write twice the input), what the CLI recorded for this
	// run ($0.0297614).
	assert.InDelta(t, 0.0297614, rows[0]["cost_usd"], 1e-7)

	rows = spendRows(t, "--by", "session", other)
	require.Len(t, rows, 1)
	assert.Equal(t, true, rows[0]["unpriced"])
	assert.Nil(t, rows[0]["cost_usd"], "not known, not $0")
	assert.Equal(t, "claude-nonesuch", rows[0]["unpriced_models"])
	assert.Greater(t, rows[0]["total_tokens"], 0.0, "its tokens count")

	prices := filepath.Join(dir, "prices.json")
	require.NoError(t, os.WriteFile(prices, []byte(`{"claude-nonesuch": 4}`), 0o644))
	rows = spendRows(t, "--by", "session", "--prices", prices, other)
	require.Len(t, rows, 1)
	assert.Equal(t, true, rows[0]["estimated"])
	assert.Equal(t, false, rows[0]["unpriced"])
	// At $4 a million input tokens and Claude's ratios (output 5×, a cache
	// read 0.1×, a write 2×: this capture's writes all go to the 1-hour
	// cache).
	r := rows[0]
	assert.InDelta(t, 4e-6*(r["input_tokens"].(float64)+5*r["output_tokens"].(float64)+
		2*r["cache_creation_input_tokens"].(float64)+0.1*r["cache_read_input_tokens"].(float64)), r["cost_usd"], 1e-9)

	bad := runIn(t, []string{"usage", "--by", "day", "--prices", filepath.Join(dir, "none.json"), path}, "")
	assert.Equal(t, exitInput, bad.Code)
	assert.Contains(t, bad.Stderr, "--prices")
}

// TestTreeReadOnOneCoreSameAsOnMany proves the sessions read on every
// core (onEveryCore: a worker per core, each keeping its read buffer and
// long lines' scratch from file to file) give, byte for byte, what one
// worker reading every file in turn gives, for usage --by and sessions:
// on a tree of every real transcript (testdata's, and
// ../shared/transcripts' with 19-big-tool-result's 3 MB lines where that
// is there).
func TestTreeReadOnOneCoreSameAsOnMany(t *testing.T) {
	tree := projectsTree(t)
	shared, _ := filepath.Glob("../../../shared/transcripts/*/home/.claude/projects/*")
	for _, d := range shared {
		run := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(d)))))
		require.NoError(t, os.CopyFS(filepath.Join(tree, "shared-"+run+filepath.Base(d)), os.DirFS(d)))
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, args := range [][]string{
		{"usage", "--by", "session,day,model,subagent", "-F", "json", "--tz", "UTC", tree},
		{"sessions", "-F", "json", tree},
	} {
		runtime.GOMAXPROCS(1)
		one := runIn(t, args, "")
		runtime.GOMAXPROCS(4)
		many := runIn(t, args, "")
		require.Equal(t, 0, one.Code, one.Stderr)
		assert.NotEmpty(t, one.Stdout)
		assert.Equal(t, one, many, "%v", args)
	}
}

// TestAnAccountOfSessionsLiftsTheSoftMemoryLimit: usage --by and sessions
// keep an account of every session they read, which grows with the tree:
// main's soft memory limit (32 MiB) is lifted for them, or the collector
// runs back to back once the account nears it (on three links to the
// bench's 0.8 GB tree: 53 collections and twice the CPU time, against
// 12). A run of one stream keeps it.
func TestAnAccountOfSessionsLiftsTheSoftMemoryLimit(t *testing.T) {
	was, before := memory, debug.SetMemoryLimit(-1)
	t.Cleanup(func() { memory = was; debug.SetMemoryLimit(before) })
	tree := projectsTree(t)
	for _, args := range [][]string{{"usage", "--by", "day", tree}, {"sessions", tree}, {"final", "../../testdata/events/01-plain-text.jsonl"}} {
		t.Run(args[0], func(t *testing.T) {
			memory = softLimit{on: true}
			debug.SetMemoryLimit(memoryBase)
			res := runIn(t, args, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			limit := debug.SetMemoryLimit(-1)
			if args[0] == "final" {
				// (raised by its longest line, as softLimit.line says)
				assert.Less(t, limit, int64(memoryBase+1<<20))
				return
			}
			assert.Equal(t, int64(math.MaxInt64), limit)
		})
	}
}
