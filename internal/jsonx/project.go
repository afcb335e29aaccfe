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
	v, _, ok := pp.projected(i, 0, p)
	if !ok {
		return Value(b).Decode()
	}
	return v
}

// projected is value through p.
func (p *parser) projected(i, depth int, proj *Projection) (any, int, bool) {
	b := p.b
	if i >= len(b) {
		return nil, i, false
	}
	switch {
	case b[i] == '{' && !proj.whole && proj.index == nil && depth < MaxDepth:
		m := make(map[string]any, len(proj.keys))
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return m, i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, i, false
			}
			k, e, ok := p.str(i)
			if !ok {
				return nil, e, false
			}
			i = skipSpace(b, e)
			if i >= len(b) || b[i] != ':' {
				return nil, i, false
			}
			i = skipSpace(b, i+1)
			if sub := proj.keys[k.(string)]; sub != nil {
				v, e, ok := p.projected(i, depth+1, sub)
				if !ok {
					return nil, e, false
				}
				m[k.(string)] = v // a later duplicate wins, as in Decode
				i = e
			} else {
				if i = skip(b, i); i < 0 {
					return nil, len(b), false
				}
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == '}' {
				return m, i + 1, true
			}
			return nil, i, false
		}
	case b[i] == '[' && !proj.whole && proj.keys == nil && depth < MaxDepth:
		start := i
		arr := make([]any, 0, proj.last+1)
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return arr, i + 1, true
		}
		for n := 0; ; n++ {
			if n > proj.last {
				// The rest is never looked at: only where it ends.
				end := skip(b, start)
				return arr, end, end >= 0
			}
			if sub := proj.index[n]; sub != nil {
				v, e, ok := p.projected(i, depth+1, sub)
				if !ok {
					return nil, e, false
				}
				arr = append(arr, v)
				i = e
			} else {
				arr = append(arr, nil)
				if i = skip(b, i); i < 0 {
					return nil, len(b), false
				}
			}
			i = skipSpace(b, i)
			if i < len(b) && b[i] == ',' {
				i = skipSpace(b, i+1)
				continue
			}
			if i < len(b) && b[i] == ']' {
				return arr, i + 1, true
			}
			return nil, i, false
		}
	}
	return p.value(i, depth)
}
