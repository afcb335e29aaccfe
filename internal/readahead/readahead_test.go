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

// TestSameBytesAndError proves a consumer of whole buffers (Next,
// Release) gets exactly the bytes of the reader under it, then its
// error, whatever the sizes of the reads on either side (reads of one
// byte, half reads, an error with the last bytes, a timeout in the
// middle, passed on where it happened), each buffer with the room asked
// for in front of its bytes; that read sees every byte, in order, on the
// reading goroutine; and that look is given each buffer, told which it
// is, before the consumer can have it.
func TestSameBytesAndError(t *testing.T) {
	data := randomBytes(100_000, 3)
	for name, src := range sources(data) {
		for _, size := range []int{1, 7, 4096, 1 << 17} {
			if name == "one byte" && size > 7 {
				continue // (reads of a byte fill a buffer of 7 as one of 4096)
			}
			for _, head := range []int{0, 100} {
				var read []byte
				looked := make([]string, 4)
				ra := New(src(), size, head, 4, func(b []byte) { read = append(read, b...) }, func(id int, b []byte) {
					assert.True(t, id >= 0 && id < 4, "look is told which buffer it looks at")
					assert.Equal(t, size, cap(b), "look is given the bytes after the room")
					looked[id] = string(b)
				})
				got, err := drain(t, ra, head+size, head, func(id int, b []byte) {
					require.Equal(t, string(b), looked[id], "%s: looked at before it is handed over", name)
				})
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
	// A timeout in the middle is passed on where it happened.
	ra := New(iotest.TimeoutReader(bytes.NewReader(data)), 1<<16, 0, 2, nil, nil)
	got, err := drain(t, ra, 1<<16, 0, nil)
	assert.ErrorIs(t, err, iotest.ErrTimeout)
	assert.Equal(t, data[:1<<16], got)
	require.NoError(t, ra.Close())
}

// drain reads ra's buffers to its error, checking each buffer's size and
// the room in front of its bytes, and giving each to each (when set)
// before it is released.
func drain(t *testing.T, ra *Reader, bufSize, head int, each func(id int, b []byte)) ([]byte, error) {
	t.Helper()
	var got []byte
	for {
		id, b, err := ra.Next()
		buf := ra.Buffer(id)
		require.Equal(t, bufSize, cap(buf))
		require.Equal(t, head, cap(buf)-cap(b), "the room in front of the bytes")
		if each != nil && len(b) > 0 {
			each(id, b)
		}
		got = append(got, b...)
		ra.Release(id)
		if err != nil {
			return got, err
		}
	}
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

// TestCloseEndsTheGoroutine proves Close, before the end of the input, lets
// the reading goroutine end (it would otherwise wait for a free buffer
// forever): the goroutine count comes back.
func TestCloseEndsTheGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 50 {
		ra := New(bytes.NewReader(make([]byte, 1<<20)), 1024, 0, 2, nil, nil)
		_, _, err := ra.Next()
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

// TestReadSeesEachBufferBeforeItsConsumer proves New's read is given
// every byte of the input, in order, each buffer before its consumer can
// have any of it.
func TestReadSeesEachBufferBeforeItsConsumer(t *testing.T) {
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	var mu sync.Mutex
	var read []byte
	ra := New(iotest.HalfReader(bytes.NewReader(data)), 4096, 0, 2, func(b []byte) {
		mu.Lock()
		read = append(read, b...)
		mu.Unlock()
	}, nil)
	defer ra.Close()
	var got []byte
	for {
		id, b, err := ra.Next()
		got = append(got, b...)
		mu.Lock()
		ahead := len(read)
		mu.Unlock()
		require.GreaterOrEqual(t, ahead, len(got), "read saw what is handed over before it was")
		ra.Release(id)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
	}
	assert.Equal(t, data, got)
	assert.Equal(t, data, read)
}
