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
	dec := NewDecoder(bytes.NewReader(b), DecoderOptions{Source: f})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			return
		}
		if err == nil {
			fn(ev)
		}
	}
}
