package candidates

import gojson "github.com/goccy/go-json"

func init() {
	register(candidate{
		name:  "goccy",
		valid: gojson.Valid,
		tree:  func(l []byte, v *any) error { return gojson.Unmarshal(l, v) },
		struc: func(l []byte, v *class) error { return gojson.Unmarshal(l, v) },
	})
}
