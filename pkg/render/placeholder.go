package render

import (
	"fmt"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Output counts that are placeholders, said the same way by the usage
// preset's table and the HTML page's: the mark after the count, the note
// under the table.

// PlaceholderMark follows an output count that is not the calls' final
// count; PlaceholderNote says why, in the case at hand.
const PlaceholderMark = "*"

// PlaceholderNote says which output counts are placeholders and where the
// total's comes from: claude-code writes output_tokens 1 on the stream's
// assistant events (the message_start snapshot) and the final count only
// at the end of each call (a message_delta, with
// --include-partial-messages) and, cumulated, in the result's modelUsage.
func PlaceholderNote(d stream.UsageReport, oneAgent bool) string {
	if d.PlaceholderCalls == 0 {
		return ""
	}
	calls := Plural(int64(d.PlaceholderCalls), "call")
	why := "the stream's assistant events carry a placeholder, the final count comes only with --include-partial-messages"
	if d.PartialMessages {
		why = "partial messages were on, but these calls ended without their final count (interrupted or cut off)"
	}
	s := PlaceholderMark + " output of " + calls + " is a placeholder, not the count: " + why
	switch {
	case oneAgent:
		s += "; the result's exact counts are the whole run's, not split by agent"
	case d.OutputFrom == "result":
		s += fmt.Sprintf("; the total's output is the result's own (modelUsage: %d; the events add up to %d)", d.Total.OutputTokens, d.EventsOutputTokens)
	case d.HaveCost || len(d.ModelCosts) > 0:
		s += "; the result's modelUsage says no more"
	default:
		s += "; no result to take the real count from"
	}
	return s
}

// TotalOutputExact is whether a run's total output count is the calls'
// final count: no call's is a placeholder, or the result's own count
// (modelUsage) stands in for them.
func TotalOutputExact(d stream.UsageReport) bool {
	return d.PlaceholderCalls == 0 || d.OutputFrom == "result"
}

// totalMark is PlaceholderMark after a total output count that is not
// exact.
func totalMark(d stream.UsageReport) string {
	if TotalOutputExact(d) {
		return ""
	}
	return PlaceholderMark
}
