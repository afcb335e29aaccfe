package render

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRowSetMarshalsAsTheEncoderWrites: a report's rows written without
// the encoder's validating pass are the encoder's bytes (encodeJSON, what
// marshal wrote of any value before), indented or not,
// with every kind of value a row holds (strings with HTML, control and
// non-ASCII characters, numbers, nulls, lists, raw JSON objects and
// arrays nested, empty ones), for no row, one and several, and rows of
// no column; and a value the
// encoder cannot write is the same error.
func TestRowSetMarshalsAsTheEncoderWrites(t *testing.T) {
	cols := []string{"session_id", "title", "calls", "cost_usd", "unpriced_models", "input", "start", "done", "<&>"}
	rows := [][]any{
		{"s1", "a <b> & \"c\"\n\t\u2028 é", int64(3), 1.25e-7, []string{"gpt-7", "o5"}, json.RawMessage(`{"a":[1,{"b":[]}],"c":{}}`), nil, true, 0},
		{"s2", "", int64(0), 12345678.5, []string(nil), json.RawMessage(`[]`), "2026-12-06T10:00:00Z", false, 1e21},
		{"s3", `x "q"`, 7, 0.0, []string{}, json.RawMessage(nil), int64(-1), nil, "\x01"},
		{"a\\b", "\x7f~ ", -7, -0.5, []string{"<"}, json.RawMessage(`{"k":{"l":[[],[{}]]}}`), "", true, int64(1) << 62},
	}
	sets := []*RowSet{{Rows: [][]any{{}, {}}}} // (rows of no column)
	for _, n := range []int{0, 1, 3, 4} {
		sets = append(sets, &RowSet{Columns: cols, Rows: rows[:n]})
	}
	for _, rs := range sets {
		n := len(rs.Rows)
		for _, indent := range []string{"  ", "\t", "    "} {
			for _, compact := range []bool{false, true} {
				want, err := encodeJSON(rs, indent, compact)
				require.NoError(t, err)
				got, err := marshal(rs, indent, compact)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(got), "%d rows, indent %q, compact %v", n, indent, compact)
			}
		}
	}
	bad := &RowSet{Columns: []string{"cost_usd"}, Rows: [][]any{{math.NaN()}}}
	_, want := encodeJSON(bad, "  ", false)
	_, got := marshal(bad, "  ", false)
	require.Error(t, want)
	assert.Equal(t, want.Error(), got.Error())
}
