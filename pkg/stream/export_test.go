package stream

// ReadsAhead reports whether r reads its input ahead on a goroutine (the
// rule of NewReader), for the tests that hold it to a plain Decoder.
func ReadsAhead(r Reader) bool {
	d, ok := r.(*Decoder)
	return ok && d.closer != nil
}
