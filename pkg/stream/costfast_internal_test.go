package stream

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCostWithoutTheUsageReportIsTheSame proves Tracker.Cost's short way
// (the last result's reported cost, read without building the usage
// report, which views ask for at every result) gives what the account's
// rule, cost(Usage()), gives: after every event of every capture of
// testdata/events (22-missing-verbose and the killed runs have no result,
// some results no cost). Asked at every result of a corpus of many
// runs, the report took a trace of 300 MB from 0.67 to 1.45 s.
func TestCostWithoutTheUsageReportIsTheSame(t *testing.T) {
	reported := 0
	for _, f := range captureFiles(t) {
		tr := NewTracker(TrackerOptions{})
		eachCaptureEvent(t, f, func(ev *Event) {
			tr.Observe(ev)
			got, gotWhy := tr.Cost()
			want, wantWhy := tr.cost(tr.Usage())
			require.Equal(t, want, got, "%s line %d", filepath.Base(f), ev.Line)
			assert.Equal(t, wantWhy, gotWhy, "%s line %d", filepath.Base(f), ev.Line)
			if got != nil && got.Source == "reported" {
				reported++
			}
		})
	}
	assert.Positive(t, reported, "the short way was taken")
}
