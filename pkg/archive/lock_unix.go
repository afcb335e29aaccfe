//go:build unix

package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lockName is the archive's lock file, in DIR.
const lockName = ".lock"

// lockDir takes the archive's lock: flock(2) on DIR/.lock, which the
// kernel lets go when the process ends however it ends, so a killed run
// leaves no lock that blocks the next. A run that finds it held stops
// (ErrBusy) rather than wait on a run that may be stuck.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b := make([]byte, 20)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			if pid, perr := strconv.Atoi(string(bytes.TrimSpace(b[:n]))); perr == nil {
				return nil, fmt.Errorf("%s: %w (process %d holds %s)", dir, ErrBusy, pid, path)
			}
			return nil, fmt.Errorf("%s: %w (it holds %s)", dir, ErrBusy, path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// Who holds it, for the message of a run that finds it held.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return f, nil
}

func unlock(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}
