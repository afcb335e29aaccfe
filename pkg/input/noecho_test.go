package input_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestNoEchoChangesNoEventButTheLinesKept proves DecoderOptions.NoEcho
// (a run that prints no event's own lines) changes none of the events a
// Gemini CLI stream's reader makes, on every real capture: the same
// events, bytes and kinds, in the same order; only the lines a turn's
// text event stands for (its pieces', which NDJSON prints) are not kept.
func TestNoEchoChangesNoEventButTheLinesKept(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/gemini/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	read := func(path string, noEcho bool) (raws []string, echoed int) {
		f, err := os.Open(path)
		require.NoError(t, err)
		defer f.Close()
		in, err := input.Open(f, path, "")
		require.NoError(t, err)
		events := in.Events(stream.DecoderOptions{Source: path, NoEcho: noEcho})
		defer events.Close()
		for {
			ev, err := events.Next()
			if err == io.EOF {
				return raws, echoed
			}
			if err != nil {
				raws = append(raws, "error: "+err.Error())
				continue
			}
			raws = append(raws, ev.Kind.String()+" "+string(ev.Raw))
			if b, ok := ev.Echo(); ok && ev.Kind == stream.KindText {
				echoed += len(b)
			}
		}
	}
	kept := 0
	for _, path := range files {
		if filepath.Base(path) == "15-json-output.jsonl" {
			continue // (one JSON document, refused)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			with, echoed := read(path, false)
			without, none := read(path, true)
			assert.Equal(t, with, without, "the same events")
			assert.Zero(t, none, "no piece line kept")
			kept += echoed
		})
	}
	assert.Positive(t, kept, "the text events echo their pieces' lines when they are printed")
}
