package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withSelector writes the files under from (a capture, or a session's
// project folder) to a folder of the test's own, at the same relative
// paths, with Claude Code's 1M-context selector added to the model of
// every message (`"message":{"model":"claude-opus-5-5"` written
// `...claude-opus-5-5[1m]"`: assistant events and records, message_start
// events; the init's model and a transcript's request params untouched)
// when selector is set, unchanged otherwise: the two copies differ in
// that alone, and in no path. It returns the folder and how many models it
// changed.
func withSelector(t *testing.T, from string, selector bool) (dir string, changed int) {
	t.Helper()
	const plain = `"message":{"model":"claude-opus-5-5"`
	dir = t.TempDir()
	root := filepath.Dir(from)
	require.NoError(t, filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		if selector && strings.HasSuffix(p, ".jsonl") {
			changed += strings.Count(s, plain)
			s = strings.ReplaceAll(s, plain, strings.TrimSuffix(plain, `"`)+`[1m]"`)
		}
		rel, _ := filepath.Rel(root, p)
		out := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
		return os.WriteFile(out, []byte(s), 0o644)
	}))
	return dir, changed
}

// TestContextSelectorInTheMessagesChangesNoFigure proves that a run whose
// messages name their model with Claude Code's 1M-context selector
// ("claude-opus-5-5[1m]", the name the user chose it by) is read as the
// API names it (claude-opus-5-5) in every view: every figure of the
// account, usage (by run, by model and subagent, by day), sessions, and
// the OTLP traces' model calls (of the captures: the transcript's longer
// lines end its batches elsewhere), is the original's, on the real capture 04-parallel-tools (with its result: the
// CLI's cost; without it: priced at list prices), 07-partial-messages
// (message_start events name the model too) and the real transcript
// 60-long-session (its subagents' files too). Before, the calls were of a
// model "claude-opus-5-5[1m]": no price known for it ($? for the
// estimated $0.0298), the result's modelUsage (keyed claude-opus-5-5) a
// "helper model", and the account's total_tokens 24961, not 25113.
func TestContextSelectorInTheMessagesChangesNoFigure(t *testing.T) {
	const events = "../../testdata/events/"
	noResult := filepath.Join(t.TempDir(), "04-parallel-tools.jsonl")
	var kept []string
	for _, l := range strings.SplitAfter(capture(t, "04-parallel-tools.jsonl"), "\n") {
		if !strings.Contains(l, `"type":"result"`) {
			kept = append(kept, l)
		}
	}
	require.NoError(t, os.WriteFile(noResult, []byte(strings.Join(kept, "")), 0o644))
	session := "-home-user-project/6e7ff9fa-7236-4618-a5f9-c62fb06889c4.jsonl"
	for _, c := range []struct {
		name, from string
		says       string     // what the original's views say, among them: the cost the case is about
		views      [][]string // each with the input's path (relative to the copy) last
	}{
		{"04-parallel-tools", events + "04-parallel-tools.jsonl", `"source": "reported"`, [][]string{
			{"account", "-F", "json", "04-parallel-tools.jsonl"},
			{"usage", "-F", "json", "04-parallel-tools.jsonl"},
			{"usage", "04-parallel-tools.jsonl"},
			{"-F", "otlp", "04-parallel-tools.jsonl"},
		}},
		{"04-parallel-tools without its result: list prices", noResult, `"source": "estimated"`, [][]string{
			{"account", "-F", "json", "04-parallel-tools.jsonl"},
			{"usage", "-F", "json", "04-parallel-tools.jsonl"},
		}},
		{"07-partial-messages", events + "07-partial-messages.jsonl", `"source": "reported"`, [][]string{
			{"account", "-F", "json", "07-partial-messages.jsonl"},
			{"usage", "-F", "json", "07-partial-messages.jsonl"},
			{"-F", "otlp", "07-partial-messages.jsonl"},
		}},
		{"60-long-session", "../../testdata/transcripts/60-long-session/home/.claude/projects", "$14.3279", [][]string{
			{"account", "-F", "json", "projects/" + session},
			{"usage", "-F", "json", "projects/" + session},
			{"usage", "--by", "model,subagent", "--tz", "UTC", "-F", "json", "projects"},
			{"usage", "--by", "day", "--tz", "UTC", "projects"},
			{"sessions", "-F", "json", "projects"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			orig, _ := withSelector(t, c.from, false)
			named, changed := withSelector(t, c.from, true)
			require.Positive(t, changed, "the messages name the model")
			said := ""
			for _, view := range c.views {
				run := func(dir string) runResult {
					args := append([]string{}, view...)
					args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
					res := runIn(t, args, dir)
					require.Equal(t, 0, res.Code, "%v: %s", view, res.Stderr)
					return res
				}
				want, got := run(orig), run(named)
				said += want.Stdout
				assert.NotContains(t, got.Stdout, "[1m]", "%v", view)
				assert.Equal(t, want.Stdout, got.Stdout, "%v", view)
				assert.Equal(t, want.Stderr, got.Stderr, "%v", view)
			}
			assert.Contains(t, said, "claude-opus-5-5", "the views name the model")
			assert.Contains(t, said, c.says)
		})
	}
}
