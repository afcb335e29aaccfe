package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestCodexFastPathMatchesFullTranslation proves that the Codex readers'
// fast path (no event made of a kind the preset does not read,
// stream.Needs.Kinds: final and usage make no tool result of a command's
// output; the events written into one reused buffer, the assistant
// events without maps, and not validated again) prints byte for byte
// what the full translation prints (every event made, every line
// validated in full: the needs cleared and --full-check): every preset in
// every format on every Codex CLI 0.171.0 capture and session file
// (testdata/agents/codex, copies of ../shared/agents/codex; without
// -short also the session files of ../shared/agents/codex), and on each
// capture cut in the middle of its longest line (a killed producer),
// with that line glued to the next (a lost newline), and with a bad
// escape (\q) in its first agent message (framing intact), which final
// and text print and so must report with its line.
func TestCodexFastPathMatchesFullTranslation(t *testing.T) {
	streams, err := filepath.Glob(codexDir + "*.jsonl")
	require.NoError(t, err)
	require.Len(t, streams, 18)
	dir := t.TempDir()
	hostile, badEscapes := hostileVariants(t, dir, streams, `"type":"agent_message","text":"`)

	inputs := codexInputs(t)
	if !testing.Short() {
		// The session files of every capture, where the captures are
		// (testdata has five of them).
		shared, err := filepath.Glob("../../../shared/agents/codex/*.home/.codex/sessions/*/*/*/*.jsonl")
		require.NoError(t, err)
		inputs = append(inputs, shared...)
	} else {
		hostile, badEscapes = codexSample(hostile), codexSample(badEscapes)
	}
	fastMatchesFull(t, dir, inputs, append(hostile, badEscapes...))

	// The hostile variants really are caught: each reports its bad line.
	bad := runIn(t, []string{"types", filepath.Join(dir, "08-long-session-glued.jsonl")}, dir)
	assert.Regexp(t, `08-long-session-glued.jsonl:\d+: `, bad.Stderr)
	for _, args := range [][]string{{"text"}, {"final"}} {
		bad = runIn(t, append(args, filepath.Join(dir, "01-plain-text-badescape.jsonl")), dir)
		assert.Regexp(t, `badescape.jsonl:3: .*escape`, bad.Stderr, args[0])
	}
}

// hostileVariants writes, into dir, each of streams cut in the middle of
// its longest line (NAME-cut.jsonl: a killed producer) and with that line
// glued to the next (NAME-glued.jsonl: a lost newline), and, for each
// stream where piece (the JSON up to a string's opening quote) occurs,
// one with a bad escape (\q) at the start of that string (framing intact:
// NAME-badescape.jsonl).
func hostileVariants(t *testing.T, dir string, streams []string, piece string) (hostile, badEscapes []string) {
	t.Helper()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	for _, f := range streams {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		cut, glued, ok := cutAndGlued(data)
		require.True(t, ok, name)
		hostile = append(hostile, write(name+"-cut", cut), write(name+"-glued", glued))
		if i := bytes.Index(data, []byte(piece)); i >= 0 {
			at := i + len(piece)
			bad := append(append(bytes.Clone(data[:at]), `\q`...), data[at:]...)
			badEscapes = append(badEscapes, write(name+"-badescape", bad))
		}
	}
	require.NotEmpty(t, badEscapes)
	return hostile, badEscapes
}

// fastMatchesFull checks that a run with the needs its preset declares
// and the default checks prints byte for byte what the full run prints
// (every event made and tracked, every line validated: the needs cleared
// and --full-check): every preset in every format and a few expressions
// on each of inputs, the common runs on each of hostile (variants of
// inputs, which are reported as bad).
func fastMatchesFull(t *testing.T, dir string, inputs, hostile []string, short ...[]string) {
	t.Helper()
	var runs [][]string
	for _, p := range preset.Builtin().List() {
		for _, f := range render.Formats {
			runs = append(runs, []string{p.Name, "--format", string(f)})
		}
	}
	runs = append(runs, []string{"-c", "."}, []string{"-c", `[kind, agent, line]`}, []string{"final", "-e"}, []string{"text", "--agent", "all"})
	short = append([][]string{{"types"}, {"final"}, {"final", "--format", "json"}, {"text"}, {"tools", "--format", "csv"},
		{"usage", "--format", "json"}, {"errors", "--format", "ndjson"}, {"--format", "ndjson"}, {"-c", "."}}, short...)
	everything := func(stream.Needs) stream.Needs { return stream.Needs{} }
	differ := 0
	check := func(in string, runs [][]string) {
		for _, args := range runs {
			full := append(append([]string{}, args...), "--full-check", in)
			fast := append(append([]string{}, args...), in)
			want, got := runNeeding(t, full, dir, everything), runIn(t, fast, dir)
			if !assert.Equal(t, want, got, "%s on %s", strings.Join(args, " "), filepath.Base(in)) {
				if differ++; differ > 2 {
					t.Fatal("too many differences")
				}
			}
		}
	}
	for _, in := range inputs {
		check(in, runs)
	}
	for _, in := range hostile {
		check(in, short)
	}
}

// codexSample keeps the variants of the captures codexInputs keeps with
// -short, and the plain text one.
func codexSample(files []string) []string {
	var keep []string
	for _, f := range files {
		for _, n := range []string{"01-plain-text", "05-auth-401", "08-long-session", "09-sigint-tool", "19-subagent"} {
			if strings.Contains(filepath.Base(f), n) {
				keep = append(keep, f)
			}
		}
	}
	return keep
}

