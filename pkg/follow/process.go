package follow

import (
	"context"
	"time"
)

// ProcessEnded returns a channel closed once the process pid has ended
// (at once when there is no such process): the producer of a followed
// file (ccfilter -f --pid, as tail --pid), whose end ends the input (see
// Options.WriterGone). It is never closed when ctx ends first.
func ProcessEnded(ctx context.Context, pid int) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		if waitProcess(ctx, pid) {
			close(c)
		}
	}()
	return c
}

// processPoll is how often a process is looked at where its end wakes
// nothing (no pidfd), as tail --pid looks.
const processPoll = time.Second

// pollProcess waits for pid to end by looking at it every processPoll;
// false when ctx ends first.
func pollProcess(ctx context.Context, pid int) bool {
	for running(pid) {
		t := time.NewTimer(processPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	return true
}
