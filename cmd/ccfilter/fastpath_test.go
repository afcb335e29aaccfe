package main

import (
	"bytes"
	"fmt"
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

// runResult is everything a run shows: both streams and the exit code.
type runResult struct {
	Stdout, Stderr string
	Code           int
}

func runIn(t *testing.T, args []string, dir string) runResult {
	t.Helper()
	return runNeeding(t, args, dir, nil)
}

// runNeeding is runIn with each run's needs replaced by needs(its own).
func runNeeding(t *testing.T, args []string, dir string, needs func(stream.Needs) stream.Needs) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	o := &options{presets: preset.Builtin(), needs: needs}
	code := runWith(o, args, strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1"})
	out, errs := stdout.String(), stderr.String()
	if dir != "" {
		out, errs = strings.ReplaceAll(out, dir, "DIR"), strings.ReplaceAll(errs, dir, "DIR")
	}
	return runResult{out, errs, code}
}

// TestFastPathMatchesFullCheck proves that the fast path (framing-only
// checks of the lines a run passes over, head-only classification, the
// light tracker of final and types) prints byte for byte what the slow path
// prints (--full-check: every line validated in full): every preset in
// every format, and expressions, on every capture, and on every capture cut
// in the middle of its longest line (a killed producer) and with that line
// glued to the next one (a lost newline), where both paths must report the
// same bad line.
func TestFastPathMatchesFullCheck(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 42)
	if testing.Short() {
		// make test: a third of the captures, among them the long lines
		// (19), subagents (05) and partial messages (07); make test-all
		// runs them all.
		files = sampleCaptures(files)
	}

	dir := t.TempDir()
	inputs := append([]string{}, files...)
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name+".jsonl")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		inputs = append(inputs, p)
	}
	// variants writes the stream cut in the middle of its longest line, and
	// with that line glued to the next.
	variants := func(name string, data []byte) {
		if cut, glued, ok := cutAndGlued(data); ok {
			write(name+"-cut", cut)
			write(name+"-glued", glued)
		}
	}
	// badEscapes holds the captures with a bad escape (\q) in the text of
	// their first text block and of their last result: framing intact, so
	// only full validation finds it, and the runs that print or keep those
	// events must.
	var badEscapes []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		variants(name, data)
		// (the first text of a real model's assistant event: a synthetic one is an API error,
		// which text does not print)
		text, result := -1, bytes.LastIndex(data, []byte(`"result":"`))
		off := 0
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if i := bytes.Index(l, []byte(`{"type":"text","text":"`)); i >= 0 && bytes.HasPrefix(l, []byte(`{"type":"assistant"`)) && !bytes.Contains(l, []byte(`"<synthetic>"`)) {
				text = off + i
				break
			}
			off += len(l)
		}
		if text < 0 || result < 0 {
			continue
		}
		bad := bytes.Clone(data)
		for _, at := range []int{result + len(`"result":"`), text + len(`{"type":"text","text":"`)} {
			bad = append(bad[:at], append([]byte(`\q`), bad[at:]...)...)
		}
		write(name+"-badescape", bad)
		badEscapes = append(badEscapes, inputs[len(inputs)-1])
	}
	require.NotEmpty(t, badEscapes)
	// A tool result longer than the decoder's 1 MiB buffer, read in pieces
	// from a pipe and sized by looking ahead in a file.
	data, err := os.ReadFile("../../testdata/events/02-write-read.jsonl")
	require.NoError(t, err)
	small := `"content":"1\thello probe\n2\tsecond line\n3\t"`
	require.Contains(t, string(data), small)
	big := bytes.Replace(data, []byte(small), []byte(`"content":"`+strings.Repeat(`line \"quoted\" \\ \u001b[1m\n`, 200_000)+`"`), 1)
	write("02-write-read-6MB", big)
	variants("02-write-read-6MB", big)

	var runs [][]string
	for _, p := range preset.Builtin().List() {
		for _, f := range render.Formats {
			runs = append(runs, []string{p.Name, "--format", string(f)})
		}
	}
	runs = append(runs,
		[]string{"-c", "."},
		[]string{"-r", `select(.type=="user") | .message.content[0].tool_use_id`},
		[]string{"-c", `select(.type=="assistant") | [kind, agent, line]`},
		[]string{"tools", "--where", `.tool == "Bash"`},
		[]string{"text", "--agent", "all"},
	)
	// On the hostile variants, the runs that read each line differently.
	hostile := [][]string{{"types"}, {"final"}, {"text"}, {"tools", "--format", "csv"}, {"errors", "--format", "ndjson"}, {"-c", "."}}
	differ := 0
	for n, in := range inputs {
		runs := runs
		switch {
		case strings.HasSuffix(in, "-badescape.jsonl"):
			runs = [][]string{{"text"}, {"final"}, {"types"}, {"-r", ".result? // empty"}}
		case n >= len(files):
			runs = hostile
		}
		for _, args := range runs {
			full := append(append([]string{}, args...), "--full-check", in)
			fast := append(append([]string{}, args...), in)
			want, got := runIn(t, full, dir), runIn(t, fast, dir)
			if !assert.Equal(t, want, got, "%s on %s", strings.Join(args, " "), filepath.Base(in)) {
				if differ++; differ > 2 {
					t.Fatal("too many differences")
				}
			}
		}
	}
	// The hostile variants really are caught: each reports its bad line.
	bad := runIn(t, []string{"types", filepath.Join(dir, "03-bash-fail-glued.jsonl")}, dir)
	assert.Contains(t, bad.Stderr, "03-bash-fail-glued.jsonl:")
	assert.Regexp(t, `glued.jsonl:\d+: `, bad.Stderr)
	for _, args := range [][]string{{"text"}, {"final"}} {
		bad = runIn(t, append(args, badEscapes[0]), dir)
		assert.Regexp(t, `badescape.jsonl:\d+: .*escape`, bad.Stderr, args[0])
	}
}