// TestCodexHeadLookMatchesFullReadOnRespelledStreams proves that the
// Codex reader's look at a line's head (which passes over, before the
// decoder reads it, a line the run makes no event of) decides as the full
// read does however the line is spelled: each of three Codex CLI 0.171.0
// captures (testdata/agents/codex: 08-long-session, 13-todo-list,
// 19-subagent) respelled line by line (codexRespellings: the type key
// not first, a type name or key \u-escaped, a type key written twice, a
// second "item" member, spaces in the head, CRLF line ends, blank lines,
// event and item types no Codex release wrote, a command's output of
// 2 MB, longer than the read buffer) prints byte for byte, in the common
// runs and under --strict, what the full translation prints (every event
// made, every line validated). It also proves that a respelling whose
// meaning is the capture's (the key order, escapes, spaces, CRLF, blank
// lines) gives the capture's own final answer and text.
func TestCodexHeadLookMatchesFullReadOnRespelledStreams(t *testing.T) {
	dir := t.TempDir()
	var respelled []string
	for _, name := range []string{"08-long-session", "13-todo-list", "19-subagent"} {
		data, err := os.ReadFile(codexDir + name + ".jsonl")
		require.NoError(t, err)
		for _, r := range codexRespellings {
			p := filepath.Join(dir, name+"-"+r.name+".jsonl")
			require.NoError(t, os.WriteFile(p, r.respell(data), 0o644))
			respelled = append(respelled, p)
			if r.same {
				for _, args := range [][]string{{"final"}, {"text"}} {
					want := runIn(t, append(args, codexDir+name+".jsonl"), dir)
					got := runIn(t, append(args, p), dir)
					assert.Equal(t, want.Stdout, got.Stdout, "%s on %s", args[0], filepath.Base(p))
				}
			}
		}
	}
	fastMatchesFull(t, dir, nil, respelled, []string{"final", "--strict"}, []string{"text", "--strict"}, []string{"usage"})
	// The new types are passed through and counted, never fatal.
	got := runIn(t, []string{"types", filepath.Join(dir, "08-long-session-newtypes.jsonl")}, dir)
	assert.Contains(t, got.Stdout, "turn.mystery")
	assert.Zero(t, got.Code)
}

// codexRespellings are ways of writing a Codex stream's lines otherwise
// (same: with the same meaning).
var codexRespellings = []struct {
	name    string
	same    bool
	respell func([]byte) []byte
}{
	{"typelast", true, perLine(func(l []byte) []byte {
		// {"type":"T",REST} -> {REST,"type":"T"}
		rest, ok := bytes.CutPrefix(l, []byte(`{"type":"`))
		if !ok {
			return l
		}
		end := bytes.IndexByte(rest, '"')
		if len(rest) < end+2 || rest[end+1] != ',' {
			return l
		}
		return []byte(`{` + string(rest[end+2:len(rest)-1]) + `,"type":"` + string(rest[:end]) + `"}`)
	})},
	{"escapedtype", true, perLine(func(l []byte) []byte {
		l = bytes.Replace(l, []byte(`"item.completed"`), []byte(`"item.complet\u0065d"`), 1)
		return bytes.Replace(l, []byte(`"type":"command_execution"`), []byte(`"typ\u0065":"command_execution"`), 1)
	})},
	{"spaces", true, perLine(func(l []byte) []byte {
		return bytes.Replace(l, []byte(`{"type":"`), []byte(`{ "type" : "`), 1)
	})},
	{"crlf-blank", true, func(b []byte) []byte {
		b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n\n  \n"))
		return append([]byte("\n\t\n"), b...)
	}},
	{"typetwice", false, perLine(func(l []byte) []byte {
		// A key written twice means its last value: a tool's end read as
		// a turn's start, and a turn's start as a tool's end.
		if bytes.HasPrefix(l, []byte(`{"type":"item.completed"`)) {
			return append([]byte(`{"type":"turn.started",`), l[1:]...)
		}
		return bytes.Replace(l, []byte(`{"type":"turn.started"}`), []byte(`{"type":"turn.started","type":"item.completed","item":{"id":"x","type":"command_execution"}}`), 1)
	})},
	{"itemtwice", false, perLine(func(l []byte) []byte {
		if bytes.HasPrefix(l, []byte(`{"type":"item.`)) {
			return append(l[:len(l)-1:len(l)-1], `,"item":{"id":"again"}}`...)
		}
		return l
	})},
	{"newtypes", false, perLine(func(l []byte) []byte {
		if bytes.HasPrefix(l, []byte(`{"type":"turn.started"`)) {
			return append(l, "\n"+`{"type":"turn.mystery","x":1}`+"\n"+`{"type":"item.completed","item":{"id":"item_99","type":"brand_new_item","text":"?"}}`+"\n"+`{"type":"item.started","item":{"id":"item_98","type":"brand_new_item"}}`...)
		}
		return l
	})},
	{"huge", false, func(b []byte) []byte {
		at := bytes.Index(b, []byte(`"aggregated_output":"`))
		if at < 0 {
			return b
		}
		at += len(`"aggregated_output":"`)
		big := bytes.Repeat([]byte(`0123456789abcde\n`), 2<<20/17)
		return append(append(bytes.Clone(b[:at]), big...), b[at:]...)
	}},
}

// perLine respells each line of a stream by fn.
func perLine(fn func([]byte) []byte) func([]byte) []byte {
	return func(b []byte) []byte {
		return eachLine(b, func(_ int, l []byte) []byte { return fn(l) })
	}
}
