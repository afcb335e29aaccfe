package follow

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NewFile waits for a file named *ext to appear in dir that known does
// not hold (a new session's transcript in a project folder), and returns
// its path; "" when ctx ends first. dir need not exist yet. poll is how
// often the folder is listed when nothing wakes the wait (0: 1 s with
// inotify, 200 ms without).
func NewFile(ctx context.Context, dir, ext string, known map[string]bool, poll time.Duration) string {
	w := newWaker(dir, func(name string) bool { return strings.HasSuffix(name, ext) }, false)
	defer w.close()
	if poll <= 0 {
		poll = 200 * time.Millisecond
		if w.notifies() {
			poll = time.Second
		}
	}
	for {
		if p := newIn(dir, ext, known); p != "" {
			return p
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ""
		case <-w.c:
		case <-t.C:
		}
		t.Stop()
	}
}

// Listing returns the files named *ext in dir, as NewFile's known.
func Listing(dir, ext string) map[string]bool {
	known := map[string]bool{}
	for _, f := range list(dir, ext) {
		known[f] = true
	}
	return known
}

// list returns the paths of the files named *ext in dir (read as it is,
// not as a pattern: a folder's name may hold '[' or '*').
func list(dir, ext string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// newIn returns a file named *ext in dir that known does not hold.
func newIn(dir, ext string, known map[string]bool) string {
	for _, f := range list(dir, ext) {
		if !known[f] {
			return f
		}
	}
	return ""
}
