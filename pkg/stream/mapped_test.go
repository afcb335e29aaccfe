package stream_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// writeTemp writes data to a new file in a test's temporary directory.
func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

// decodeFile decodes the file at path from offset from with a Parallel
// decoder that maps it.
func decodeFile(t *testing.T, path string, from int64, opts stream.DecoderOptions) []decoded {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Seek(from, io.SeekStart)
	require.NoError(t, err)
	opts.Parallel, opts.MapFiles = true, true
	return decodeAll(t, f, stream.WithMapMin(opts, 1))
}

// TestMappedMatchesSerial proves that reading a file through a mapping
// (DecoderOptions.MapFiles) returns exactly what a serial decoder returns
// from the same bytes: events, line numbers, offsets, kinds and bytes, and
// the line errors, on all captures and on cut, glued, BOM, CRLF and
// blank-line variants, with lines longer than the read size (handed whole),
// lines over MaxLineBytes (read past, as without a mapping), no final
// newline, and a decoder that starts in the middle of the file. With
// SkipLong the mapped decoder still hands long lines whole, as a serial
// decoder without it does.
func TestMappedMatchesSerial(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "freebsd" {
		t.Skip("files are not mapped on " + runtime.GOOS)
	}
	all := allCaptures(t)
	long := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat(`ab\n`, 30000) + `"}]}}`
	var blank bytes.Buffer
	for i, line := range bytes.Split(all, []byte("\n")) {
		switch i % 7 {
		case 1:
			blank.WriteString("\n")
		case 2:
			blank.WriteString("  ")
			line = append(line, '\r')
		}
		blank.Write(line)
		blank.WriteString("\n")
	}
	inputs := map[string][]byte{
		"captures":         all,
		"cut":              append(append([]byte{}, all[:len(all)/2]...), all[len(all)/2+1000:]...),
		"glued":            bytes.Replace(all, []byte("}\n{"), []byte("}{"), 7),
		"bom":              append([]byte("\xEF\xBB\xBF"), all...),
		"blank and crlf":   blank.Bytes(),
		"no final newline": all[:len(all)-1],
		"long lines":       []byte(strings.Join([]string{`{"type":"a"}`, long, `{"type":"b"}`, long, long[:len(long)/2], `{"type":"c"}`, long}, "\n")),
	}
	for name, in := range inputs {
		path := writeTemp(t, "in.jsonl", in)
		for _, o := range []stream.DecoderOptions{
			{Check: stream.CheckFraming},
			{Check: stream.CheckAll},
			{Check: stream.CheckFraming, BufferSize: 4096},
			{Check: stream.CheckFraming, BufferSize: 4096, MaxLineBytes: 50000},
			{Check: stream.CheckFraming, ToolResults: true},
			// With Prepare the reader cuts the lines (their numbers must be
			// final on the workers).
			{Check: stream.CheckFraming, Prepare: func(e *stream.Event) error { return e.ValidateValue() }},
			{Check: stream.CheckFraming, BufferSize: 4096, MaxLineBytes: 50000, Prepare: func(e *stream.Event) error { return e.Validate() }},
		} {
			t.Run(fmt.Sprintf("%s/check=%d/buf=%d/max=%d/prepare=%t", name, o.Check, o.BufferSize, o.MaxLineBytes, o.Prepare != nil), func(t *testing.T) {
				want := decodeAll(t, bytes.NewReader(in), o)
				assert.Equal(t, want, decodeFile(t, path, 0, o), "from the start")
				skip := o
				skip.SkipLong = func(stream.Kind) bool { return true }
				if o.Check != stream.CheckAll {
					g := decodeFile(t, path, 0, skip)
					firstDiff(t, want, g)
					assert.Equal(t, want, g, "with SkipLong")
				}
				// From a line in the middle: offsets count from there.
				mid := bytes.IndexByte(in[len(in)/2:], '\n')
				if mid >= 0 {
					from := int64(len(in)/2 + mid + 1)
					o := o
					o.MaxLineBytes = 0 // (the serial decoder reports no cut BOM here)
					assert.Equal(t, decodeAll(t, bytes.NewReader(in[from:]), o), decodeFile(t, path, from, o), "from the middle")
				}
			})
		}
	}
}

// TestMappedFileGrows proves that what lies past the mapped part of a
// file (lines appended after it was mapped, here made by mapping less of
// it) is read on with read calls, from a line boundary or from the middle
// of a line, with the same events, line numbers, offsets and errors.
func TestMappedFileGrows(t *testing.T) {
	all := allCaptures(t)
	path := writeTemp(t, "grows.jsonl", all)
	want := decodeAll(t, bytes.NewReader(all), stream.DecoderOptions{Check: stream.CheckFraming})
	lineEnd := bytes.IndexByte(all[len(all)/3:], '\n') + len(all)/3 + 1
	for _, size := range []int{1, 100, lineEnd, lineEnd + 1, len(all) / 2, len(all) - 1} {
		o := stream.WithMapMax(stream.DecoderOptions{Check: stream.CheckFraming}, size)
		got := decodeFile(t, path, 0, o)
		firstDiff(t, want, got)
		assert.Equal(t, want, got, "mapped %d bytes of %d", size, len(all))
	}
}

// TestMappedFileShrinks proves that a file cut short while a mapping
// decoder reads it ends the stream with an error that says so, or with all
// its events when they were read before the cut, and never crashes the
// process (the pages past the new end fault).
func TestMappedFileShrinks(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fault of a cut mapping is checked on Linux")
	}
	all := bytes.Repeat(allCaptures(t), 4)
	faults := 0
	defer func() { t.Logf("%d runs of 20 ended with the fault", faults) }()
	for range 20 {
		path := writeTemp(t, "shrinks.jsonl", all)
		f, err := os.Open(path)
		require.NoError(t, err)
		dec := stream.NewDecoder(f, stream.WithMapMin(stream.DecoderOptions{Check: stream.CheckFraming, Parallel: true, MapFiles: true}, 1))
		_, err = dec.Next()
		require.NoError(t, err)
		require.NoError(t, os.Truncate(path, int64(len(all)/3)))
		var last error
		func() {
			// The consumer reads no event's bytes here: those past the cut
			// fault for it too (see MapFiles).
			old := debug.SetPanicOnFault(true)
			defer debug.SetPanicOnFault(old)
			for {
				if _, err := dec.Next(); err != nil && !stream.IsLineError(err) {
					last = err
					return
				}
			}
		}()
		if last != io.EOF {
			assert.ErrorContains(t, last, "shrank while it was being read")
			faults++
		}
		assert.False(t, errors.Is(last, stream.ErrClosed))
		dec.Close()
		f.Close()
	}
}

// firstDiff logs the first item where two decodings part, which the
// diff of two long slices buries.
func firstDiff(t *testing.T, want, got []decoded) {
	t.Helper()
	if len(want) != len(got) {
		t.Logf("len want %d got %d", len(want), len(got))
	}
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			w, g := want[i], got[i]
			t.Logf("at %d: want line %d off %d kind %s raw %.80q err %q", i, w.Line, w.Offset, w.Kind, w.Raw, w.Err)
			t.Logf("at %d: got  line %d off %d kind %s raw %.80q err %q", i, g.Line, g.Offset, g.Kind, g.Raw, g.Err)
			return
		}
	}
}
