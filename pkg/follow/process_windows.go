package follow

import (
	"context"

	"golang.org/x/sys/windows"
)

// waitProcess waits for pid to end: its handle is signalled when it does.
// False when ctx ends first.
func waitProcess(ctx context.Context, pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process
	}
	defer windows.CloseHandle(h)
	for ctx.Err() == nil {
		ev, err := windows.WaitForSingleObject(h, uint32(processPoll.Milliseconds()))
		if err != nil || ev == windows.WAIT_OBJECT_0 {
			return true
		}
	}
	return false
}

// running is not used where the wait is on the process's handle.
func running(int) bool { return false }
