package stream_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestTypeCounterMatchesAPlainCount holds the counter (which counts a run
// of one pair without a map lookup) to a plain count of the same events,
// pair by pair in order of first appearance, with and without its cap:
// past the cap, the pairs it has no room for go to "(other)", however they
// interleave with the pairs it knows. On 07-partial-messages (runs of
// deltas) and 16-hooks (hooks, inits and results mixed), from
// testdata/events.
func TestTypeCounterMatchesAPlainCount(t *testing.T) {
	for _, name := range []string{"07-partial-messages", "16-hooks"} {
		raw, err := os.ReadFile("../../testdata/events/" + name + ".jsonl")
		require.NoError(t, err)
		for _, max := range []int{0, 1, 2, 3, 5} {
			d := stream.NewDecoder(bytes.NewReader(raw), stream.DecoderOptions{})
			c := stream.NewTypeCounter(max)
			type pair struct{ typ, sub string }
			counts, room := map[pair]int64{}, max
			if room == 0 {
				room = 1000
			}
			var order []pair
			for {
				ev, err := d.Next()
				if err != nil {
					break
				}
				c.Add(ev)
				p := pair{ev.Type, ev.Subtype}
				if _, ok := counts[p]; !ok && len(counts) >= room {
					p = pair{"(other)", ""}
				}
				if _, ok := counts[p]; !ok {
					order = append(order, p)
				}
				counts[p]++
			}
			got := c.Counts()
			require.Len(t, got, len(order), "%s max %d", name, max)
			for i, p := range order {
				assert.Equal(t, p.typ, got[i].Type, "%s max %d #%d", name, max, i)
				assert.Equal(t, p.sub, got[i].Subtype, "%s max %d #%d", name, max, i)
				assert.Equal(t, counts[p], got[i].Count, "%s max %d %v", name, max, p)
			}
		}
	}
}
