package stream

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProduceMappedFault proves that the reader of a mapped file that
// shrank before it looked at it ends the stream with ErrFileShrank instead
// of crashing on the fault.
func TestProduceMappedFault(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the fault of a cut mapping is checked on Linux")
	}
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat(`{"type":"a"}`+"\n", 1<<20)), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d := NewDecoder(f, DecoderOptions{Parallel: true, MapFiles: true, mapMin: 1, BufferSize: 4096})
	require.NoError(t, d.begin())
	m, pos := d.mapInput()
	require.NotNil(t, m)
	defer unmapFile(m.data)
	require.NoError(t, os.Truncate(path, 0))
	var got []*batch
	goOn := d.produceMapped(&pipeline{}, m, pos, func(b *batch) bool { got = append(got, b); return true })
	require.False(t, goOn)
	require.NotEmpty(t, got)
	require.True(t, errors.Is(got[len(got)-1].end, ErrFileShrank), "the last batch ends with %v", got[len(got)-1].end)
}
