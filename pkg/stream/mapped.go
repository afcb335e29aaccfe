package stream

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// Mapping a file. A Parallel decoder with MapFiles on a large regular file
// reads it through a read-only memory mapping instead of read calls: the
// reader hands the workers blocks that point into the mapping (or, with
// Prepare, the lines it cut from it), and nothing is copied. The kernel's copy into the read buffers was the largest single
// cost of final and of the event presets (a fifth to a third of their CPU
// time), and the buffers it copies into had to stay in memory until their
// lines were consumed; with the mapping, a long line costs its pages only,
// and no buffer is grown for it.
//
// The pages of consumed blocks are handed back by the reader (MADV_DONTNEED,
// which keeps them in the page cache) every dropBytes, so that memory stays flat
// however long the file. What follows the mapped size (a file that grew
// while it was read) and a last line without a newline are read as usual.
//
// A file that shrinks while it is mapped makes the pages past its new end
// fault (SIGBUS): the decoder's goroutines turn that fault into the read
// error ErrFileShrank, and a consumer reading an event's bytes must do the
// same (debug.SetPanicOnFault) or not let the file shrink.

const (
	mapMin    = 16 << 20 // smaller files are read
	dropBytes = 4 << 20  // consumed bytes whose pages are handed back at once
	mapBlock  = 2        // a block from the mapping is this many read sizes (8 MiB): fewer lines cross block ends
)

// ErrFileShrank is the read error of a mapped file that shrank while it was
// read (a fault in its mapping).
var ErrFileShrank = errors.New("the file shrank while it was being read")

// fileMapping is the mapping of a file being decoded.
type fileMapping struct {
	file     mappable     // the file, for going on after the mapped part
	data     []byte       // the whole file from offset 0, as it was mapped
	consumed atomic.Int64 // the bytes below it were consumed
	dropped  int          // pages below it were handed back (by the reader)
}

// mapInput maps the decoder's input when it is a large enough regular file
// and the rest of it is lines (not one JSON array): the mapping and the
// offset in it of the first byte not consumed yet. It returns nil when the
// input is read instead.
func (d *Decoder) mapInput() (*fileMapping, int) {
	if !d.opts.MapFiles || d.array || d.ra == nil || d.err != nil {
		return nil, 0
	}
	f, ok := d.r.(mappable)
	if !ok {
		return nil, 0
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, 0
	}
	least := int64(d.opts.mapMin)
	if least <= 0 {
		least = mapMin
	}
	size := fi.Size()
	if d.opts.mapMax > 0 {
		size = min(size, int64(d.opts.mapMax))
	}
	pos := d.raPos + d.base + int64(d.start)
	if size-pos < least || size > int64(^uint(0)>>1) {
		return nil, 0
	}
	data, err := mapFile(f.Fd(), size)
	if err != nil {
		return nil, 0
	}
	return &fileMapping{file: f, data: data}, int(pos)
}

// mappable is a file mapInput can map (an *os.File).
type mappable interface {
	Fd() uintptr
	Stat() (os.FileInfo, error)
	io.Seeker
}

