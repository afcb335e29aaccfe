package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// geminiRunKinds are the kinds of events the presets that leave some of a
// Gemini stream's lines unread ask for (stream.Needs.Kinds): final's (the
// outcome's: preset outcomeKinds), text's words-only (those and the
// pieces), usage's (all but tool results).
var geminiRunKinds = map[string]stream.KindSet{
	"final": stream.KindsOf(stream.KindInit, stream.KindText, stream.KindThinking, stream.KindToolUse,
		stream.KindAPIError, stream.KindResult, stream.KindUnknown),
	"text": stream.KindsOf(stream.KindInit, stream.KindText, stream.KindThinking, stream.KindToolUse,
		stream.KindAPIError, stream.KindResult, stream.KindUnknown, stream.KindDelta),
	"usage": ^stream.KindsOf(stream.KindToolResult),
}

// geminiReadAll reads a Gemini stream to its end as cmd/ccfilter does (a
// line's error reported and reading on) and writes down each event (kind,
// line, bytes, echo) and each error, in order.
func geminiReadAll(t *testing.T, data []byte, opts stream.DecoderOptions) []string {
	t.Helper()
	r := NewGeminiReader(bytes.NewReader(data), "", opts)
	defer r.Close()
	var got []string
	for range 100000 {
		ev, err := r.Next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			require.True(t, stream.IsLineError(err), "only line errors: %v", err)
			got = append(got, "error: "+err.Error())
			continue
		}
		echo, _ := ev.Echoed()
		got = append(got, fmt.Sprintf("%s line %d: %s echo %s", ev.Kind, ev.Line, ev.Raw, echo))
	}
	t.Fatal("the reader does not end")
	return nil
}

// geminiFastMatchesPlain checks that the reader with its fast path (lines
// passed over by a look at their bytes) makes exactly the events and
// errors of its plain path (every line decoded and translated: a Want of
// the caller's that reads every line turns the fast path off) on data.
func geminiFastMatchesPlain(t *testing.T, data []byte, opts stream.DecoderOptions) {
	t.Helper()
	plain := opts
	plain.Want = func([]byte) bool { return true }
	require.Equal(t, geminiReadAll(t, data, plain), geminiReadAll(t, data, opts))
}

// geminiHostileVariants are ways a line of a real stream is spoiled or
// written otherwise than Gemini CLI writes it, each of which the fast path
// must either pass over exactly as the plain path reads it or leave to the
// plain path.
var geminiHostileVariants = map[string]func(line string) string{
	"cut":               func(l string) string { return l[:len(l)/2] },
	"bad escape":        func(l string) string { return strings.Replace(l, `","`, `\q","`, 1) },
	"bad escape at end": func(l string) string { return strings.TrimSuffix(l, `"}`) + `\x"}` },
	"unknown type":      func(l string) string { return strings.Replace(l, `{"type":"`, `{"type":"x`, 1) },
	"type not first": func(l string) string {
		typ, rest, _ := strings.Cut(strings.TrimPrefix(l, "{"), ",")
		return "{" + rest[:len(rest)-1] + "," + typ + "}"
	},
	"escaped type":   func(l string) string { return strings.Replace(l, `{"type":"t`, `{"type":"\u0074`, 1) },
	"escaped role":   func(l string) string { return strings.Replace(l, `"role":"u`, `"role":"\u0075`, 1) },
	"type twice":     func(l string) string { return strings.TrimSuffix(l, "}") + `,"type":"message"}` },
	"role twice":     func(l string) string { return strings.TrimSuffix(l, "}") + `,"role":"assistant"}` },
	"delta false":    func(l string) string { return strings.Replace(l, `"delta":true`, `"delta":false`, 1) },
	"CRLF":           func(l string) string { return l + "\r" },
	"blank lines":    func(l string) string { return "\n  \n" + l },
	"spaces":         func(l string) string { return "  " + l + " \t" },
	"escaped quotes": func(l string) string { return strings.Replace(l, `"content":"`, `"content":"\\\" \"\\\\`, 1) },
	"huge": func(l string) string {
		return strings.Replace(l, `"content":"`, `"content":"`+strings.Repeat("ab\\n", 300000), 1)
	},
	"two lines merged": func(l string) string { return l + l },
	"not an object":    func(l string) string { return `["` + l[2:] },
}

