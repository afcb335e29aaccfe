package input

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestCodexLinesOfNoEventAreNotHeld proves that lines the Codex reader
// makes no event of (turn.started; items a run that selects passes over)
// are not held for the next event's echo: its echo buffer stays under a
// line's size over 200,000 of them, read whole (-F ndjson) or selecting
// (final's kinds). Before, it held every one until the next event: 110 MB
// for 2,000,000 turn.started lines, 481 MB for final over 2,000,000
// reasoning items, and text -F ndjson printed a stray turn.started.
func TestCodexLinesOfNoEventAreNotHeld(t *testing.T) {
	const n = 200_000
	in := `{"type":"thread.started","thread_id":"t1"}` + "\n" +
		strings.Repeat(`{"type":"turn.started"}`+"\n", n) +
		strings.Repeat(`{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"thinking"}}`+"\n", n) +
		`{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"done"}}` + "\n" +
		`{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}` + "\n"
	for name, kinds := range map[string]stream.KindSet{"whole": 0, "final's kinds": stream.KindsOf(stream.KindResult, stream.KindInit, stream.KindText)} {
		rd := NewCodexReader(strings.NewReader(in), "", stream.DecoderOptions{Kinds: kinds}).(*codexReader)
		most, records := 0, 0
		for {
			ev, err := rd.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			most = max(most, len(rd.echo.b))
			if ev.Kind == stream.KindRecord {
				records++
			}
		}
		assert.Less(t, most, 200, "%s: the echo held", name)
		if kinds == 0 {
			assert.Equal(t, n, records, "%s: each turn.started is an event of its own, as bookkeeping", name)
		}
	}
}
