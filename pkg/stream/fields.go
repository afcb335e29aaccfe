package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// The typed views below read an event's fields on demand. They are tolerant
// by construction: a field that is missing or of an unexpected JSON type
// reads as its zero value, and the event is never lost.

// Usage is a model call's token usage (message.usage, result.usage).
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	// CacheWrite1hTokens is the part of CacheCreationInputTokens written
	// to the 1-hour cache (cache_creation.ephemeral_1h_input_tokens),
	// which costs more than a 5-minute write; 0 when the input gives no
	// split (every write is then a 5-minute one). Not a count of its own:
	// Total leaves it out, and no output shows it.
	CacheWrite1hTokens int64 `json:"-"`
}

// Add returns the sum of u and o. A sum past int64 stays at int64's
// largest (or smallest) value, which Saturated tells: hostile counts that
// each fit could otherwise add up to a negative total.
func (u Usage) Add(o Usage) Usage {
	return Usage{addSat(u.InputTokens, o.InputTokens), addSat(u.OutputTokens, o.OutputTokens),
		addSat(u.CacheCreationInputTokens, o.CacheCreationInputTokens), addSat(u.CacheReadInputTokens, o.CacheReadInputTokens),
		addSat(u.CacheWrite1hTokens, o.CacheWrite1hTokens)}
}

// Saturated reports whether a count of u is at int64's largest or smallest
// value: a sum that went past it (see Add).
func (u Usage) Saturated() bool {
	for _, n := range []int64{u.InputTokens, u.OutputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens} {
		if n == math.MaxInt64 || n == math.MinInt64 {
			return true
		}
	}
	return false
}

