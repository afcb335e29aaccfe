package main

// Issue 33 item 1: what ccfilter says of an input must not depend on how
// its bytes arrive. The readers here break the two assumptions a reader
// of the stream could wrongly make: that a read returns a whole line (one
// byte at a time), and that bytes already read stay put (a reader that
// scribbles over the buffer it is given before each read, as a reused
// bufio buffer is overwritten by the next lines).

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oneByteReader returns one byte per Read.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// scribbler fills the whole buffer it is given with garbage before each
// read, so a slice kept from an earlier read of that buffer changes.
type scribbler struct{ r io.Reader }

func (s scribbler) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	return s.r.Read(p)
}

// arrivalInputs are every capture and the main file of every transcript
// (its session folder beside it, so subagents are joined).
func arrivalInputs(t *testing.T) []string {
	caps, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	trs, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NoError(t, err)
	require.NotEmpty(t, trs)
	return append(append(append(append(caps, "../../testdata/real/60-long-session.jsonl"), trs...), geminiInputs(t)...), codexInputs(t)...)
}

// TestOutputDoesNotDependOnHowBytesArrive proves every preset that keeps
// facts across events (usage's cost, subagents' reports, final's answer,
// tools) and the pass-through of every line print the same whether the
// file is read whole, a byte at a time, or through a buffer scribbled
// over between reads, on every capture and transcript.
func TestOutputDoesNotDependOnHowBytesArrive(t *testing.T) {
	runs := [][]string{{"usage", "-F", "json"}, {"subagents", "-F", "json"}, {"final"}, {"tools", "-F", "json"}, {"all", "-F", "ndjson"}, {"init", "-F", "json"}}
	// The file is read into memory first: a byte per read system call
	// would make this test about the kernel.
	inMemory := func(r io.Reader) io.Reader {
		b, err := io.ReadAll(r)
		require.NoError(t, err)
		return bytes.NewReader(b)
	}
	wraps := map[string]func(io.Reader) io.Reader{
		"one byte at a time": func(r io.Reader) io.Reader { return oneByteReader{inMemory(r)} },
		"scribbled buffer":   func(r io.Reader) io.Reader { return scribbler{inMemory(r)} },
	}
	inputs := arrivalInputs(t)
	if testing.Short() {
		// A third of them (the race detector runs -short, and reads a
		// byte at a time 20 times slower): every input in the full run.
		var some []string
		for i, p := range inputs {
			if i%3 == 0 || strings.Contains(p, "60-long-session") {
				some = append(some, p)
			}
		}
		inputs = some
	}
	for _, path := range inputs {
		name := filepath.Base(path)
		if strings.Contains(path, "transcripts") {
			name = strings.Split(path, "/")[4] + "/transcript"
		}
		for _, args := range runs {
			args := append(append([]string{}, args...), path)
			want := runWrapped(t, args, nil)
			for wname, wrap := range wraps {
				t.Run(name+"/"+args[0]+"/"+wname, func(t *testing.T) {
					got := runWrapped(t, args, wrap)
					assert.Equal(t, want.Code, got.Code)
					assert.Equal(t, want.Stderr, got.Stderr)
					assert.True(t, want.Stdout == got.Stdout, "stdout differs:\n%s", firstDiff(want.Stdout, got.Stdout))
				})
			}
		}
	}
}

// TestTranscriptCostSurvivesLaterRecords is the audit's case of item 1:
// the cost of a transcript whose last cost-state is followed by more
// records than the reader's buffer holds is kept (it was lost when the
// reader's buffer was reused).
func TestTranscriptCostSurvivesLaterRecords(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/transcripts/02-write-read/home/.claude/projects/*/*.jsonl")
	require.Len(t, files, 1)
	want := runWrapped(t, []string{"usage", "-F", "json", files[0]}, nil)
	require.Contains(t, want.Stdout, `"side": "total",`)
	require.Contains(t, want.Stdout, `"cost_usd": 0.0297614,`)
	got := runWrapped(t, []string{"usage", "-F", "json", files[0]}, func(r io.Reader) io.Reader { return scribbler{r} })
	assert.Equal(t, want.Stdout, got.Stdout)
}

func runWrapped(t *testing.T, args []string, wrap func(io.Reader) io.Reader) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	o := &options{presets: preset.Builtin(), wrapInput: wrap}
	code := runWith(o, args, strings.NewReader(""), &stdout, &stderr, []string{"NO_COLOR=1"})
	return runResult{stdout.String(), stderr.String(), code}
}

// firstDiff shows where two outputs part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-80)
	return "want …" + a[lo:min(len(a), i+120)] + "\n got …" + b[lo:min(len(b), i+120)]
}
