package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of this file hold a session's subagents to one truth: the
// type, the count, the calls and the tokens of each are the same in every
// view (subagents, usage, usage --by, sessions, tools, final), whichever
// way its records are stored.

// rowsOf runs a preset with -F json and decodes its rows.
func rowsOf(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	return jsonRows(t, runIn(t, append(args, "-F", "json"), ""))
}

// pickKeys are rows with only their keys keys.
func pickKeys(rows []map[string]any, keys ...string) []map[string]any {
	var out []map[string]any
	for _, r := range rows {
		o := map[string]any{}
		for _, k := range keys {
			o[k] = r[k]
		}
		out = append(out, o)
	}
	return out
}

// rowWhere is the row whose key is value (nil: none).
func rowWhere(rows []map[string]any, key string, value any) map[string]any {
	for _, r := range rows {
		if r[key] == value {
			return r
		}
	}
	return nil
}

// TestGeminiSubagentIsTheSameInEveryView proves a Gemini CLI subagent
// (the real capture 16-subagent: testdata/agents/gemini/16-subagent.chats
// is /work/shared/agents/gemini/16-subagent.home/.gemini/tmp/project/chats,
// an invoke_agent call of the "generalist" agent, its records in
// chats/<session>/<agentId>.jsonl) has one type, one count and one
// account of tokens: usage --by subagent types it as subagents does (it
// said general-purpose, the default of a Claude Code Agent call that names
// none), and sessions counts it as a subagent, its tokens not the main
// agent's (it said 0 subagents and 47,415 main tokens).
func TestGeminiSubagentIsTheSameInEveryView(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/agents/gemini/16-subagent.chats/session-*.jsonl")
	require.Len(t, files, 1)
	chat := files[0]

	agents := rowsOf(t, "subagents", chat)
	require.Len(t, agents, 1)
	typ, tokens := agents[0]["type"], agents[0]["total_tokens"].(float64)
	assert.Equal(t, "generalist", typ, "the invoke_agent call's agent_name")
	assert.InDelta(t, 23999, tokens, 0)

	by := rowsOf(t, "usage", "--by", "subagent", chat)
	require.Len(t, by, 2, "the subagent's type and main: %v", by)
	if row := rowWhere(by, "subagent", typ); assert.NotNil(t, row, "usage --by subagent names the subagent's type as subagents does: %v", by) {
		assert.InDelta(t, tokens, row["total_tokens"], 0)
		assert.InDelta(t, 2, row["calls"], 0)
	}
	assert.InDelta(t, 2, agents[0]["tool_calls"], 0)
	main := rowWhere(by, "subagent", "main")
	require.NotNil(t, main)

	sessions := rowsOf(t, "sessions", chat)
	require.Len(t, sessions, 1)
	assert.InDelta(t, len(agents), sessions[0]["subagents"], 0, "sessions counts the subagent subagents shows")
	assert.InDelta(t, main["total_tokens"], sessions[0]["main_tokens"], 0, "the main agent's tokens, as usage --by subagent's main row")
	assert.InDelta(t, sessions[0]["total_tokens"].(float64)-tokens, sessions[0]["main_tokens"], 0, "the subagent's tokens are not the main agent's")
}

// sidechainsInline is the real session 05-subagents-async with its two
// subagents' records moved into the main file, before its cost-state, and
// its session folder (subagents/, .meta.json) removed: how older Claude
// Code releases wrote a subagent's records, each marked isSidechain:true
// (the real subagents' files mark every conversation record so; the main
// file marks every one false; their bookkeeping records have no mark). keepAgentID false also takes the agentId off
// them: nothing then says which subagent wrote them.
func sidechainsInline(t *testing.T, keepAgentID bool) string {
	t.Helper()
	if keepAgentID {
		return sidechainsInlineEdited(t, func(l string) string { return l })
	}
	return sidechainsInlineEdited(t, func(l string) string { return agentIDField.ReplaceAllString(l, "") })
}

