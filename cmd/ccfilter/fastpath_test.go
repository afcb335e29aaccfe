package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// runResult is everything a run shows: both streams and the exit code.
type runResult struct {
	Stdout, Stderr string
	Code           int
}

func runIn(t *testing.T, args []string, dir string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1"})
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
		lines := bytes.SplitAfter(data, []byte("\n"))
		if len(lines) < 2 {
			return
		}
		longest := 0
		for i, l := range lines {
			if len(l) > len(lines[longest]) {
				longest = i
			}
		}
		l := lines[longest]
		cut := append(bytes.Clone(bytes.Join(lines[:longest], nil)), l[:len(l)/2]...)
		cut = append(cut, '\n')
		cut = append(cut, bytes.Join(lines[longest+1:], nil)...)
		glued := append(bytes.Clone(bytes.Join(lines[:longest], nil)), bytes.TrimSuffix(l, []byte("\n"))...)
		glued = append(glued, bytes.Join(lines[longest+1:], nil)...)
		write(name+"-cut", cut)
		write(name+"-glued", glued)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		variants(strings.TrimSuffix(filepath.Base(f), ".jsonl"), data)
	}
	// A tool result longer than the decoder's 4 MiB buffer, which final and
	// types pass over without keeping it (DecoderOptions.SkipLong).
	data, err := os.ReadFile("../../testdata/events/02-write-read.jsonl")
	require.NoError(t, err)
	small := `"content":"1\thello probe\n2\tsecond line\n3\t"`
	require.Contains(t, string(data), small)
	big := bytes.Replace(data, []byte(small), []byte(`"content":"`+strings.Repeat(`line \"quoted\" \\ \u001b[1m\n`, 200_000)+`"`), 1)
	write("02-write-read-6MB", big)
	variants("02-write-read-6MB", big)

	var runs [][]string
	for _, p := range filter.Presets {
		for _, f := range render.Formats {
			runs = append(runs, []string{p.Name, "--format", string(f)})
		}
	}
	runs = append(runs,
		[]string{"-c", "."},
		[]string{"-r", `select(.type=="user") | .message.content[0].tool_use_id`},
		[]string{"-c", `select(.type=="assistant") | [kind, agent, line]`},
		[]string{"tools", "--where", `.name == "Bash"`},
		[]string{"text", "--agent", "all"},
	)
	// On the hostile variants, the runs that read each line differently.
	hostile := [][]string{{"types"}, {"final"}, {"text"}, {"tools", "--format", "csv"}, {"errors", "--format", "ndjson"}, {"-c", "."}}
	differ := 0
	for n, in := range inputs {
		runs := runs
		if n >= len(files) {
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
}

// TestNoResultSizesChangeNothing proves that the runs that do not count
// tool result sizes (usage, the text of text, events written as NDJSON or
// JSON) print byte for byte what they print when every size is counted:
// every preset in every format, on the captures with tool results, failed
// ones and subagents among them.
func TestNoResultSizesChangeNothing(t *testing.T) {
	files := []string{"02-write-read", "03-bash-fail", "04-parallel-tools", "05-subagents-async", "15-permission-denied", "19-big-tool-result", "21-sixty-tool-calls"}
	for _, name := range files {
		in := filepath.Join("../../testdata/events", name+".jsonl")
		for _, p := range filter.Presets {
			for _, f := range render.Formats {
				args := []string{p.Name, "--format", string(f), in}
				got := runIn(t, args, "")
				countResultSizes = true
				want := runIn(t, args, "")
				countResultSizes = false
				assert.Equal(t, want, got, "%s --format %s on %s", p.Name, f, name)
			}
		}
	}
}
