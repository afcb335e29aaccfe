package stream

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeadsAreTheViewsWithoutUsage: CallHead and ResultHead, which a view
// whose tokens are the tracker's reads (the trace format), are the
// Assistant head and the Result of every event of every capture but
// their own token counts, whichever of the two is read first.
func TestHeadsAreTheViewsWithoutUsage(t *testing.T) {
	files := captureFiles(t)
	tests := []struct {
		name string
		kind func(*Event) bool
		head func(*Event) any
		full func(*Event) any
	}{
		{"CallHead", func(e *Event) bool { return e.Type == "assistant" },
			func(e *Event) any { return e.CallHead() },
			func(e *Event) any { a := e.AssistantHead(); a.Usage = Usage{}; return a }},
		{"ResultHead", func(e *Event) bool { return e.Kind == KindResult },
			func(e *Event) any { return e.ResultHead() },
			func(e *Event) any { r := e.Result(); r.Usage, r.ModelUsage = Usage{}, nil; return r }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen, usage := 0, 0
			for _, f := range files {
				for _, headFirst := range []bool{true, false} {
					eachCaptureEvent(t, f, func(ev *Event) {
						if !tt.kind(ev) {
							return
						}
						var head, full any
						if headFirst {
							head, full = tt.head(ev), tt.full(ev)
						} else {
							full, head = tt.full(ev), tt.head(ev)
						}
						require.Equal(t, full, head, "%s line %d", filepath.Base(f), ev.Line)
						seen++
						if ev.AssistantHead().Usage != (Usage{}) || ev.Result().Usage != (Usage{}) {
							usage++
						}
					})
				}
			}
			assert.Positive(t, seen)
			assert.Positive(t, usage, "events with usage were read")
		})
	}
}
