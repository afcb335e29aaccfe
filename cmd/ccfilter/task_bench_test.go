package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchTask is one task of issue 41's table, run the way a user runs it:
// the whole command (run: flags, presets, the reader, the tracker, the
// format, output to a file), on a real capture or a real transcript folder.
type benchTask struct {
	name string
	args []string // before the input
	// transcripts: the input is the projects folder of a real session
	// (testdata/transcripts/60-long-session), not its stream.
	transcripts bool
}

// benchTasks are the rows of `make bench`'s table (scripts/bench-table.sh),
// by the name of BenchmarkTask's sub-benchmark.
var benchTasks = []benchTask{
	{name: "final", args: []string{"final"}},
	{name: "types", args: []string{"types"}},
	{name: "text", args: []string{"text"}},
	{name: "tools-csv", args: []string{"tools", "--format", "csv"}},
	{name: "usage-json", args: []string{"usage", "--format", "json"}},
	{name: "ndjson-redact", args: []string{"all", "--format", "ndjson", "--redact"}},
	{name: "ndjson", args: []string{"all", "--format", "ndjson", "--no-redact"}},
	{name: "markdown", args: []string{"all", "--format", "markdown"}},
	{name: "markdown-no-redact", args: []string{"all", "--format", "markdown", "--no-redact"}},
	{name: "otlp", args: []string{"all", "--format", "otlp", "--no-redact"}},
	{name: "html", args: []string{"all", "--format", "html"}},
	{name: "usage-by-day", args: []string{"usage", "--by", "day", "--tz", "UTC", "--format", "json"}, transcripts: true},
	{name: "sessions", args: []string{"sessions", "--format", "json"}, transcripts: true},
}

// benchInput is the task's input and its size in bytes (a folder's: its
// .jsonl files'). The capture is 60-long-session (../shared/captures): a
// real 246-call session with three subagents, the shape of a real run (p50
// line 195 B, p99 34 KB); the transcripts are the same session's folder.
func benchInput(tb testing.TB, task benchTask) (string, int64) {
	path := "../../testdata/real/60-long-session.jsonl"
	if task.transcripts {
		path = "../../testdata/transcripts/60-long-session/home/.claude/projects"
	}
	var size int64
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (task.transcripts && !strings.HasSuffix(p, ".jsonl")) {
			return err
		}
		info, err := d.Info()
		size += info.Size()
		return err
	})
	require.NoError(tb, err)
	return path, size
}

// runTask runs the command once as main does, output to /dev/null (a file,
// as in the table's runs), and returns its exit code and stderr.
func runTask(tb testing.TB, task benchTask, input string, null *os.File) (int, string) {
	var errOut bytes.Buffer
	args := append(append([]string{}, task.args...), input)
	env := os.Environ()
	if task.name == "sessions" {
		// as the table runs it: no ~/.claude of the machine's own
		env = append(env, "HOME=/nonexistent")
	}
	return run(args, strings.NewReader(""), null, &errOut, env), errOut.String()
}

// BenchmarkTask times each task of the table on the real long session,
// reporting MB/s of input, so that a profile of one is one command:
//
//	go test -run '^$' -bench 'Task/final$' -cpuprofile cpu.prof ./cmd/ccfilter
//	go tool pprof -top cpu.prof
//
// make test compiles it and does not run it (-bench is not given).
func BenchmarkTask(b *testing.B) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(b, err)
	defer null.Close()
	for _, task := range benchTasks {
		b.Run(task.name, func(b *testing.B) {
			input, size := benchInput(b, task)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if code, stderr := runTask(b, task, input, null); code != 0 {
					b.Fatalf("ccfilter %s: exit %d: %s", strings.Join(task.args, " "), code, stderr)
				}
			}
		})
	}
}

// TestBenchTasksRunCleanly holds BenchmarkTask to timing the work and not a
// failure: every task succeeds on its real input (60-long-session, its
// capture and its transcript folder), says nothing on stderr and writes
// output, so a benchmark cannot quietly measure a usage error or an empty
// run (a flag renamed, a folder not found).
func TestBenchTasksRunCleanly(t *testing.T) {
	for _, task := range benchTasks {
		t.Run(task.name, func(t *testing.T) {
			input, size := benchInput(t, task)
			require.Positive(t, size)
			out, err := os.Create(filepath.Join(t.TempDir(), "out"))
			require.NoError(t, err)
			defer out.Close()
			code, stderr := runTask(t, task, input, out)
			assert.Equal(t, 0, code, stderr)
			assert.Empty(t, stderr)
			info, err := out.Stat()
			require.NoError(t, err)
			assert.Positive(t, info.Size(), "ccfilter %s wrote nothing", strings.Join(task.args, " "))
		})
	}
}