// sidechainsInlineEdited is sidechainsInline with each subagent record
// edited by edit before it is written into the main file.
func sidechainsInlineEdited(t *testing.T, edit func(string) string) string {
	t.Helper()
	path := copySession(t, "05-subagents-async")
	dir := strings.TrimSuffix(path, ".jsonl")
	subs, _ := filepath.Glob(filepath.Join(dir, "subagents", "agent-*.jsonl"))
	require.Len(t, subs, 2)
	var side []string
	for _, f := range subs {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l == "" {
				continue
			}
			if strings.Contains(l, `"parentUuid"`) {
				require.True(t, strings.Contains(l, `"isSidechain":true`), "a real subagent's conversation record is marked")
			}
			side = append(side, edit(l))
		}
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	main := strings.SplitAfter(string(b), "\n")
	at := -1
	for i, l := range main {
		require.False(t, strings.Contains(l, `"isSidechain":true`), "no real main record is marked")
		if at < 0 && strings.Contains(l, `"type":"cost-state"`) {
			at = i
		}
	}
	require.GreaterOrEqual(t, at, 0)
	out := append(append(append([]string(nil), main[:at]...), side...), main[at:]...)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(out, "")), 0o644))
	require.NoError(t, os.RemoveAll(dir))
	return path
}

var agentIDField = regexp.MustCompile(`"agentId":"[^"]*",?`)

// TestSidechainRecordsInTheMainFileAreTheSubagents proves a subagent's
// records written into the main file (sidechainsInline) are its
// subagent's: final is the main agent's answer (it was the alpha
// subagent's report, "Created alpha.txt…"); tools gives their calls to
// their subagents; usage --by subagent, usage, subagents and sessions
// say what they say of the real session, whose subagents' records are in
// their own files. With no agentId on them, they are still no part of
// the main agent's answer, calls or tokens.
func TestSidechainRecordsInTheMainFileAreTheSubagents(t *testing.T) {
	real := copySession(t, "05-subagents-async")
	run := func(args ...string) string {
		r := runIn(t, args, "")
		require.Equal(t, 0, r.Code, "%v: %s", args, r.Stderr)
		return r.Stdout
	}
	// tools' rows without their line numbers (the records moved), in
	// one order (the subagents' calls now come after the main agent's);
	// named: each subagent's call under its agent and type, else only
	// not the main agent's.
	tools := func(path string, named bool) []string {
		var rows []string
		for _, l := range strings.Split(strings.TrimSpace(run("tools", "-F", "csv", path)), "\n")[1:] {
			f := strings.Split(l, ",")
			if !named && f[2] != "main" {
				f[2], f[3] = "a subagent", ""
			}
			rows = append(rows, strings.Join(f[1:], ","))
		}
		sort.Strings(rows)
		return rows
	}
	pick := pickKeys
	sessionKeys := []string{"runs", "turns", "tool_calls", "subagents", "main_tokens", "total_tokens", "cost_usd", "title"}
	agentKeys := []string{"tool_use_id", "type", "status", "tool_calls", "total_tokens", "report"}
	for _, tc := range []struct {
		name        string
		keepAgentID bool
	}{
		{"each record names its agent", true},
		{"no record names its agent", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inline := sidechainsInline(t, tc.keepAgentID)
			assert.Equal(t, run("final", real), run("final", inline), "the main agent's answer")
			assert.Equal(t, "Both subagents reported: alpha.txt was created, and the command printed beta-output and Linux.\n", run("final", inline))
			assert.Equal(t, tools(real, tc.keepAgentID), tools(inline, tc.keepAgentID), "each call its agent's")
			assert.Equal(t, run("usage", "-F", "json", real), run("usage", "-F", "json", inline), "the main agent's and the subagents' calls")
			if tc.keepAgentID {
				assert.Equal(t, pick(rowsOf(t, "subagents", real), agentKeys...), pick(rowsOf(t, "subagents", inline), agentKeys...))
				assert.Equal(t, run("usage", "--by", "subagent", "-F", "json", real), run("usage", "--by", "subagent", "-F", "json", inline))
				assert.Equal(t, pick(rowsOf(t, "sessions", real), sessionKeys...), pick(rowsOf(t, "sessions", inline), sessionKeys...))
				return
			}
			// Nothing names the subagent: one subagent of its own, with
			// the two's calls and tokens, apart from the main agent.
			by, realBy := rowsOf(t, "usage", "--by", "subagent", inline), rowsOf(t, "usage", "--by", "subagent", real)
			assert.Equal(t, rowWhere(realBy, "subagent", "main"), rowWhere(by, "subagent", "main"))
			// (Nothing says its type either: "unknown", as subagents
			// leaves it blank.)
			assert.InDelta(t, rowWhere(realBy, "subagent", "general-purpose")["total_tokens"], rowWhere(by, "subagent", "unknown")["total_tokens"], 0)
			s, realS := rowsOf(t, "sessions", inline)[0], rowsOf(t, "sessions", real)[0]
			assert.Equal(t, realS["main_tokens"], s["main_tokens"])
			assert.Equal(t, realS["turns"], s["turns"])
		})
	}
	t.Run("its call an Explore agent's", func(t *testing.T) {
		// No .meta.json says the type: its Agent call's, in every view.
		inline := sidechainsInline(t, true)
		exploreAlpha(t, inline)
		assert.Equal(t, map[string]float64{"Explore": 14799, "general-purpose": 14751}, tokensByType(t, inline))
	})
}

