//go:build goexperiment.jsonv2

package candidates

import (
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
)

// Under GOEXPERIMENT=jsonv2, encoding/json (std) is itself implemented on
// top of v2; "v2" here is the v2 API proper.
func init() {
	register(candidate{
		name: "v2",
		valid: func(l []byte) bool {
			return jsontext.Value(l).IsValid()
		},
		tree:  func(l []byte, v *any) error { return jsonv2.Unmarshal(l, v) },
		struc: func(l []byte, v *class) error { return jsonv2.Unmarshal(l, v) },
	})
}