// TestGeminiFastPathMatchesPlainTranslation proves that the Gemini
// reader's fast path, which passes over the lines a run makes no event of
// with a look at their bytes (gemini_fast.go), makes the same events, at
// the same lines, echoing the same bytes, and the same errors at the same
// line numbers as the plain path that decodes and translates every line:
// on two real captures (testdata/agents/gemini, Gemini CLI 0.61.0:
// 08-long-session, 81 lines of prompts, text pieces, tool calls and their
// results; 14-stream-cut, text sent again after a retry) as they are,
// without the text after their last tool result (the answer is then
// empty), and with each of their lines in turn spoiled in each of
// geminiHostileVariants (the rest of the capture as it is), for each run
// that leaves lines unread (geminiRunKinds); with the framing check the
// presets use and with --full-check's, each with and without a Prepare
// that validates every event (--strict's view of a bad line is the
// decoder's error, so the same), a spoilt stream read under one of them.
func TestGeminiFastPathMatchesPlainTranslation(t *testing.T) {
	validate := func(ev *stream.Event) error { return ev.Validate() }
	for _, name := range []string{"08-long-session", "14-stream-cut"} {
		data, err := os.ReadFile("../../testdata/agents/gemini/" + name + ".jsonl")
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		// The options: each check with and without a validating Prepare;
		// the spoilt streams take them in turn, line by line (each line
		// spoilt each way is read under one of them).
		var options []stream.DecoderOptions
		for _, check := range []stream.Check{stream.CheckFraming, stream.CheckAll} {
			for _, prepare := range []func(*stream.Event) error{nil, validate} {
				options = append(options, stream.DecoderOptions{Check: check, Prepare: prepare})
			}
		}
		for run, kinds := range geminiRunKinds {
			t.Run(name+"/"+run, func(t *testing.T) {
				for _, opts := range options {
					opts.Kinds = kinds
					geminiFastMatchesPlain(t, data, opts)
					geminiFastMatchesPlain(t, withoutLastText(lines), opts)
				}
				for variant, spoil := range geminiHostileVariants {
					for i, l := range lines {
						if variant == "huge" && i%8 != 0 {
							continue // (a line of 1.2 MB, past the read buffer: every eighth)
						}
						opts := options[i%len(options)]
						opts.Kinds = kinds
						spoilt := append(append(append([]string{}, lines[:i]...), spoil(l)), lines[i+1:]...)
						t.Run(fmt.Sprintf("%s/line%d", variant, i+1), func(t *testing.T) {
							geminiFastMatchesPlain(t, []byte(strings.Join(spoilt, "\n")+"\n"), opts)
						})
					}
				}
			})
		}
	}
}