// TestSubagentFileWithoutMetaIsJoinedByItsAgentID proves a subagent's
// file with no .meta.json (05-subagents-async with both removed) is
// joined where its Agent call's result names its agent id (the main
// file's async_launched toolUseResult carries agentId): the usage preset
// counts the 8 calls usage --by does (it counted the main agent's 4, and
// warned), as it does with the .meta.json files; its subagents are the
// real session's. 8 is right: the subagents' files are the session's,
// and its cost-state counts their tokens.
func TestSubagentFileWithoutMetaIsJoinedByItsAgentID(t *testing.T) {
	real := copySession(t, "05-subagents-async")
	path := copySession(t, "05-subagents-async")
	metas, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "*.meta.json"))
	require.Len(t, metas, 2)
	for _, m := range metas {
		require.NoError(t, os.Remove(m))
	}
	r := runIn(t, []string{"usage", "-F", "json", path}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Empty(t, r.Stderr, "every subagent's file is joined")
	want := runIn(t, []string{"usage", "-F", "json", real}, "")
	assert.Equal(t, want.Stdout, r.Stdout, "the calls and tokens of the session with its .meta.json files")

	usage := rowsOf(t, "usage", path)
	session := rowsOf(t, "usage", "--by", "session", path)
	require.Len(t, session, 1)
	total := rowWhere(usage, "side", "total")
	require.NotNil(t, total)
	assert.InDelta(t, 8, total["calls"], 0)
	for _, k := range []string{"calls", "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		assert.Equal(t, total[k], session[0][k], "usage and usage --by session: %s", k)
	}
	keys := []string{"tool_use_id", "agent_id", "type", "tool_calls", "total_tokens", "report"}
	got, exp := rowsOf(t, "subagents", path), rowsOf(t, "subagents", real)
	require.Len(t, got, len(exp))
	for i := range exp {
		for _, k := range keys {
			assert.Equal(t, exp[i][k], got[i][k], "subagent %d: %s", i, k)
		}
	}
}

// TestSubagentWithoutMetaIsTypedByItsCall proves a subagent whose file has
// no .meta.json has in usage --by subagent the type subagents gives it,
// its Agent call's subagent_type: 05-subagents-async without its
// .meta.json files and with its alpha agent's call made an Explore one
// (its subagent_type in the main file changed from general-purpose; the
// real captures' agents are all general-purpose). usage --by said
// general-purpose, the default, for both agents.
func TestSubagentWithoutMetaIsTypedByItsCall(t *testing.T) {
	path := copySession(t, "05-subagents-async")
	metas, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "*.meta.json"))
	require.Len(t, metas, 2)
	for _, m := range metas {
		require.NoError(t, os.Remove(m))
	}
	exploreAlpha(t, path)
	assert.Equal(t, map[string]float64{"Explore": 14799, "general-purpose": 14751}, tokensByType(t, path))
}

