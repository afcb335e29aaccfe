package streamgen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize parses a byte count such as "4096", "500MB", "100MiB", "1GiB" or
// "1.5G". Decimal suffixes (K, KB, M, MB, G, GB, T, TB) are powers of 1000,
// binary ones (KiB, MiB, GiB, TiB) powers of 1024; "B" is accepted. Case is
// ignored.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	mult := map[string]float64{
		"": 1, "b": 1,
		"k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q", s, t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	n := v * mult
	if n < 1 || n > math.MaxInt64/2 {
		return 0, fmt.Errorf("invalid size %q: out of range", s)
	}
	return int64(math.Round(n)), nil
}