// cutAndGlued returns the stream data cut in the middle of its longest
// line (a killed producer) and with that line glued to the next one (a
// lost newline); false for a stream of one line.
func cutAndGlued(data []byte) (cut, glued []byte, ok bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) < 2 {
		return nil, nil, false
	}
	longest := 0
	for i, l := range lines {
		if len(l) > len(lines[longest]) {
			longest = i
		}
	}
	l := lines[longest]
	cut = append(bytes.Clone(bytes.Join(lines[:longest], nil)), l[:len(l)/2]...)
	cut = append(cut, '\n')
	cut = append(cut, bytes.Join(lines[longest+1:], nil)...)
	glued = append(bytes.Clone(bytes.Join(lines[:longest], nil)), bytes.TrimSuffix(l, []byte("\n"))...)
	glued = append(glued, bytes.Join(lines[longest+1:], nil)...)
	return cut, glued, true
}

// TestNeedsChangeNothing proves that what each preset says it needs
// (preset.Preset.Needs: no tool result sizes, usage without tool calls,
// the outcome only) changes nothing it prints or the exit code: every
// preset in every format, with -e (where the outcome decides the code),
// and the text runs whose needs depend on --agent, give byte for byte
// what they give with everything tracked. On the captures (a sample with
// -short), and on cut variants of those with subagents, tool results and
// errors.
func TestNeedsChangeNothing(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 42)
	if testing.Short() {
		files = sampleCaptures(files)
	}
	dir := t.TempDir()
	for _, name := range []string{"03-bash-fail", "05-subagents-async", "19-big-tool-result"} {
		data, err := os.ReadFile(filepath.Join("../../testdata/events", name+".jsonl"))
		require.NoError(t, err)
		for i, at := range []int{len(data) / 3, len(data) / 2} {
			cut := append(bytes.Clone(data[:at]), data[at+at/7:]...)
			p := filepath.Join(dir, fmt.Sprintf("%s-cut%d.jsonl", name, i))
			require.NoError(t, os.WriteFile(p, cut, 0o644))
			files = append(files, p)
		}
	}
	// The last run names a subagent of 05-subagents-async by its agent id,
	// which only the subagent tree knows: it must take the whole tracker.
	runs := [][]string{{"text", "-e"}, {"text", "--agent", "all"}, {"text", "--agent", "sub", "-e"}, {"text", "--agent", "ab38ee1e"},
		{"all", "--agent", "ab38ee1e", "--format", "ndjson"}, {"errors", "--agent", "sub", "--format", "json"},
		{"-c", "select(.type == \"user\")", "--format", "ndjson"}, {"-e", ".type", "--agent", "main", "--format", "json"},
		{".message.id", "--agent", "ab38ee1e", "--format", "ndjson"}, {"select(kind == \"tool_result\")"}}
	for _, p := range preset.Builtin().List() {
		for _, f := range render.Formats {
			runs = append(runs, []string{p.Name, "-e", "--format", string(f)})
		}
	}
	everything := func(stream.Needs) stream.Needs { return stream.Needs{} }
	failed := 0
	for _, in := range files {
		for _, args := range runs {
			args := append(append([]string{}, args...), in)
			got := runIn(t, args, dir)
			want := runNeeding(t, args, dir, everything)
			assert.Equal(t, want, got, "%s on %s", strings.Join(args, " "), filepath.Base(in))
			if got.Code != 0 {
				failed++
			}
		}
	}
	// The outcome really decides: some of these runs exit with a failure.
	assert.Positive(t, failed)
	sub := runIn(t, []string{"text", "--agent", "ab38ee1e", "../../testdata/events/05-subagents-async.jsonl"}, "")
	assert.NotEmpty(t, sub.Stdout, "the subagent's text is found by its agent id")
}

// sampleCaptures keeps every third capture and the ones whose shape no
// other has (a 3 MB line, subagents, partial messages; 03, whose glued
// variant the test names),
// for the -short runs of make test.
func sampleCaptures(files []string) []string {
	var out []string
	for i, f := range files {
		b := filepath.Base(f)
		if i%3 == 0 || strings.HasPrefix(b, "03-") || strings.HasPrefix(b, "19-") || strings.HasPrefix(b, "05-") || strings.HasPrefix(b, "07-") {
			out = append(out, f)
		}
	}
	return out
}
