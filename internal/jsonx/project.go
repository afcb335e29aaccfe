package jsonx

// A Projection is the part of a JSON value a reader looks at: paths of
// object keys and array indexes from the root, each standing for the whole
// value at its end. A tree decoded through it (DecodeProjected) holds
// those values, the objects and arrays on the way to them, and nothing
// else, so that following any of the paths gives what it gives on the
// whole tree: the tool result text that `.message.content[0].tool_use_id`
// passes over is never unquoted.
type Projection struct {
	whole bool
	keys  map[string]*Projection
	index map[int]*Projection
	last  int // the highest index in index
}

// Add adds a path: string elements are object keys, int elements array
// indexes (not negative). An empty path is the whole value.
func (p *Projection) Add(path ...any) {
	if p = p.reach(path); p != nil {
		p.whole, p.keys, p.index = true, nil, nil
	}
}

// Reach adds the objects and arrays on the way down a path, not the value
// at its end: for a reader that goes down the path and only asks what kind
// of value is there (or fails on the way, saying what it found instead).
func (p *Projection) Reach(path ...any) { p.reach(path) }

// reach returns the node at the end of path, nil when a whole value is on
// the way.
func (p *Projection) reach(path []any) *Projection {
	for _, step := range path {
		if p.whole {
			return nil
		}
		switch s := step.(type) {
		case string:
			if p.keys == nil {
				p.keys = map[string]*Projection{}
			}
			next := p.keys[s]
			if next == nil {
				next = &Projection{}
				p.keys[s] = next
			}
			p = next
		case int:
			if s < 0 {
				p.whole = true
				return nil
			}
			if p.index == nil {
				p.index = map[int]*Projection{}
			}
			next := p.index[s]
			if next == nil {
				next = &Projection{}
				p.index[s] = next
			}
			p.last = max(p.last, s)
			p = next
		default:
			p.whole = true
			return nil
		}
	}
	if p.whole {
		return nil
	}
	return p
}

// Whole reports whether p is the whole value (the empty path was added).
func (p *Projection) Whole() bool { return p.whole }

// DecodeProjected decodes the valid JSON value b through p. Where b's
// value is not what the path expects (an object where an index follows, an
// array where a key does, a scalar), the value is decoded whole: what the
// reader then does with it (an error that shows it, say) is what it does
// with the whole tree. On input that is not valid JSON it returns Decode's
// best effort at the whole value.
func DecodeProjected(b []byte, p *Projection) any {
	pp := parser{b: b}
	i := skipSpace(b, 0)
	v, _, ok := pp.value(i, 0, p)
	if !ok {
		return Value(b).Decode()
	}
	return v
}

// key is the projection of an object's member k, and whether it is read
// at all; a nil projection reads everything, whole.
func (p *Projection) key(k string) (sub *Projection, read bool) {
	if p == nil {
		return nil, true
	}
	sub = p.keys[k]
	return sub, sub != nil
}

// element is key for an array's element n.
func (p *Projection) element(n int) (sub *Projection, read bool) {
	if p == nil {
		return nil, true
	}
	sub = p.index[n]
	return sub, sub != nil
}
