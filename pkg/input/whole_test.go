package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestEachRecordCheckedWholeSameAsDecoder proves that reading a
// transcript whole and cutting it where it lies (the one rule: a regular
// file, not compressed, of at most wholeFile bytes) hands the caller what
// the Decoder reading it hands (every record's line, offset, kind and
// bytes; every line the Line hook sees; the bad lines' errors, each with
// its number), with the Want of usage --by day and of sessions, through a
// worker's shared buffers from file to file. On every real session
// transcript and subagent file (testdata/transcripts), and on copies of
// them made hostile: CRLF line ends, cut lines, bad escapes, a line of
// 3 MB (past the read buffer), duplicated message ids across files (a
// second copy of one session), and gzip (read by the Decoder both ways).
func TestEachRecordCheckedWholeSameAsDecoder(t *testing.T) {
	files := realTranscriptFiles(t)
	dir := t.TempDir()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		files = append(files, p)
	}
	src, err := os.ReadFile(files[0])
	require.NoError(t, err)
	write("crlf.jsonl", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
	write("cut.jsonl", append(bytes.Clone(src[:len(src)/2]), src[len(src)/2+333:len(src)-40]...))
	write("escapes.jsonl", bytes.ReplaceAll(src, []byte(`\"`), []byte(`\x`)))
	write("copy.jsonl", src)
	huge := `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"` + strings.Repeat(`ab\n`, 1<<20) + `"}]}}` + "\n"
	write("huge.jsonl", append(append([]byte(huge), src...), huge[:len(huge)/2]...))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(src)
	require.NoError(t, zw.Close())
	write("z.jsonl.gz", gz.Bytes())

	type seen struct {
		Records, Lines, Bad []string
	}
	read := func(f string, want func([]byte) bool, buf *bufio.Reader, scratch *stream.Scratch) seen {
		var s seen
		w := func(l []byte) bool {
			s.Lines = append(s.Lines, string(l))
			return want(l)
		}
		bad, err := EachRecordChecked(f, stream.DecoderOptions{Check: stream.CheckFraming, Want: w, Buffer: buf, Scratch: scratch}, func(ev *stream.Event) {
			s.Records = append(s.Records, strings.Join([]string{ev.Source, ev.Kind.String(), string(ev.Raw)}, " ")+
				" "+strings.Repeat("+", int(ev.Line))+" "+strings.Repeat("-", int(ev.Offset%997)))
		})
		require.NoError(t, err, f)
		for _, b := range bad {
			s.Bad = append(s.Bad, b.Error())
		}
		return s
	}
	usage := func(l []byte) bool {
		t, _ := DeclaredType(l)
		return Unsure(l) || string(t) == "assistant" || string(t) == "cost-state"
	}
	buf, scratch := bufio.NewReaderSize(nil, 1<<20), &stream.Scratch{}
	hostile := 0
	for _, f := range files {
		for name, want := range map[string]func([]byte) bool{"usage": usage, "sessions": listed} {
			defer func(n int64) { wholeFile = n }(wholeFile)
			wholeFile = -1 // the Decoder: the reference
			plain := read(f, want, nil, nil)
			wholeFile = 16 << 20
			fast := read(f, want, buf, scratch)
			assert.Equal(t, plain, fast, "%s, %s's lines", f, name)
			if len(plain.Bad) > 0 {
				hostile++
			}
		}
	}
	assert.Positive(t, hostile, "the hostile copies have bad lines that both report")
}
