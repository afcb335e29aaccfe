package stream_test

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/gen/realcorpus"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestShortLinesMemoryIsBounded streams files of a few hundred thousand
// short lines (the shape of real runs, which the generated benchmark
// stream never had) from a file, through the decoder as the command sets
// it up and the tracker, and asserts the heap stays under a fixed bound
// however many lines there are. The parallel reader this replaced grew its
// batches by 5/4 on every cycle on such input and ran out of memory: on
// this test, 2.2 GB of heap in use after 220,000 unanswered calls.
func TestShortLinesMemoryIsBounded(t *testing.T) {
	dir := t.TempDir()
	unanswered := filepath.Join(dir, "unanswered.jsonl")
	partial := filepath.Join(dir, "partial.jsonl")
	lines := 300_000
	if testing.Short() {
		lines = 100_000
	}
	write(t, unanswered, func(w io.Writer) error { return realcorpus.Unanswered(w, lines) })
	data, err := os.ReadFile("../../testdata/events/07-partial-messages.jsonl")
	require.NoError(t, err)
	write(t, partial, func(w io.Writer) error {
		_, err := realcorpus.Concat(w, []*realcorpus.Source{realcorpus.NewSource("07", data)}, int64(lines)*450)
		return err
	})

	tiny := filepath.Join(dir, "tiny.jsonl")
	write(t, tiny, func(w io.Writer) error {
		for range lines {
			if _, err := io.WriteString(w, "{\"type\":\"x\"}\n"); err != nil {
				return err
			}
		}
		return nil
	})
	// The plain Decoder, and the read-ahead NewReader picks for a file with
	// more than one CPU (its lines framed ahead, a table of them for each
	// buffer).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	readers := map[string]func(io.Reader, stream.DecoderOptions) stream.Reader{
		"decoder":    func(r io.Reader, o stream.DecoderOptions) stream.Reader { return stream.NewDecoder(r, o) },
		"read ahead": stream.NewReader,
	}
	for _, name := range []string{unanswered, partial, tiny} {
		for how, newReader := range readers {
			t.Run(filepath.Base(name)+" "+how, func(t *testing.T) {
				f, err := os.Open(name)
				require.NoError(t, err)
				defer f.Close()
				dec := newReader(f, stream.DecoderOptions{Source: name, Check: stream.CheckFraming})
				defer dec.Close()
				tr := stream.NewTracker(stream.TrackerOptions{})
				runtime.GC()
				var peak uint64
				var ms runtime.MemStats
				n := 0
				for ; ; n++ {
					ev, err := dec.Next()
					if err == io.EOF {
						break
					}
					require.NoError(t, err)
					tr.Observe(ev)
					if n%20_000 == 0 {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
						require.Less(t, peak, uint64(1<<30), "line %d: stop before the machine runs out", n)
					}
				}
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
				t.Logf("%d events, peak heap in use %.1f MiB", n, float64(peak)/(1<<20))
				require.Greater(t, n, lines-1)
				assert.Less(t, peak, uint64(48<<20), "heap in use stays bounded")
			})
		}
	}
}

func write(t *testing.T, name string, fill func(io.Writer) error) {
	t.Helper()
	f, err := os.Create(name)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	require.NoError(t, fill(w))
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// TestLongLineCostsItsSizeOnce proves that a long line is not copied or
// decoded whole where only a little of it is needed: the tracker keeps at
// most MaxTextBytes of a 20 MB text (it decoded all of it, twice), and the
// decoder lets go of its long line's buffer at the end of the input, so
// that what the consumer does after the last line does not come on top of
// it (final on a 110 MB result: three times its size, then two).
func TestLongLineCostsItsSizeOnce(t *testing.T) {
	text := strings.Repeat("word ", 4<<20) // 20 MiB
	in := `{"type":"assistant","message":{"model":"m","id":"msg_1","content":[{"type":"text","text":"` + text + `"}]},"parent_tool_use_id":null}` + "\n"
	dec := stream.NewDecoder(strings.NewReader(in), stream.DecoderOptions{Check: stream.CheckFraming})
	tr := stream.NewTracker(stream.TrackerOptions{MaxTextBytes: 1 << 20})
	ev, err := dec.Next()
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	tr.Observe(ev)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(len(text)), "the tracker decodes a prefix of the text, not all of it")

	_, err = dec.Next()
	require.Equal(t, io.EOF, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	// (The input, held by the reader, is the one copy of the line left.)
	assert.Less(t, after.HeapAlloc, uint64(len(in)+8<<20), "the line's buffer is let go at the end")
	runtime.KeepAlive(dec)
	runtime.KeepAlive(tr)
}