// exploreAlpha makes the Agent call of 05-subagents-async's alpha agent,
// in the transcript at path, an Explore one (the real captures' agents
// are all general-purpose).
func exploreAlpha(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	const alpha = `then report.","subagent_type":"general-purpose"}`
	require.Contains(t, string(b), alpha)
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(b), alpha, `then report.","subagent_type":"Explore"}`)), 0o644))
}

// tokensByType is the subagents' tokens by their type, as subagents
// gives them; usage --by subagent must give the same.
func tokensByType(t *testing.T, path string) map[string]float64 {
	t.Helper()
	tokens := map[string]float64{}
	for _, a := range rowsOf(t, "subagents", path) {
		tokens[a["type"].(string)] += a["total_tokens"].(float64)
	}
	by := map[string]float64{}
	for _, r := range rowsOf(t, "usage", "--by", "subagent", path) {
		if r["subagent"] != "main" {
			by[r["subagent"].(string)] = r["total_tokens"].(float64)
		}
	}
	assert.Equal(t, tokens, by, "usage --by subagent types and counts the subagents as subagents does")
	return tokens
}

// unknownAgents renames 05-subagents-async's two agent ids (aaf4be…,
// a2efea…) to ids no Agent call's result names, as a session whose
// subagents' calls are not known looks.
var unknownAgents = strings.NewReplacer("aaf4be6061cae469c", "a000000000000dead", "a2efea0094b20e458", "a000000000000beef")

// TestSubagentFileNoCallNamesIsOneFigureInEveryView proves a subagent's
// file that no .meta.json and no Agent call's result ties to a call
// (05-subagents-async with its .meta.json files removed and its two
// agents' ids renamed in their files and file names: a session killed
// while its agents ran can look so) is counted in every view: the
// session's cost-state counts its tokens, so the reader reads it, at the
// end, as an agent of its own, and says so. account and the usage preset
// said 4 calls and 52,758 tokens (the file left out), usage --by subagent
// and sessions 8 calls and 82,308 tokens; usage --by typed the files
// general-purpose, which nothing says, where subagents leaves the type
// blank; sessions said 2 subagents where subagents lists 4 (the two
// Agent calls, their records not in the input, and the two agents).
func TestSubagentFileNoCallNamesIsOneFigureInEveryView(t *testing.T) {
	path := copySession(t, "05-subagents-async")
	subs := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents")
	metas, _ := filepath.Glob(filepath.Join(subs, "*.meta.json"))
	require.Len(t, metas, 2)
	for _, m := range metas {
		require.NoError(t, os.Remove(m))
	}
	files, _ := filepath.Glob(filepath.Join(subs, "agent-*.jsonl"))
	require.Len(t, files, 2)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.Remove(f))
		require.NoError(t, os.WriteFile(unknownAgents.Replace(f), []byte(unknownAgents.Replace(string(b))), 0o644))
	}

	r := runIn(t, []string{"account", "-F", "json", path}, "")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, id := range []string{"a000000000000beef", "a000000000000dead"} {
		assert.Contains(t, r.Stderr, "agent-"+id+".jsonl: no .meta.json beside it says which Agent call started this subagent, nor does any call's result name agent "+id+": its records are read at the end, as an agent of its own")
	}
	account := jsonRows(t, r)
	require.Len(t, account, 1)
	tokens := account[0]["tokens"].(map[string]any)
	usage := rowWhere(rowsOf(t, "usage", path), "side", "total")
	byRows := rowsOf(t, "usage", "--by", "subagent", path)
	by := map[string]any{"calls": 0.0, "total_tokens": 0.0}
	for _, r := range byRows {
		by["calls"] = by["calls"].(float64) + r["calls"].(float64)
		by["total_tokens"] = by["total_tokens"].(float64) + r["total_tokens"].(float64)
	}
	session := rowsOf(t, "sessions", path)
	require.Len(t, session, 1)
	for name, got := range map[string][2]any{
		"account":           {tokens["calls"], tokens["total_tokens"]},
		"usage":             {usage["calls"], usage["input_tokens"].(float64) + usage["output_tokens"].(float64) + usage["cache_creation_input_tokens"].(float64) + usage["cache_read_input_tokens"].(float64)},
		"usage --by":        {by["calls"], by["total_tokens"]},
		"sessions (tokens)": {8.0, session[0]["total_tokens"]},
	} {
		assert.Equal(t, [2]any{8.0, 82308.0}, got, "%s: the 8 calls the session's cost-state counts", name)
	}
	agents := rowsOf(t, "subagents", path)
	// Nothing says the agents' type: subagents leaves it blank, usage --by
	// says "unknown" (it said general-purpose), with the same tokens.
	own := 0.0
	for _, a := range agents {
		if a["type"] == "" {
			own += a["total_tokens"].(float64)
		}
	}
	assert.InDelta(t, 29550, own, 0)
	require.NotNil(t, rowWhere(byRows, "subagent", "unknown"))
	assert.InDelta(t, own, rowWhere(byRows, "subagent", "unknown")["total_tokens"], 0)
	assert.Nil(t, rowWhere(byRows, "subagent", "general-purpose"))
	assert.Len(t, agents, 4, "the two Agent calls (their records not in the input) and the two agents of their own")
	assert.InDelta(t, float64(len(agents)), session[0]["subagents"], 0, "sessions counts what subagents lists")
	for _, a := range agents {
		assert.Equal(t, "completed", a["status"], "%v: the session ended, the agent's last record ended its turn", a["tool_use_id"])
	}
}