// produceMapped is the reader's loop over a mapped file: blocks of whole
// lines from the mapping, then (at its end, at a last line without a
// newline, or at a line longer than MaxLineBytes) the reading goes on from
// there into the buffer, where produce's loop takes over. It reports
// whether that loop should go on. SkipLong does not apply: a long line
// costs its pages, not a buffer, and comes whole.
func (d *Decoder) produceMapped(p *pipeline, m *fileMapping, pos int, send func(*batch) bool) (goOn bool) {
	stop := func(err error) bool { // the last batch, with err
		b := p.batch()
		b.end = err
		send(b)
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			if !IsFault(r) {
				panic(r)
			}
			goOn = stop(ErrFileShrank)
		}
	}()
	debug.SetPanicOnFault(true)
	// The buffer begin read the start into is not used here (fill makes
	// another if the reading goes on past the mapping).
	d.buf, d.small = nil, nil
	data := m.data
	for pos < len(data) {
		end := min(pos+mapBlock*d.opts.BufferSize, len(data))
		var block []byte
		var top []jsonx.Member // the members of a long line, framed here
		oneLine := false
		if i := lastNewline(data[pos:end]); i >= 0 {
			block = data[pos : pos+i+1]
		} else {
			oneLine = true
			// One line longer than a block: it is handed whole (a
			// LineTooLongError past MaxLineBytes, found on the way).
			limit := min(len(data), pos+d.opts.MaxLineBytes+1)
			if d.opts.Check == CheckFraming && p.blocks {
				// Its framing walk finds its end too, here rather than on
				// a worker after a search of its own (one pass, not two).
				if ms, n, ok := jsonx.MembersLine(data[pos:limit], nil); ok {
					top, block = ms, data[pos:pos+n+1]
				}
			}
			if block == nil {
				j := -1
				if limit > end {
					j = bytes.IndexByte(data[end:limit], '\n')
				}
				if j < 0 {
					break // the last line, without a newline, or too long: read
				}
				block = data[pos : end+j+1]
			}
		}
		m.drop()
		if !p.blocks {
			if !d.sendLines(p, block, pos, send) {
				return false
			}
			pos += len(block)
			continue
		}
		b := p.batch()
		b.block, b.blockOff, b.size, b.mapEnd, b.oneLine = block, int64(pos)-d.raPos, len(block), pos+len(block), oneLine
		b.top, top = top, nil
		if !send(b) {
			return false
		}
		pos += len(block)
	}
	// Go on reading from pos, into the buffer.
	if _, err := m.file.Seek(int64(pos), io.SeekStart); err != nil {
		return stop(err)
	}
	d.base = int64(pos) - d.raPos
	d.start, d.end, d.scan, d.nl = 0, 0, 0, 0
	d.eof, d.lent = false, false
	// Lines are handed whole here too, as from the mapping.
	d.opts.SkipLong = nil
	return true
}

// sendLines cuts a block of the mapping into lines on the reader, each
// numbered as it is cut, in batches of at most batchLines: for a decoder
// whose Prepare must see final line numbers (no blocks for the workers).
// The lines point into the mapping.
func (d *Decoder) sendLines(p *pipeline, block []byte, pos int, send func(*batch) bool) bool {
	b, start := p.batch(), pos
	for len(block) > 0 {
		i := bytes.IndexByte(block, '\n') // a block ends with one
		line, off := block[:i], int64(pos)-d.raPos
		block, pos = block[i+1:], pos+i+1
		d.line++
		if len(line) > d.opts.MaxLineBytes {
			b.add().err = &LineTooLongError{Source: d.opts.Source, Line: d.line, Offset: off, Size: int64(len(line)), Max: d.opts.MaxLineBytes}
		} else if line = trimLine(line); len(line) > 0 {
			it := b.add()
			it.ev.Raw, it.ev.Line, it.ev.Offset = line[:len(line):len(line)], d.line, off
		}
		if len(b.items) > 0 && (len(b.items) >= batchLines || pos-start >= batchBytes || len(block) == 0) {
			b.mapEnd = pos
			if !send(b) {
				return false
			}
			b, start = p.batch(), pos
		}
	}
	return true
}

// IsFault reports whether a value recovered from a panic is a memory fault
// (with debug.SetPanicOnFault): reading a page of a mapped file past the end
// it shrank to, in the decoder or in an Event's bytes (see MapFiles).
func IsFault(r any) bool {
	err, ok := r.(runtime.Error)
	if !ok {
		return false
	}
	_, ok = err.(interface{ Addr() uintptr })
	return ok
}

// consume records that the bytes of the mapping below off were consumed
// (Next's goroutine).
func (m *fileMapping) consume(off int) { m.consumed.Store(int64(off)) }

// drop hands back the pages of the consumed bytes, every dropBytes. The
// reader calls it, not Next: the call costs as much as a tenth of what the
// consumer of text does.
func (m *fileMapping) drop() {
	end := int(m.consumed.Load()) &^ (dropAlign - 1)
	if end-m.dropped >= dropBytes {
		dropPages(m.data[m.dropped:end])
		m.dropped = end
	}
}

// dropAlign rounds down what drop hands back: to 2 MiB, the size of a huge
// page. A file read into the page cache sits in folios of up to that size,
// which the kernel maps with one page-table entry each when the mapping is
// aligned (it aligns a large file mapping so); handing back part of one
// splits the entry into 512 first.
const dropAlign = 2 << 20
