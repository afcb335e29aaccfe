package stream

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/stretchr/testify/require"
)

// TestTextAccAsStrings proves that the final answer's fallback text, now
// decoded straight into its buffer, is byte for byte what joining the
// decoded strings gave (the reference below is the code before): over
// random runs of text events with plain, escaped, empty, missing and
// invalid UTF-8 message ids, texts with escapes and invalid UTF-8,
// several text blocks in one event, texts longer than the limit (and
// decoding longer than their line), and limits from 0 up; and that its
// buffer stays within a few times the limit.
func TestTextAccAsStrings(t *testing.T) {
	type ref struct {
		msgID string
		text  []byte
	}
	refAdd := func(l *ref, msgID, text string, max int) {
		if msgID != l.msgID || msgID == "" {
			l.msgID = msgID
			l.text = l.text[:0]
		} else if len(l.text) > 0 {
			l.text = append(l.text, '\n')
		}
		room := max - len(l.text)
		if room < len(text) {
			text = text[:max0(room)]
		}
		l.text = append(l.text, text...)
	}
	ids := []string{`"msg_01"`, `"msg_02"`, `"msg\u005f01"`, `""`, ``, `"msg_03"`, "\"m\xff\"", "\"m\xfe\""} // (the last two decode alike)
	texts := []string{`"hello"`, `"a\nb \"q\" \u00e9"`, "\"bad \xff byte\"", `""`, `"\q kept"`,
		`"` + strings.Repeat("long text ", 40) + `"`, `"` + strings.Repeat(`\u00e9`, 100) + `"`,
		`"` + strings.Repeat("\xff", 300) + `"`} // each invalid byte decodes to three
	r := rand.New(rand.NewPCG(1, 2))
	for run := range 400 {
		max := []int{0, 1, 7, 64, 300, 700, 1 << 20}[run%7]
		var l textAcc
		var want ref
		for step := range 30 {
			id := ids[r.IntN(len(ids))]
			var blocks []string
			for range 1 + r.IntN(3) {
				blocks = append(blocks, `{"type":"text","text":`+texts[r.IntN(len(texts))]+`}`)
			}
			msg := `"content":[` + strings.Join(blocks, ",") + `]`
			if id != "" {
				msg = `"id":` + id + `,` + msg
			}
			var e Event
			e.point([]byte(`{"type":"assistant","message":{`+msg+`}}`), "", 1, 0)
			e.classify()
			l.add(e.keys().Path("message", "id"), &e, max)
			refAdd(&want, jsonx.Value(id).Str(), e.Text(), max)
			require.Equal(t, string(want.text), string(l.text), fmt.Sprintf("run %d step %d (max %d): %s", run, step, max, e.Raw))
			// (A text decodes to at most three times its line's length, by
			// invalid bytes, and only lines under the limit are decoded in
			// place.)
			require.LessOrEqual(t, cap(l.text), 4*max+64, "the buffer stays near the limit")
		}
	}
}
