package readahead

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameBytesAndError proves a Reader returns exactly the bytes of the
// reader under it, then its error, whatever the sizes of the reads on
// either side: reads of one byte, half reads, an error with the last
// bytes, a timeout in the middle (passed on, as the reader under it
// returned it), and buffers smaller and larger than the consumer's reads.
func TestSameBytesAndError(t *testing.T) {
	data := randomBytes(300_000, 1)
	for name, src := range sources(data) {
		for _, size := range []int{1, 7, 4096, 1 << 20} {
			got, err := readAll(New(src(), size, 2), 1000)
			assert.Equal(t, data, got, "%s, buffers of %d", name, size)
			if name == "error" {
				assert.ErrorIs(t, err, boom, name)
			} else {
				assert.NoError(t, err, name)
			}
		}
	}
	// The standard checks of a reader (reads of every size, at EOF).
	require.NoError(t, iotest.TestReader(New(bytes.NewReader(data), 4096, 3), data))
	// A timeout in the middle is passed on where it happened.
	got, err := readAll(New(iotest.TimeoutReader(bytes.NewReader(data)), 1<<16, 2), 1<<16)
	assert.ErrorIs(t, err, iotest.ErrTimeout)
	assert.Equal(t, data[:1<<16], got)
}

// boom is the error the "error" source ends with.
var boom = errors.New("disk on fire")

// randomBytes is n random bytes, the same for the same seed.
func randomBytes(n int, seed uint64) []byte {
	data := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := range data {
		data[i] = byte(r.IntN(256))
	}
	return data
}

// sources are the readers of data the tests read ahead: whole, a byte at
// a time, half reads, the last bytes with io.EOF, and data then an error
// (boom).
func sources(data []byte) map[string]func() io.Reader {
	return map[string]func() io.Reader{
		"plain":    func() io.Reader { return bytes.NewReader(data) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(data)) },
		"error":    func() io.Reader { return io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom)) },
	}
}

// readAll reads in reads of n bytes until an error; io.EOF is nil.
func readAll(r io.Reader, n int) ([]byte, error) {
	var out []byte
	buf := make([]byte, n)
	for {
		k, err := r.Read(buf)
		out = append(out, buf[:k]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// TestCloseEndsTheGoroutine proves Close, before the end of the input, lets
// the reading goroutine end (it would otherwise wait for a free buffer
// forever): the goroutine count comes back.
func TestCloseEndsTheGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 50 {
		ra := New(bytes.NewReader(make([]byte, 1<<20)), 1024, 2)
		buf := make([]byte, 10)
		_, err := ra.Read(buf)
		require.NoError(t, err)
		require.NoError(t, ra.Close())
		require.NoError(t, ra.Close(), "twice is fine")
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before)
}

// TestWatchSeesEachBufferBeforeItsConsumer proves NewWatched's watch is
// given every byte of the input, in order, each buffer before its
// consumer can read any of it, and that the bytes read are the same.
func TestWatchSeesEachBufferBeforeItsConsumer(t *testing.T) {
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var mu sync.Mutex
	var watched []byte
	ra := NewWatched(iotest.HalfReader(bytes.NewReader(data)), 4096, 2, func(b []byte) {
		mu.Lock()
		watched = append(watched, b...)
		mu.Unlock()
	})
	defer ra.Close()
	var got []byte
	p := make([]byte, 1000)
	for {
		n, err := ra.Read(p)
		got = append(got, p[:n]...)
		mu.Lock()
		ahead := len(watched)
		mu.Unlock()
		require.GreaterOrEqual(t, ahead, len(got), "the watch saw what was read before it was read")
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, data, got)
	assert.Equal(t, data, watched)
}

// TestNextHandsOverBuffersWithRoomInFront proves that a consumer of whole
// buffers (Next, Release) gets exactly the bytes of the reader under it,
// then its error, each buffer with the room asked for in front of its
// bytes, whatever the sizes of the reads under it.
func TestNextHandsOverBuffersWithRoomInFront(t *testing.T) {
	data := randomBytes(100_000, 3)
	for name, src := range sources(data) {
		if name == "one byte" {
			continue // (a buffer of a byte each: covered by TestSameBytesAndError)
		}
		for _, size := range []int{1, 4096, 1 << 17} {
			var watched []byte
			var read []byte
			ra := NewHeaded(src(), size, 100, 4, func(b []byte) { read = append(read, b...) }, func(id int, b []byte) {
				assert.True(t, id >= 0 && id < 4, "look is told which buffer it looks at")
				assert.Equal(t, size, cap(b), "watch is given the bytes after the room")
				watched = append(watched, b...)
			})
			var got []byte
			var err error
			for err == nil {
				var id int
				var b []byte
				id, b, err = ra.Next()
				buf := ra.Buffer(id)
				require.Equal(t, 100+size, cap(buf), name)
				require.Equal(t, 100, cap(buf)-cap(b), "%s: the room in front of the bytes", name)
				got = append(got, b...)
				ra.Release(id)
			}
			assert.Equal(t, data, watched, "%s: look saw every byte, in order", name)
			assert.Equal(t, data, read, "%s: read saw every byte, in order", name)
			assert.Equal(t, data, got, "%s, buffers of %d", name, size)
			if name == "error" {
				assert.ErrorIs(t, err, boom, name)
			} else {
				assert.ErrorIs(t, err, io.EOF, name)
			}
			require.NoError(t, ra.Close())
		}
	}
}
