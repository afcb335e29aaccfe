package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestedExplore is 43-nested-subagent's session folder with its nested
// subagent (agent a7c3e5f9b1d2e4068, started by subagent aaf4be6061cae469c)
// made an Explore agent: its Agent call's subagent_type in its caller's
// file and its .meta.json's agentType, the two places the CLI writes it,
// changed from general-purpose. The real transcripts' subagents are all
// general-purpose; this one proves a nested subagent counts under its own
// type, not its caller's.
func nestedExplore(t *testing.T) string {
	t.Helper()
	src := "../../testdata/transcripts/43-nested-subagent/home/.claude/projects/-home-user-project"
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(src)))
	subs := filepath.Join(dir, "43434343-aaaa-4bbb-8ccc-000000000043", "subagents")
	edit := func(name, from, to string) {
		p := filepath.Join(subs, name)
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		require.Contains(t, string(b), from, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(b), from, to)), 0o644))
	}
	edit("agent-aaf4be6061cae469c.jsonl", `"subagent_type":"general-purpose","run_in_background":false`, `"subagent_type":"Explore","run_in_background":false`)
	edit("agent-a7c3e5f9b1d2e4068.meta.json", `"agentType":"general-purpose"`, `"agentType":"Explore"`)
	return filepath.Join(dir, "43434343-aaaa-4bbb-8ccc-000000000043.jsonl")
}

// TestUsageBySubagentIsTheRunsAccount proves usage --by subagent of one
// session gives each agent type the calls and tokens the run's account
// gives its agents of that type (ccfilter account), and the tokens the
// subagents preset shows for them, on the real transcripts with subagents: 60-long-session (three
// general-purpose agents), 43-nested-subagent (one nested in another),
// 37-workflow (a Workflow's two agents) and 05-subagents-async; and on
// 43 with its nested agent an Explore one (nestedExplore), which counts
// under its own type. The rows' costs add up to usage --by session's
// main and subagent split.
func TestUsageBySubagentIsTheRunsAccount(t *testing.T) {
	session := func(run string) string {
		files, _ := filepath.Glob("../../testdata/transcripts/" + run + "/home/.claude/projects/*/*.jsonl")
		require.Len(t, files, 1, run)
		return files[0]
	}
	for _, tc := range []struct {
		name, path string
		types      []string // the rows' keys, in their order
	}{
		{"60-long-session", session("60-long-session"), []string{"general-purpose", "main"}},
		{"43-nested-subagent", session("43-nested-subagent"), []string{"general-purpose", "main"}},
		{"43 with an Explore agent nested", nestedExplore(t), []string{"Explore", "general-purpose", "main"}},
		{"37-workflow", session("37-workflow"), []string{"main", "workflow"}},
		{"05-subagents-async", session("05-subagents-async"), []string{"general-purpose", "main"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runIn(t, []string{"account", "-F", "json", tc.path}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			var acc []struct {
				Agents []struct {
					ID     string         `json:"id"`
					Type   string         `json:"type"`
					Tokens map[string]any `json:"tokens"`
				} `json:"agents"`
			}
			require.NoError(t, json.Unmarshal([]byte(res.Stdout), &acc))
			require.Len(t, acc, 1)
			fields := []string{"calls", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "total_tokens"}
			want := map[string]map[string]float64{}
			for _, a := range acc[0].Agents {
				typ := a.Type
				if a.ID == "main" {
					typ = "main"
				}
				if want[typ] == nil {
					want[typ] = map[string]float64{}
				}
				require.NotNil(t, a.Tokens, "agent %s", a.ID)
				for _, f := range fields {
					want[typ][f] += a.Tokens[f].(float64)
				}
			}

			rows := spendRows(t, "--by", "subagent", tc.path)
			var types []string
			got := map[string]map[string]float64{}
			var subCost float64
			for _, r := range rows {
				typ := r["subagent"].(string)
				types = append(types, typ)
				got[typ] = map[string]float64{}
				for _, f := range fields {
					got[typ][f] = r[f].(float64)
				}
				if typ != "main" {
					subCost += r["cost_usd"].(float64)
				}
			}
			assert.Equal(t, tc.types, types)
			assert.Equal(t, want, got, "usage --by subagent against the account's agents, by type")

			// The subagents preset's rows (its table's figures), by type.
			res = runIn(t, []string{"subagents", "-F", "json", tc.path}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			var subs []map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Stdout), &subs))
			shown := map[string]float64{}
			for _, s := range subs {
				shown[s["type"].(string)] += s["total_tokens"].(float64)
			}
			for typ, w := range got {
				if typ != "main" {
					assert.Equal(t, w["total_tokens"], shown[typ], "subagents' %s tokens", typ)
				}
			}
			assert.Len(t, shown, len(got)-1, "the same types as subagents shows")

			split := spendRows(t, "--by", "session", tc.path)
			require.Len(t, split, 1)
			assert.InDelta(t, split[0]["subagent_cost_usd"], subCost, 1e-9, "the subagent rows' cost: the session's subagent cost")
			assert.InDelta(t, split[0]["cost_usd"], sumOf(rows, "cost_usd"), 1e-9, "all the rows' cost: the session's")
		})
	}
}

