//go:build linux || darwin || freebsd

package stream

import "golang.org/x/sys/unix"

// mapFile maps the first size bytes of the file fd read-only.
func mapFile(fd uintptr, size int64) ([]byte, error) {
	return unix.Mmap(int(fd), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) { unix.Munmap(b) }

// dropPages hands back pages of a file mapping: they stay in the page
// cache, and a later access maps them again.
func dropPages(b []byte) { unix.Madvise(b, unix.MADV_DONTNEED) }
