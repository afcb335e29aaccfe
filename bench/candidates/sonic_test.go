//go:build !nosonic

package candidates

import "github.com/bytedance/sonic"

// sonic.ConfigStd behaves as encoding/json (sorted keys, escaping, copies
// strings); sonic.ConfigDefault is its fast mode. Both are measured.
func init() {
	std := sonic.ConfigStd
	def := sonic.ConfigDefault
	register(candidate{
		name:  "sonic-std",
		valid: std.Valid,
		tree:  func(l []byte, v *any) error { return std.Unmarshal(l, v) },
		struc: func(l []byte, v *class) error { return std.Unmarshal(l, v) },
	})
	register(candidate{
		name:  "sonic-default",
		valid: def.Valid,
		tree:  func(l []byte, v *any) error { return def.Unmarshal(l, v) },
		struc: func(l []byte, v *class) error { return def.Unmarshal(l, v) },
	})
}