// withoutLastText is a stream's lines without the assistant's text after
// its last tool result: a run whose answer, then, is empty (the text
// before the tool call is not the answer).
func withoutLastText(lines []string) []byte {
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"tool_result"`) {
			last = i
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i > last && last >= 0 && strings.Contains(l, `"role":"assistant"`) {
			continue
		}
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// TestGeminiReaderPassesOverTheLinesARunMakesNothingOf proves that the
// lines a run makes no event of are passed over by the decoder (not
// framed, indexed, classified, nor prepared), not only left untranslated:
// on 08-long-session (testdata/agents/gemini, Gemini CLI 0.61.0), final
// (which reads no tool result nor prompt nor text piece after a turn's
// first) has no tool result line, no prompt line and no later piece
// prepared; a run that reads every kind (types) has each of them.
func TestGeminiReaderPassesOverTheLinesARunMakesNothingOf(t *testing.T) {
	data, err := os.ReadFile("../../testdata/agents/gemini/08-long-session.jsonl")
	require.NoError(t, err)
	prepared := func(kinds stream.KindSet) map[string]int {
		seen := map[string]int{}
		opts := stream.DecoderOptions{Kinds: kinds, Check: stream.CheckFraming, Prepare: func(ev *stream.Event) error {
			if _, made := ev.Echoed(); !made { // a line of the stream itself, not an event made of one
				role := ev.Get("role")
				seen[ev.Type+string(role)]++
			}
			return nil
		}}
		geminiReadAll(t, data, opts)
		return seen
	}
	lines := map[string]int{}
	for l := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		switch {
		case strings.HasPrefix(l, `{"type":"tool_result"`):
			lines["tool_result"]++
		case strings.Contains(l, `"role":"user"`):
			lines[`message"user"`]++
		}
	}
	require.Positive(t, lines["tool_result"])
	require.Positive(t, lines[`message"user"`])

	all := prepared(0)
	assert.Equal(t, lines["tool_result"], all["tool_result"], "types reads every tool result line")
	assert.Equal(t, lines[`message"user"`], all[`message"user"`], "and every prompt")

	final := prepared(geminiRunKinds["final"])
	assert.Zero(t, final["tool_result"], "final passes over the tool result lines")
	assert.Zero(t, final[`message"user"`], "and the prompts")
	assert.Less(t, final[`message"assistant"`], all[`message"assistant"`], "and the pieces after a turn's first")
	assert.Positive(t, final[`message"assistant"`], "a turn's first piece is read: it opens the text at its line")
}

// TestGeminiResultWrittenAsMarshalled proves that the result and init
// events the Gemini stream's reader writes by hand (appendResult, the
// init in translate) are the JSON json.Marshal makes of their gmResult
// and gmInit, member for member, in the same order: for the result of
// every Gemini CLI 0.61.0 capture in testdata/agents/gemini (runs that
// succeeded, failed after retries, hit the turn limit; one model and
// several), and for the shapes no capture has (no stats, escapes, text
// json.Marshal escapes otherwise: the same value).
func TestGeminiResultWrittenAsMarshalled(t *testing.T) {
	files, err := filepath.Glob("../../testdata/agents/gemini/*.jsonl")
	require.NoError(t, err)
	results, inits := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		r := NewGeminiReader(bytes.NewReader(data), "", stream.DecoderOptions{})
		for {
			ev, err := r.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err, f)
			var want any
			switch ev.Kind {
			case stream.KindResult:
				var res gmResult
				require.NoError(t, json.Unmarshal(ev.Raw, &res), f)
				want, results = res, results+1
			case stream.KindInit:
				var in gmInit
				require.NoError(t, json.Unmarshal(ev.Raw, &in), f)
				want, inits = in, inits+1
			default:
				continue
			}
			marshalled, err := json.Marshal(want)
			require.NoError(t, err)
			assert.Equal(t, string(marshalled), string(ev.Raw), f)
		}
		r.Close()
	}
	assert.GreaterOrEqual(t, results, 10)
	assert.GreaterOrEqual(t, inits, 10)

	g := &geminiReader{}
	d := int64(7)
	for name, r := range map[string]gmResult{
		"bare":   {Type: "result", Subtype: "success", CCFilter: stream.Synthetic},
		"failed": {Type: "result", Subtype: "error_max_turns", IsError: true, Errors: []string{"a \"quoted\"\nmessage", "two"}, NumTurns: 2},
		"models": {Type: "result", Subtype: "success", Result: str("<b>é & \u2028</b>"), DurationMs: &d, SessionID: "s", Timestamp: "t",
			Usage:      &gmUsage{InputTokens: 1, CacheReadInputTokens: 2, OutputTokens: 3},
			ModelUsage: map[string]gmModelUsage{"z-model": {InputTokens: 5}, "a-model": {OutputTokens: 6}, "m\"odel": {}}},
	} {
		marshalled, err := json.Marshal(r)
		require.NoError(t, err)
		assert.JSONEq(t, string(marshalled), string(g.appendResult(&r).b), name)
		if name != "models" { // (json.Marshal writes < > & \u2028 escaped: the same value)
			assert.Equal(t, string(marshalled), string(g.appendResult(&r).b), name)
		}
	}
}

// TestPlainStringIsTheByteTest proves that plainString, eight bytes at a
// time, says what the byte-at-a-time test says (printable ASCII, no quote
// nor backslash): every byte value at every position of strings of 1 to
// 19 bytes, after plain bytes and before them.
func TestPlainStringIsTheByteTest(t *testing.T) {
	byByte := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] >= 0x80 || s[i] == '"' || s[i] == '\\' {
				return false
			}
		}
		return true
	}
	for n := 1; n < 20; n++ {
		for pos := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a~ ", 7)[:n])
				b[pos] = byte(c)
				s := string(b)
				require.Equal(t, byByte(s), plainString(s), "%q", s)
			}
		}
	}
	assert.True(t, plainString(""))
}
