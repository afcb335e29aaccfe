package main

import (
	"bytes"
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
