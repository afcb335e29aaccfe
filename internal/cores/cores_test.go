package cores

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEachCallsEveryStepOnceOnItsWorkers proves Each calls fn once for
// every step of [lo, hi) and for no other, each with a worker below the
// workers asked for and never two steps at once on one worker (a
// caller's state at index k is the goroutine's own), for ranges empty,
// shorter than the workers and longer, and one worker in order.
func TestEachCallsEveryStepOnceOnItsWorkers(t *testing.T) {
	tests := []struct{ lo, hi, workers int }{
		{0, 0, 4}, {5, 5, 2}, {3, 4, 8}, {0, 3, 8}, {10, 1000, 2}, {0, 1000, 5}, {0, 50, 1}, {0, 50, 0},
	}
	for _, tt := range tests {
		calls := make([]atomic.Int32, tt.hi)
		var mu sync.Mutex
		busy := map[int]bool{}
		var order []int
		Each(tt.lo, tt.hi, tt.workers, func(k, i int) {
			mu.Lock()
			assert.False(t, busy[k], "worker %d runs two steps at once", k)
			busy[k] = true
			order = append(order, i)
			mu.Unlock()
			assert.GreaterOrEqual(t, k, 0)
			assert.Less(t, k, max(tt.workers, 1))
			calls[i].Add(1)
			mu.Lock()
			busy[k] = false
			mu.Unlock()
		})
		for i := range calls {
			want := int32(0)
			if i >= tt.lo {
				want = 1
			}
			assert.Equal(t, want, calls[i].Load(), "%+v: step %d", tt, i)
		}
		if tt.workers < 2 {
			for j, i := range order {
				assert.Equal(t, tt.lo+j, i, "%+v: one worker goes in order", tt)
			}
		}
	}
}
