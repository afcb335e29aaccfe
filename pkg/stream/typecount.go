package stream

// TypeCounter counts events by (type, subtype) in order of first
// appearance, at most max distinct pairs (the rest as "(other)"): the
// tracker's count of every event, and a preset's of the events it picks.
type TypeCounter struct {
	max   int
	types map[typeKey]int64
	order []typeKey
}

type typeKey struct{ typ, sub string }

// NewTypeCounter returns a counter of at most max pairs (0: 1000).
func NewTypeCounter(max int) *TypeCounter {
	if max <= 0 {
		max = 1000
	}
	return &TypeCounter{max: max, types: map[typeKey]int64{}}
}

// Add counts e.
func (c *TypeCounter) Add(e *Event) {
	k := typeKey{e.Type, e.Subtype}
	if _, ok := c.types[k]; !ok {
		// e.Type and e.Subtype never alias Raw (intern returns a constant or a
		// copy), so the key may be kept.
		if len(c.types) >= c.max {
			k = typeKey{"(other)", ""}
		}
		if _, ok := c.types[k]; !ok {
			c.order = append(c.order, k)
		}
	}
	c.types[k]++
}

// Counts returns the count of each pair in order of first appearance,
// with Known telling the pairs ccfilter knows.
func (c *TypeCounter) Counts() []TypeCount {
	out := make([]TypeCount, 0, len(c.order))
	for _, k := range c.order {
		out = append(out, TypeCount{Type: k.typ, Subtype: k.sub, Count: c.types[k], Known: k.typ != "(other)" && Known(k.typ, k.sub)})
	}
	return out
}
