package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// capture is a real stream with subagents.
func capture(t *testing.T) []byte {
	data, err := os.ReadFile("../../testdata/events/05-subagents-async.jsonl")
	require.NoError(t, err)
	return data
}

// lines reads a source to the end and returns its events' bytes.
func lines(t *testing.T, src Source) []string {
	t.Helper()
	var out []string
	for {
		ev, err := src.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		out = append(out, string(ev.Raw))
	}
	require.NoError(t, src.Close())
	return out
}

// probe is a format for the tests: it recognises inputs whose first line
// begins with {"probe" and records the reader it is given.
func probe(got *io.Reader) Format {
	return Format{
		Kind:   "probe",
		Detect: func(head []byte) bool { return bytes.HasPrefix(head, []byte(`{"probe"`)) },
		Events: func(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
			*got = r
			return stream.NewDecoder(r, opts)
		},
	}
}

// TestOpenUndoesCompression proves a stream reads the same plain, gzip'd
// and zstd'd, from a file and from a pipe.
func TestOpenUndoesCompression(t *testing.T) {
	data := capture(t)
	var gz, zs bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(data)
	require.NoError(t, w.Close())
	zw, err := zstd.NewWriter(&zs)
	require.NoError(t, err)
	zw.Write(data)
	require.NoError(t, zw.Close())
	want := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	dir := t.TempDir()
	for name, b := range map[string][]byte{"plain": data, "gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, b, 0o644))
		f, err := os.Open(path)
		require.NoError(t, err)
		for how, r := range map[string]io.Reader{"file": f, "pipe": io.MultiReader(bytes.NewReader(b))} {
			in, err := Open(r, "", "")
			require.NoError(t, err, name)
			assert.Equal(t, Stream, in.Kind())
			src := in.Events(stream.DecoderOptions{})
			assert.Equal(t, Stream, src.Kind())
			assert.Equal(t, want, lines(t, src), "%s from a %s", name, how)
			in.Close()
		}
		f.Close()
	}
	_, err = Open(bytes.NewReader([]byte{0x1f, 0x8b, 'x', 'x'}), "", "")
	assert.ErrorContains(t, err, "gzip: ")
}

// TestDetectReadsTheFirstLineOnly proves that recognising a kind on a live
// pipe waits for the first line and no more, and that the kind's reader
// then sees every byte, the first line included.
func TestDetectReadsTheFirstLineOnly(t *testing.T) {
	var got io.Reader
	formats := []Format{probe(&got), streamFormat}
	pr, pw := io.Pipe()
	go pw.Write([]byte(`{"probe":1}` + "\n" + `{"type":"x"`))
	opened := make(chan *Input)
	go func() {
		in, err := open(pr, "", "", formats)
		assert.NoError(t, err)
		opened <- in
	}()
	var in *Input
	select {
	case in = <-opened:
	case <-time.After(30 * time.Second): // generous: a busy machine passes, a hang fails
		t.Fatal("Open waited for more than the first line")
	}
	require.Equal(t, Kind("probe"), in.Kind())
	go func() {
		pw.Write([]byte("}\n"))
		pw.Close()
	}()
	assert.Equal(t, []string{`{"probe":1}`, `{"type":"x"}`}, lines(t, in.Events(stream.DecoderOptions{})))

	// Another first line goes to the stream.
	in, err := open(strings.NewReader(`{"type":"system"}`+"\n"), "", "", formats)
	require.NoError(t, err)
	assert.Equal(t, Stream, in.Kind())
	// A head without a newline (a one-line input) is shown as it is.
	in, err = open(strings.NewReader(`{"probe":2}`), "", "", formats)
	require.NoError(t, err)
	assert.Equal(t, Kind("probe"), in.Kind())
	// Compressed, the head is the decompressed one.
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(`{"probe":3}` + "\n"))
	w.Close()
	in, err = open(&gz, "", "", formats)
	require.NoError(t, err)
	assert.Equal(t, Kind("probe"), in.Kind())
	assert.Equal(t, []string{`{"probe":3}`}, lines(t, in.Events(stream.DecoderOptions{})))
}

// TestOpenKeepsAFileAFile proves a file is handed to its kind's reader as
// the file itself, at its start, after its head was looked at (the stream
// reader reads a file ahead and looks into it for long lines), and that a
// kind asked for is taken without looking.
func TestOpenKeepsAFileAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"probe":1}`+"\n"+`{"type":"x"}`+"\n"), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var got io.Reader
	formats := []Format{probe(&got), streamFormat}
	in, err := open(f, "", "", formats)
	require.NoError(t, err)
	assert.Equal(t, []string{`{"probe":1}`, `{"type":"x"}`}, lines(t, in.Events(stream.DecoderOptions{})))
	assert.Same(t, f, got)

	f.Seek(0, io.SeekStart)
	in, err = open(f, "", Stream, formats)
	require.NoError(t, err)
	assert.Equal(t, Stream, in.Kind(), "asked for, the stream reads a probe's head")
	_, err = open(f, "", "nope", formats)
	assert.ErrorContains(t, err, `unknown input kind "nope"`)
}

// TestOpenDiagnoses proves what Open says of an input as a whole: JSON
// written over several lines is refused at once (ErrPrettyJSON), a blank
// input is Empty, and blank lines before a stream change nothing.
func TestOpenDiagnoses(t *testing.T) {
	_, err := Open(strings.NewReader("{\n  \"type\": \"system\"\n}\n"), "", "")
	assert.ErrorIs(t, err, ErrPrettyJSON)
	_, err = Open(strings.NewReader("\n\n  {\n"), "", "")
	assert.ErrorIs(t, err, ErrPrettyJSON)
	for _, blank := range []string{"", "\n", " \n\t\r\n"} {
		in, err := Open(strings.NewReader(blank), "", "")
		require.NoError(t, err)
		assert.True(t, in.Empty(), "%q", blank)
	}
	in, err := Open(strings.NewReader("\n\n"+`{"type":"system"}`+"\n"), "", "")
	require.NoError(t, err)
	assert.False(t, in.Empty())
	assert.Equal(t, []string{`{"type":"system"}`}, lines(t, in.Events(stream.DecoderOptions{})))
	// A JSON array, pretty or not, is the stream of --output-format json.
	in, err = Open(strings.NewReader("[\n  {\"type\": \"result\"}\n]\n"), "", "")
	require.NoError(t, err)
	assert.Equal(t, Stream, in.Kind())
}
