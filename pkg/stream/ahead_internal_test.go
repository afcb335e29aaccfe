package stream

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFramedIsTheLineReadSliceReturned: the framer's framing is taken for
// the line ReadSlice just returned from its table, known by where its
// bytes are, and for no other line, not even one of the same length
// read after it another way (a Peek, as Decoder.Buffered's look leads
// readLine to): a result line's framing given to the system line after
// it would make it a result.
func TestFramedIsTheLineReadSliceReturned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("{}\n{\"type\":\"result\"}\n{\"type\":\"system\"}\n"), 0o644))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	a := newAheadSource(f, 4096, CheckFraming, false, nil)
	defer a.Close()

	_, err = a.ReadSlice('\n') // (the first buffer's first line: found by a search)
	require.NoError(t, err)
	first, err := a.ReadSlice('\n')
	require.NoError(t, err)
	first = trimLine(first[:len(first)-1])
	e := a.framed(first)
	require.NotNil(t, e, "the line ReadSlice returned from the table")
	assert.Equal(t, `"result"`, string(a.appendMembers(nil, e)[0].Val))

	next, err := a.Peek(len(first) + 1)
	require.NoError(t, err)
	next = next[:len(first)]
	require.Equal(t, `{"type":"system"}`, string(next))
	assert.Nil(t, a.framed(next), "another line of the same length")
	assert.Nil(t, a.framed([]byte(`{"type":"result"}`)), "the same bytes elsewhere")
}
