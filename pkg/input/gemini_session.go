package input

import (
	"io"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// NewGeminiSessionReader returns the reader of a Gemini CLI chat file.
func NewGeminiSessionReader(r io.Reader, path string, opts stream.DecoderOptions) stream.Reader {
	return stream.NewReader(r, opts)
}
