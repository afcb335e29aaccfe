// Command floor measures what any reader of a tree of Claude Code session
// transcripts must spend before it computes a figure: the floor under
// usage --by and sessions (issue 41). It walks the tree, reads every
// .jsonl file in 256 KiB pieces on every core and cuts the lines, and,
// level by level, does what a usage account cannot skip:
//
//	-level 0  read and cut the lines
//	-level 1  and pick the lines a usage account reads, as it picks them
//	          (input.Unsure, input.DeclaredType); a line longer than the
//	          piece whose head says it is none of them (a tool's result)
//	          is passed over without being kept, as the account's reader
//	          does (input.EndsTell)
//	-level 2  and check the framing of each picked line
//	          (jsonx.ValidateFraming), which is what tells a whole
//	          record from one cut short or two merged
//
// It computes no figure: its time is the least a run of usage --by day or
// sessions on the same tree can take on this machine. Time it with perf
// stat beside ccfilter and ccusage on the same tree:
//
//	go build -o /tmp/floor ./bench/floor
//	perf stat -r 10 /tmp/floor -level 2 TREE
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/spend"
)

// counts is what one worker saw: the proof that the work was done.
type counts struct{ files, lines, picked, pickedBytes, bad, longSkipped int }

func (c *counts) add(o counts) {
	c.files += o.files
	c.lines += o.lines
	c.picked += o.picked
	c.pickedBytes += o.pickedBytes
	c.bad += o.bad
	c.longSkipped += o.longSkipped
}

// worker reads the files it is sent at one level.
type worker struct {
	level int
	piece []byte
	long  []byte // a line that spans pieces and is kept
	c     counts
}

// passable says a line longer than the piece may be passed over without
// being kept, from its head, as the account's reader passes it over
// (input.EndsTell, stream.DecoderOptions.Ends): its head names its type,
// and it is no type an account reads (a tool's result, most often).
func passable(head []byte) bool {
	if !input.EndsTell(head) {
		return false
	}
	t, _ := input.DeclaredType(head)
	return !spend.WantedType(t)
}

// blanks are what a line is trimmed of at both ends before it is picked,
// as the Decoder trims it (a '\r' of CRLF, spaces, tabs).
const blanks = " \t\r"

func (w *worker) line(l []byte) {
	w.c.lines++
	if l = bytes.Trim(l, blanks); w.level < 1 || len(l) == 0 || !spend.Wanted(l) {
		return // (a blank line is offered to no reader)
	}
	w.c.picked++
	w.c.pickedBytes += len(l)
	if w.level >= 2 && jsonx.ValidateFraming(l) != nil {
		w.c.bad++
	}
}

func (w *worker) file(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	w.c.files++
	w.long = w.long[:0]
	spanning, skipping := false, false
	var size int  // of a line passed over, so far
	var last byte // the last byte but blanks so far, for a line passed over
	passed := func() {
		w.c.lines++
		if w.level == 0 {
			return
		}
		w.c.longSkipped++
		if last != '}' {
			// Cut short: Unsure, so the account's reader reads it
			// whole after all, and its framing check fails.
			w.c.picked++
			w.c.pickedBytes += size
			w.c.bad++
		}
	}
	for {
		n, err := f.Read(w.piece)
		b := w.piece[:n]
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				last = lastOf(b, last)
				switch {
				case skipping:
				case w.level == 0 || !spanning && passable(b):
					skipping = true
				default:
					w.long = append(w.long, b...)
				}
				size += len(b)
				spanning = true
				break
			}
			switch {
			case skipping:
				last = lastOf(b[:i], last)
				size += i
				passed()
			case spanning:
				w.line(append(w.long, b[:i]...))
			default:
				w.line(b[:i])
			}
			w.long, spanning, skipping, size = w.long[:0], false, false, 0
			b = b[i+1:]
		}
		if err == io.EOF || n == 0 {
			break
		}
	}
	switch {
	case skipping:
		passed() // (the last line, without its newline)
	case spanning:
		w.line(w.long)
	}
}

// lastOf is the last byte of b that is no blank, else last.
func lastOf(b []byte, last byte) byte {
	if t := bytes.TrimRight(b, blanks); len(t) > 0 {
		return t[len(t)-1]
	}
	return last
}

func main() {
	level := flag.Int("level", 2, "0: read and cut lines; 1: and pick the lines an account reads; 2: and check their framing")
	flag.Parse()
	var files []string
	for _, root := range flag.Args() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && filepath.Ext(p) == ".jsonl" {
				files = append(files, p)
			}
			return nil
		})
	}
	ch := make(chan string, 64)
	var mu sync.Mutex
	var total counts
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{level: *level, piece: make([]byte, 256<<10)}
			for p := range ch {
				w.file(p)
			}
			mu.Lock()
			total.add(w.c)
			mu.Unlock()
		}()
	}
	for _, p := range files {
		ch <- p
	}
	close(ch)
	wg.Wait()
	fmt.Printf("level %d: %d files, %d lines, %d picked (%d bytes), %d long lines passed over unkept, %d badly framed\n",
		*level, total.files, total.lines, total.picked, total.pickedBytes, total.longSkipped, total.bad)
}
