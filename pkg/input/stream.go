package input

import (
	"io"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Stream is the output of claude -p --output-format stream-json
// --verbose: one event per line (or the JSON array of --output-format
// json, which the decoder recognises by its '[').
const Stream Kind = "stream"

// streamFormat takes any input no other format recognises: a stream's
// lines are read and reported one by one, whatever they hold.
var streamFormat = Format{
	Kind: Stream,
	Events: func(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
		return stream.NewReader(r, opts)
	},
}
