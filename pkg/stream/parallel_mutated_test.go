package stream_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestParallelMatchesSerialMutated holds a Parallel decoder (blocks of
// lines cut and framed on the workers, MembersLine) to a serial one on
// 1500 random mutations of the small captures: bytes changed, runs cut
// out, newlines and unterminated strings put in. The same events, line
// numbers, offsets and errors, with 64-byte and 4 KiB reads.
func TestParallelMatchesSerialMutated(t *testing.T) {
	files, err := os.ReadDir("../../testdata/events")
	require.NoError(t, err)
	var seeds [][]byte
	for _, fi := range files {
		if strings.HasSuffix(fi.Name(), ".jsonl") {
			data, err := os.ReadFile("../../testdata/events/" + fi.Name())
			require.NoError(t, err)
			if len(data) < 20_000 {
				seeds = append(seeds, data)
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1500 {
		data := bytes.Clone(seeds[r.IntN(len(seeds))])
		for k := r.IntN(8); k >= 0 && len(data) > 0; k-- {
			p := r.IntN(len(data))
			switch r.IntN(5) {
			case 0:
				data[p] = byte(r.IntN(256))
			case 1:
				data = append(data[:p], data[min(len(data), p+r.IntN(50)):]...)
			case 2:
				data = append(data[:p], append([]byte{'\n'}, data[p:]...)...)
			case 3:
				data = append(data[:p], append([]byte(`{"a":"`), data[p:]...)...)
			case 4:
				data = append(data[:p], append([]byte(`\"}`), data[p:]...)...)
			}
		}
		for _, bufSize := range []int{64, 4096} {
			opts := stream.DecoderOptions{Check: stream.CheckFraming, BufferSize: bufSize, MaxLineBytes: 1 << 16}
			want := decodeAll(t, bytes.NewReader(data), opts)
			opts.Parallel, opts.Workers = true, 2
			require.Equal(t, want, decodeAll(t, bytes.NewReader(data), opts), "mutation %d, %d-byte reads", i, bufSize)
		}
	}
}
