package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/preset"
)

// identEnv is the whole environment the runs of these tests see: no
// variable of the machine's (a TRACEPARENT, a TZ) reaches them.
var identEnv = []string{"NO_COLOR=1", "TZ=UTC"}

// runStdin runs ccfilter with stdin (a pipe, a file) and identEnv.
func runStdin(t *testing.T, stdin *os.File, args ...string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runWith(&options{presets: preset.Builtin()}, args, stdin, &stdout, &stderr, identEnv)
	return runResult{stdout.String(), stderr.String(), code}
}

// pipeOf is a pipe that carries b, as `cat FILE | ccfilter` gives it.
func pipeOf(t *testing.T, b []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	go func() {
		w.Write(b)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

// gzipCopy writes a .gz of the transcript or capture at path into dir,
// with its session folder beside it (a symlink), as a user compresses one
// in place.
func gzipCopy(t *testing.T, path, dir string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	gz := filepath.Join(dir, filepath.Base(path)+".gz")
	require.NoError(t, os.WriteFile(gz, z.Bytes(), 0o644))
	if folder := strings.TrimSuffix(path, ".jsonl"); isDir(folder) {
		abs, err := filepath.Abs(folder)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(abs, strings.TrimSuffix(strings.TrimSuffix(gz, ".gz"), ".jsonl")))
	}
	return gz
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// TestOneTracePerRunWhateverTheInputPath proves a run is one trace: every
// real capture (testdata/events) and transcript (testdata/transcripts)
// gives byte for byte the same OTLP/JSON (trace and span ids, names,
// times) read as a file, as ./path, by its absolute path, as a .gz, from
// stdin as a file, from a pipe (`cat FILE | ccfilter -F otlp`, whose root
// span lasted 303,086 s on 04-parallel-tools: its undated init took the
// clock's time), and, for a capture whose run ends, with -f. A transcript
// with a session folder is not compared from stdin, which cannot find its
// subagents (and says so).
func TestOneTracePerRunWhateverTheInputPath(t *testing.T) {
	captures, _ := filepath.Glob("../../testdata/events/*.jsonl")
	transcripts, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NotEmpty(t, captures)
	require.NotEmpty(t, transcripts)
	for _, path := range append(captures, transcripts...) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			abs, err := filepath.Abs(path)
			require.NoError(t, err)
			want := runStdin(t, nil, "-F", "otlp", path)
			if want.Code == exitNoResult && want.Stdout == "" {
				return // an empty capture: no run, no trace
			}
			require.Contains(t, []int{0, 1}, want.Code, want.Stderr)
			ways := map[string]func() runResult{
				"./path":   func() runResult { return runStdin(t, nil, "-F", "otlp", "./"+path) },
				"absolute": func() runResult { return runStdin(t, nil, "-F", "otlp", abs) },
				".gz":      func() runResult { return runStdin(t, nil, "-F", "otlp", gzipCopy(t, path, t.TempDir())) },
			}
			if !isDir(strings.TrimSuffix(path, ".jsonl")) {
				ways["pipe"] = func() runResult { return runStdin(t, pipeOf(t, b), "-F", "otlp") }
				ways["stdin file"] = func() runResult {
					f, err := os.Open(path)
					require.NoError(t, err)
					defer f.Close()
					return runStdin(t, f, "all", "-F", "otlp", "-")
				}
			}
			if !strings.Contains(path, "/transcripts/") && bytes.Contains(b, []byte(`{"type":"result"`)) {
				// A followed file ends at its result and a grace period.
				ways["-f"] = func() runResult {
					return runStdin(t, nil, "-F", "otlp", "-f", "--follow-grace", "1ms", path)
				}
			}
			for way, run := range ways {
				got := run()
				assert.Equal(t, want.Code, got.Code, "%s: %s", way, got.Stderr)
				sameTrace(t, way, want.Stdout, got.Stdout)
			}
		})
	}
}

// TestPipedRunKeepsItsRecordedTimes proves the root span of a run read
// from a pipe spans its records' times: 04-parallel-tools' 862 ms (its
// result's duration_ms), its undated init at its first record's time,
// not the time it was read.
func TestPipedRunKeepsItsRecordedTimes(t *testing.T) {
	path := "../../testdata/events/04-parallel-tools.jsonl"
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		run  func() runResult
	}{
		{"file", func() runResult { return runStdin(t, nil, "-F", "otlp", path) }},
		{"pipe", func() runResult { return runStdin(t, pipeOf(t, b), "-F", "otlp") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run()
			require.Equal(t, 0, r.Code, r.Stderr)
			for _, s := range otlpSpans(t, r.Stdout) {
				if s.Parent != "" {
					continue
				}
				start, end := s.times()
				first, err := time.Parse(time.RFC3339Nano, "2026-12-02T13:20:39.017Z") // its first dated record
				require.NoError(t, err)
				assert.Equal(t, uint64(first.UnixNano()), start, "the run starts at its first record")
				assert.Equal(t, 862*time.Millisecond, time.Duration(end-start), "the run lasts its result's duration_ms")
				assert.Equal(t, "recorded", s.str("claude_code.times"))
			}
		})
	}
}

// sameTrace asserts got is the trace want is: the same spans, each byte
// for byte (ids, names, times, attributes, events), in the same order,
// under the same resource and scope. How they are cut into requests may
// differ: a live pipe's are sent as the run goes.
func sameTrace(t *testing.T, way, want, got string) {
	t.Helper()
	w, g := rawSpans(t, want), rawSpans(t, got)
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			assert.Equal(t, w[i], g[i], "%s: span %d as the file's", way, i)
			return
		}
	}
	assert.Len(t, g, len(w), "%s: the file's spans", way)
}

// rawSpans are the spans of OTLP/JSON lines, each with its resource and
// scope, as JSON text.
func rawSpans(t *testing.T, out string) []string {
	t.Helper()
	var spans []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var req struct {
			ResourceSpans []struct {
				Resource   json.RawMessage `json:"resource"`
				ScopeSpans []struct {
					Scope json.RawMessage   `json:"scope"`
					Spans []json.RawMessage `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req), "each line one ExportTraceServiceRequest")
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					spans = append(spans, string(rs.Resource)+string(ss.Scope)+string(sp))
				}
			}
		}
	}
	return spans
}
