// Package cores runs the steps of a loop on several goroutines at once:
// the one way ccfilter shares a tree's work out among its CPUs (reading
// its sessions, listing its folders, their accounts).
package cores

import (
	"sync"
	"sync/atomic"
)

// Each calls fn(k, i) for every i in [lo, hi), on up to workers
// goroutines at once, each taking the next i as it is done with one, and
// returns when every call has returned. k, below workers, names the
// goroutine making the call: a caller keeps state per goroutine at index
// k (a read buffer, a memo) without a lock. One worker, or one step,
// runs on the caller's goroutine, in order.
func Each(lo, hi, workers int, fn func(k, i int)) {
	workers = min(workers, hi-lo)
	if workers < 2 {
		for i := lo; i < hi; i++ {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	next.Store(int64(lo))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < hi; i = int(next.Add(1) - 1) {
				fn(k, i)
			}
		})
	}
	wg.Wait()
}
