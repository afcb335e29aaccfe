//go:build !(linux || darwin || freebsd)

package stream

import "errors"

// mapFile: files are read here, not mapped.
func mapFile(fd uintptr, size int64) ([]byte, error) {
	return nil, errors.New("no file mapping on this system")
}

func unmapFile(b []byte) {}

func dropPages(b []byte) {}