// TestUsageBySeveralKeys proves --by takes several keys: a row per
// combination, a column per key in every format, the rows adding up to
// the one-key grouping's, over the tree of every real transcript; and
// that an unknown or repeated key is refused.
func TestUsageBySeveralKeys(t *testing.T) {
	tree := projectsTree(t)
	base := spendRows(t, "--by", "session", tree)
	for _, tc := range []struct {
		by     string
		fields []string
	}{
		{"day,model", []string{"date", "model"}},
		{"project,subagent", []string{"project", "subagent"}},
		{"month,session,subagent", []string{"month", "session_id", "subagent"}},
	} {
		t.Run(tc.by, func(t *testing.T) {
			rows := spendRows(t, "--by", tc.by, tree)
			require.NotEmpty(t, rows)
			seen := map[string]bool{}
			for _, r := range rows {
				var key []string
				for _, f := range tc.fields {
					require.Contains(t, r, f)
					key = append(key, r[f].(string))
				}
				k := strings.Join(key, "|")
				assert.False(t, seen[k], "one row per combination: %s", k)
				seen[k] = true
			}
			for _, k := range []string{"calls", "total_tokens", "cost_usd", "subagent_cost_usd"} {
				assert.InDelta(t, sumOf(base, k), sumOf(rows, k), 1e-6, k)
			}
			csv := runIn(t, []string{"usage", "--by", tc.by, "-F", "csv", tree}, "")
			require.Equal(t, 0, csv.Code, csv.Stderr)
			assert.True(t, strings.HasPrefix(csv.Stdout, strings.Join(tc.fields, ",")+",calls,"), csv.Stdout)
		})
	}
	for _, bad := range []string{"day,year", "day,day"} {
		res := runIn(t, []string{"usage", "--by", bad, tree}, "")
		assert.Equal(t, exitUsage, res.Code, bad)
		assert.Contains(t, res.Stderr, "grouping", bad)
	}
}

