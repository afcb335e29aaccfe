//go:build unix && !linux

package follow

import (
	"context"
	"errors"
	"syscall"
)

// waitProcess waits for pid to end, looking at it every second; false
// when ctx ends first.
func waitProcess(ctx context.Context, pid int) bool { return pollProcess(ctx, pid) }

// running reports whether pid is a process (EPERM: one of another user's).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
