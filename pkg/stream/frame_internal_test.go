package stream

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// frameResult is all a frameScanner tells once a line is fed.
type frameResult struct {
	err       string
	truncated bool
	n         int64
}

func frameLine(line []byte, chunk func() int) frameResult {
	var fs frameScanner
	for b := line; len(b) > 0; {
		k := min(chunk(), len(b))
		fs.feed(b[:k])
		b = b[k:]
	}
	r := frameResult{n: fs.n}
	if err := fs.end(); err != nil {
		r.err = err.Error()
	}
	r.truncated = fs.truncated
	return r
}

// TestFrameScannerChunks proves that the framing check of a line passed
// over (SkipLong) does not depend on where the reads cut it: fed whole,
// in chunks of random sizes, and one byte at a time (where the fused block
// scanner never runs: the scalar walk alone), every line gives the same
// answer. The lines: every capture line, each cut short, and made-up ones
// with backslash runs and escaped quotes at every offset, nested arrays,
// spaces before the end, and stray brackets.
func TestFrameScannerChunks(t *testing.T) {
	var lines [][]byte
	files, _ := filepath.Glob("../../testdata/events/*.jsonl")
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > 200 {
				lines = append(lines, l, l[:len(l)/2], l[:len(l)-1])
			}
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	pieces := []string{`ab`, `\"`, `\\`, `\\\"`, `\\\\`, `\`, `"`, `[`, `]`, `{`, `}`, ` `, `,`, `x`, `\n`, `\u00e9`}
	for range 400 {
		var sb strings.Builder
		sb.WriteString(`{"type":"user","message":{"content":[{"type":"tool_result","content":"`)
		for range r.IntN(300) {
			if r.IntN(3) == 0 {
				sb.WriteString(strings.Repeat("y", r.IntN(70)))
			}
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		sb.WriteString(`"}]},"x":[[` + strings.Repeat(" ", r.IntN(80)) + `]]}` + strings.Repeat(" ", r.IntN(3)))
		lines = append(lines, []byte(sb.String()))
	}
	for _, line := range lines {
		want := frameLine(line, func() int { return 1 })
		require.Equal(t, want, frameLine(line, func() int { return len(line) }), "whole: %.300q", line)
		for range 3 {
			require.Equal(t, want, frameLine(line, func() int { return 1 + r.IntN(400) }), "random chunks: %.300q", line)
		}
	}
}
