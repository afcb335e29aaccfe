package follow

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitLimit bounds a wait for what happens at once on a quiet machine:
// generous, so that a machine busy with other work passes; finite, so a
// hang fails.
const waitLimit = 30 * time.Second

// reader reads a File on its own goroutine, as the decoder does, and
// hands what it reads to the test.
type reader struct {
	mu    sync.Mutex
	got   bytes.Buffer
	more  chan struct{}
	done  chan struct{}
	err   error
	notes []string
}

func startReader(t *testing.T, f *File) *reader {
	r := &reader{more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		buf := make([]byte, 7) // small reads: lines arrive in pieces too
		for {
			n, err := f.Read(buf)
			r.mu.Lock()
			r.got.Write(buf[:n])
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
			if err != nil {
				r.err = err
				return
			}
		}
	}()
	t.Cleanup(func() { f.Close() })
	return r
}

// waitFor waits until what was read is want.
func (r *reader) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(waitLimit)
	for {
		r.mu.Lock()
		got := r.got.String()
		r.mu.Unlock()
		if got == want {
			return
		}
		require.True(t, strings.HasPrefix(want, got), "read %q, which is not the start of %q", got, want)
		select {
		case <-r.more:
		case <-r.done:
			r.mu.Lock()
			got = r.got.String()
			r.mu.Unlock()
			require.Equal(t, want, got, "the input ended (%v)", r.err)
			return
		case <-deadline:
			t.Fatalf("waited %v for %q; read %q", waitLimit, want, got)
		}
	}
}

// ended waits for the input to end.
func (r *reader) ended(t *testing.T) {
	t.Helper()
	select {
	case <-r.done:
		assert.Equal(t, io.EOF, r.err)
	case <-time.After(waitLimit):
		t.Fatal("the input did not end")
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

type notes struct {
	mu   sync.Mutex
	said []string
}

func (n *notes) note(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.said = append(n.said, s)
}

func (n *notes) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.said, "\n")
}

// TestFollowHandsOutAppends proves what is there is read, then each
// append as it comes (a line in two pieces as two pieces: nothing is
// held back, nothing lost), by inotify and by polling; and that the input
// ends once the caller says the run may have ended and nothing more is
// written, not before.
func TestFollowHandsOutAppends(t *testing.T) {
	for _, poll := range []bool{false, true} {
		t.Run(map[bool]string{false: "notify", true: "poll"}[poll], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			appendTo(t, path, "{\"a\":1}\n")
			var n notes
			f := Open(context.Background(), path, Options{Grace: 50 * time.Millisecond, NoNotify: poll, Note: n.note})
			r := startReader(t, f)
			want := "{\"a\":1}\n"
			r.waitFor(t, want)
			for _, piece := range []string{"{\"b\":", "2}\n", "{\"c\":3}\n{\"d\":4}\n"} {
				appendTo(t, path, piece)
				want += piece
				r.waitFor(t, want)
			}
			select {
			case <-r.done:
				t.Fatal("the input ended before the run may have")
			default:
			}
			f.EndWhenIdle(true)
			r.ended(t)
			assert.Equal(t, Idle, f.Why())
			assert.Equal(t, want, r.got.String())
			assert.Empty(t, n.all(), "nothing to say")
		})
	}
}

// TestFollowGraceRestartsOnWrite proves a write during the grace period
// keeps the input open: it ends a grace period after the last write.
func TestFollowGraceRestartsOnWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	appendTo(t, path, "1\n")
	f := Open(context.Background(), path, Options{Grace: time.Hour})
	r := startReader(t, f)
	r.waitFor(t, "1\n")
	f.EndWhenIdle(true)
	appendTo(t, path, "2\n")
	r.waitFor(t, "1\n2\n") // an hour's grace: read, not ended
	f.EndWhenIdle(false)
	assert.Equal(t, Following, f.Why())
}

