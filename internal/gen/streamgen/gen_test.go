package streamgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const testSize = 5 << 20

func generate(t *testing.T, o Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := GenerateOptions(&buf, o); err != nil {
		t.Fatalf("GenerateOptions: %v", err)
	}
	return buf.Bytes()
}

type event struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	UUID            string          `json:"uuid"`
	Timestamp       string          `json:"timestamp"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	AgentID         string          `json:"agent_id"`
	ResultIndex     *int            `json:"result_index"`
	ToolUseResult   json.RawMessage `json:"tool_use_result"`
	Event           struct {
		Type string `json:"type"`
	} `json:"event"`
	RawMessage json.RawMessage `json:"message"` // an object, or a string on system/permission_denied
	Message    message         `json:"-"`
}

type message struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	Usage   struct {
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

func decode(line []byte, ev *event) error {
	*ev = event{}
	if err := json.Unmarshal(line, ev); err != nil {
		return err
	}
	if ev.Type == "assistant" || ev.Type == "user" {
		return json.Unmarshal(ev.RawMessage, &ev.Message)
	}
	return nil
}

type contentBlock struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	ToolUseID string `json:"tool_use_id"`
}

func lines(t *testing.T, data []byte) [][]byte {
	t.Helper()
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatal("output does not end with a newline")
	}
	return bytes.Split(data[:len(data)-1], []byte("\n"))
}

// streamCheck is what TestStream learns of a stream line by line.
type streamCheck struct {
	uses       map[string]string // tool_use id -> tool name
	results    map[string]int    // tool_use id -> tool_result count
	uuids      map[string]bool
	kinds      map[string]int
	turResults map[string]int // tool name -> user events with a tool_use_result
	lastTS     string
	lastOut    map[string]int // message id -> output_tokens of its latest event
	nextResult int
}

func newStreamCheck() *streamCheck {
	return &streamCheck{uses: map[string]string{}, results: map[string]int{}, uuids: map[string]bool{},
		kinds: map[string]int{}, turResults: map[string]int{}, lastOut: map[string]int{}}
}

// header checks an event's kind, uuid, timestamp, result index and parent.
func (c *streamCheck) header(t *testing.T, i int, ev *event) {
	t.Helper()
	kind := ev.Type
	if ev.Subtype != "" {
		kind += "/" + ev.Subtype
	}
	if ev.Type == "stream_event" {
		kind += "/" + ev.Event.Type
	}
	c.kinds[kind]++
	if i == 0 && kind != "system/init" {
		t.Fatalf("first event is %s, want system/init", kind)
	}
	if ev.UUID != "" {
		if c.uuids[ev.UUID] {
			t.Fatalf("line %d: duplicate uuid %s", i+1, ev.UUID)
		}
		c.uuids[ev.UUID] = true
	}
	if ev.Timestamp != "" {
		if ev.Timestamp <= c.lastTS {
			t.Fatalf("line %d: timestamp %s not after %s", i+1, ev.Timestamp, c.lastTS)
		}
		c.lastTS = ev.Timestamp
	}
	if ev.Type == "result" {
		if ev.ResultIndex == nil || *ev.ResultIndex != c.nextResult {
			t.Fatalf("line %d: result_index %v, want %d", i+1, ev.ResultIndex, c.nextResult)
		}
		c.nextResult++
	}
	if ev.ParentToolUseID != nil && ev.Type != "stream_event" {
		if ev.AgentID == "" {
			t.Errorf("line %d: subagent event without agent_id", i+1)
		}
		if _, ok := c.uses[*ev.ParentToolUseID]; !ok {
			t.Errorf("line %d: parent_tool_use_id %s is not a known tool_use", i+1, *ev.ParentToolUseID)
		}
		c.kinds["subagent-"+ev.Type]++
	}
}

// content checks an assistant or user event's blocks: one per assistant
// event, unique tool_use ids, results for known calls.
func (c *streamCheck) content(t *testing.T, i int, ev *event) {
	t.Helper()
	var blocks []contentBlock
	if err := json.Unmarshal(ev.Message.Content, &blocks); err != nil {
		return // string content
	}
	if ev.Type == "assistant" {
		if len(blocks) != 1 {
			t.Errorf("line %d: assistant event with %d blocks, want 1", i+1, len(blocks))
		}
		c.lastOut[ev.Message.ID] = ev.Message.Usage.OutputTokens
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			if _, dup := c.uses[b.ID]; dup {
				t.Fatalf("line %d: duplicate tool_use id %s", i+1, b.ID)
			}
			c.uses[b.ID] = b.Name
		case "tool_result":
			name, ok := c.uses[b.ToolUseID]
			if !ok {
				t.Fatalf("line %d: tool_result for unknown tool_use %s", i+1, b.ToolUseID)
			}
			c.results[b.ToolUseID]++
			if len(ev.ToolUseResult) > 0 {
				c.turResults[name]++
			}
		}
	}
}

func TestStream(t *testing.T) {
	data := generate(t, Options{Size: testSize, Seed: 1})
	if int64(len(data)) < testSize {
		t.Fatalf("output is %d bytes, want at least %d", len(data), testSize)
	}
	if int64(len(data)) > testSize+testSize/2 {
		t.Errorf("output is %d bytes, far above the %d requested", len(data), testSize)
	}

	c := newStreamCheck()
	ls := lines(t, data)
	var ev event
	for i, line := range ls {
		var generic map[string]any
		if err := json.Unmarshal(line, &generic); err != nil {
			t.Fatalf("line %d is not valid JSON: %v\n%.300s", i+1, err, line)
		}
		if err := decode(line, &ev); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		c.header(t, i, &ev)
		if ev.Type == "assistant" || ev.Type == "user" {
			c.content(t, i, &ev)
		}
	}
	uses, results, kinds, turResults, lastOut := c.uses, c.results, c.kinds, c.turResults, c.lastOut
	if ev.Type != "result" || ev.Subtype != "success" {
		t.Fatalf("last event is %s/%s, want result/success", ev.Type, ev.Subtype)
	}
	for id, name := range uses {
		if results[id] != 1 {
			t.Errorf("tool_use %s (%s) has %d tool_results, want 1", id, name, results[id])
		}
	}
	for _, k := range []string{
		"system/init", "assistant", "user", "result/success", "system/status",
		"system/api_retry", "system/thinking_tokens", "system/task_started",
		"system/task_progress", "system/task_updated", "system/task_notification",
		"system/permission_denied", "subagent-assistant", "subagent-user",
		"stream_event/message_start", "stream_event/content_block_start",
		"stream_event/content_block_delta", "stream_event/content_block_stop",
		"stream_event/message_delta", "stream_event/message_stop",
	} {
		if kinds[k] == 0 {
			t.Errorf("no %s event in %d bytes", k, len(data))
		}
	}
	for _, name := range []string{"Bash", "Read", "Write", "Edit", "Grep", "Agent"} {
		if turResults[name] == 0 {
			t.Errorf("no %s tool_use_result", name)
		}
	}
	for id, out := range lastOut {
		if out <= 1 {
			t.Errorf("message %s: last assistant event has output_tokens %d, want the final count", id, out)
		}
	}
	t.Logf("%d bytes, %d lines, %d tool calls, %d results, kinds %v", len(data), len(ls), len(uses), c.nextResult, kinds)
}

func TestDeterministic(t *testing.T) {
	a := generate(t, Options{Size: testSize, Seed: 7})
	b := generate(t, Options{Size: testSize, Seed: 7})
	if !bytes.Equal(a, b) {
		t.Fatal("same seed produced different output")
	}
	c := generate(t, Options{Size: testSize, Seed: 8})
	if bytes.Equal(a, c) {
		t.Fatal("different seeds produced the same output")
	}
}

func TestSmallSizes(t *testing.T) {
	for _, size := range []int64{1, 4096, 100_000} {
		data := generate(t, Options{Size: size, Seed: 3})
		ls := lines(t, data)
		var last event
		if err := decode(ls[len(ls)-1], &last); err != nil || last.Type != "result" {
			t.Errorf("size %d: last line is not a result (%v)", size, err)
		}
		if int64(len(data)) < size {
			t.Errorf("size %d: got only %d bytes", size, len(data))
		}
	}
}

func TestOptions(t *testing.T) {
	data := generate(t, Options{Size: 1 << 20, Seed: 2, PlaceholderUsage: true, ReplayUserMessages: true})
	replays := 0
	for i, line := range lines(t, data) {
		var ev event
		if err := decode(line, &ev); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if ev.Type == "assistant" && ev.Message.Usage.OutputTokens != 1 {
			t.Fatalf("line %d: output_tokens %d with PlaceholderUsage", i+1, ev.Message.Usage.OutputTokens)
		}
		if ev.Type == "user" && bytes.Contains(line, []byte(`"isReplay":true`)) {
			replays++
		}
	}
	if replays == 0 {
		t.Error("no replayed user message with ReplayUserMessages")
	}
}

func TestEscaping(t *testing.T) {
	in := "a\"b\\c\nd\te\r\x1b[31m\x07\u2028\u2029 😀 中文 \x7f"
	out := appendQuoted(nil, in)
	var back string
	if err := json.Unmarshal(out, &back); err != nil || back != in {
		t.Fatalf("round trip failed: %s -> %q (%v)", out, back, err)
	}
	want := `"a\"b\\c\nd\te\r\u001b[31m\u0007\u2028\u2029 😀 中文 ` + "\x7f" + `"`
	if string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
	if got := spacedJSON(`{"a":"x,y:z\"","b":[1,2]}`); got != `{"a": "x,y:z\"", "b": [1, 2]}` {
		t.Errorf("spacedJSON: %s", got)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"4096": 4096, "100MiB": 100 << 20, "1GiB": 1 << 30, "500MB": 500e6, "1.5GiB": 3 << 29,
		"2k": 2000, "10KiB": 10240, "7b": 7, " 3 MiB ": 3 << 20,
	} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "1XB", "-5", "0"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	f.n += len(p)
	if f.n > 1<<20 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	err := Generate(&failWriter{}, 1<<30, 1)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("got %v, want the writer's error", err)
	}
}

// The stream must also be readable line by line with a bounded scanner
// buffer big enough for the largest line (huge results only appear in
// streams of a few hundred MB).
func TestMaxLine(t *testing.T) {
	data := generate(t, Options{Size: testSize, Seed: 1})
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 8<<20)
	for sc.Scan() {
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scanning with an 8 MiB line limit: %v", err)
	}
}
