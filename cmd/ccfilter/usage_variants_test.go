package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// variantTree copies the project folder of the real transcript run (a
// folder of testdata/transcripts: the session's file and its folder of
// subagents' files) into a tree of its own, with every line of every
// .jsonl passed through edit (which returns the line to write, or nil to
// leave it out), and returns the tree.
func variantTree(t *testing.T, run string, edit func(line []byte) []byte) string {
	t.Helper()
	src, _ := filepath.Glob(filepath.Join("../../testdata/transcripts", run, "home/.claude/projects/*"))
	require.Len(t, src, 1, run)
	tree := t.TempDir()
	project := filepath.Join(tree, filepath.Base(src[0]))
	require.NoError(t, os.CopyFS(project, os.DirFS(src[0])))
	require.NoError(t, filepath.WalkDir(project, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var out []byte
		for _, l := range bytes.SplitAfter(b, []byte("\n")) {
			if l = bytes.TrimSuffix(l, []byte("\n")); len(l) == 0 {
				continue
			}
			if e := edit(append([]byte(nil), l...)); e != nil {
				out = append(append(out, e...), '\n')
			}
		}
		return os.WriteFile(path, out, 0o644)
	}))
	return tree
}

// addTailField writes a new member of n bytes at the end of an assistant
// record, after its type, uuid, timestamp, cwd, sessionId, version and
// gitBranch: as a newer Claude Code release would add a field there
// (/tmp/s6/tb/mktail.py did it to find the bug).
func addTailField(n int) func([]byte) []byte {
	return func(l []byte) []byte {
		if !bytes.Contains(l, []byte(`"type":"assistant"`)) {
			return l
		}
		return append(l[:len(l)-1], []byte(`,"requestContextSummary":"`+strings.Repeat("x", n)+`"}`)...)
	}
}

// longCWD makes every record's cwd (written in the tail of each record,
// after its type) n bytes long, as a deeply nested project's would be.
func longCWD(n int) func([]byte) []byte {
	cwd := regexp.MustCompile(`"cwd":"[^"]*"`)
	long := ("/home/user/" + strings.Repeat("deeply-nested-monorepo-package-dir/", 40))[:n]
	return func(l []byte) []byte { return cwd.ReplaceAll(l, []byte(`"cwd":"`+long+`"`)) }
}

// withoutCostState leaves out the cost-state records: a killed (or a
// still running) session, whose calls are priced by estimate.
func withoutCostState(edit func([]byte) []byte) func([]byte) []byte {
	return func(l []byte) []byte {
		if bytes.Contains(l, []byte(`"type":"cost-state"`)) {
			return nil
		}
		return edit(l)
	}
}

// listing is sessions -F json on a tree, its paths (which differ from
// tree to tree) and cwd (which a variant may change) left out.
func listing(t *testing.T, tree string) []map[string]any {
	t.Helper()
	rows := jsonRows(t, runIn(t, []string{"sessions", "-F", "json", tree}, ""))
	require.NotEmpty(t, rows)
	for _, r := range rows {
		delete(r, "path")
		delete(r, "cwd")
		delete(r, "project")
	}
	return rows
}

// TestAFieldAfterTheTypeChangesNoFigure proves that a member added at the
// end of each assistant record (1,100 bytes: past the last KiB where
// DeclaredType looked for the record's type), or a long cwd there (800
// bytes), changes none of usage --by's or sessions' figures, on the real
// 05-subagents-async (2 subagents) and 60-long-session (246 calls), with
// their cost-states and without (a killed session, priced by estimate).
// Before, every call of such a file was passed over: 0 calls, every
// token "hidden", subagents $0, and with no cost-state the session gone.
func TestAFieldAfterTheTypeChangesNoFigure(t *testing.T) {
	same := func(l []byte) []byte { return l }
	for _, run := range []string{"05-subagents-async", "60-long-session"} {
		for _, c := range []struct {
			name string
			base func([]byte) []byte
			edit func([]byte) []byte
		}{
			{"tail field", same, addTailField(1100)},
			{"long cwd", same, longCWD(800)},
			{"tail field, killed", withoutCostState(same), withoutCostState(addTailField(1100))},
			{"long cwd, killed", withoutCostState(same), withoutCostState(longCWD(800))},
		} {
			t.Run(run+"/"+c.name, func(t *testing.T) {
				base, variant := variantTree(t, run, c.base), variantTree(t, run, c.edit)
				for _, by := range []string{"session", "subagent", "day"} {
					want := spendRows(t, "--by", by, base)
					require.NotEmpty(t, want)
					got := spendRows(t, "--by", by, variant)
					if by == "session" {
						for _, r := range append(want, got...) {
							delete(r, "project")
						}
					}
					assert.Equal(t, want, got, by)
				}
				assert.Equal(t, listing(t, base), listing(t, variant))
			})
		}
	}
}