// TestFollowWaitsForTheFile proves a file that does not exist yet is
// waited for, said once, and read from its start when it comes.
func TestFollowWaitsForTheFile(t *testing.T) {
	for _, poll := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "later.jsonl")
		var n notes
		said := make(chan struct{}, 8)
		note := func(s string) { n.note(s); said <- struct{}{} }
		f := Open(context.Background(), path, Options{Note: note, NoNotify: poll})
		r := startReader(t, f)
		select { // the reader has looked and found nothing
		case <-said:
		case <-time.After(waitLimit):
			t.Fatal("nothing said of the missing file")
		}
		appendTo(t, path, "{\"x\":1}\n")
		r.waitFor(t, "{\"x\":1}\n")
		assert.Contains(t, n.all(), "later.jsonl does not exist yet: waiting for it")
		assert.Equal(t, 1, strings.Count(n.all(), "does not exist yet"), "said once")
	}
}

// TestFollowTruncatedReplacedRewritten proves a file truncated, replaced
// (renamed away and a new one made, as log rotation does) or rewritten
// from its start ends the input as Restarted, says so, and Resume reads
// the new content from its start.
func TestFollowTruncatedReplacedRewritten(t *testing.T) {
	first := "{\"type\":\"system\",\"session_id\":\"one\"}\n{\"n\":2}\n"
	second := "{\"type\":\"system\",\"session_id\":\"two\"}\n"
	for _, tc := range []struct {
		name, said string
		change     func(t *testing.T, path string)
	}{
		{"truncated", "was truncated", func(t *testing.T, path string) {
			require.NoError(t, os.Truncate(path, 0))
			appendTo(t, path, second)
		}},
		{"replaced", "was replaced", func(t *testing.T, path string) {
			require.NoError(t, os.Rename(path, path+".1"))
			appendTo(t, path, second)
		}},
		{"rewritten", "was rewritten from its start", func(t *testing.T, path string) {
			// Longer than before: only its start tells.
			require.NoError(t, os.WriteFile(path+".new", []byte(second+strings.Repeat("{\"pad\":0}\n", 10)), 0o600))
			b, _ := os.ReadFile(path + ".new")
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.WriteAt(b, 0)
			require.NoError(t, err)
			f.Close()
			second = string(b)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			appendTo(t, path, first)
			var n notes
			f := Open(context.Background(), path, Options{Note: n.note})
			r := startReader(t, f)
			r.waitFor(t, first)
			tc.change(t, path)
			r.ended(t)
			assert.Equal(t, Restarted, f.Why())
			assert.Contains(t, n.all(), "run.jsonl "+tc.said+": reading it again from its start")
			f.Resume()
			r2 := startReader(t, f)
			r2.waitFor(t, second)
		})
	}
}

// TestFollowInterruptedAndStopped proves a cancelled context ends the
// input at once (Interrupted), even while the file is not there; and a
// closed Stop ends it at the file's end (Stopped), after what was written.
func TestFollowInterruptedAndStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := Open(ctx, filepath.Join(t.TempDir(), "never.jsonl"), Options{})
	r := startReader(t, f)
	cancel()
	r.ended(t)
	assert.Equal(t, Interrupted, f.Why())

	path := filepath.Join(t.TempDir(), "run.jsonl")
	appendTo(t, path, "1\n")
	stop := make(chan struct{})
	f = Open(context.Background(), path, Options{Stop: stop})
	r = startReader(t, f)
	r.waitFor(t, "1\n")
	appendTo(t, path, "2\n")
	close(stop)
	r.ended(t)
	assert.Equal(t, Stopped, f.Why())
	assert.Equal(t, "1\n2\n", r.got.String(), "what was written before the stop is read")
}

// TestNewFile proves a new file of the kind asked for is found when it
// appears (the files known before are not new), and that the wait ends
// with its context.
func TestNewFile(t *testing.T) {
	dir := t.TempDir()
	appendTo(t, filepath.Join(dir, "old.jsonl"), "x\n")
	known := Listing(dir, ".jsonl")
	found := make(chan string, 1)
	go func() { found <- NewFile(context.Background(), dir, ".jsonl", known, 0) }()
	appendTo(t, filepath.Join(dir, "other.txt"), "x\n")
	appendTo(t, filepath.Join(dir, "new.jsonl"), "x\n")
	select {
	case got := <-found:
		assert.Equal(t, filepath.Join(dir, "new.jsonl"), got)
	case <-time.After(waitLimit):
		t.Fatal("the new file was not found")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.Equal(t, "", NewFile(ctx, filepath.Join(dir, "missing"), ".jsonl", nil, 0))
}
