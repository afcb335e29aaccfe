package stream

// TypeCounter counts events by (type, subtype) in order of first
// appearance, at most max distinct pairs (the rest as "(other)"): the
// tracker's count of every event, and a preset's of the events it picks.
type TypeCounter struct {
	max    int
	index  map[typeKey]int // a pair's place in order and counts
	order  []typeKey
	counts []int64
	// records: a pair's events were an input kind's bookkeeping
	// (KindRecord: a reader knew them, whatever their type says, as a
	// Gemini chat file's "$set" lines), so known.
	records []bool
	last    int // the place of the pair counted last, -1 before the first
}

type typeKey struct{ typ, sub string }

// NewTypeCounter returns a counter of at most max pairs (0: 1000).
func NewTypeCounter(max int) *TypeCounter {
	if max <= 0 {
		max = 1000
	}
	return &TypeCounter{max: max, index: map[typeKey]int{}, last: -1}
}

// Add counts e. An event of the pair counted last (runs of thinking_tokens,
// of deltas) is counted without hashing its two strings (which are
// interned, so comparing them is comparing pointers); another takes one
// look in the map (two, a lookup and an assignment, were a twentieth of
// final).
func (c *TypeCounter) Add(e *Event) {
	if c.last >= 0 && c.order[c.last] == (typeKey{e.Type, e.Subtype}) {
		c.counts[c.last]++
		c.records[c.last] = c.records[c.last] || e.Kind == KindRecord
		return
	}
	k := typeKey{e.Type, e.Subtype}
	i, ok := c.index[k]
	if !ok {
		// e.Type and e.Subtype never alias Raw (intern returns a constant or a
		// copy), so the key may be kept.
		if len(c.index) >= c.max {
			k = typeKey{"(other)", ""}
		}
		if i, ok = c.index[k]; !ok {
			i = len(c.order)
			c.index[k] = i
			c.order = append(c.order, k)
			c.counts = append(c.counts, 0)
			c.records = append(c.records, false)
		}
	}
	c.counts[i]++
	c.records[i] = c.records[i] || e.Kind == KindRecord
	c.last = i
}

// Counts returns the count of each pair in order of first appearance,
// with Known telling the pairs ccfilter knows (Known, or an input kind's
// bookkeeping its reader knew).
func (c *TypeCounter) Counts() []TypeCount {
	out := make([]TypeCount, 0, len(c.order))
	for i, k := range c.order {
		out = append(out, TypeCount{Type: k.typ, Subtype: k.sub, Count: c.counts[i], Known: k.typ != "(other)" && (Known(k.typ, k.sub) || c.records[i])})
	}
	return out
}
