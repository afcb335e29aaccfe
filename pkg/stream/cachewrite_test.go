package stream_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/spend"
)

// TestKilledStreamKeepsTheOneHourCacheWritesOfItsCalls proves, on
// 07-partial-messages with its result taken out (a killed run's stream),
// that the calls' writes to the 1-hour cache are priced as such: each
// call's message_start gives the split (usage.cache_creation), its
// message_delta the final counts without it, and the split stays. At
// list prices the run then costs what the CLI said, $0.027218; with the
// split lost (every write at the 5-minute price) it came to $0.0193.
func TestKilledStreamKeepsTheOneHourCacheWritesOfItsCalls(t *testing.T) {
	const capture = "../../testdata/events/07-partial-messages.jsonl"
	noResult := func(l string) bool { return !strings.Contains(l, `"type":"result"`) }
	a := accountPriced(t, capture, noResult, spend.Prices)
	require.NotNil(t, a.Cost)
	assert.Equal(t, "estimated", a.Cost.Source)
	reported := accountPriced(t, capture, nil, spend.Prices)
	require.NotNil(t, reported.Cost)
	require.Equal(t, "reported", reported.Cost.Source)
	assert.InDelta(t, reported.Cost.USD, a.Cost.USD, 1e-9, "the CLI's own figure")
}
