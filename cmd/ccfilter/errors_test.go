package main

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestErrorsTableOnEveryCapture proves errors --format csv works on every
// capture (issue 27 item 3): a header, then rows of its 14 columns, as
// many as --format ndjson has lines, whose keys are the header.
func TestErrorsTableOnEveryCapture(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	files = append(files, "../../testdata/real/60-long-session.jsonl")
	header := []string{"line", "timestamp", "agent", "subagent_type", "kind", "subtype", "tool", "tool_use_id",
		"status", "category", "attempt", "max_retries", "wait_ms", "message"}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := runIn(t, []string{"errors", "-F", "csv", f}, "")
			require.Contains(t, []int{exitOK, exitNoResult}, r.Code, r.Stderr)
			recs, err := csv.NewReader(strings.NewReader(r.Stdout)).ReadAll()
			require.NoError(t, err, r.Stdout)
			require.NotEmpty(t, recs)
			assert.Equal(t, header, recs[0])
			nd := runIn(t, []string{"errors", "-F", "ndjson", f}, "")
			lines := strings.Split(strings.TrimSuffix(nd.Stdout, "\n"), "\n")
			if nd.Stdout == "" {
				lines = nil
			}
			assert.Len(t, lines, len(recs)-1, "a CSV row per NDJSON line")
			for _, l := range lines {
				var row map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &row))
				assert.Len(t, row, len(header))
				for _, k := range header {
					assert.Contains(t, row, k)
				}
			}
		})
	}
	r := runIn(t, []string{"errors", "-F", "csv", "../../testdata/real/60-long-session.jsonl"}, "")
	assert.Equal(t, 2, strings.Count(r.Stdout, ",tool_error,"), "its two failed calls")
}

// TestOneCSVAcrossRuns proves the CSV of several runs is one table: one
// header, every row with its columns (errors rows too, whose header-only
// record once became a one-cell row), also when the first input fails
// after it was opened (a cut .gz), which writes no rows.
func TestOneCSVAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(capture(t, "05-subagents-async.jsonl"), 1)))
	require.NoError(t, zw.Close())
	cut := filepath.Join(dir, "cut.jsonl.gz")
	require.NoError(t, os.WriteFile(cut, gz.Bytes()[:3000], 0o644))
	for _, args := range [][]string{
		{"errors", "-F", "csv", "../../testdata/events/03-bash-fail.jsonl", "../../testdata/events/01-plain-text.jsonl", "../../testdata/events/12-max-turns.jsonl"},
		{"usage", "-F", "csv", cut, "../../testdata/events/03-bash-fail.jsonl"},
		{"tools", "-F", "csv", cut, "../../testdata/events/03-bash-fail.jsonl"},
	} {
		r := runIn(t, args, dir)
		recs, err := csv.NewReader(strings.NewReader(r.Stdout)).ReadAll()
		require.NoError(t, err, "%v: every record has the header's fields:\n%s", args, r.Stdout)
		require.NotEmpty(t, recs, "%v", args)
		assert.Equal(t, "source", recs[0][0], "%v: the header first", args)
		assert.Equal(t, 1, strings.Count("\n"+r.Stdout, "\nsource,"), "%v: one header", args)
	}
}
