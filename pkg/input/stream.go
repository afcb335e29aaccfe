package input

import (
	"io"

	"github.com/ccfilter/ccfilter/internal/jsonx"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Stream is the output of claude -p --output-format stream-json
// --verbose: one event per line (or the JSON array of --output-format
// json, which the decoder recognises by its '[').
const Stream Kind = "stream"

// streamFormat is recognised by a line of a type Claude Code's stream has;
// it also takes any input no format recognises: a stream's lines are read
// and reported one by one, whatever they hold.
var streamFormat = Format{
	Kind:   Stream,
	Detect: isStreamEvent,
	Events: func(r io.Reader, _ string, opts stream.DecoderOptions) stream.Reader {
		return stream.NewReader(r, opts)
	},
}

// isStreamEvent recognises a line of Claude Code's stream by its type.
// The other kinds, tried before, take their lines first (a Gemini CLI
// result is a "result" too).
func isStreamEvent(line []byte) bool {
	return stream.KnownType(jsonx.Value(line).Get("type").Str())
}
