package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// copyTree copies the folder from into to (the test's own HOME).
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	require.NoError(t, os.CopyFS(to, os.DirFS(from)))
}

// TestSessionsAndUsageByReadEveryAgentCLIsDefaultTree: with no PATH,
// sessions and usage --by read Claude Code's projects tree and Codex's
// sessions tree (~/.codex/sessions, or $CODEX_HOME/sessions) into one
// table, the cli column telling them apart. Inputs: the 02-write-read
// transcript (testdata/transcripts) and the session files of five Codex
// captures (testdata/agents/codex/home: 03-shell-fail, 05-auth-401,
// 08-long-session, 09-sigint-tool, 12b-resume). Codex's figures are the
// sums of the files' per-call usage (token_count last_token_usage): 08's
// 25 calls add up to its stream's turn.completed (302924 tokens), and
// 12b's resumed thread counts its three calls once (37687, the thread's
// running total after the resume, not 12's total added again).
func TestSessionsAndUsageByReadEveryAgentCLIsDefaultTree(t *testing.T) {
	claude := "../../testdata/transcripts/02-write-read/home"
	codex := "../../testdata/agents/codex/home/.codex"
	for _, c := range []struct {
		name string
		env  func(home string) []string
		lay  func(t *testing.T, home string)
	}{
		{"~/.codex/sessions", func(home string) []string { return []string{"HOME=" + home, "NO_COLOR=1"} },
			func(t *testing.T, home string) { copyTree(t, codex, filepath.Join(home, ".codex")) }},
		{"$CODEX_HOME/sessions", func(home string) []string {
			return []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, "elsewhere"), "NO_COLOR=1"}
		}, func(t *testing.T, home string) { copyTree(t, codex, filepath.Join(home, "elsewhere")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			copyTree(t, claude, home)
			c.lay(t, home)
			env := c.env(home)
			list := jsonRowsIn(t, env, "sessions")
			byCLI := map[string]int{}
			tokens := map[string]float64{}
			for _, s := range list {
				byCLI[s["cli"].(string)]++
				tokens[s["session_id"].(string)] = s["total_tokens"].(float64)
			}
			assert.Equal(t, map[string]int{"claude-code": 1, "codex": 5}, byCLI)
			assert.Equal(t, 302924.0, tokens["01a2491b-e392-7151-a567-130a84fbeaf6"], "08-long-session")
			assert.Equal(t, 37687.0, tokens["01a2491c-4b57-7422-876c-285e7159b2ed"], "12b-resume")

			got := map[string]float64{}
			for _, row := range jsonRowsIn(t, env, "usage", "--by", "cli") {
				got[row["cli"].(string)] = row["total_tokens"].(float64)
			}
			var codexSum float64
			for id, n := range tokens {
				if id != "0db2634f-ae79-455c-9f0e-6a3434377177" {
					codexSum += n
				}
			}
			assert.Equal(t, codexSum, got["Codex CLI"])
			assert.Equal(t, tokens["0db2634f-ae79-455c-9f0e-6a3434377177"], got["Claude Code"])
		})
	}
}

// TestSessionsAndUsageByReadGeminisDefaultTree proves Gemini CLI's tree
// of chat files (~/.gemini/tmp/<project>/chats, or under
// $GEMINI_CLI_HOME) is one of the default trees `sessions` and `usage
// --by` read with no PATH, told apart by the cli column: the chats of
// testdata/agents/gemini's 10-thinking and 16-subagent (its subagent's
// file in chats/<session id>/) beside 02-write-read's Claude Code tree;
// Gemini's row is the two sessions' tokens, 23425 + 47415.
func TestSessionsAndUsageByReadGeminisDefaultTree(t *testing.T) {
	lay := func(t *testing.T, gemini string) {
		chats := filepath.Join(gemini, ".gemini", "tmp", "proj", "chats")
		copyTree(t, "../../testdata/agents/gemini/16-subagent.chats", chats)
		copyTree(t, "../../testdata/agents/gemini/10-thinking.chats", chats)
	}
	for _, c := range []struct {
		name string
		env  func(home string) []string
		dir  func(home string) string
	}{
		{"~/.gemini/tmp", func(home string) []string { return []string{"HOME=" + home, "NO_COLOR=1"} }, func(home string) string { return home }},
		{"$GEMINI_CLI_HOME/.gemini/tmp", func(home string) []string {
			return []string{"HOME=" + home, "GEMINI_CLI_HOME=" + filepath.Join(home, "elsewhere"), "NO_COLOR=1"}
		}, func(home string) string { return filepath.Join(home, "elsewhere") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			copyTree(t, "../../testdata/transcripts/02-write-read/home", home)
			lay(t, c.dir(home))
			env := c.env(home)
			list := jsonRowsIn(t, env, "sessions")
			byCLI := map[string]int{}
			var geminiTokens float64
			for _, s := range list {
				byCLI[s["cli"].(string)]++
				if s["cli"] == "gemini" {
					geminiTokens += s["total_tokens"].(float64)
				}
			}
			assert.Equal(t, map[string]int{"claude-code": 1, "gemini": 2}, byCLI)
			assert.Equal(t, 23425.0+47415.0, geminiTokens)

			got := map[string]float64{}
			for _, row := range jsonRowsIn(t, env, "usage", "--by", "cli") {
				got[row["cli"].(string)] = row["total_tokens"].(float64)
			}
			assert.Equal(t, geminiTokens, got["Gemini CLI"])
			assert.Equal(t, 37288.0, got["Claude Code"], "02-write-read")
		})
	}
}

// jsonRowsIn are the JSON rows of ccfilter args run in the environment
// env, which must exit 0.
func jsonRowsIn(t *testing.T, env []string, args ...string) []map[string]any {
	t.Helper()
	r := runEnv(t, env, append(args, "-F", "json")...)
	require.Equal(t, exitOK, r.Code, r.Stderr)
	var rows []map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rows), r.Stdout)
	return rows
}
