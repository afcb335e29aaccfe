package input

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestCodexHeadLookReadsTheTypesTheDecoderReads proves the rule by which
// the Codex reader passes a line over at a look at its head (lookAtHead):
// on every line of the 18 Codex CLI 0.171.0 captures
// (testdata/agents/codex), the head it reads is the event type the
// decoder classifies the line by and the item type the full read finds
// (the last "type" of the last "item", as jq reads a key written twice),
// and it reads the head of nearly every line (the rest are read in full);
// on a line spelled otherwise (each a capture's line respelled), it reads
// either the same types or none.
func TestCodexHeadLookReadsTheTypesTheDecoderReads(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/codex/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 18)
	read, lines := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			lines++
			if agreesWithDecoder(t, line) {
				read++
			}
		}
	}
	assert.Greater(t, read, lines*9/10, "the head of nearly every line is read")

	for _, tc := range []struct {
		name, line string
		read       bool
	}{
		{"as Codex writes it", `{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"ls","aggregated_output":"a\nb\n","exit_code":0,"status":"completed"}}`, true},
		{"no item", `{"type":"turn.started"}`, true},
		{"type key not first", `{"item":{"id":"item_2","type":"command_execution"},"type":"item.completed"}`, false},
		{"type key escaped", `{"typ\u0065":"item.completed","item":{"id":"item_2","type":"command_execution"}}`, false},
		{"type name escaped", `{"type":"item.complet\u0065d","item":{"id":"item_2","type":"command_execution"}}`, false},
		{"item type escaped", `{"type":"item.completed","item":{"id":"item_2","type":"command_executio\u006e"}}`, false},
		{"an escape elsewhere", `{"type":"item.completed","item":{"id":"item_2","type":"command_execution","aggregated_output":"\u00e9"}}`, false},
		{"type written twice", `{"type":"turn.started","type":"item.completed","item":{"id":"x","type":"command_execution"}}`, false},
		{"item type written twice", `{"type":"item.completed","item":{"id":"x","type":"command_execution","type":"agent_message","text":"hi"}}`, false},
		{"space in the head", `{"type": "item.completed","item":{"id":"item_2","type":"command_execution"}}`, false},
		{"id not first", `{"type":"item.completed","item":{"type":"command_execution","id":"item_2"}}`, false},
		{"a quote in the id", `{"type":"item.completed","item":{"id":"it\"em","type":"command_execution"}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.read, agreesWithDecoder(t, []byte(tc.line)))
		})
	}
	// A second "item" member: the head is read, and want's framing check
	// (the item its line's last member) sends the line to the full read.
	h, ok := lookAtHead([]byte(`{"type":"item.completed","item":{"id":"x","type":"command_execution"},"item":{"id":"y"}}`))
	require.True(t, ok)
	assert.False(t, h.framed())
	h, ok = lookAtHead([]byte(`{"type":"item.completed","item":{"id":"x","type":"command_execution","aggregated_output":"cut`))
	require.True(t, ok)
	assert.False(t, h.framed(), "a cut line")
}

// agreesWithDecoder reports whether lookAtHead reads line's head, and
// checks that what it reads is what the decoder and a full read find.
func agreesWithDecoder(t *testing.T, line []byte) bool {
	t.Helper()
	h, ok := lookAtHead(line)
	if !ok {
		return false
	}
	d := stream.NewDecoder(bytes.NewReader(line), stream.DecoderOptions{})
	ev, err := d.Next()
	require.NoError(t, err, "%s", line)
	assert.Equal(t, ev.Type, string(h.typ), "%s", line)
	if ev.Type == "item.started" || ev.Type == "item.completed" || ev.Type == "item.updated" {
		assert.Equal(t, jsonx.Value(line).Get("item").Get("type").Str(), h.item.Str(), "%s", line)
	} else {
		assert.Nil(t, h.item, "%s", line)
	}
	return true
}

// TestCodexRetryTextReadByHandAsByItsExpressions proves that the Codex
// reader's hand-written reading of a retry's text (codexReconnect,
// codexStatus) finds what the regular expressions it replaced found, on
// the texts of the captures' retries (05-auth-401, 07-server-500) and on
// near misses.
func TestCodexRetryTextReadByHandAsByItsExpressions(t *testing.T) {
	reconnect := regexp.MustCompile(`^Reconnecting\.\.\. (\d+)/(\d+) \((.*)\)$`)
	status := regexp.MustCompile(`status:? (\d{3})\b`)
	texts := []string{
		"Reconnecting... 2/5 (unexpected status 401 Unauthorized: Incorrect API key provided, url: http://127.0.0.1:1/v1/responses)",
		"Reconnecting... 1/5 (stream disconnected before completion: response.failed event received)",
		"Reconnecting... 1/5 (last status: 429)", "Reconnecting... 1/5 (status:: 429)", "Reconnecting... 1/5 (status 4290)",
		"Reconnecting... 1/5 (status 429x)", "Reconnecting... 1/5 (status 42)", "Reconnecting... 1/5 (status 429_)",
		"Reconnecting... 1/5 (statusstatus 503.)", "Reconnecting... 1/5 (a\nb)", "Reconnecting... 1/5 ()", "Reconnecting... 1/5 (x",
		"Reconnecting... /5 (x)", "Reconnecting... 1/ (x)", "Reconnecting... 1/5(x)", "Reconnecting... 99999999999999999999/5 (x)",
		"reconnecting... 1/5 (x)", "unexpected status 401 Unauthorized", "",
	}
	for _, f := range []string{"05-auth-401", "07-server-500"} {
		data, err := os.ReadFile("../../testdata/agents/codex/" + f + ".jsonl")
		require.NoError(t, err)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if v := jsonx.Value(line); v.Get("type").StrEqual("error") {
				texts = append(texts, v.Get("message").Str())
			}
		}
	}
	for _, text := range texts {
		m := reconnect.FindStringSubmatch(text)
		a, most, why, ok := codexReconnect(text)
		require.Equal(t, m != nil, ok, "%q", text)
		if ok {
			assert.Equal(t, m[1:], []string{a, most, why}, "%q", text)
		}
		s := status.FindStringSubmatch(text)
		d, ok := codexStatus(text)
		require.Equal(t, s != nil, ok, "%q", text)
		if ok {
			assert.Equal(t, s[1], d, "%q", text)
		}
	}
}

// TestCodexThreadsKeptBounded: a stream of many Codex runs (01-plain-text
// 3,000 times, each a thread of its own, as a corpus of renamed copies
// is) is read in bounded memory: the last totals of at most 1,024
// threads are kept (kept for all, they grew the heap to 28 MB on 300 MB
// of runs), and the input's usage is still every run's, added up: the
// last result's total is 3,000 times one run's.
func TestCodexThreadsKeptBounded(t *testing.T) {
	one, err := os.ReadFile("../../testdata/agents/codex/01-plain-text.jsonl")
	require.NoError(t, err)
	const runs = 3000
	var in bytes.Buffer
	for i := range runs {
		in.Write(bytes.Replace(one, []byte(`"thread_id":"`), []byte(fmt.Sprintf(`"thread_id":"t%05d-`, i)), 1))
	}
	rd := NewCodexReader(&in, "corpus", stream.DecoderOptions{Check: stream.CheckFraming})
	cr := rd.(*codexReader)
	var last stream.Usage
	results := 0
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if ev.Kind == stream.KindResult {
			results++
			last = ev.Result().Usage
		}
	}
	require.Equal(t, runs, results)
	assert.LessOrEqual(t, len(cr.c.totals), 1024, "the threads' totals kept")
	assert.LessOrEqual(t, len(cr.c.threads), 1024)
	// One run: 9219 input of which 5632 cached, 11 output.
	assert.Equal(t, int64(runs*(9219-5632)), last.InputTokens)
	assert.Equal(t, int64(runs*5632), last.CacheReadInputTokens)
	assert.Equal(t, int64(runs*11), last.OutputTokens)
}
