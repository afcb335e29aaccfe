package input

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// realTranscriptFiles are the real session transcripts of testdata and
// their subagents' files.
func realTranscriptFiles(t *testing.T) []string {
	files, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	subs, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*/subagents/*.jsonl")
	files = append(files, subs...)
	require.Greater(t, len(files), 25)
	return files
}

// TestDeclaredTypeIsTheRecordsType proves, on every line of every real
// transcript (its subagents' files too), that a line whose record is an
// assistant, user, system or cost-state record declares that type where
// DeclaredType looks (so the readers that pick lines by it miss none),
// and that it declares no other type than the record's but for a nested
// one (which its readers classify).
func TestDeclaredTypeIsTheRecordsType(t *testing.T) {
	files := realTranscriptFiles(t)
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			ev, err := stream.NewEvent(append([]byte(nil), line...), f, 1)
			if err != nil {
				continue
			}
			typ, _ := DeclaredType(line)
			switch ev.Type {
			case "assistant", "user", "system", "cost-state":
				assert.Equal(t, ev.Type, string(typ), "%s: %.120s", f, line)
				n++
			default:
				if typ != nil {
					assert.Equal(t, ev.Type, string(typ), "%s: %.120s", f, line)
				}
			}
		}
		fh.Close()
	}
	assert.Greater(t, n, 800)
	typ, _ := DeclaredType([]byte(`{"parentUuid":"x","attachment":{"type":"user"},"type":"attachment"}`))
	assert.Equal(t, "user", string(typ), "a nested type first is taken: the caller reads the line and classifies it")
}
