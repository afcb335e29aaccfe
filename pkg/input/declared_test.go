package input

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestDeclaredTypeOfARecordWithALongTail proves that a record's type is
// found wherever in the record it is written: on every line of every real
// transcript (its subagents' files too) with a member of n bytes added at
// its end, after the type (a newer release's field; a long cwd there does
// the same), an assistant, user, system or cost-state record declares its
// own type, and listed picks the same lines as without the member. Before,
// an assistant record whose type was more than a KiB from its end (the
// 1,100 and 5,000 bytes cases) declared none, and every call of the file
// was passed over. A line cut anywhere gets no panic.
func TestDeclaredTypeOfARecordWithALongTail(t *testing.T) {
	files := realTranscriptFiles(t)
	for _, n := range []int{0, 700, 1100, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			picked := 0
			for _, f := range files {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
					long := append(append([]byte(nil), line[:len(line)-1]...), `,"requestContextSummary":"`+strings.Repeat("x", n)+`"}`...)
					ev, err := stream.NewEvent(append([]byte(nil), long...), f, 1)
					require.NoError(t, err)
					typ, _ := DeclaredType(long)
					switch ev.Type {
					case "assistant", "user", "system", "cost-state":
						assert.Equal(t, ev.Type, string(typ), "%s: %.120s", f, line)
					}
					assert.Equal(t, listed(line), listed(long), "%s: %.120s", f, line)
					if listed(long) {
						picked++
					}
					for _, cut := range []int{1, 2, len(long) / 3, len(long) / 2, len(long) - 1030, len(long) - 2} {
						if cut > 0 && cut < len(long) {
							DeclaredType(long[:cut])
						}
					}
				}
			}
			assert.Greater(t, picked, 500)
		})
	}
}
