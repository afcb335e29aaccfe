package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgentIsOneIdentity proves a subagent has one id everywhere: the
// expression function agent returns the agent id the subagents preset
// shows (not the Agent call's tool_use id), select(agent == ID) finds its
// events, and --agent takes either id with the same result.
func TestAgentIsOneIdentity(t *testing.T) {
	for _, capture := range []string{"../../testdata/events/05-subagents-async.jsonl", "../../testdata/events/05b-subagents-foreground.jsonl", "../../testdata/real/60-long-session.jsonl"} {
		got := runIn(t, []string{"subagents", "--format", "json", capture}, "")
		require.Equal(t, 0, got.Code, got.Stderr)
		var rows []struct {
			ToolUseID string `json:"tool_use_id"`
			AgentID   string `json:"agent_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(got.Stdout), &rows))
		require.NotEmpty(t, rows, capture)
		var want []string
		for _, r := range rows {
			want = append(want, r.AgentID)
		}
		sort.Strings(want)
		got = runIn(t, []string{"-r", `select(agent != "main") | agent`, capture}, "")
		seen := map[string]bool{}
		for _, a := range strings.Fields(got.Stdout) {
			seen[a] = true
		}
		var ids []string
		for a := range seen {
			ids = append(ids, a)
		}
		sort.Strings(ids)
		assert.Subset(t, want, ids, "%s: agent names the subagents as subagents does", capture)
		assert.NotEmpty(t, ids)
		r := rows[0]
		got = runIn(t, []string{"-c", `select(agent == "` + r.AgentID + `") | line`, capture}, "")
		assert.NotEmpty(t, got.Stdout, "%s: select(agent == %s) finds its events", capture, r.AgentID)
		byAgent := runIn(t, []string{"tools", "--agent", r.AgentID, capture}, "")
		byCall := runIn(t, []string{"tools", "--agent", r.ToolUseID, capture}, "")
		assert.Equal(t, byAgent, byCall, "%s: --agent takes either id", capture)
	}
}

// TestUnknownAgentWarns proves --agent with an id that matches nothing
// says so and names the subagents there are (main, sub, all never warn).
func TestUnknownAgentWarns(t *testing.T) {
	const capture = "../../testdata/events/05-subagents-async.jsonl"
	for _, p := range [][]string{{"tools"}, {"all"}, {"text"}, {"errors", "--format", "ndjson"}, {"-c", "."}} {
		got := runIn(t, append(append([]string{}, p...), "--agent", "nobody", capture), "")
		assert.Equal(t, 0, got.Code, p)
		assert.Empty(t, got.Stdout, p)
		assert.Equal(t, "ccfilter: "+capture+": --agent nobody matches no event; its subagents are ab38ee1e1381baf0b, a912b2e4c07df6bb2 (main, sub and all also work)\n", got.Stderr, p)
	}
	got := runIn(t, []string{"tools", "--agent", "sub", "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Empty(t, got.Stderr, "sub is a kind of agent, not an id")
	got = runIn(t, []string{"text", "--agent", "x1", "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Contains(t, got.Stderr, "--agent x1 matches no event; the run has no subagent")
}

// TestHelpListsJqFlags proves --help shows jq's two-argument flags, which
// work but pflag cannot parse, and that their one-argument spelling is
// refused rather than ignored.
func TestHelpListsJqFlags(t *testing.T) {
	var out strings.Builder
	require.Equal(t, 0, run([]string{"--help"}, strings.NewReader(""), &out, &out, nil))
	assert.Regexp(t, `--arg NAME VALUE +set \$NAME to the string VALUE`, out.String())
	assert.Regexp(t, `--argjson NAME TEXT +set \$NAME to the JSON value TEXT`, out.String())
	got := runIn(t, []string{"--arg=x", ".", "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Equal(t, exitUsage, got.Code)
	assert.Contains(t, got.Stderr, "--arg takes two arguments: --arg NAME VALUE")
	got = runIn(t, []string{"-r", "--arg", "n", "v", "--argjson", "j", `{"a":2}`, `"\($n) \($j.a)"`, "../../testdata/events/01-plain-text.jsonl"}, "")
	assert.Equal(t, "v 2\nv 2\nv 2\n", got.Stdout)
}

// TestAgentIsNeverIgnored proves --agent is, on every preset, applied,
// refused (exit 2, saying why) or warned about when it names no agent
// there, never silently ignored (issue 27 item 4); and that the report
// presets apply it: types counts that agent's events, usage its model
// calls, subagents its rows (05-subagents-async: two subagents).
func TestAgentIsNeverIgnored(t *testing.T) {
	path := "../../testdata/events/05-subagents-async.jsonl"
	for _, p := range preset.Builtin().List() {
		r := runIn(t, []string{p.Name, "--agent", "nope", path}, "")
		if p.NoAgent != "" {
			assert.Equal(t, exitUsage, r.Code, p.Name)
			assert.Contains(t, r.Stderr, "--agent does not apply to the "+p.Name+" preset: ", p.Name)
			continue
		}
		assert.Contains(t, r.Stderr, "--agent nope matches no event; its subagents are ab38ee1e1381baf0b, a912b2e4c07df6bb2", p.Name)
	}
	for _, name := range []string{"types", "usage", "subagents"} {
		outs := map[string]string{}
		for _, a := range []string{"all", "main", "sub", "a912b2e4c07df6bb2"} {
			r := runIn(t, []string{name, "-F", "json", "--agent", a, path}, "")
			require.Equal(t, 0, r.Code, r.Stderr)
			assert.Empty(t, r.Stderr, "%s --agent %s", name, a)
			for b, o := range outs {
				if name == "subagents" && a != "a912b2e4c07df6bb2" && b != "a912b2e4c07df6bb2" {
					continue // every subagent of this run is the main agent's: main, sub and all list both
				}
				assert.NotEqual(t, o, r.Stdout, "%s: --agent %s and --agent %s", name, a, b)
			}
			outs[a] = r.Stdout
		}
	}
	r := runIn(t, []string{"usage", "-F", "json", "-c", "--agent", "a912b2e4c07df6bb2", path}, "")
	assert.Contains(t, r.Stdout, `"calls":2,`, "the beta subagent's two model calls")
	r = runIn(t, []string{"types", "-F", "csv", "--agent", "sub", path}, "")
	assert.Equal(t, "type,subtype,count,known\nassistant,,5,true\nuser,,2,true\n", r.Stdout)
}

// TestWhereSeesTheRow proves --where sees each row as the object JSON
// writes, keyed by the CSV header (issue 27 item 2): for every preset
// whose rows --where narrows, every row passes `keys == ($header|sort)`.
func TestWhereSeesTheRow(t *testing.T) {
	path := "../../testdata/events/05-subagents-async.jsonl"
	for _, name := range []string{"tools", "types", "subagents"} {
		r := runIn(t, []string{name, "-F", "csv", path}, "")
		require.Equal(t, 0, r.Code, r.Stderr)
		lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
		header, err := json.Marshal(strings.Split(lines[0], ","))
		require.NoError(t, err)
		w := runIn(t, []string{name, "-F", "csv", "--argjson", "h", string(header), "--where", "keys == ($h | sort)", path}, "")
		require.Equal(t, 0, w.Code, w.Stderr)
		assert.Equal(t, r.Stdout, w.Stdout, "%s: every row's keys are the header", name)
	}
}
