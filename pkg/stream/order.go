package stream

// order is a doubly linked list threaded through its elements, oldest
// first: the eviction order of the tracker's bounded maps (open tool calls,
// open model calls). Each element embeds its links, so that adding one
// allocates nothing: container/list's Element, and the interface boxing
// of its Value, were two of the eight allocations per event on a stream of
// unanswered tool calls.
type order[T any, P linked[T]] struct {
	front, back P
	n           int
}

// links are an element's neighbours in its order.
type links[T any] struct{ prev, next *T }

// linked is a pointer to an element that embeds links.
type linked[T any] interface {
	*T
	link() *links[T]
}

func (o *order[T, P]) len() int { return o.n }

func (o *order[T, P]) pushBack(x P) {
	l := x.link()
	l.prev, l.next = o.back, nil
	if o.back != nil {
		o.back.link().next = x
	} else {
		o.front = x
	}
	o.back = x
	o.n++
}

// remove takes x, which must be in o, out of it.
func (o *order[T, P]) remove(x P) {
	l := x.link()
	if l.prev != nil {
		P(l.prev).link().next = l.next
	} else {
		o.front = l.next
	}
	if l.next != nil {
		P(l.next).link().prev = l.prev
	} else {
		o.back = l.prev
	}
	l.prev, l.next = nil, nil
	o.n--
}

func (o *order[T, P]) moveToBack(x P) {
	if o.back != x {
		o.remove(x)
		o.pushBack(x)
	}
}

// each calls fn on every element, oldest first.
func (o *order[T, P]) each(fn func(P)) {
	for x := o.front; x != nil; x = x.link().next {
		fn(x)
	}
}
