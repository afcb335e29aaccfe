package otlphttp

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"google.golang.org/protobuf/encoding/protowire"
)

// TestRetryAfterSecondsOrDate proves Retry-After is read as the HTTP
// specification writes it: seconds, or a date (a past one is no wait);
// anything else is none, and the backoff applies.
func TestRetryAfterSecondsOrDate(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header string
		wait   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
	} {
		wait, ok := retryAfter(tc.header, now)
		assert.Equal(t, tc.ok, ok, "%q", tc.header)
		assert.Equal(t, tc.wait, wait, "%q", tc.header)
	}
}

// TestDecodeResponseSkipsWhatItDoesNotKnow proves the hand-read
// ExportTraceServiceResponse: its partial success's two fields, a later
// version's fields passed over, and bytes that are no protobuf message
// refused (a 2xx that is not an OTLP answer).
func TestDecodeResponseSkipsWhatItDoesNotKnow(t *testing.T) {
	partial := protowire.AppendTag(nil, 1, protowire.VarintType)
	partial = protowire.AppendVarint(partial, 5)
	partial = protowire.AppendTag(partial, 2, protowire.BytesType)
	partial = protowire.AppendString(partial, "five too old")
	partial = protowire.AppendTag(partial, 9, protowire.Fixed64Type) // a later field
	partial = protowire.AppendFixed64(partial, 1)
	resp := protowire.AppendTag(nil, 1, protowire.BytesType)
	resp = protowire.AppendBytes(resp, partial)
	resp = protowire.AppendTag(resp, 4, protowire.BytesType) // a later field
	resp = protowire.AppendString(resp, "x")

	res, ok := decodeResponse(resp)
	assert.True(t, ok)
	assert.Equal(t, Result{Rejected: 5, Message: "five too old"}, res)

	res, ok = decodeResponse(nil)
	assert.True(t, ok, "an empty answer is a full success")
	assert.Equal(t, Result{}, res)

	_, ok = decodeResponse([]byte("<html>"))
	assert.False(t, ok)
}
