package stream_test

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestSharedScratchSameEvents proves a Decoder that takes a read buffer
// and a long lines' Scratch from the one before it (as usage --by day's
// workers do, file after file) returns the same lines, numbers, offsets and errors
// as one with its own, on every real capture (testdata/events, with
// 19-big-tool-result's 3 MB lines where ../shared/captures has it) and
// every session transcript, read in turn, twice (the second time every
// long line finds a buffer of its size or larger left by the first).
func TestSharedScratchSameEvents(t *testing.T) {
	files := captures(t)
	more, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	big, _ := filepath.Glob("../../../shared/captures/19-*.jsonl")
	files = append(append(files, more...), big...)
	read := func(f string, o stream.DecoderOptions) []decoded {
		fh, err := os.Open(f)
		require.NoError(t, err)
		defer fh.Close()
		o.Source, o.Check = f, stream.CheckFraming
		return decodeAll(t, fh, o)
	}
	shared := stream.DecoderOptions{Buffer: bufio.NewReaderSize(nil, 64<<10), Scratch: &stream.Scratch{}}
	for range 2 {
		for _, f := range files {
			assert.Equal(t, read(f, stream.DecoderOptions{BufferSize: 64 << 10}), read(f, shared), f)
		}
	}
}
