package stream_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// countingFile is a file that counts the bytes read from it, either way.
type countingFile struct {
	*os.File
	n int64
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.n += int64(n)
	return n, err
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.n += int64(n)
	return n, err
}

// TestLongLinesReadOnce proves a Decoder reads a long line's bytes from
// a file once when its Scratch has room for the line (a worker's, after
// an earlier file's long line), not once to find its end and again to
// keep it: on testdata/events/02-write-read.jsonl with each tool result
// made 3 MB long (as 19-big-tool-result's are), the second read of it
// takes less than 1.1 times the file's size from the file, and the same
// events as a Decoder of its own. Bytes read, not time: the same on a busy
// machine.
func TestLongLinesReadOnce(t *testing.T) {
	b, err := os.ReadFile("../../testdata/events/02-write-read.jsonl")
	require.NoError(t, err)
	const key = `"type":"tool_result","content":"`
	big := bytes.ReplaceAll(b, []byte(key), []byte(key+strings.Repeat("x", 3<<20)))
	require.Greater(t, len(big), 2*3<<20, "two tool results or more, made long")
	path := filepath.Join(t.TempDir(), "02-write-read-long.jsonl")
	require.NoError(t, os.WriteFile(path, big, 0o600))

	shared := stream.DecoderOptions{Buffer: bufio.NewReaderSize(nil, 1<<20), Scratch: &stream.Scratch{}, Check: stream.CheckFraming}
	read := func(o stream.DecoderOptions) ([]decoded, int64) {
		fh, err := os.Open(path)
		require.NoError(t, err)
		defer fh.Close()
		cf := &countingFile{File: fh}
		return decodeAll(t, cf, o), cf.n
	}
	want, _ := read(stream.DecoderOptions{Check: stream.CheckFraming})
	read(shared)
	got, n := read(shared)
	assert.Equal(t, want, got)
	t.Logf("%d bytes read of a file of %d", n, len(big))
	assert.Less(t, float64(n), 1.1*float64(len(big)))
}
