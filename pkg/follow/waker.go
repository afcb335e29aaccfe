package follow

import (
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// waker wakes a reader waiting at a file's end when something changes in
// a folder (inotify on Linux, kqueue on the BSDs and macOS,
// through fsnotify): a write, a new file, a rename. The folder is watched,
// not the file, so that a file not created yet, or replaced, is seen too.
// With no watch (the folder does not exist, the system has none, inotify
// watches are used up), c never fires and the reader polls.
type waker struct {
	w    *fsnotify.Watcher
	c    chan struct{} // one pending wake at most
	done chan struct{}
	once sync.Once
}

func newWaker(dir string, match func(name string) bool, noNotify bool) *waker {
	k := &waker{c: make(chan struct{}, 1), done: make(chan struct{})}
	if noNotify {
		return k
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return k
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return k
	}
	k.w = w
	go k.relay(w, match)
	return k
}

// relay turns the watch's events about the files match accepts into
// wakes; a burst of writes is one wake (the reader reads all there is at
// once).
func (k *waker) relay(w *fsnotify.Watcher, match func(name string) bool) {
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if !match(filepath.Clean(ev.Name)) {
				continue // another file of the folder
			}
			k.poke()
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
			k.poke() // an overflow: events were lost; the reader looks

		case <-k.done:
			return
		}
	}
}

// poke wakes the reader (something it waits for changed).
func (k *waker) poke() {
	select {
	case k.c <- struct{}{}:
	default:
	}
}

// notifies reports whether changes wake the reader (else it polls).
func (k *waker) notifies() bool { return k.w != nil }

func (k *waker) close() {
	k.once.Do(func() {
		if k.w != nil {
			close(k.done)
			k.w.Close()
		}
	})
}
