package stream

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
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

// TestIsFault proves that IsFault tells a fault in a mapping (with
// debug.SetPanicOnFault) from other panics, a nil dereference among them,
// which a consumer must not take for a file that shrank.
func TestIsFault(t *testing.T) {
	recovered := func(f func()) (r any) {
		defer func() { r = recover() }()
		f()
		return nil
	}
	require.False(t, IsFault(recovered(func() { panic(errors.New("not a fault")) })))
	var p *Event
	require.False(t, IsFault(recovered(func() { faultSink = byte(len(p.Raw)) })), "a nil dereference")
	if runtime.GOOS != "linux" {
		return
	}
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("x", 1<<16)), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	data, err := mapFile(f.Fd(), 1<<16)
	require.NoError(t, err)
	defer unmapFile(data)
	require.NoError(t, os.Truncate(path, 0))
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	require.True(t, IsFault(recovered(func() { faultSink = data[100] })), "a page past the end the file shrank to")
}

// faultSink keeps the test's reads from being optimized away.
var faultSink byte

// TestDropHandsBackWholeHugePages proves that the reader hands back the
// consumed part of a mapping only up to a 2 MiB boundary, every dropBytes,
// so that a huge page mapping the file is dropped whole, never split; and
// that the bytes read after their pages were handed back are the file's.
func TestDropHandsBackWholeHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pages are handed back on Linux")
	}
	const size = 16 << 20
	content := make([]byte, size)
	for i := range content {
		content[i] = byte('a' + i%26)
	}
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, content, 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	data, err := mapFile(f.Fd(), size)
	require.NoError(t, err)
	defer unmapFile(data)
	m := &fileMapping{data: data}
	for _, step := range []struct {
		consumed, dropped int
		why               string
	}{
		{3<<20 + 5, 0, "2 MiB whole, less than dropBytes"},
		{5<<20 + 100, 4 << 20, "4 MiB whole: handed back up to the boundary below"},
		{7<<20 + 1, 4 << 20, "2 MiB more whole: not yet dropBytes"},
		{8 << 20, 8 << 20, "exactly at a boundary"},
		{12<<20 - 1, 8 << 20, "under 4 MiB more"},
		{16 << 20, 16 << 20, "all of it"},
	} {
		m.consume(step.consumed)
		m.drop()
		require.Equal(t, step.dropped, m.dropped, "consumed %d: %s", step.consumed, step.why)
	}
	require.Equal(t, content, data, "the handed-back pages read as the file again")
}

// TestMappedLinesBatchesAreBounded proves that a mapped file read for a
// Prepare function (lines cut on the reader) goes out in batches of at
// most batchBytes of lines (and one line more), not a whole block each:
// the pages of the batches in flight are resident, and 8 MiB batches made
// the peak RSS of an expression on a 100 MiB stream 12 MB larger. No line
// is lost or reordered.
func TestMappedLinesBatchesAreBounded(t *testing.T) {
	var sb strings.Builder
	const lines = 2500
	for i := range lines {
		fmt.Fprintf(&sb, `{"type":"user","i":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", 9000+i%2000))
	}
	path := filepath.Join(t.TempDir(), "lines.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	d := NewDecoder(f, DecoderOptions{Parallel: true, MapFiles: true, mapMin: 1, Prepare: func(*Event) error { return nil }})
	require.NoError(t, d.begin())
	m, pos := d.mapInput()
	require.NotNil(t, m)
	defer unmapFile(m.data)
	var got []*batch
	d.produceMapped(&pipeline{}, m, pos, func(b *batch) bool { got = append(got, b); return true })
	n := 0
	for _, b := range got {
		if len(b.items) == 0 {
			continue
		}
		first, last := b.items[0].ev, b.items[len(b.items)-1].ev
		span := last.Offset + int64(len(last.Raw)) + 1 - first.Offset
		require.LessOrEqual(t, span, int64(batchBytes+len(last.Raw)+1), "the batch from line %d", first.Line)
		for i := range b.items {
			n++
			require.Equal(t, int64(n), b.items[i].ev.Line)
		}
	}
	require.Equal(t, lines, n)
	require.Greater(t, len(got), 2*lines*9000/(mapBlock*defaultBufferSize), "batches smaller than blocks")
}
