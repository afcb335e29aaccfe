package writebehind

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameBytesInOrder proves the writer behind writes what it was given,
// in order, whatever the sizes of the writes (longer than a chunk too),
// and that Flush returns only when it is all out.
func TestSameBytesInOrder(t *testing.T) {
	var want, got bytes.Buffer
	bw := bufio.NewWriter(&got)
	wb := New(bw)
	for i := range 2000 {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, i*37%(3*chunkSize))
		want.Write(p)
		_, err := wb.Write(p)
		require.NoError(t, err)
		if i%500 == 0 {
			require.NoError(t, wb.Flush())
			assert.Equal(t, want.Len(), got.Len(), "flushed at %d", i)
		}
	}
	require.NoError(t, wb.Close())
	assert.True(t, bytes.Equal(want.Bytes(), got.Bytes()))
}
