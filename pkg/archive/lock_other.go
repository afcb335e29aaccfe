//go:build !unix

package archive

import (
	"os"
	"path/filepath"
)

// lockName is the archive's lock file, in DIR.
const lockName = ".lock"

// lockDir opens DIR/.lock without locking it: where flock(2) is not,
// two runs at once are not kept apart (each copy is still written whole,
// by temp-and-rename).
func lockDir(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
}

func unlock(f *os.File) { f.Close() }
