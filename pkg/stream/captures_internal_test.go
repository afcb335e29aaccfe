package stream

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// captureFiles are the real captures (testdata/events), for the package's
// internal tests.
func captureFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return files
}

// eachCaptureEvent decodes the capture f and calls fn with each event; a
// line the decoder refuses is passed over.
func eachCaptureEvent(t *testing.T, f string, fn func(*Event)) {
	t.Helper()
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	eachEvent(t, NewDecoder(bytes.NewReader(b), DecoderOptions{Source: f}), fn)
}

// eachEvent calls fn with each event r reads, and closes r; a line it
// refuses is passed over (and any other error, which r would return
// again at every call, fails the test).
func eachEvent(t *testing.T, r Reader, fn func(*Event)) {
	t.Helper()
	defer r.Close()
	for {
		ev, err := r.Next()
		switch {
		case err == io.EOF:
			return
		case err == nil:
			fn(ev)
		case !IsLineError(err):
			require.NoError(t, err)
		}
	}
}
