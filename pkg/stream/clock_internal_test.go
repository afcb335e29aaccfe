package stream

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestParseTimestampAgreesWithTimeParse proves the digit-by-digit reading
// of a timestamp gives what time.Parse(RFC3339Nano) gives, for the form
// Claude Code writes and the forms around it (no fraction, nine digits,
// an offset, a leap day, nonsense), so it is only a faster way to the
// same time, never another one.
func TestParseTimestampAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2026-12-02T13:20:40.697Z", "2026-12-02T13:20:40Z", "2026-12-02T13:20:40.123456789Z",
		"2026-12-02T13:20:40.1Z", "2024-02-29T00:00:00.000Z", "2025-02-29T00:00:00.000Z",
		"2026-12-02T13:20:40.697+01:00", "2026-12-02 13:20:40Z", "2026-13-02T13:20:40Z",
		"2026-12-32T13:20:40Z", "0000-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T23:59:59.999Z", "9999-12-31T23:59:59Z", "2026-03-01T00:00:00Z", "2026-12-02T24:00:00Z", "2026-12-02T13:60:40Z", "2026-12-02T13:20:40.Z",
		"2026-12-02T13:20:40.1234567890Z", "x026-12-02T13:20:40Z", "2026-12-02T13:20:40.69xZ", "",
	} {
		agree(t, s)
	}
	// And every day of years 0 to 9999 with a time of day, a sample.
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		at := time.Date(r.IntN(10000), time.Month(1+r.IntN(12)), 1+r.IntN(31), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e9), time.UTC)
		agree(t, at.Format(time.RFC3339Nano))
	}
}

func agree(t *testing.T, s string) {
	t.Helper()
	want, err := time.Parse(time.RFC3339Nano, s)
	got, ok := parseTimestamp([]byte(`"` + s + `"`))
	assert.Equal(t, err == nil, ok, s)
	if ok {
		assert.True(t, want.Equal(got), "%s: %v, want %v", s, got, want)
	}
}

// BenchmarkParseTimestamp measures a record's timestamp read digit by
// digit beside time.Parse on its string (what Clock.Observe did first).
func BenchmarkParseTimestamp(b *testing.B) {
	raw := []byte(`"2026-12-02T13:20:40.697Z"`)
	b.Run("digits", func(b *testing.B) {
		for b.Loop() {
			parseTimestamp(raw)
		}
	})
	b.Run("time.Parse", func(b *testing.B) {
		for b.Loop() {
			time.Parse(time.RFC3339Nano, string(raw[1:len(raw)-1]))
		}
	})
}