// withoutModel is a Codex rollout's line with the model taken out of its
// turn_context and session_meta (as older rollouts are written: no model
// named anywhere in the file).
func withoutModel(t *testing.T) func([]byte) []byte {
	return func(l []byte) []byte {
		var rec map[string]any
		d := json.NewDecoder(bytes.NewReader(l))
		d.UseNumber()
		require.NoError(t, d.Decode(&rec))
		if p, ok := rec["payload"].(map[string]any); ok && (rec["type"] == "turn_context" || rec["type"] == "session_meta") {
			delete(p, "model")
		}
		out, err := json.Marshal(rec)
		require.NoError(t, err)
		return out
	}
}

// TestCodexSessionNamingNoModelCountsItsTokensUnpriced proves that the
// calls of a Codex session file that names no model (the real
// 08-long-session and 03-shell-fail rollouts, their model taken out) are
// counted by usage --by and sessions, every token of them, and priced as
// unknown (unpriced), not left out: before, usage --by model said 0 calls,
// 0 tokens and $0.0000, and sessions 0 tokens, while the usage preset on
// the same file counted them.
func TestCodexSessionNamingNoModelCountsItsTokensUnpriced(t *testing.T) {
	for _, capture := range []string{"08-long-session", "03-shell-fail"} {
		t.Run(capture, func(t *testing.T) {
			src := codexSessionOf(t, capture)
			b, err := os.ReadFile(src)
			require.NoError(t, err)
			edit := withoutModel(t)
			var out []byte
			for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
				out = append(append(out, edit(l)...), '\n')
			}
			dir := filepath.Join(t.TempDir(), "2026", "12", "06")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(src)), out, 0o644))
			tree := filepath.Dir(filepath.Dir(filepath.Dir(dir)))

			named := spendRows(t, "--by", "session", src)
			require.Len(t, named, 1)
			require.Greater(t, named[0]["calls"], 0.0)
			rows := spendRows(t, "--by", "model", tree)
			require.Len(t, rows, 1)
			assert.Equal(t, "", rows[0]["model"], "the file names no model")
			for _, k := range []string{"calls", "input_tokens", "output_tokens", "cache_read_input_tokens", "total_tokens"} {
				assert.Equal(t, named[0][k], rows[0][k], k)
			}
			assert.Equal(t, true, rows[0]["unpriced"], "no model: no price is known")
			assert.Nil(t, rows[0]["cost_usd"], "a cost no price is known for is unknown, not $0")
			assert.Equal(t, named[0]["total_tokens"], rows[0]["unpriced_tokens"], "its tokens are the unpriced ones")

			list := jsonRows(t, runIn(t, []string{"sessions", "-F", "json", tree}, ""))
			require.Len(t, list, 1)
			assert.Equal(t, named[0]["total_tokens"], list[0]["total_tokens"])
		})
	}
}

// requestIDOnFirstRecordOnly keeps an assistant record's requestId on
// the first record of its message only (the first of the file's records
// with that message.id; the others, one per content block, lose it), as
// /tmp/s6/tb/mkreq.py wrote it to find the bug.
func requestIDOnFirstRecordOnly() func([]byte) []byte {
	seen := map[string]bool{}
	return func(l []byte) []byte {
		var rec struct {
			Type    string
			Message struct{ ID string }
		}
		if json.Unmarshal(l, &rec) != nil || rec.Type != "assistant" || rec.Message.ID == "" {
			return l
		}
		if seen[rec.Message.ID] {
			return regexp.MustCompile(`,"requestId":"[^"]*"`).ReplaceAll(l, nil)
		}
		seen[rec.Message.ID] = true
		return l
	}
}

