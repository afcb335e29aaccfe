package candidates

import segjson "github.com/segmentio/encoding/json"

func init() {
	register(candidate{
		name:  "segmentio",
		valid: segjson.Valid,
		tree:  func(l []byte, v *any) error { return segjson.Unmarshal(l, v) },
		struc: func(l []byte, v *class) error { return segjson.Unmarshal(l, v) },
	})
}