func addSat(a, b int64) int64 {
	s := a + b
	if (s > a) != (b > 0) { // it wrapped around
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// Total is every token counted in u.
func (u Usage) Total() int64 {
	return addSat(addSat(u.InputTokens, u.OutputTokens), addSat(u.CacheCreationInputTokens, u.CacheReadInputTokens))
}

// usageOf reads a usage object, noting in nf (when not nil) a count that
// does not fit.
func usageOf(v jsonx.Value, nf *Unfits) Usage {
	// One walk over the object, not one per field.
	var buf [16]jsonx.Member
	ms := members(v, buf[:0])
	get := func(k string) int64 { return nf.Int(k, jsonx.Lookup(ms, k)) }
	u := Usage{get("input_tokens"), get("output_tokens"), get("cache_creation_input_tokens"), get("cache_read_input_tokens"), 0}
	if cc := jsonx.Lookup(ms, "cache_creation"); cc.Type() == jsonx.Object {
		// The 1-hour part is priced apart (spend.ModelPrice.Cost); it is
		// a part of the writes, so a larger count (a hostile input) is
		// held to them.
		u.CacheWrite1hTokens = min(nf.Int("cache_creation.ephemeral_1h_input_tokens", cc.Get("ephemeral_1h_input_tokens")), u.CacheCreationInputTokens)
	}
	return u
}

// Unfit is a number the stream wrote that does not fit where ccfilter
// keeps it: a count past int64 or below 0, a cost past float64 (1e400). It
// is read as missing (no cost; a count left out of the sums) and reported,
// so that no report shows a 0 that was not written, no sum is cut by a
// negative count, and no JSON output fails on +Inf.
type Unfit struct {
	Line  int64  `json:"line"`
	Field string `json:"field"`
	Text  string `json:"text"` // as written
	// Negative: a count below 0 (else a number past what ccfilter holds).
	Negative bool `json:"negative,omitempty"`
}

// Unfits counts the numbers that did not fit and keeps the first. The zero
// value is ready; a nil *Unfits reads numbers without noting.
type Unfits struct {
	First Unfit
	Count int64
	line  int64
}

// Int reads v as a count (0 when missing), noting a number that int64
// cannot hold or that is negative, and reading either as 0.
func (nf *Unfits) Int(field string, v jsonx.Value) int64 {
	n, ok := v.IntOK()
	switch {
	case n < 0:
		if nf != nil {
			nf.note(field, v, true)
		}
		return 0
	case !ok && nf != nil && v.Type() == jsonx.Number:
		nf.note(field, v, false)
	}
	return n
}

// Float reads v as a float (0 when missing), noting a number float64
// cannot hold.
func (nf *Unfits) Float(field string, v jsonx.Value) (float64, bool) {
	f, ok := v.FloatOK()
	if !ok && nf != nil && v.Type() == jsonx.Number {
		nf.note(field, v, false)
	}
	return f, ok
}

func (nf *Unfits) note(field string, v jsonx.Value, negative bool) {
	if nf.Count == 0 {
		nf.First = Unfit{Line: nf.line, Field: field, Text: numberText(v), Negative: negative}
	}
	nf.Count++
}

// numberText is a number as written, cut at 40 bytes; quoted when a line
// that was not fully validated holds something else there.
func numberText(v jsonx.Value) string {
	for _, c := range v {
		if !strings.ContainsRune("0123456789+-.eE", rune(c)) {
			return preview(v)
		}
	}
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

// Add counts o's numbers into nf, as read on line.
func (nf *Unfits) Add(o Unfits, line int64) {
	if o.Count == 0 {
		return
	}
	if nf.Count == 0 {
		nf.First = o.First
		nf.First.Line = line
	}
	nf.Count += o.Count
}

// Block is one content block of an assistant message.
type Block struct {
	Type     string          // text, thinking, redacted_thinking, tool_use, ...
	Text     string          // text blocks
	Thinking string          // thinking blocks
	ID       string          // tool_use blocks
	Name     string          // tool_use blocks
	Input    json.RawMessage // tool_use blocks: the input object, aliasing Event.Raw
}

// Assistant is the view of an assistant event.
type Assistant struct {
	// MessageID names the model call: one call is one message id, in
	// every count of calls (the Tracker's, a listing's, usage --by's), whatever
	// else its records carry or lack (a requestId on some of them only).
	MessageID  string
	Model      string
	StopReason string
	Blocks     []Block
	Usage      Usage
	// Error is set on synthetic API-error messages (e.g.
	// "authentication_failed"), with APIErrorStatus the HTTP status when known.
	Error          string
	APIErrorStatus int
	Aborted        bool // cut short by an interrupt
	// Call: the message is a model call the input counts (isModelCall),
	// as the tracker counts it.
	Call bool
}

// isModelCall is the one rule of which assistant messages are model calls
// the input shows: those with a usage object, but Claude Code's synthetic
// ones (model "<synthetic>": its own words, an API error). Another agent
// CLI's stream (Codex's, Gemini's) gives only the run's totals, so the
// messages its reader makes carry none and are no calls of their own: the
// account counts none, and the trace shows none.
func isModelCall(model string, usage jsonx.Value) bool {
	return model != "<synthetic>" && usage.Type() == jsonx.Object
}

// Assistant reads the assistant view of e (zero for other types).
func (e *Event) Assistant() Assistant {
	a, msg := e.assistantHead()
	e.assistHead, e.haveAssist = a, true // (a later AssistantHead reads the message no more)
	content := jsonx.Lookup(msg, "content")
	if content.Type() == jsonx.String {
		a.Blocks = []Block{{Type: "text", Text: content.Str()}}
		return a
	}
	// Each block's members indexed once and looked up, as blockHeads
	// reads them (the last of a key written twice, in any spelling): a Get
	// per field walked the block six times, past its whole text or input
	// for each key it lacks (a tenth of text on a Codex stream's small
	// messages).
	var buf [8]jsonx.Member
	content.Each(func(_ int, b jsonx.Value) bool {
		m := members(b, buf[:0])
		a.Blocks = append(a.Blocks, Block{
			Type:     jsonx.Lookup(m, "type").Str(),
			Text:     jsonx.Lookup(m, "text").Str(),
			Thinking: jsonx.Lookup(m, "thinking").Str(),
			ID:       jsonx.Lookup(m, "id").Str(),
			Name:     jsonx.Lookup(m, "name").Str(),
			Input:    json.RawMessage(jsonx.Lookup(m, "input")),
		})
		return true
	})
	return a
}

// AppendToolUses appends to dst the tool calls of an assistant event:
// its tool-use blocks (type, id, name, input) and no other, read from the
// heads of its blocks the tracker walked already: a view that lays out
// the calls alone (the trace format) decodes none of the message's text,
// and reuses its slice from event to event.
func (e *Event) AppendToolUses(dst []Block) []Block {
	for _, b := range e.blockHeads() {
		if isToolUse(b.Type) {
			dst = append(dst, Block{Type: b.Type.Str(), ID: b.ID.Str(), Name: b.Name.Str(), Input: json.RawMessage(b.Input)})
		}
	}
	return dst
}

// AssistantHead is Assistant without the blocks: what an account of
// usage reads, without decoding a message's content (once: a listing and
// a spend account read it from the same event).
func (e *Event) AssistantHead() Assistant {
	if !e.haveAssist {
		e.assistHead, _ = e.assistantHead()
		e.haveAssist = true
	}
	return e.assistHead
}

// CallHead is AssistantHead without its Usage (left zero): what a view
// whose tokens are the tracker's account (the trace format's model calls:
// Tracker.MessageUsage) reads of each assistant event, the message's
// usage read once, by the tracker, not again here (a twentieth of the
// trace format's instructions on real captures, issue 41).
func (e *Event) CallHead() Assistant {
	if e.haveAssist {
		a := e.assistHead
		a.Usage = Usage{}
		return a
	}
	a, _ := e.readHead(false)
	return a
}

func (e *Event) assistantHead() (Assistant, []jsonx.Member) { return e.readHead(true) }

// readHead reads the assistant head, its usage with withUsage.
func (e *Event) readHead(withUsage bool) (Assistant, []jsonx.Member) {
	v := e.keys()
	msg := e.message() // (stop_reason and usage follow a long content)
	model, usage := APIModel(jsonx.Lookup(msg, "model").Str()), jsonx.Lookup(msg, "usage")
	var u Usage
	if withUsage {
		u = usageOf(usage, nil)
	}
	return Assistant{
		MessageID:      jsonx.Lookup(msg, "id").Str(),
		Model:          model,
		StopReason:     jsonx.Lookup(msg, "stop_reason").Str(),
		Usage:          u,
		Error:          v.Get("error").Str(),
		APIErrorStatus: int(v.Get("api_error_status").Int()),
		Aborted:        v.Get("aborted").Bool(),
		Call:           isModelCall(model, usage),
	}, msg
}

// Text returns the text of e's text blocks (assistant) or of the user
// message's text (prompts), joined by newlines.
func (e *Event) Text() string { return string(e.appendText(nil)) }

// appendText appends Text to dst.
func (e *Event) appendText(dst []byte) []byte { return e.appendTextMax(dst, noLimit) }

// appendTextMax appends the first max bytes of Text to dst, decoding no
// more of the line than they take: a text block of 150 MB kept for a 1 MiB
// fallback was decoded whole, twice (its bytes, then a string).
func (e *Event) appendTextMax(dst []byte, max int) []byte {
	return appendContentText(dst, e.messageField("content"), "", max)
}

// textLen is the length of the text appendTextMax appends without a max,
// measured without decoding it.
func (e *Event) textLen() int {
	content := e.messageField("content")
	if content.Type() == jsonx.String {
		return content.StrLen()
	}
	n, first := 0, true
	content.Each(func(_ int, b jsonx.Value) bool {
		if t := b.Get("text"); t.Type() == jsonx.String {
			if !first {
				n++
			}
			n, first = n+t.StrLen(), false
		}
		return true
	})
	return n
}

// appendStrMax appends at most n bytes of the string value v decoded. It
// decodes a prefix of the raw string that is long enough: an escape stands
// for at least one byte in at most six (\u0041), so 6n+12 raw bytes, cut
// before any escape they end in, give n bytes or more.
func appendStrMax(dst []byte, v jsonx.Value, n int) []byte {
	if n <= 0 {
		return dst
	}
	body := v[1 : len(v)-1]
	if len(body) <= n {
		// It decodes to at most three times n (an invalid byte becomes
		// U+FFFD): decoded in place, dst stays within a few times n.
		start := len(dst)
		dst = v.AppendStr(dst)
		return cut(dst, start, n)
	}
	// Decoded apart, from a prefix, so that dst never grows past n.
	end := escapeStart(body, min(len(body), 6*n+12))
	prefix := jsonx.Value(append(append([]byte{'"'}, body[:end]...), '"')).AppendStr(make([]byte, 0, end))
	return append(dst, prefix[:min(len(prefix), n)]...)
}

// escapeStart returns i, or the start of the escape sequence that
// b[:i] would cut in two, so that b[:result] is whole escapes.
func escapeStart(b []byte, i int) int {
	for j := 0; j < i; {
		if b[j] != '\\' {
			j++
			continue
		}
		end := j + 2
		if j+1 < len(b) && b[j+1] == 'u' {
			end = j + 6
		}
		if end > i {
			return j
		}
		j = end
	}
	return i
}

// contentText joins the text of a content value: a string, or an array of
// blocks whose "text" fields are taken (only blocks of type only, if set).
func contentText(content jsonx.Value, only string) string {
	return string(appendContentText(nil, content, only, noLimit))
}

// appendContentText appends contentText to dst, at most max bytes of it
// (noLimit: all of it), decoding no more of each string than that takes.
func appendContentText(dst []byte, content jsonx.Value, only string, max int) []byte {
	if content.Type() == jsonx.String {
		return appendStrMax(dst, content, max)
	}
	start := len(dst)
	first := true
	content.Each(func(_ int, b jsonx.Value) bool {
		if only != "" && !b.Get("type").StrEqual(only) {
			return true
		}
		if t := b.Get("text"); t.Type() == jsonx.String {
			if !first {
				dst = append(dst, '\n') // (after an empty text too)
			}
			dst, first = appendStrMax(dst, t, max-(len(dst)-start)), false
		}
		return len(dst)-start < max
	})
	return cut(dst, start, max)
}

// noLimit is the max of appendContentText that takes all the text.
const noLimit = math.MaxInt

// cut keeps at most n bytes of dst after start (n may be noLimit: no sum
// that could overflow).
func cut(dst []byte, start, n int) []byte {
	if len(dst)-start > n {
		return dst[:start+n]
	}
	return dst
}

// ToolResult is one tool_result block of a user event.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	// Content is the raw content: a string or an array of blocks.
	Content json.RawMessage
	// Saved is the file that holds the whole output when Content is only
	// its preview (a transcript's <persisted-output>, found in the
	// session's tool-results/ folder), or "".
	Saved string

	size int // Size+1 once known (see Event.ToolResults)
}

// Text returns the result's text (a string content, or its text blocks
// joined by newlines).
func (r ToolResult) Text() string { return contentText(jsonx.Value(r.Content), "") }

// TextPrefix returns the first max bytes of Text (a rune may be cut at
// the end), decoding no more of the content than they take.
func (r ToolResult) TextPrefix(max int) string {
	return string(appendContentText(nil, jsonx.Value(r.Content), "", max))
}

// Size returns the length in bytes of the result's decoded text, without
// building it.
func (r ToolResult) Size() int {
	if r.size > 0 {
		return r.size - 1
	}
	c := jsonx.Value(r.Content)
	if c.Type() == jsonx.String {
		return c.StrLen()
	}
	n := 0
	c.Each(func(_ int, b jsonx.Value) bool {
		n += b.Get("text").StrLen()
		return true
	})
	return n
}

// ToolResults returns the tool_result blocks of a user event, with their
// sizes. They are found once per event and kept: the tracker, the renderers
// and the presets all read them.
func (e *Event) ToolResults() []ToolResult { return e.toolResults(true) }

// SetSaved says that tool result i's whole output is the file path, of size
// bytes (a transcript's persisted output: the event holds a preview).
func (e *Event) SetSaved(i int, path string, size int) {
	r := e.toolResults(true)
	r[i].Saved, r[i].size = path, size+1
}

// toolResults is ToolResults with or without their sizes counted (Size
// then counts on demand), for a Tracker whose Needs show none.
func (e *Event) toolResults(sizes bool) []ToolResult {
	if !e.haveResults {
		e.findToolResults(sizes)
	}
	return e.results
}

// findToolResults finds the tool_result blocks, with their sizes or not
// (Size then counts on demand).
func (e *Event) findToolResults(sizes bool) {
	e.results = e.results[:0]
	eachToolResult(e.v(), sizes, func(r ToolResult, id jsonx.Value) {
		r.ToolUseID = id.Str()
		if sizes {
			r = r.sized()
		}
		e.results = append(e.results, r)
	})
	e.haveResults = true
}

// sized is r with its size known (Size).
func (r ToolResult) sized() ToolResult {
	if r.size == 0 {
		r.size = r.Size() + 1 // content blocks, not a string
	}
	return r
}

// eachToolResult calls fn for each tool_result block of a user event,
// with its tool_use_id as written (ToolUseID is left to fn: the
// read-ahead's framer keeps where it is, not a string), walking the
// content once: the keys of a block come in any order and a long
// "content" sits between "type" and "is_error". With sizes, a string
// content's size is counted in the same pass.
func eachToolResult(v jsonx.Value, sizes bool, fn func(r ToolResult, id jsonx.Value)) {
	var cur ToolResult
	var id jsonx.Value
	isResult, at := false, -1
	end := func() {
		if isResult {
			fn(cur, id)
		}
	}
	v.Find("message").Find("content").EachObjectMember(sizes, func(i int, k []byte, val jsonx.Value, size int) bool {
		if i != at {
			end()
			cur, id, isResult, at = ToolResult{}, nil, false, i
		}
		switch string(k) {
		case "type":
			isResult = val.StrEqual("tool_result")
		case "tool_use_id":
			id = val
		case "is_error":
			cur.IsError = val.Bool()
		case "content":
			cur.Content = json.RawMessage(val)
			cur.size = max(size+1, 0) // (0: not known, as for blocks)
		}
		return true
	})
	end()
}

// ToolUseResult returns the raw "tool_use_result" of a user event: the
// tool's structured output (an object for most tools, a string for errors).
func (e *Event) ToolUseResult() json.RawMessage { return json.RawMessage(e.toolUseResult()) }

// toolUseResult is "tool_use_result" (a transcript's "toolUseResult").
func (e *Event) toolUseResult() jsonx.Value { return e.field("tool_use_result") }

// Hunk is one hunk of the diff an Edit or Write made: the lines around
// and in the change, each starting with ' ', '-' or '+'.
type Hunk struct {
	OldStart int64    `json:"oldStart"`
	OldLines int64    `json:"oldLines"`
	NewStart int64    `json:"newStart"`
	NewLines int64    `json:"newLines"`
	Lines    []string `json:"lines"`
}

// Patch returns the hunks of the diff a user event's tool result says its
// Edit or Write made (tool_use_result.structuredPatch), and the file; none
// for other tools, or a file created whole (its content is then the
// Write's input).
func (e *Event) Patch() (file string, hunks []Hunk) {
	r := e.toolUseResult()
	p := r.Get("structuredPatch")
	if p.Type() != jsonx.Array {
		return "", nil
	}
	if err := json.Unmarshal(p, &hunks); err != nil {
		return "", nil
	}
	return r.Get("filePath").Str(), hunks
}

// ModelUsage is one entry of a result's modelUsage.
type ModelUsage struct {
	Model                    string  `json:"model"`
	InputTokens              int64   `json:"input_tokens"`
	OutputTokens             int64   `json:"output_tokens"`
	CacheReadInputTokens     int64   `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64   `json:"cache_creation_input_tokens"`
	CostUSD                  float64 `json:"cost_usd"`
	// CacheWrite1hTokens is the part of the cache writes that went to the
	// 1-hour cache (cacheCreationEphemeral1hInputTokens), as
	// Usage.CacheWrite1hTokens: not shown, priced.
	CacheWrite1hTokens int64 `json:"-"`
	// HasCost: the entry gives its costUSD (another CLI's result, made
	// from tokens only, does not: its cost is unknown, not $0).
	HasCost bool `json:"-"`
}

// Result is the view of a result event.
type Result struct {
	Subtype string
	IsError bool
	// Text is the "result" string; HasText tells it apart from an absent one.
	Text           string
	HasText        bool
	Errors         []string
	TerminalReason string
	StopReason     string
	APIErrorStatus int
	NumTurns       int64
	DurationMs     int64
	// HasDuration: the result says its duration_ms (one another CLI's
	// input kind makes may not: Codex's stream gives none).
	HasDuration   bool
	DurationAPIMs int64
	TotalCostUSD  float64
	// HasCost is whether total_cost_usd is a number that fits (its text is
	// in Unfit otherwise).
	HasCost bool
	// Unfit counts the numbers of the result that do not fit (read as
	// missing).
	Unfit Unfits
	// CostWritten is total_cost_usd as written when it does not fit.
	CostWritten string
	// ResultIndex is result_index, or -1 when absent.
	ResultIndex int64
	Usage       Usage
	ModelUsage  []ModelUsage
	// StructuredOutput is the --json-schema answer, raw.
	StructuredOutput json.RawMessage
	// OriginKind is origin.kind, e.g. "task-notification".
	OriginKind           string
	StartupFailureReason string
	PermissionDenials    int
}

// Result reads the result view of e.
func (e *Event) Result() Result {
	r := e.ResultHead()
	v, nf := e.keys(), &r.Unfit
	r.Usage = usageOf(v.Get("usage"), nf)
	v.Get("modelUsage").EachMember(func(k []byte, m jsonx.Value) bool {
		// The model as its calls name it: the entry's canonicalModel
		// (2.1.328 writes it), else its key without the context selector
		// the user chose it with ("claude-opus-5-5[1m]"), so that the
		// entry meets its calls and is not taken for a helper model's.
		model := m.Get("canonicalModel").Str()
		if model == "" {
			model = APIModel(jsonx.Value(append(append([]byte{'"'}, k...), '"')).Str())
		}
		r.ModelUsage = append(r.ModelUsage, ModelUsage{
			Model:                    model,
			InputTokens:              nf.Int("inputTokens", m.Get("inputTokens")),
			OutputTokens:             nf.Int("outputTokens", m.Get("outputTokens")),
			CacheReadInputTokens:     nf.Int("cacheReadInputTokens", m.Get("cacheReadInputTokens")),
			CacheCreationInputTokens: nf.Int("cacheCreationInputTokens", m.Get("cacheCreationInputTokens")),
		})
		mu := &r.ModelUsage[len(r.ModelUsage)-1]
		mu.CostUSD, mu.HasCost = nf.Float("costUSD", m.Get("costUSD"))
		mu.CacheWrite1hTokens = min(max(m.Get("cacheCreationEphemeral1hInputTokens").Int(), 0), mu.CacheCreationInputTokens)
		return true
	})
	return r
}

// ResultHead is Result without the result's own token counts (Usage and
// ModelUsage left empty, and an unfit number among them not noted): what
// a view whose tokens are the tracker's account (the trace format) reads
// of each result. The usage and the per-model entries it never shows
// were two thirds of its reading of results (issue 41).
func (e *Event) ResultHead() Result {
	v := e.keys()
	r := Result{
		Subtype:              e.Subtype,
		IsError:              v.Get("is_error").Bool(),
		TerminalReason:       v.Get("terminal_reason").Str(),
		StopReason:           v.Get("stop_reason").Str(),
		APIErrorStatus:       int(v.Get("api_error_status").Int()),
		ResultIndex:          -1,
		StructuredOutput:     json.RawMessage(v.Get("structured_output")),
		OriginKind:           v.Path("origin", "kind").Str(),
		StartupFailureReason: v.Get("startup_failure_reason").Str(),
		PermissionDenials:    v.Get("permission_denials").Len(),
	}
	nf := &r.Unfit
	nf.line = e.Line
	r.NumTurns = nf.Int("num_turns", v.Get("num_turns"))
	r.DurationMs = nf.Int("duration_ms", v.Get("duration_ms"))
	r.HasDuration = v.Get("duration_ms").Exists()
	r.DurationAPIMs = nf.Int("duration_api_ms", v.Get("duration_api_ms"))
	cost := v.Get("total_cost_usd")
	if r.TotalCostUSD, r.HasCost = nf.Float("total_cost_usd", cost); !r.HasCost && cost.Type() == jsonx.Number {
		r.CostWritten = numberText(cost)
	}
	if t := v.Get("result"); t.Type() == jsonx.String {
		r.Text, r.HasText = t.Str(), true
	}
	if ri := v.Get("result_index"); ri.Type() == jsonx.Number {
		r.ResultIndex = ri.Int()
	}
	switch errs := v.Get("errors"); errs.Type() {
	case jsonx.Array:
		errs.Each(func(_ int, s jsonx.Value) bool {
			if s.Type() == jsonx.String {
				r.Errors = append(r.Errors, s.Str())
			} else {
				r.Errors = append(r.Errors, string(s))
			}
			return true
		})
	case jsonx.String:
		r.Errors = []string{errs.Str()}
	}
	return r
}

// APIModel is a model as the API names it: the name without the context
// selectors Claude Code reads and takes off before it calls the API
// ("claude-opus-5-5[1m]", the suffix repeated or in capitals too). It is
// the one rule of a model's name wherever one is read: a call's (the
// Tracker's, the Assistant and Delta views', and so spend's), a result's
// modelUsage and a transcript's cost-state, and the price lookup
// (spend.Catalog). Records that name a model as the user chose it (a
// cost-state keyed "claude-opus-5-5[1m]", or the messages themselves)
// would otherwise not meet the others: a call's tokens counted twice, once
// as calls and once as a helper model's or the cost-state's hidden
// remainder, and no price known for the name. Every view names the model
// as the API does, as Claude Code 2.1.328's own assistant records write it.
func APIModel(name string) string {
	for strings.HasSuffix(name, "]") {
		i := strings.LastIndexByte(name, '[')
		if i <= 0 || !strings.EqualFold(name[i:], "[1m]") {
			break
		}
		name = name[:i]
	}
	return name
}

// CostLabel is the cost as people read it, "$0.1234"; a cost that does
// not fit a float64 as it was written ("$1e400"), one that is missing as
// "$?".
func (r Result) CostLabel() string {
	if r.HasCost {
		return fmt.Sprintf("$%.4f", r.TotalCostUSD)
	}
	if r.CostWritten != "" {
		return "$" + r.CostWritten
	}
	return "$?"
}

// TaskUsage is the usage a task_progress or task_notification reports.
type TaskUsage struct {
	TotalTokens int64 `json:"total_tokens"`
	ToolUses    int64 `json:"tool_uses"`
	DurationMs  int64 `json:"duration_ms"`
}

// Task is the view of a system/task_* event (and of the first task of
// background_tasks_changed, which lists all of them).
type Task struct {
	TaskID         string
	ToolUseID      string // the tool call that started it (Agent, Bash, Workflow)
	Description    string
	SubagentType   string
	TaskType       string // local_agent, local_bash, local_workflow, ...
	Status         string // task_notification status, or task_updated patch.status
	Summary        string // task_notification summary (the subagent's report)
	Prompt         string
	IsBackgrounded bool
	Usage          TaskUsage
	HasUsage       bool
	LastToolName   string
	Error          string
}

// Task reads the task view of e.
func (e *Event) Task() Task {
	v := e.keys()
	t := Task{
		TaskID:         v.Get("task_id").Str(),
		ToolUseID:      v.Get("tool_use_id").Str(),
		Description:    v.Get("description").Str(),
		SubagentType:   v.Get("subagent_type").Str(),
		TaskType:       v.Get("task_type").Str(),
		Status:         v.Get("status").Str(),
		Summary:        v.Get("summary").Str(),
		Prompt:         v.Get("prompt").Str(),
		IsBackgrounded: v.Get("is_backgrounded").Bool(),
		LastToolName:   v.Get("last_tool_name").Str(),
	}
	if p := v.Get("patch"); p.Type() == jsonx.Object {
		t.Status = p.Get("status").Str()
		t.Error = p.Get("error").Str()
		if d := p.Get("description"); d.Type() == jsonx.String {
			t.Description = d.Str()
		}
	}
	if u := v.Get("usage"); u.Type() == jsonx.Object {
		t.HasUsage = true
		t.Usage = TaskUsage{u.Get("total_tokens").Int(), u.Get("tool_uses").Int(), u.Get("duration_ms").Int()}
	}
	return t
}

// Init is the view of a system/init event.
type Init struct {
	// CLI is the id of the agent CLI that wrote the run ("cli", which
	// another agent's input kind writes in the init it makes;
	// ClaudeCodeID when absent); Version is its version
	// (claude_code_version, else that kind's cli_version).
	CLI            string   `json:"cli"`
	Model          string   `json:"model"`
	Version        string   `json:"claude_code_version"`
	CWD            string   `json:"cwd"`
	PermissionMode string   `json:"permission_mode"`
	SessionID      string   `json:"session_id"`
	APIKeySource   string   `json:"api_key_source"`
	OutputStyle    string   `json:"output_style"`
	Tools          []string `json:"tools"`
	Agents         []string `json:"agents"`
	Skills         []string `json:"skills"`
	MCPServers     []string `json:"mcp_servers"` // "name (status)"
	SlashCommands  []string `json:"slash_commands"`
	// Synthetic: made by the transcript reader, which has no tool list
	// (a session transcript does not record one): Tools is empty for that
	// reason, not because the run had none.
	Synthetic bool `json:"-"`
}

// Init reads the init view of e.
func (e *Event) Init() Init {
	in := e.InitHead()
	v := e.keys()
	strs := func(a jsonx.Value) []string {
		out := []string{}
		a.Each(func(_ int, s jsonx.Value) bool {
			out = append(out, s.Str())
			return true
		})
		return out
	}
	in.Tools = strs(v.Get("tools"))
	in.Agents = strs(v.Get("agents"))
	in.Skills = strs(v.Get("skills"))
	in.SlashCommands = strs(v.Get("slash_commands"))
	in.MCPServers = []string{}
	v.Get("mcp_servers").Each(func(_ int, s jsonx.Value) bool {
		name := s.Get("name").Str()
		if st := s.Get("status").Str(); st != "" {
			name += " (" + st + ")"
		}
		in.MCPServers = append(in.MCPServers, name)
		return true
	})
	return in
}

// InitHead is Init without its lists (tools, agents, skills, slash
// commands, MCP servers): the run's facts a view that lists none of them
// reads (the trace format), without decoding the lists, which are most of
// an init's bytes.
func (e *Event) InitHead() Init {
	v := e.keys()
	in := Init{
		Model:          v.Get("model").Str(),
		CLI:            CLIOf(v.Get("cli").Str(), "").ID,
		Version:        v.Get("claude_code_version").Str(),
		CWD:            v.Get("cwd").Str(),
		PermissionMode: v.Get("permissionMode").Str(),
		SessionID:      v.Get("session_id").Str(),
		APIKeySource:   v.Get("apiKeySource").Str(),
		OutputStyle:    v.Get("output_style").Str(),
		Synthetic:      v.Get("ccfilter").StrEqual(Synthetic),
	}
	if in.Version == "" {
		in.Version = v.Get("cli_version").Str()
	}
	return in
}

// Str returns the top-level string field name of e, or "" — for the many
// small fields renderers show (hook_name, message, error, ...).
func (e *Event) Str(name string) string { return e.field(name).Str() }

// Int returns the top-level integer field name of e, or 0.
func (e *Event) Int(name string) int64 { return e.field(name).Int() }

// Float returns a top-level number field, or 0.
func (e *Event) Float(name string) float64 { return e.field(name).Float() }

// Has reports whether e has a non-null top-level field name.
func (e *Event) Has(name string) bool { return !e.field(name).IsNull() }

// Delta is the view of a stream_event.
type Delta struct {
	EventType string // message_start, content_block_delta, ...
	Index     int64
	DeltaType string // text_delta, thinking_delta, input_json_delta, signature_delta
	Text      string // text_delta text, thinking_delta thinking, input_json_delta partial_json
	MessageID string // api_message_id, or message.id of message_start
	BlockType string // content_block_start's block type
	// Abandoned is set on the message_stop claude-code writes for a stream
	// that failed midway (abandoned_blocks): the blocks streamed from
	// AbandonedFrom on are not part of the answer, which the retry gives.
	Abandoned     bool
	AbandonedFrom int64
	// Model is a message_start's model.
	Model string
	// StopReason is a message_delta's stop_reason; OutputTokens its
	// usage's output_tokens, when HasOutputTokens.
	StopReason      string
	OutputTokens    int64
	HasOutputTokens bool
}

// Delta reads the stream_event view of e (once: a consumer that checks
// the delta's type before printing its text reads it twice).
func (e *Event) Delta() Delta {
	if !e.haveDelta {
		e.delta, e.haveDelta = e.readDelta(), true
	}
	return e.delta
}

func (e *Event) readDelta() Delta {
	v := e.keys()
	var buf [8]jsonx.Member
	ev := members(v.Get("event"), buf[:0])
	d := Delta{
		EventType: intern(jsonx.Lookup(ev, "type")),
		Index:     jsonx.Lookup(ev, "index").Int(),
		MessageID: v.Get("api_message_id").Str(),
		BlockType: intern(jsonx.Lookup(ev, "content_block").Get("type")),
	}
	if d.MessageID == "" {
		d.MessageID = jsonx.Lookup(ev, "message").Get("id").Str()
	}
	switch d.EventType {
	case "message_start":
		d.Model = APIModel(jsonx.Lookup(ev, "message").Get("model").Str())
	case "message_delta":
		d.StopReason = jsonx.Lookup(ev, "delta").Get("stop_reason").Str()
		if n := jsonx.Lookup(ev, "usage").Get("output_tokens"); n.Exists() {
			d.OutputTokens, d.HasOutputTokens = n.Int(), true
		}
	}
	if ab := v.Get("abandoned_blocks"); ab.Type() == jsonx.Object {
		d.Abandoned, d.AbandonedFrom = true, ab.Get("from_block_index").Int()
		if id := ab.Get("api_message_id").Str(); id != "" {
			d.MessageID = id
		}
	}
	delta := jsonx.Lookup(ev, "delta")
	d.DeltaType = intern(delta.Get("type"))
	switch d.DeltaType {
	case "text_delta":
		d.Text = delta.Get("text").Str()
	case "thinking_delta":
		d.Text = delta.Get("thinking").Str()
	case "input_json_delta":
		d.Text = delta.Get("partial_json").Str()
	}
	return d
}

// WithDeltaText returns a copy of the stream_event delta e with its text
// (text_delta's text, thinking_delta's thinking, input_json_delta's
// partial_json) replaced, every other byte of the line as it was: the
// redaction's recut of a secret split across deltas (redact.Deltas).
func (e *Event) WithDeltaText(text string) (*Event, error) {
	key := map[string]string{"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}[e.Delta().DeltaType]
	old := e.keys().Get("event").Get("delta").Get(key)
	if key == "" || old.Type() != jsonx.String {
		return nil, fmt.Errorf("line %d: not a delta with a text", e.Line)
	}
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(text); err != nil {
		return nil, err
	}
	at := cap(e.Raw) - cap(old) // (old is a slice of Raw)
	raw := make([]byte, 0, len(e.Raw)-len(old)+q.Len())
	raw = append(append(append(raw, e.Raw[:at]...), bytes.TrimSuffix(q.Bytes(), []byte("\n"))...), e.Raw[at+len(old):]...)
	c := e.Clone()
	c.Raw, c.haveDelta = raw, false
	return c, nil
}

// members indexes the members of an object in one walk, for a view that
// looks up several of them (each Get walks the object from its start); not
// an object: none.
func members(v jsonx.Value, dst []jsonx.Member) []jsonx.Member {
	if v.Type() != jsonx.Object {
		return dst
	}
	ms, _ := jsonx.Members(v, dst)
	return ms
}

// Compaction is the view of a system/compact_boundary event.
type Compaction struct {
	Trigger               string // "manual" or "auto"
	PreTokens, PostTokens int64
	DurationMs            int64
	HasDuration           bool
}

// Compaction returns the compaction a compact_boundary event reports:
// the stream's compact_metadata, or a transcript's compactMetadata.
func (e *Event) Compaction() Compaction {
	m := e.field("compact_metadata")
	pick := func(snake, camel string) jsonx.Value {
		if v := m.Get(snake); v != nil {
			return v
		}
		return m.Get(camel)
	}
	c := Compaction{Trigger: m.Get("trigger").Str(), PreTokens: pick("pre_tokens", "preTokens").Int(), PostTokens: pick("post_tokens", "postTokens").Int()}
	if d := pick("duration_ms", "durationMs"); d.Exists() {
		c.DurationMs, c.HasDuration = d.Int(), true
	}
	return c
}

// Retry is the view of an API retry: the stream's system/api_retry, a
// subagent's (tool_progress with subagent_retry), or a transcript's
// system/api_error.
type Retry struct {
	Attempt, MaxRetries int64
	Error               string // the error's category ("overloaded"), or its text
	// Category is the error's category where the event names one
	// (api_retry's error, subagent_retry's error_category); a
	// transcript's api_error gives only its text, in Error.
	Category string
	Status   int64 // the HTTP status, 0 when unknown
	DelayMs  int64
	// AgentID is the subagent that retried (subagent_retry's agent_id);
	// "" for the main agent's retries, whose events say none.
	AgentID      string
	SubagentType string // the subagent's type, which a subagent_retry names
	Subagent     bool   // a subagent_retry: the subagent's, not the main agent's
}

// Retry returns the retry an api_retry, a subagent_retry or a
// transcript's api_error event reports.
func (e *Event) Retry() Retry {
	if e.Subtype == "api_error" {
		errv := e.field("error")
		r := Retry{Attempt: e.Int("retryAttempt"), MaxRetries: e.Int("maxRetries"), DelayMs: e.Int("retryInMs"), Status: errv.Get("status").Int()}
		if r.Error = errv.Get("formatted").Str(); r.Error == "" {
			r.Error = errv.Str()
		}
		return r
	}
	if sr := e.field("subagent_retry"); sr.Type() == jsonx.Object {
		category := sr.Get("error_category").Str()
		return Retry{Attempt: sr.Get("attempt").Int(), MaxRetries: sr.Get("max_retries").Int(), Error: category, Category: category,
			Status: sr.Get("error_status").Int(), DelayMs: sr.Get("retry_delay_ms").Int(), AgentID: sr.Get("agent_id").Str(),
			SubagentType: e.Str("subagent_type"), Subagent: true}
	}
	category := e.Str("error")
	return Retry{Attempt: e.Int("attempt"), MaxRetries: e.Int("max_retries"), Error: category, Category: category, Status: e.Int("error_status"), DelayMs: e.Int("retry_delay_ms")}
}

// Hook is the view of a hook's event: the stream's hook_started,
// hook_progress and hook_response, or a transcript's stop_hook_summary
// (its Stop hooks, with their errors).
type Hook struct {
	Name     string // "PreToolUse:Bash", "Stop"
	Outcome  string // hook_response's: "success", "error", …
	ExitCode int64
	HasExit  bool
	Output   string   // hook_response's output: its stdout and stderr, as claude-code joins them
	Commands []string // stop_hook_summary's: the commands run
	Errors   []string // stop_hook_summary's: the hooks' errors
	// Failed: a response with outcome "error" or a non-zero exit, or a
	// summary with errors.
	Failed bool
	// Message is what a failed hook says: its stderr, else its output
	// (output already holds stderr: the two together would say it twice);
	// a summary's errors, joined by "; ".
	Message string
}

// Hook returns the hook a hook event (KindHook) reports.
func (e *Event) Hook() Hook {
	if e.Subtype == "stop_hook_summary" {
		h := Hook{Name: "Stop"}
		e.field("hookInfos").Each(func(_ int, v jsonx.Value) bool {
			h.Commands = append(h.Commands, v.Get("command").Str())
			return true
		})
		e.field("hookErrors").Each(func(_ int, v jsonx.Value) bool {
			s := v.Str()
			if v.Type() != jsonx.String {
				s = string(v.Trim()) // an error of another shape: as written
			}
			h.Errors = append(h.Errors, s)
			return true
		})
		h.Failed, h.Message = len(h.Errors) > 0, strings.Join(h.Errors, "; ")
		return h
	}
	h := Hook{Name: e.Str("hook_name"), Outcome: e.Str("outcome"), Output: e.Str("output")}
	if x := e.field("exit_code"); x.Type() == jsonx.Number {
		h.ExitCode, h.HasExit = x.Int(), true
	}
	h.Failed = e.Subtype == "hook_response" && (h.Outcome == "error" || h.ExitCode != 0)
	if h.Message = e.Str("stderr"); strings.TrimSpace(h.Message) == "" {
		h.Message = h.Output
	}
	return h
}
