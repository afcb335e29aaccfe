package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFloorDoesWhatItSays proves the floor reads and picks what it
// claims, so that its time is a floor of that work and not of less: on
// every real transcript here, one cut short inside a long line and one
// written with CRLF, with pieces of 4 KiB to 256 KiB (lines spanning
// pieces, passed over or kept), it counts every line, picks the lines
// the account picks of the lines the Decoder trims, and checks the
// framing of each (a line cut short among them is counted bad, as is a
// passed-over one whose last byte but blanks is no '}').
func TestFloorDoesWhatItSays(t *testing.T) {
	var files []string
	for _, p := range []string{"../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl", "../../../shared/transcripts/*/home/.claude/projects/*/*.jsonl"} {
		m, _ := filepath.Glob(p)
		files = append(files, m...)
	}
	require.Greater(t, len(files), 15)
	dir := t.TempDir()
	// (a session cut short inside a long line, as a crash leaves it)
	long := filepath.Join(dir, "cut.jsonl")
	var longest []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(l) > len(longest) {
				longest = l
			}
		}
	}
	require.NoError(t, os.WriteFile(long, append(append([]byte(nil), longest...), append([]byte("\n"), longest[:len(longest)/2]...)...), 0o600))
	files = append(files, long)
	// (and a session written with CRLF, a blank line in it: picked as
	// the Decoder, which trims each line, has the account pick it)
	crlf := filepath.Join(dir, "crlf.jsonl")
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	b = append(append(append(b, longest...), '\n'), b...) // (a long line passed over among them)
	require.NoError(t, os.WriteFile(crlf, bytes.ReplaceAll(append([]byte("\n"), b...), []byte("\n"), []byte("\r\n")), 0o600))
	files = append(files, crlf)
	var want counts
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		want.files++
		for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
			want.lines++
			if l = bytes.Trim(l, " \t\r"); len(l) > 0 && spend.Wanted(l) {
				want.picked++
				want.pickedBytes += len(l)
				if jsonx.ValidateFraming(l) != nil {
					want.bad++
				}
			}
		}
	}
	require.Greater(t, want.bad, 0, "the cut line is bad")
	for _, piece := range []int{4 << 10, 64 << 10, 256 << 10} {
		w := &worker{level: 2, piece: make([]byte, piece)}
		for _, f := range files {
			w.file(f)
		}
		got := w.c
		assert.Positive(t, got.longSkipped, "piece %d: long lines passed over", piece)
		got.longSkipped = 0
		assert.Equal(t, want, got, "piece %d", piece)
	}
}