// TestSidechainAgentsOfNoKnownCallAreCountedAlikeAndEnd proves the
// isSidechain records in the main file of an agent no call is known for
// (05-subagents-async with its subagents' records written into the main
// file, sidechainsInlineEdited, their agentIds renamed to ids no result
// names, or removed) make one count of subagents in subagents and
// sessions (sessions said 2 and 1 where subagents listed 4 and 3: it did
// not count the Agent calls whose records are not in the input), and
// that such an agent, its records over when the session ended, is not
// "running": its last record ended its turn, so it completed.
func TestSidechainAgentsOfNoKnownCallAreCountedAlikeAndEnd(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(string) string
		agents []string // the agents of their own, as subagents names them
	}{
		{"agent ids no result names", unknownAgents.Replace, []string{"a000000000000beef", "a000000000000dead"}},
		{"no agent id", func(l string) string { return agentIDField.ReplaceAllString(l, "") }, []string{"sidechain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := sidechainsInlineEdited(t, tc.edit)
			rows := rowsOf(t, "subagents", path)
			require.Len(t, rows, 2+len(tc.agents), "the two Agent calls and the agents of their own")
			for _, id := range tc.agents {
				a := rowWhere(rows, "tool_use_id", id)
				require.NotNil(t, a, id)
				assert.Equal(t, "completed", a["status"], id)
			}
			for _, r := range rows {
				assert.NotEqual(t, "running", r["status"], "%v", r["tool_use_id"])
			}
			session := rowsOf(t, "sessions", path)
			require.Len(t, session, 1)
			assert.InDelta(t, float64(len(rows)), session[0]["subagents"], 0, "sessions counts what subagents lists")
		})
	}
}

