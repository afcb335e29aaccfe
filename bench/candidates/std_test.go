package candidates

import "encoding/json"

func stdStruct(l []byte, v *class) error { return json.Unmarshal(l, v) }

func init() {
	register(candidate{
		name:  "std",
		valid: json.Valid,
		tree:  func(l []byte, v *any) error { return json.Unmarshal(l, v) },
		struc: stdStruct,
	})
}
