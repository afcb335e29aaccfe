package streamgen

import (
	"strconv"
	"unicode/utf8"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// Small append-style JSON helpers. Lines are assembled by hand (not with
// encoding/json) so that key order matches the real CLI byte for byte and the
// multi-megabyte strings are escaped in one pass without reflection.

const hexDigits = "0123456789abcdef"

// appendEscaped appends s escaped as the inside of a JSON string
// (jsonx.AppendEscaped: the way JSON.stringify does it).
func appendEscaped(dst []byte, s string) []byte { return jsonx.AppendEscaped(dst, s) }

// appendQuoted appends s as a complete JSON string literal.
func appendQuoted(dst []byte, s string) []byte { return jsonx.AppendQuoted(dst, s) }

// appendFloat formats f like JavaScript's Number#toString for the magnitudes
// that occur here (shortest round-trip representation, no exponent).
func appendFloat(dst []byte, f float64) []byte {
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}

// runeSafeCut returns the largest n' <= n such that s[:n'] ends on a UTF-8
// boundary (so that chunked deltas stay valid UTF-8).
func runeSafeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