// TestMetaWithoutToolUseIDFallsBackToTheAgentID proves a subagent whose
// .meta.json names no call (05-subagents-async with its alpha agent's
// .meta.json emptied, cut mid-value, or left with only its agentType and
// description, as a release may write it) is joined as a file with no
// .meta.json is, by the agent id its Agent call's result names: every
// view says what it says of the real session (8 calls, 82,308 tokens, 4
// tool calls). account, usage, subagents and markdown said 6 calls,
// 67,509 tokens and 3 tool calls, with a warning that the records were
// not joined, where usage --by and sessions said 8, 82,308 and 4.
func TestMetaWithoutToolUseIDFallsBackToTheAgentID(t *testing.T) {
	real := copySession(t, "05-subagents-async")
	// (The file is joined at its call's result, not at the call, as one
	// with no .meta.json is: tools' rows are compared in one order, and
	// of the markdown report its glance.)
	sorted := func(s string) string { l := strings.Split(s, "\n"); sort.Strings(l); return strings.Join(l, "\n") }
	glance := func(s string) string { return regexp.MustCompile(`\*\*At a glance:\*\*.*`).FindString(s) }
	same := func(s string) string { return s }
	views := []struct {
		args []string
		norm func(string) string
	}{
		{[]string{"account", "-F", "json"}, same}, {[]string{"usage", "-F", "json"}, same},
		{[]string{"usage", "--by", "subagent", "-F", "json"}, same}, {[]string{"sessions", "-F", "csv"}, same},
		{[]string{"subagents", "-F", "csv"}, same}, {[]string{"tools", "-F", "csv"}, sorted}, {[]string{"-F", "markdown"}, glance},
	}
	for _, tc := range []struct{ name, meta string }{
		{"empty", ""},
		{"cut", `{"agentType":"general-pur`},
		{"only agentType and description", `{"agentType":"general-purpose","description":"Create alpha file"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := copySession(t, "05-subagents-async")
			meta := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-aaf4be6061cae469c.meta.json")
			require.FileExists(t, meta)
			require.NoError(t, os.WriteFile(meta, []byte(tc.meta), 0o644))
			for _, v := range views {
				want := runIn(t, append(append([]string(nil), v.args...), real), "")
				require.Equal(t, 0, want.Code, "%v: %s", v.args, want.Stderr)
				got := runIn(t, append(append([]string(nil), v.args...), path), "")
				require.Equal(t, 0, got.Code, "%v: %s", v.args, got.Stderr)
				assert.Empty(t, got.Stderr, "%v: the subagent is joined by its agent id", v.args)
				require.NotEmpty(t, v.norm(want.Stdout), v.args)
				assert.Equal(t, v.norm(strings.ReplaceAll(want.Stdout, real, path)), v.norm(got.Stdout), "%v: what the real session says", v.args)
			}
			total := rowWhere(rowsOf(t, "usage", path), "side", "total")
			require.NotNil(t, total)
			assert.InDelta(t, 8, total["calls"], 0, "the alpha agent's calls are in")
		})
	}
}

// sidechainsInterleaved is the real session name with its subagents'
// records written into the main file in time order (each record where
// its timestamp falls among the others', each file's own order kept; a
// record with no timestamp, or an earlier one, keeps its file's last) and
// its session folder removed: how older releases wrote a subagent's
// records, marked isSidechain:true, a foreground agent's before the
// result that names its agent, a background one's from before its
// async_launched result on.
func sidechainsInterleaved(t *testing.T, name string) string {
	t.Helper()
	path := copySession(t, name)
	dir := strings.TrimSuffix(path, ".jsonl")
	subs, _ := filepath.Glob(filepath.Join(dir, "subagents", "agent-*.jsonl"))
	require.NotEmpty(t, subs)
	type record struct{ ts, text string }
	var all []record
	for _, f := range append([]string{path}, subs...) {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		last := ""
		for j, l := range strings.SplitAfter(string(b), "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			var r struct{ Timestamp string }
			require.NoError(t, json.Unmarshal([]byte(l), &r), "%s:%d", f, j+1)
			last = max(last, r.Timestamp)
			all = append(all, record{last, l})
		}
	}
	// (all is in file order, each file's in line order: a stable sort
	// keeps them so among records of one time.)
	sort.SliceStable(all, func(i, j int) bool { return all[i].ts < all[j].ts })
	var out strings.Builder
	for _, r := range all {
		out.WriteString(r.text)
	}
	require.NoError(t, os.WriteFile(path, []byte(out.String()), 0o644))
	require.NoError(t, os.RemoveAll(dir))
	return path
}

// TestInterleavedSidechainRecordsAreTheirCallsAndEndAsTheySay proves a
// session whose subagents' records are in the main file in time order
// (sidechainsInterleaved of the real 05-subagents-async and
// 60-long-session) has the subagents of the real session, its agents in
// their own files: each agent's records are its Agent call's though they
// come before the result that names the agent (the reader reads the
// file's results once more first, as the listing does); subagents listed
// 60's foreground agent twice (its call, 0 tool calls and its tokens "not
// in the input", and an untyped row with its 17 calls and 806,723
// tokens), 4 rows where sessions said 3; and the background agents, which
// completed, ended "stopped" (a synthetic end after their real one), so
// account reported task_failed 2 on a successful run. From stdin (05),
// where the file cannot be read twice, such an agent ends as its real
// notification says.
func TestInterleavedSidechainRecordsAreTheirCallsAndEndAsTheySay(t *testing.T) {
	keys := []string{"agent_id", "type", "status", "background", "tool_calls", "total_tokens"}
	for _, name := range []string{"05-subagents-async", "60-long-session"} {
		t.Run(name, func(t *testing.T) {
			real, path := copySession(t, name), sidechainsInterleaved(t, name)
			want := rowsOf(t, "subagents", real)
			require.NotEmpty(t, want)
			got := rowsOf(t, "subagents", path)
			assert.Equal(t, pickKeys(want, keys...), pickKeys(got, keys...), "the real session's subagents")
			for _, r := range got {
				assert.Equal(t, "completed", r["status"], "%v", r["agent_id"])
			}
			session := rowsOf(t, "sessions", path)
			require.Len(t, session, 1)
			assert.InDelta(t, float64(len(got)), session[0]["subagents"], 0, "sessions counts what subagents lists")
			account, realAccount := rowsOf(t, "account", path), rowsOf(t, "account", real)
			require.Len(t, account, 1)
			assert.Equal(t, realAccount[0]["troubles"], account[0]["troubles"], "no task failed")
			assert.Equal(t, realAccount[0]["tokens"], account[0]["tokens"])
		})
	}
	t.Run("05-subagents-async from stdin", func(t *testing.T) {
		path := sidechainsInterleaved(t, "05-subagents-async")
		run := func(args ...string) []map[string]any {
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			return jsonRows(t, runStdin(t, f, append(args, "-F", "json")...))
		}
		rows := run("subagents")
		require.Len(t, rows, 2)
		for _, r := range rows {
			assert.Equal(t, "completed", r["status"], "%v: its real notification says it completed", r["agent_id"])
		}
		account := run("account")
		require.Len(t, account, 1)
		assert.Equal(t, map[string]any{"count": 0.0, "by_kind": map[string]any{}}, account[0]["troubles"])
	})
}

// TestSubagentFileCopyIsReadOnce proves the same subagent's file under a
// second name (05-subagents-async with its alpha agent's file copied to
// agent-a222222222222222.jsonl, as a sync tool's conflict copy is, its
// .meta.json copied too, or not) is read once: every view says what it
// says of the real session. account, sessions and tools counted the
// agent's Write twice (5 tool calls, against the 8 model calls told apart
// by their ids); the copy with no .meta.json was an agent of its own.
func TestSubagentFileCopyIsReadOnce(t *testing.T) {
	real := copySession(t, "05-subagents-async")
	views := [][]string{
		{"account", "-F", "json"}, {"usage", "-F", "json"}, {"usage", "--by", "subagent", "-F", "json"},
		{"sessions", "-F", "csv"}, {"subagents", "-F", "csv"}, {"tools", "-F", "csv"}, {"final"},
	}
	for _, tc := range []struct {
		name     string
		withMeta bool
	}{{"with its .meta.json", true}, {"without a .meta.json", false}} {
		t.Run(tc.name, func(t *testing.T) {
			path := copySession(t, "05-subagents-async")
			alpha := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-aaf4be6061cae469c")
			exts := []string{".jsonl"}
			if tc.withMeta {
				exts = append(exts, ".meta.json")
			}
			for _, ext := range exts {
				b, err := os.ReadFile(alpha + ext)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(strings.Replace(alpha, "aaf4be6061cae469c", "a222222222222222", 1)+ext, b, 0o644))
			}
			for _, v := range views {
				want := runIn(t, append(append([]string(nil), v...), real), "")
				require.Equal(t, 0, want.Code, "%v: %s", v, want.Stderr)
				got := runIn(t, append(append([]string(nil), v...), path), "")
				require.Equal(t, 0, got.Code, "%v: %s", v, got.Stderr)
				assert.Empty(t, got.Stderr, v)
				assert.Equal(t, strings.ReplaceAll(want.Stdout, real, path), got.Stdout, "%v: what the real session says", v)
			}
			s := rowsOf(t, "sessions", path)
			require.Len(t, s, 1)
			assert.InDelta(t, 4, s[0]["tool_calls"], 0, "the alpha agent's Write once")
		})
	}
}
