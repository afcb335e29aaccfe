package render

import (
	"errors"
	"io"
)

// TEMPORARY stub so cmd/ccfilter compiles while the renderers are written.
// Whoever writes the real New: delete this file.
func New(f Format, w io.Writer, o Options) (Renderer, error) { return nil, errors.New("not yet") }
