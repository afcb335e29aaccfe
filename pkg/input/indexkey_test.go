package input

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realLines are every line of every real session transcript and
// subagent file (testdata/transcripts, and ../shared/transcripts where
// it is there).
func realLines(t *testing.T) [][]byte {
	var files []string
	for _, root := range []string{"../../testdata/transcripts", "../../../shared/transcripts"} {
		for _, p := range []string{"*/home/.claude/projects/*/*.jsonl", "*/home/.claude/projects/*/*/subagents/*.jsonl"} {
			m, _ := filepath.Glob(filepath.Join(root, p))
			files = append(files, m...)
		}
	}
	require.Greater(t, len(files), 25)
	var lines [][]byte
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, append([]byte(nil), sc.Bytes()...))
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	return lines
}

// TestIndexKeyIsBytesIndex proves indexKey (a search by a key's rarer
// byte) finds what bytes.Index finds, on every line of every real
// transcript, in the windows DeclaredType and RecordTime look at and cut
// at every length up to 600 bytes (a key cut short by a window's edge,
// or starting before the rare byte's offset), for each key they look for.
func TestIndexKeyIsBytesIndex(t *testing.T) {
	keys := []struct {
		key string
		at  int
	}{{`"type":"`, 2}, {`"timestamp":"`, 3}, {`"type":"assistant"`, 2}}
	lines := realLines(t)
	n := 0
	for _, line := range lines {
		windows := [][]byte{line, line[:min(len(line), 512)], line[max(0, len(line)-1024):]}
		for cut := 0; cut <= min(len(line), 600); cut += 31 {
			windows = append(windows, line[:cut], line[len(line)-cut:])
		}
		for _, w := range windows {
			for _, k := range keys {
				want := bytes.Index(w, []byte(k.key))
				if want >= 0 {
					n++
				}
				require.Equal(t, want, indexKey(w, k.key, k.at), "%q in %.200q", k.key, w)
			}
		}
	}
	assert.Greater(t, n, 10000, "the keys are found in the real lines, not only missed")
	for _, s := range []string{"", "y", `"ty`, `ype":"`, `"type":`, `"type":"`, `x"type":"`, `yy"type":"`} {
		assert.Equal(t, bytes.Index([]byte(s), []byte(`"type":"`)), indexKey([]byte(s), `"type":"`, 2), "%q", s)
	}
}

// declaredTypeByIndex and recordTimeByIndex are DeclaredType and
// RecordTime as they were (main at aa5e20c), with bytes.Index: the
// reference they must equal.
func declaredTypeByIndex(line []byte) (typ, rest []byte) {
	head := line[:min(len(line), 512)]
	if k := bytes.Index(head, []byte(`"type":"`)); k >= 0 {
		v := head[k+len(`"type":"`):]
		if end := bytes.IndexByte(v[:min(len(v), 32)], '"'); end > 0 {
			switch t := v[:end]; string(t) {
			case "assistant", "user", "system", "result", "cost-state", "summary", "custom-title", "ai-title", "stream_event":
				return t, v[end+1:]
			}
		}
	}
	if bytes.Contains(line[max(0, len(line)-1024):], []byte(`"type":"assistant"`)) {
		return []byte("assistant"), nil
	}
	return nil, nil
}

func recordTimeByIndex(line []byte) []byte {
	const key = `"timestamp":"`
	for _, part := range [][]byte{line[:min(len(line), 512)], line[max(0, len(line)-1024):]} {
		if k := bytes.Index(part, []byte(key)); k >= 0 {
			v := part[k+len(key):]
			if end := bytes.IndexByte(v[:min(len(v), 40)], '"'); end > 0 {
				return v[:end]
			}
		}
	}
	return nil
}

// TestDeclaredTypeAndRecordTimeSameAsBytesIndex proves the line tests
// the session readers pick lines by give, on every line of every real
// transcript, the type (and what follows it) and the time they gave with
// bytes.Index: the lines read, and so usage and sessions, are the same.
// Where the quick looks found no type, DeclaredType now walks the
// record's members: it finds the record's own type or none (an
// attachment's, a bookkeeping record's, which no reader picks).
func TestDeclaredTypeAndRecordTimeSameAsBytesIndex(t *testing.T) {
	walked := 0
	for _, line := range realLines(t) {
		typ, rest := DeclaredType(line)
		wantTyp, wantRest := declaredTypeByIndex(line)
		require.Equal(t, string(recordTimeByIndex(line)), string(RecordTime(line)), "%.200q", line)
		if wantTyp == nil && typ != nil {
			walked++
			var rec struct{ Type string }
			require.NoError(t, json.Unmarshal(line, &rec))
			require.Equal(t, rec.Type, string(typ), "%.200q", line)
			require.True(t, bytes.HasSuffix(line, rest), "%.200q", line)
			continue
		}
		require.Equal(t, string(wantTyp), string(typ), "%.200q", line)
		require.Equal(t, len(wantRest), len(rest), "%.200q", line)
	}
	assert.Greater(t, walked, 100, "the attachments, whose own type follows their attachment's")
}
