package stream

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCutBlockMembersStayWithTheirBatch proves that the members of each
// line lie in its own batch's array (batch.members): a block longer than
// batchLines goes on in continuation batches, and Next recycles a batch,
// whose array the next block then fills, before it reads the continuation.
// Here that order is forced, and every event's members must still be its
// own.
func TestCutBlockMembersStayWithTheirBatch(t *testing.T) {
	p := &pipeline{free: make(chan *batch, 16), buffers: make(chan []byte, 4), quit: make(chan struct{}),
		bigToken: make(chan struct{}, 1), spare: make(chan []byte, 1), blocks: true}
	opts := &DecoderOptions{Source: "t", Check: CheckFraming, MaxLineBytes: 1 << 20}
	block := func(from int) []byte {
		var sb strings.Builder
		for n := from; n < from+2*batchLines+100; n++ {
			fmt.Fprintf(&sb, `{"type":"system","subtype":"status","n":%d,"pad":"%s"}`+"\n", n, strings.Repeat("x", n%7))
		}
		return []byte(sb.String())
	}
	// cut returns the batches a block is cut into, in order.
	cut := func(data []byte) []*batch {
		b := p.batch()
		b.block = data
		go p.cutBlock(b, opts)
		<-b.done
		all := []*batch{b}
		if b.cont != nil {
			for c := range b.cont {
				all = append(all, c)
			}
		}
		return all
	}
	check := func(batches []*batch, from, end int) {
		n := from
		for _, b := range batches {
			for i := range b.items {
				it := &b.items[i]
				require.NoError(t, it.err)
				require.Equal(t, int64(n), it.ev.Int("n"), "the event of line %d", n-from+1)
				n++
			}
		}
		require.Equal(t, end, n)
	}
	// Twice, so that the batches have their members arrays (a batch's
	// first lines get an index each; recycle makes the room).
	for range 2 {
		first := cut(block(0))
		check(first, 0, 2*batchLines+100)
		for _, b := range first {
			p.recycle(b)
		}
	}
	second := cut(block(0))
	require.Greater(t, len(second), 2)
	for len(p.free) > 0 {
		<-p.free
	}
	// Next has read the first batch and recycles it; the next block is cut
	// into it before the continuations are read.
	p.recycle(second[0])
	third := cut(block(1_000_000))
	require.Same(t, second[0], third[0], "the recycled batch is reused")
	check(third, 1_000_000, 1_000_000+2*batchLines+100)
	check(second[1:], batchLines, 2*batchLines+100)
}

// TestReaderHoldsAtMostTwoBuffers proves that a Parallel decoder reading a
// pipe makes no more than readBuffers read buffers however far its
// consumer lags (a consumer that pauses lets the reader run ahead, which
// made a third buffer), and that waiting for one loses and reorders
// nothing: the same events as a serial decoder, with Prepare (lines cut on
// the reader) and without (blocks cut on the workers), and with long lines
// passed over.
func TestReaderHoldsAtMostTwoBuffers(t *testing.T) {
	var sb strings.Builder
	for i := range 20000 {
		switch i % 211 {
		case 7:
			fmt.Fprintf(&sb, `{"type":"user","x":"%s"}`+"\n", strings.Repeat("y", 9000+i)) // longer than a buffer
		default:
			fmt.Fprintf(&sb, `{"type":"e","i":%d,"pad":"%s"}`+"\n", i, strings.Repeat("p", i%900))
		}
	}
	in := sb.String()
	type line struct {
		n   int64
		raw string
	}
	read := func(opts DecoderOptions, pause bool) ([]line, *pipeline) {
		d := NewDecoder(struct{ io.Reader }{strings.NewReader(in)}, opts)
		var got []line
		for n := 0; ; n++ {
			ev, err := d.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			got = append(got, line{ev.Line, string(ev.Raw)})
			if pause && n%500 == 0 {
				time.Sleep(2 * time.Millisecond) // the reader runs ahead
			}
		}
		return got, d.pipe
	}
	base := DecoderOptions{Check: CheckFraming, BufferSize: 8192}
	want, _ := read(base, false)
	for name, opts := range map[string]DecoderOptions{
		"blocks":    {Check: CheckFraming, BufferSize: 8192, Parallel: true, Workers: 2},
		"prepare":   {Check: CheckFraming, BufferSize: 8192, Parallel: true, Workers: 2, Prepare: func(*Event) error { return nil }},
		"skip long": {Check: CheckFraming, BufferSize: 8192, Parallel: true, Workers: 2, SkipLong: func(Kind) bool { return true }},
	} {
		t.Run(name, func(t *testing.T) {
			got, p := read(opts, true)
			if opts.SkipLong == nil {
				require.Equal(t, want, got)
			} else {
				require.Equal(t, len(want), len(got), "a line passed over is still an event")
			}
			require.LessOrEqual(t, p.readBuffers, readBuffers, "read buffers made")
		})
	}
}

// TestPipelineBuffer proves buffer's bookkeeping: it waits for a buffer
// given back when the reader has readBuffers of them and may wait, makes
// one when it may not, and a pooled buffer of the wrong size (the reader
// wants one the size of a long line's) is let go and no longer counted, so
// that a later wait does not wait for a buffer that will never come back.
func TestPipelineBuffer(t *testing.T) {
	const size = 4096
	p := &pipeline{buffers: make(chan []byte, readBuffers), quit: make(chan struct{}), bufferSize: size, readBuffers: readBuffers}
	back := make([]byte, size)
	go func() {
		time.Sleep(20 * time.Millisecond)
		p.buffers <- back
	}()
	got := p.buffer(size, true)
	require.Same(t, &back[0], &got[0], "the buffer given back")
	require.Equal(t, readBuffers, p.readBuffers)

	got = p.buffer(size, false)
	require.Len(t, got, size)
	require.Equal(t, readBuffers+1, p.readBuffers, "made when it may not wait")

	p.readBuffers = readBuffers
	p.buffers <- back
	got = p.buffer(3*size, true)
	require.Len(t, got, 3*size)
	require.Equal(t, readBuffers-1, p.readBuffers, "the pooled one let go")
	got = p.buffer(size, true) // fewer than readBuffers now: made, not waited for
	require.Len(t, got, size)
	require.Equal(t, readBuffers, p.readBuffers)
}
