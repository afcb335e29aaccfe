package stream

// WithMapMin sets the smallest file a decoder maps, so that the tests map
// small files.
func WithMapMin(o DecoderOptions, n int) DecoderOptions {
	o.mapMin = n
	return o
}

// WithMapMax maps at most n bytes of the file, as if it grew after it was
// mapped.
func WithMapMax(o DecoderOptions, n int) DecoderOptions {
	o.mapMax = n
	return o
}
