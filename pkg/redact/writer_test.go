package redact

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriterAnySplit proves the Writer finds a secret however the output
// is cut into writes (a byte at a time, at every size up to a line's),
// a private key's block across lines included, and holds nothing back
// after Flush.
func TestWriterAnySplit(t *testing.T) {
	var text strings.Builder
	for _, r := range Rules {
		text.WriteString("line before\n" + r.Example + " after\n")
	}
	want := New(nil).Append(nil, []byte(text.String()))
	for _, size := range []int{1, 2, 3, 7, 64, 1000, len(text.String())} {
		var out bytes.Buffer
		w := NewWriter(&out, New(nil))
		in := []byte(text.String())
		for len(in) > 0 {
			n := min(size, len(in))
			_, err := w.Write(in[:n])
			require.NoError(t, err)
			in = in[n:]
		}
		require.NoError(t, w.Flush())
		assert.Equal(t, string(want), out.String(), "writes of %d bytes", size)
		for _, r := range Rules {
			assert.NotContains(t, out.String(), r.SecretPart(), "writes of %d bytes", size)
		}
	}
}

// TestEnvironmentSecrets proves a value of a variable whose name says
// secret is replaced wherever it appears, whatever its characters, and
// that short values, variables that name places, names whose words only
// start like a secret word (AUTHOR) and values that are a path or an
// email (GOOGLE_APPLICATION_CREDENTIALS, GIT_AUTHOR_EMAIL) are not taken.
func TestEnvironmentSecrets(t *testing.T) {
	for _, c := range []struct {
		env      string
		in, want string
		summary  string
	}{
		{"MY_SERVICE_TOKEN=plainlowercasevalue", "token plainlowercasevalue here", "token [REDACTED:env-secret#1] here", "1 secret (env-secret 1)"},
		{"DB_CREDENTIALS=k9!Q\\x2#Lm+vR", "dsn k9!Q\\x2#Lm+vR.", "dsn [REDACTED:env-secret#1].", "1 secret (env-secret 1)"},
		{"SHORT_KEY=abc", "with abc", "with abc", ""},
		{"CONFIG_PATH=/etc/something/long", "in /etc/something/long", "in /etc/something/long", ""},
		{"GOOGLE_APPLICATION_CREDENTIALS=/home/user/.config/gcloud/key.json", "read /home/user/.config/gcloud/key.json", "read /home/user/.config/gcloud/key.json", ""},
		{"GIT_AUTHOR_EMAIL=jane.doe@example.org", "Author: Jane <jane.doe@example.org>", "Author: Jane <jane.doe@example.org>", ""},
		{"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "at 2026-01-02T03:04:05Z", "at 2026-01-02T03:04:05Z", ""},
		{"HOME=/root", "cd /root", "cd /root", ""},
	} {
		r := New([]string{c.env})
		assert.Equal(t, c.want, r.String(c.in), c.env)
		assert.Equal(t, c.summary, r.Summary(), c.env)
	}
}

// TestLastNewline proves lastNewline is bytes.LastIndexByte for '\n', with
// the line break before, inside and past its stretches of 4096 bytes.
func TestLastNewline(t *testing.T) {
	for _, n := range []int{0, 1, 100, 4095, 4096, 4097, 9000} {
		for _, at := range []int{-1, 0, 1, 4095, 4096, 4097, n - 1} {
			p := bytes.Repeat([]byte("a"), n)
			if at >= 0 && at < n {
				p[at] = '\n'
			}
			assert.Equal(t, bytes.LastIndexByte(p, '\n'), lastNewline(p), "n=%d at=%d", n, at)
		}
		p := bytes.Repeat([]byte("ab\n"), n)
		assert.Equal(t, bytes.LastIndexByte(p, '\n'), lastNewline(p), "n=%d lines", n)
	}
}
