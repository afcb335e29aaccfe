package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capture returns a real capture's text, for deriving edge cases from.
func capture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/events", name))
	require.NoError(t, err)
	return string(b)
}

// derived writes a capture changed by edit (old → new, each pair must
// match) to a file of the test's own, and returns its path.
func derived(t *testing.T, name string, edits ...string) string {
	t.Helper()
	s := capture(t, name)
	for i := 0; i+1 < len(edits); i += 2 {
		require.Contains(t, s, edits[i], "the edit's anchor is in %s", name)
		s = strings.Replace(s, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

// TestDuplicateKeysLastWins proves that a key written twice means its last
// value everywhere, as in jq and JSON.parse: final's verdict, the kind
// classification gives (type), and an expression all read the same value.
func TestDuplicateKeysLastWins(t *testing.T) {
	cases := []struct {
		name  string
		edits []string
		args  []string
		code  int
		out   string
	}{
		{"is_error false last: success", []string{`"is_error":false`, `"is_error":true,"is_error":false`},
			[]string{"final"}, 0, "Hello! I am a scripted fake model. 2 + 2 = 4.\n"},
		{"is_error true last: failure", []string{`"is_error":false`, `"is_error":false,"is_error":true`},
			[]string{"final"}, 1, ""},
		{"type result last: a result", []string{`"type":"result"`, `"type":"assistant","type":"result"`},
			[]string{"final"}, 0, "Hello! I am a scripted fake model. 2 + 2 = 4.\n"},
		{"type result first: not a result", []string{`"type":"result"`, `"type":"result","type":"mystery"`},
			[]string{"types", "--format", "csv"}, 0, "type,subtype,count,known\nsystem,init,1,true\nassistant,,1,true\nmystery,success,1,false\n"},
		{"the expression agrees", []string{`"is_error":false`, `"is_error":true,"is_error":false`},
			[]string{`select(.type == "result") | .is_error`}, 0, "false\n"},
		{"so does the full check", []string{`"is_error":false`, `"is_error":true,"is_error":false`},
			[]string{"final", "--full-check"}, 0, "Hello! I am a scripted fake model. 2 + 2 = 4.\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := derived(t, "01-plain-text.jsonl", c.edits...)
			r := runIn(t, append(c.args, path), "")
			assert.Equal(t, c.code, r.Code, r.Stderr)
			assert.Equal(t, c.out, r.Stdout)
		})
	}
}