// TestACallIsOneMessageIDWhateverItsRequestID proves that usage --by
// counts a model call once, by its message id, as the run's own account
// (the usage preset) does, when only the first of its records carries a
// requestId: on the real 60-long-session (246 calls, 49.3M tokens) and
// 05-subagents-async, usage --by session gives what it gives on the
// session as written, and its calls and tokens are the usage preset's.
// Before, message id and request id named a call, and the records without
// the request id were counted again: 363 calls and 66.9M tokens.
func TestACallIsOneMessageIDWhateverItsRequestID(t *testing.T) {
	for _, run := range []string{"60-long-session", "05-subagents-async"} {
		t.Run(run, func(t *testing.T) {
			base := variantTree(t, run, func(l []byte) []byte { return l })
			variant := variantTree(t, run, requestIDOnFirstRecordOnly())
			want := spendRows(t, "--by", "session", base)
			got := spendRows(t, "--by", "session", variant)
			require.Len(t, got, 1)
			assert.Equal(t, want, got)

			files, _ := filepath.Glob(filepath.Join(variant, "*", "*.jsonl"))
			require.Len(t, files, 1)
			b, err := os.ReadFile(files[0])
			require.NoError(t, err)
			require.Less(t, bytes.Count(b, []byte(`"requestId"`)), bytes.Count(b, []byte(`"type":"assistant"`)), "records without it")
			preset := jsonRows(t, runIn(t, []string{"usage", "-F", "json", files[0]}, ""))
			var total map[string]any
			for _, r := range preset {
				if r["side"] == "total" {
					total = r
				}
			}
			require.NotNil(t, total, "%v", preset)
			assert.Equal(t, total["calls"], got[0]["calls"], "the run's own account's calls")
			for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
				assert.Equal(t, total[k], got[0][k], k)
			}
		})
	}
}

// TestACostStateNamingTheModelWithItsContextSelectorCountsOnce proves
// that a cost-state whose modelUsage names the model as the user chose it,
// with Claude Code's 1M-context selector ("claude-opus-5-5[1m]", which
// Claude Code takes off before it calls the API, so that the assistant
// records say "claude-opus-5-5"), is the same model's: on the real
// 60-long-session so renamed (every cost-state), usage --by model and
// --by session give what they give on the session as written. Before, the
// calls were priced at a rate and the cost-state's tokens counted again
// as hidden: $27.2255 and 98.7M tokens for $14.3279 and 49.3M.
func TestACostStateNamingTheModelWithItsContextSelectorCountsOnce(t *testing.T) {
	base := variantTree(t, "60-long-session", func(l []byte) []byte { return l })
	for _, name := range []string{"claude-opus-5-5[1m]", "claude-opus-5-5[1M]", "claude-opus-5-5[1m][1m]"} {
		t.Run(name, func(t *testing.T) {
			variant := variantTree(t, "60-long-session", func(l []byte) []byte {
				return bytes.ReplaceAll(l, []byte(`"modelUsage":{"claude-opus-5-5":`), []byte(`"modelUsage":{"`+name+`":`))
			})
			files, _ := filepath.Glob(filepath.Join(variant, "*", "*.jsonl"))
			require.Len(t, files, 1)
			b, err := os.ReadFile(files[0])
			require.NoError(t, err)
			require.Contains(t, string(b), name, "the cost-states renamed")
			for _, by := range []string{"model", "session"} {
				want := spendRows(t, "--by", by, base)
				assert.Equal(t, want, spendRows(t, "--by", by, variant), by)
			}
			// The usage preset and the account on the file (the tracker's
			// reading of the result's modelUsage): the same as the
			// original's, not the model called a helper's.
			baseFiles, _ := filepath.Glob(filepath.Join(base, "*", "*.jsonl"))
			require.Len(t, baseFiles, 1)
			for _, args := range [][]string{{"usage", "-F", "json"}, {"usage"}, {"account", "-F", "json"}} {
				want := runIn(t, append(args, baseFiles[0]), "")
				got := runIn(t, append(args, files[0]), "")
				require.Equal(t, 0, got.Code, got.Stderr)
				assert.Equal(t, strings.ReplaceAll(want.Stdout, baseFiles[0], files[0]), got.Stdout, "%v", args)
			}
		})
	}
}
