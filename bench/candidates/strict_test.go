package candidates

import (
	"encoding/json"
	"testing"
)

// TestStrictness logs (go test -v -run TestStrictness) where a candidate's
// Valid, or its Unmarshal into any, disagrees with encoding/json on
// malformed input, so a fast Valid is not taken for a full check. It never
// fails: the disagreements are findings (sonic's Valid does not look inside
// strings), not bugs of this module.
func TestStrictness(t *testing.T) {
	cases := []struct {
		name, in string
	}{
		{"trailing comma", `{"type":"x",}`},
		{"leading zero", `{"n":01}`},
		{"bad escape", `{"s":"\x"}`},
		{"bad \\u escape", `{"s":"\u12g4"}`},
		{"raw control char", "{\"s\":\"a\x01b\"}"},
		{"raw tab", "{\"s\":\"a\tb\"}"},
		{"invalid UTF-8", "{\"s\":\"a\xffb\"}"},
		{"lone surrogate", `{"s":"\ud800"}`},
		{"truncated", `{"s":"ab`},
		{"two values", `{} {}`},
		{"bare word", `{"b":tru}`},
	}
	for _, c := range candidates {
		for _, k := range cases {
			want := json.Valid([]byte(k.in))
			if got := c.valid([]byte(k.in)); got != want {
				t.Logf("%-14s %-16s Valid=%v (std %v)", c.name, k.name, got, want)
			}
			var v, w any
			wantErr := json.Unmarshal([]byte(k.in), &w) != nil
			if gotErr := c.tree([]byte(k.in), &v) != nil; gotErr != wantErr {
				t.Logf("%-14s %-16s Unmarshal error=%v (std %v)", c.name, k.name, gotErr, wantErr)
			}
		}
	}
}
