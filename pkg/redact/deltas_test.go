package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

func deltaLine(index int, text string) string {
	t, _ := json.Marshal(text)
	return fmt.Sprintf(`{"type":"stream_event","event":{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}},"session_id":"s","parent_tool_use_id":null,"future_field":[1,{"x":2}]}`, index, t)
}

func event(t *testing.T, line string, n int64) *stream.Event {
	ev, err := stream.NewEvent([]byte(line), "test", n)
	require.NoError(t, err)
	return ev
}

// TestDeltasOrderAndRecut proves the stage lets every event out once, in
// the order it came in; passes an event at once when no block is open;
// holds a block's deltas (and what comes between them) until the block
// ends; recuts a secret split across two deltas so that they join into the
// marker; and leaves every other byte of a recut line as it was.
func TestDeltasOrderAndRecut(t *testing.T) {
	secret := Rules[6].Example
	lines := []string{
		`{"type":"system","subtype":"init"}`,
		deltaLine(0, "see "+secret[:10]),
		`{"type":"system","subtype":"thinking_tokens"}`,
		deltaLine(0, secret[10:]+" end"),
		`{"type":"stream_event","event":{"type":"content_block_stop","index":0}}`,
		`{"type":"result","subtype":"success"}`,
	}
	d := NewDeltas(New(nil))
	var out []*stream.Event
	for i, l := range lines {
		got := d.Event(event(t, l, int64(i+1)))
		switch i {
		case 0, 5:
			assert.Len(t, got, 1, "line %d passes at once", i+1)
		case 1, 2, 3:
			assert.Empty(t, got, "line %d is held", i+1)
		case 4:
			assert.Len(t, got, 4, "the block's end lets it go")
		}
		out = append(out, got...)
	}
	out = append(out, d.Flush()...)
	require.Len(t, out, len(lines))
	var joined string
	for i, ev := range out {
		assert.Equal(t, int64(i+1), ev.Line)
		if ev.Delta().EventType == "content_block_delta" {
			joined += ev.Delta().Text
			assert.True(t, json.Valid(ev.Raw))
			assert.Contains(t, string(ev.Raw), `"future_field":[1,{"x":2}]}`, "the rest of the line is as it was")
		}
	}
	assert.Equal(t, "see [REDACTED:github-token#1] end", joined)
	assert.NoError(t, d.Err())
}

// TestDeltasBounded proves the stage holds at most maxDeltaHold bytes: a
// block that never ends is let go as it grows, none of it lost.
func TestDeltasBounded(t *testing.T) {
	d := NewDeltas(New(nil))
	piece := strings.Repeat("x", 4096)
	n, out := 0, 0
	for held := 0; held < 3*maxDeltaHold; held += len(piece) {
		n++
		out += len(d.Event(event(t, deltaLine(0, piece), int64(n))))
		assert.LessOrEqual(t, d.size, maxDeltaHold+len(piece)+200)
	}
	out += len(d.Flush())
	assert.Equal(t, n, out)
}
