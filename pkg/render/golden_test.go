package render

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the renderers' output")

const goldenDir = "../../testdata/golden"

func captureFiles(t testing.TB) []string {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 42, "every capture is in testdata/events")
	return files
}

func captureName(f string) string { return strings.TrimSuffix(filepath.Base(f), ".jsonl") }

// goldenOptions are the options the goldens are rendered with: no color,
// 100 columns.
func goldenOptions(tr *stream.Tracker) Options {
	return Options{Width: 100, Tracker: tr}
}

// drive mimics the command: every event goes through the Tracker; for the
// all preset each event is rendered with the calls it completes, for the
// tools preset only the completed calls are; Close gets the open calls.
func drive(t testing.TB, f Format, input []byte, tools bool, w io.Writer) {
	tr := stream.NewTracker(stream.TrackerOptions{})
	o := goldenOptions(tr)
	o.ToolCalls = tools
	r, err := New(f, w, o)
	require.NoError(t, err)
	observeEach(t, input, tr, func(ev *stream.Event, done []*stream.ToolCall) {
		switch {
		case !tools:
			require.NoError(t, r.Render(Record{Event: ev, Calls: done}))
		case len(done) > 0:
			require.NoError(t, r.Render(Record{Calls: done}))
		}
	})
	require.NoError(t, r.Close(tr.OpenCalls()))
}

// observeEach reads a capture's events, each observed by tr, and calls fn
// with each and the calls it completes, as the command does.
func observeEach(t testing.TB, input []byte, tr *stream.Tracker, fn func(ev *stream.Event, done []*stream.ToolCall)) {
	dec := stream.NewDecoder(bytes.NewReader(input), stream.DecoderOptions{Source: "capture"})
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		fn(ev, tr.Observe(ev))
	}
}

// goldenGzip is the size above which a golden file is stored gzipped (as
// NAME.txt.gz; the comparison is on the uncompressed bytes): the 7 MB
// capture 19 would otherwise put tens of MB of goldens in the repository.
const goldenGzip = 1 << 20

func writeGolden(t *testing.T, path string, b []byte) {
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	os.Remove(path)
	os.Remove(path + ".gz")
	if len(b) <= goldenGzip {
		require.NoError(t, os.WriteFile(path, b, 0o644))
		return
	}
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(path+".gz", z.Bytes(), 0o644))
}

func readGolden(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err == nil {
		return b
	}
	z, err := os.ReadFile(path + ".gz")
	require.NoError(t, err, "missing golden file %s: run go test ./pkg/render -update", path)
	zr, err := gzip.NewReader(bytes.NewReader(z))
	require.NoError(t, err)
	b, err = io.ReadAll(zr)
	require.NoError(t, err)
	return b
}

// htmlGoldens are the captures whose HTML pages are kept as goldens (a
// page carries its style and script: a few reviewed pages say enough; the
// browser test opens every capture's).
var htmlGoldens = map[string]bool{"02-write-read": true, "05-subagents-async": true, "08-thinking": true, "20-unicode-ansi": true, "25-tool-errors": true}

// TestGolden proves that every format renders every real capture, for the
// all preset and for the tools preset, exactly as the reviewed golden file
// says (go test ./pkg/render -update rewrites them).
func TestGolden(t *testing.T) {
	for _, file := range captureFiles(t) {
		input, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, f := range Formats {
			for _, tools := range []bool{false, true} {
				dir := string(f)
				if tools {
					dir += "-tools"
				}
				name := captureName(file)
				if (f == HTML || f == OTLP) && !htmlGoldens[name] || f == OTLP && tools {
					continue // (the trace is the all preset's: TestOTLPTraceOfEveryRun checks every capture's)
				}
				t.Run(dir+"/"+name, func(t *testing.T) {
					var got bytes.Buffer
					drive(t, f, input, tools, &got)
					path := filepath.Join(goldenDir, dir, name+".txt")
					if *update {
						writeGolden(t, path, got.Bytes())
						return
					}
					want := readGolden(t, path)
					if !bytes.Equal(want, got.Bytes()) {
						require.Equal(t, string(want), got.String(), "output differs from %s", path)
					}
				})
			}
		}
	}
}
