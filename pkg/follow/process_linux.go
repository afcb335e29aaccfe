package follow

import (
	"context"
	"errors"

	"golang.org/x/sys/unix"
)

// waitProcess waits for pid to end: a pidfd becomes readable when it does
// (a process ended but not yet reaped counts as ended), so the wait takes
// no polling; where pidfd_open is missing (Linux before 5.3, a sandbox),
// the process is looked at every second. False when ctx ends first.
func waitProcess(ctx context.Context, pid int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true
	}
	if err != nil {
		return pollProcess(ctx, pid)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for ctx.Err() == nil {
		// The timeout only lets ctx be seen: the process's end wakes the
		// poll at once.
		n, err := unix.Poll(fds, int(processPoll.Milliseconds()))
		switch {
		case n > 0:
			return true
		case err != nil && !errors.Is(err, unix.EINTR):
			return pollProcess(ctx, pid)
		}
	}
	return false
}

// running reports whether pid is a process (EPERM: one of another user's).
func running(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