// TestUsageByMachineCountsACopiedTreeOnce proves named trees on the tree
// of every real transcript (projectsTree) copied twice, as a synced
// folder is: `laptop=A ci=B` credits every call to laptop, the first
// tree named, once; with the names the other way round ci has them; with
// a session only one tree holds (B without 50-multi-turn's folder, named
// first) each tree has its own; and a bare PATH is named by the host.
// Every way, the total is the one tree's.
func TestUsageByMachineCountsACopiedTreeOnce(t *testing.T) {
	a := projectsTree(t)
	b := filepath.Join(t.TempDir(), "projects")
	require.NoError(t, os.CopyFS(b, os.DirFS(a)))
	one := spendRows(t, "--by", "session", a)
	byMachine := func(args ...string) map[string]spendRow {
		out := map[string]spendRow{}
		for _, r := range spendRows(t, append([]string{"--by", "machine"}, args...)...) {
			out[r["machine"].(string)] = r
		}
		return out
	}
	for _, args := range [][]string{{"laptop=" + a, "ci=" + b}, {"ci=" + b, "laptop=" + a}} {
		first := strings.SplitN(args[0], "=", 2)[0]
		rows := byMachine(args...)
		require.Len(t, rows, 1, "%v: every call is in both trees, counted in the first", args)
		for _, k := range []string{"calls", "total_tokens", "cost_usd", "hidden_tokens"} {
			assert.InDelta(t, sumOf(one, k), rows[first][k], 1e-6, "%v %s", args, k)
		}
	}

	// B without 50-multi-turn's project: its two sessions (10 calls and
	// the fork's 3) are A's alone.
	require.NoError(t, os.RemoveAll(filepath.Join(b, "50-multi-turn-home-user-project")))
	rows := byMachine("ci="+b, "laptop="+a)
	require.Len(t, rows, 2)
	assert.Equal(t, 13.0, rows["laptop"]["calls"], "50-multi-turn's calls, in laptop alone")
	assert.InDelta(t, 0.1252596, rows["laptop"]["cost_usd"], 1e-9)
	assert.InDelta(t, sumOf(one, "calls")-13, rows["ci"]["calls"], 0, "the rest: ci's, named first")
	assert.InDelta(t, sumOf(one, "cost_usd"), rows["ci"]["cost_usd"].(float64)+rows["laptop"]["cost_usd"].(float64), 1e-6)

	host, err := os.Hostname()
	require.NoError(t, err)
	bare := byMachine(a, "ci="+b)
	require.Len(t, bare, 1)
	assert.Contains(t, bare, host, "a bare PATH: this host's")

	txt := runIn(t, []string{"usage", "--by", "machine,month", "--tz", "UTC", "ci=" + b, "laptop=" + a}, "")
	require.Equal(t, 0, txt.Code, txt.Stderr)
	assert.True(t, strings.HasPrefix(txt.Stdout, "machine  month"), txt.Stdout)
}

// TestSessionsReadsNamedTreesAsUsageByDoes proves sessions takes the
// trees as usage --by does, NAME=PATH (docs/usage.md): on a tree of every
// real transcript and a copy of it, named laptop and ci in either order,
// it lists each tree's sessions, and a session's own tokens and cost are
// in the first tree named (the copy's rows spend nothing), adding up to
// usage --by session's. Before, it said "no session transcript under
// laptop=… (it does not exist)" and exited 5.
func TestSessionsReadsNamedTreesAsUsageByDoes(t *testing.T) {
	a := projectsTree(t)
	b := filepath.Join(t.TempDir(), "projects")
	require.NoError(t, os.CopyFS(b, os.DirFS(a)))
	one := spendRows(t, "--by", "session", a)
	for _, c := range []struct{ first, second string }{{"laptop=" + a, "ci=" + b}, {"ci=" + b, "laptop=" + a}} {
		list := jsonRows(t, runIn(t, []string{"sessions", "-F", "json", c.first, c.second}, ""))
		require.Len(t, list, 2*len(jsonRows(t, runIn(t, []string{"sessions", "-F", "json", a}, ""))), "both trees' sessions")
		firstDir := strings.SplitN(c.first, "=", 2)[1]
		var tokens, cost float64
		for _, s := range list {
			tokens += s["total_tokens"].(float64)
			cost += s["cost_usd"].(float64)
			if !strings.HasPrefix(s["path"].(string), firstDir+string(filepath.Separator)) {
				assert.Equal(t, 0.0, s["total_tokens"], "%s: a copy's calls are the first tree's", s["path"])
			}
		}
		assert.Equal(t, sumOf(one, "total_tokens"), tokens, c.first)
		assert.InDelta(t, sumOf(one, "cost_usd"), cost, 1e-6, c.first)
	}
}
