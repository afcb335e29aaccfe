package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTwoCLIsInOneInputAreSaid proves that another CLI's output after the
// first's in one file is said once, with the line where it starts, and
// that no real capture of one CLI is said to hold another's (every
// capture in testdata, each kind). Before, Codex's lines after a Claude
// Code run were counted as unknown types and nothing said why.
func TestTwoCLIsInOneInputAreSaid(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		return string(b)
	}
	claude := read("../../testdata/events/02-write-read.jsonl")
	codex := read("../../testdata/agents/codex/02-write-read.jsonl")
	path := filepath.Join(t.TempDir(), "two.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(claude+codex), 0o644))
	r := runIn(t, []string{"types", path}, "")
	first := strings.Count(claude, "\n") + 1
	assert.Contains(t, r.Stderr, "two.jsonl:"+strconv.Itoa(first)+": this line is Codex CLI output (codex) in Claude Code input (stream)")
	assert.Equal(t, 1, strings.Count(r.Stderr, "this line is"), "said once")
	// The other way round: Claude Code's lines after a Codex run.
	path = filepath.Join(t.TempDir(), "two-other-way.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(codex+claude), 0o644))
	r = runIn(t, []string{"types", path}, "")
	first = strings.Count(codex, "\n") + 1
	assert.Contains(t, r.Stderr, "two-other-way.jsonl:"+strconv.Itoa(first)+": this line is Claude Code output (stream) in Codex CLI input (codex)")

	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	more, err := filepath.Glob("../../testdata/agents/*/*.jsonl")
	require.NoError(t, err)
	for _, f := range append(files, more...) {
		r := runIn(t, []string{"types", f}, "")
		assert.NotContains(t, r.Stderr, "this line is", f)
	}
}
