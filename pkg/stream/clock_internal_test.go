package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTimeTextParsesAsStr: the clock parses a timestamp from the line's
// own bytes (timeText) to the same time, and fails on the same values, as
// from its decoded copy (Str, the code before): every timestamp of the
// captures of testdata/events and hostile ones (escaped, cut, invalid
// UTF-8, not a string, empty, a zone, a space).
func TestTimeTextParsesAsStr(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	var values []jsonx.Value
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		for _, line := range bytes.Split(data, []byte("\n")) {
			if v := jsonx.Value(line).Get("timestamp"); v != nil {
				values = append(values, v)
			}
		}
	}
	require.Greater(t, len(values), 100, "the captures' events are dated")
	for _, s := range []string{
		`"2026-03-01T10:00:00.123Z"`, `"2026-03-01T10:00:00\u002e123Z"`, `"2026-03-01T10:00:00Z\u0000"`,
		`"2026-03-01T10:00:00+02:00"`, `"2026-03-01 10:00:00Z"`, `"2026-03-01T10:00:00.123"`, `"2026-03-01T1`,
		`"2026-03-01T10:00:00.12\xff3Z"`, `"\xff"`, `""`, `"`, `1764000000`, `null`, `true`, `{}`, `"\"2026-03-01T10:00:00Z\""`,
	} {
		values = append(values, jsonx.Value(s))
	}
	parsed := 0
	for _, v := range values {
		want, wantErr := time.Parse(time.RFC3339Nano, v.Str())
		got, err := time.Parse(time.RFC3339Nano, timeText(v))
		assert.Equal(t, wantErr == nil, err == nil, "%s", v)
		assert.True(t, want.Equal(got), "%s", v)
		if err == nil {
			parsed++
		}
	}
	assert.Greater(t, parsed, 100)
}
