package stream

import (
	"bytes"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/ccfilter/ccfilter/internal/jsonx"
)

// A Parallel decoder splits the work of Next over goroutines: one reads and
// cuts lines, workers check and classify the batches, and Next hands out
// their events in input order. Lines are not copied: a batch's events
// point into the read buffers, and a buffer whose lines were handed out is
// never written again below what was read into it; when the reader needs
// to slide a partial line to the front, it goes on in a fresh buffer, and
// the old one comes back when the last batch that can point into it is
// consumed (copying every line into a batch cost a fifth of the reader's
// time). On a stream
// whose bytes are mostly tool results, checking the lines costs as much as
// everything a preset does with the events, so this nearly halves the wall
// time on two cores.

const (
	batchBytes   = 4 << 20   // bytes of lines per batch (one long line gets its own)
	batchLines   = 1024      // lines per batch at most
	batchesAhead = 1         // batches read ahead of Next; bounds the memory
	mappedAhead  = 2         // the same from a mapped file
	headSlab     = 256 << 10 // a slab of heads of lines passed over
	readBuffers  = 2         // read buffers at most: the reader's and one its batches point into
)

// batch is a run of consecutive lines, with the bytes they point into.
//
// The reader makes it one of two kinds. Lines it cut itself (long lines,
// lines passed over, bad lines, and every line when line numbers must be
// final on the workers) come as items. Otherwise it hands over a block:
// all the whole lines in its buffer, found with one backward search for
// the last '\n', and the worker cuts them; cutting every line on the
// reader was a pass over all input on the one goroutine that also does
// the reads. A block with more than batchLines lines goes on in
// continuation batches (cont), so that a batch's items stay bounded.
type batch struct {
	slab    []byte   // copies of the lines that are not in a read buffer (the heads of lines passed over)
	retired [][]byte // read buffers its events and earlier batches' point into, free once it is consumed
	size    int      // bytes of its lines
	big     []byte   // the buffer of a long line, with the long-line token (see waitBig)
	items   []batchItem
	end     error // after the items: io.EOF or the read error, or nil
	done    chan struct{}

	// Blocks (pipeline.blocks): line numbers are counted from the batch's
	// start, and Next adds the lines of the batches before.
	block    []byte         // whole lines for the worker to cut
	blockOff int64          // input offset of block[0]
	lines    int64          // lines it covers (blank ones too); with cont, set before cont is closed
	cont     chan *batch    // the batches a long block goes on in, closed after the last
	first    int64          // the reader's line count when it began the batch
	mapEnd   int            // a block of a mapped file: where it ends in the mapping
	oneLine  bool           // the block is one line (the reader found its end)
	top      []jsonx.Member // the members of that line, when the reader framed it

	// members holds the top-level members of all the lines cutBlock framed
	// into the batch, each item's index a piece of it; membersWanted is how
	// many more did not fit (those lines got an index of their own), and
	// recycle makes room for them. A batch's lines have about as many
	// members in all as any other's, so a few batches reach the size for
	// good, where an index per item grew until each of the pooled items
	// had held a line with the most members (4.8 MB at the end of a 1 GiB
	// stream, still growing: the peak RSS grew with the input).
	members       []jsonx.Member
	membersWanted int
}

type batchItem struct {
	ev   Event
	err  error
	skip *skipped // a line passed over (SkipLong): classified already
}

type pipeline struct {
	order    chan *batch // to Next, in input order
	work     chan *batch // to the workers
	free     chan *batch
	buffers  chan []byte // read buffers of bufferSize to reuse
	quit     chan struct{}
	bigToken chan struct{} // full while a buffer grown for a long line exists
	spare    chan []byte   // that buffer, handed back for the next long line
	stop     sync.Once
	cur      *batch
	k        int // next item of cur
	workers  sync.WaitGroup

	// blocks: the reader hands over blocks of lines (see batch), and line
	// numbers are made absolute by Next: head is the batch of cur's block
	// (cur itself or a continuation), lineBase the lines before it.
	blocks   bool
	head     *batch
	lineBase int64

	// A mapped file (see mapped.go), unmapped once the goroutines that
	// read it are gone and no event points into it.
	mapping    *fileMapping
	readerDone chan struct{}
	release    sync.Once

	// bufferSize is the decoder's BufferSize; readBuffers counts the read
	// buffers of that size the reader made (its first one included), for
	// buffer to wait when there are enough.
	bufferSize  int
	readBuffers int
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("stream: decoder closed")

func (d *Decoder) startPipeline() {
	n := d.opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	// A Prepare function sees Event.Line, which must then be final on the
	// workers: the reader cuts and counts every line.
	blocks := d.opts.Prepare == nil
	m, mapPos := d.mapInput()
	ahead := batchesAhead
	if m != nil {
		// No read buffers to keep warm: the workers may run further ahead.
		ahead = mappedAhead
	}
	p := &pipeline{
		order:      make(chan *batch, ahead),
		work:       make(chan *batch, ahead),
		free:       make(chan *batch, ahead+4),
		buffers:    make(chan []byte, readBuffers),
		quit:       make(chan struct{}),
		bigToken:   make(chan struct{}, 1),
		spare:      make(chan []byte, 1),
		blocks:     blocks,
		mapping:    m,
		readerDone: make(chan struct{}),
		bufferSize: d.opts.BufferSize,
	}
	p.readBuffers = 1 // fill's first buffer
	d.pipe = p
	opts := d.opts
	p.workers.Add(n)
	for range n {
		go func() {
			defer p.workers.Done()
			debug.SetPanicOnFault(true) // a mapped file that shrank: see cutBlock
			for b := range p.work {
				if b.block != nil {
					p.cutBlock(b, &opts)
					continue
				}
				for i := range b.items {
					it := &b.items[i]
					switch {
					case it.skip != nil:
						it.ev.partial(it.ev.Raw, opts.Source, it.ev.Line, it.ev.Offset, *it.skip)
					case it.err == nil:
						it.err = prepare(&it.ev, it.ev.Raw, &opts, it.ev.Line, it.ev.Offset)
					}
				}
				close(b.done)
			}
		}()
	}
	go d.produce(p, mapPos)
}

// produce runs on its own goroutine: it cuts lines into batches until the
// input ends or Close is called.
func (d *Decoder) produce(p *pipeline, mapPos int) {
	defer close(p.readerDone)
	defer close(p.work)
	ship := func(b *batch) bool {
		select {
		case p.order <- b:
		case <-p.quit:
			return false
		}
		select {
		case p.work <- b:
		case <-p.quit:
			return false
		}
		return true
	}
	if p.mapping != nil && !d.produceMapped(p, p.mapping, mapPos, ship) {
		return
	}
	b := p.batch()
	b.first = d.line
	send := func(last error) bool {
		b.end = last
		b.retired = append(b.retired, d.retired...)
		clear(d.retired)
		d.retired = d.retired[:0]
		if p.blocks && b.block == nil {
			// Lines the reader cut: numbered from the batch's start.
			b.lines = d.line - b.first
			b.addLines(-b.first)
		}
		if !ship(b) {
			return false
		}
		b = p.batch()
		b.first = d.line
		return true
	}
	for {
		if p.blocks {
			if block, off := d.bufferedLines(); block != nil {
				// Lines the reader cut go first (a blank one too: it
				// counts).
				if (len(b.items) > 0 || d.line > b.first) && !send(nil) {
					return
				}
				b.block, b.blockOff, b.size = block, off, len(block)
				if !send(nil) {
					return
				}
				continue
			}
			if d.roomToRead() {
				// The line in the buffer is not whole yet: read on, and
				// it goes with the next block (leaving it to readLine
				// searched it twice, on the reader).
				if d.fill() == nil {
					continue
				}
				// The end of the input, or an error: readLine says which.
			}
		}
		line, off, err := d.readLine()
		if err != nil && !IsLineError(err) {
			send(err) // io.EOF or a read error: the end
			return
		}
		own := false // the line has a batch of its own
		if err != nil {
			b.add().err = err
		} else if line = trimLine(line); len(line) > 0 {
			grown := len(d.buf) > len(d.small) // the buffer grew for this line
			own = grown || len(line) > batchBytes
			if len(b.items) > 0 && (own || b.size+len(line) > batchBytes) {
				if !send(nil) {
					return
				}
			}
			b.size += len(line)
			var raw []byte
			switch {
			case grown:
				// The decoder drops that buffer at the next line: the batch
				// takes it over, uncopied (with the token that lets one
				// such buffer exist).
				raw = line
				b.big, d.holdsBig = d.buf[:cap(d.buf)], false
			case own:
				raw = append(make([]byte, 0, len(line)), line...)
			case !d.skipped:
				// A line of the read buffer, which is not written again
				// below it (see writable).
				raw = line[:len(line):len(line)]
				d.lent = true
			default:
				if cap(b.slab)-len(b.slab) < len(line) {
					// A new slab: the earlier items keep the old one.
					b.slab = make([]byte, 0, max(headSlab, len(line)))
				}
				at := len(b.slab)
				b.slab = append(b.slab, line...) // the head kept of a line passed over
				raw = b.slab[at:len(b.slab):len(b.slab)]
			}
			it := b.add()
			it.ev.Raw, it.ev.Line, it.ev.Offset = raw, d.line, off
			if d.skipped {
				sk := d.skip
				it.skip, d.skipped = &sk, false
			}
		}
		// Hand the batch over when it is full, and whenever the next line
		// is not in the buffer yet: on a pipe the next read may wait, and
		// what was read must reach the consumer first.
		if len(b.items) > 0 && (own || len(b.items) >= batchLines || !d.lineBuffered()) {
			if !send(nil) {
				return
			}
		}
	}
}

// waitBig is called by fill before it grows the buffer of a Parallel
// decoder beyond BufferSize: at most one buffer of a long line exists at a
// time (the one being read waits for the one being used), so that memory
// stays at one long line.
func (d *Decoder) waitBig() error {
	if d.pipe == nil || d.holdsBig {
		return nil
	}
	select {
	case d.pipe.bigToken <- struct{}{}:
		d.holdsBig = true
		return nil
	case <-d.pipe.quit:
		return ErrClosed
	}
}

// add appends an item, reusing the slot's event (and the capacity of its
// member index) when the batch is a recycled one.
func (b *batch) add() *batchItem {
	if n := len(b.items); n < cap(b.items) {
		b.items = b.items[:n+1]
	} else {
		b.items = append(b.items, batchItem{})
	}
	return &b.items[len(b.items)-1]
}

// buffer returns a read buffer of n bytes (the reader's), recycled when one
// is free. The reader holds at most readBuffers of BufferSize: when that
// many exist and none is free, it waits for the consumer to give one back,
// when it may (wait: the buffers it retired went out with batches already
// sent, so they come back as those are consumed). Making another one
// instead, as it did, made a third buffer or not by how far the consumer
// happened to lag, and the peak RSS of a long stream from a pipe grew by
// that buffer and the heap goal it raised (1.13-1.47x from 100 MiB to
// 1 GiB).
func (p *pipeline) buffer(n int, wait bool) []byte {
	select {
	case b := <-p.buffers:
		if len(b) == n {
			return b
		}
		p.readBuffers-- // the pool holds BufferSize ones only: this one goes
	default:
	}
	if n == p.bufferSize && wait && p.readBuffers >= readBuffers {
		select {
		case b := <-p.buffers:
			return b
		case <-p.quit: // stopping: the buffer is not read into
		}
	}
	if n == p.bufferSize {
		p.readBuffers++
	}
	return make([]byte, n)
}

// batch returns an empty batch, recycled when one is free.
func (p *pipeline) batch() *batch {
	select {
	case b := <-p.free:
		return b
	default:
		return &batch{done: make(chan struct{})}
	}
}

// recycle keeps a consumed batch's memory for the next one, and gives back
// the read buffers it retired, and a long line's buffer (the reader reuses
// it for the next long line: see longBuffer).
func (p *pipeline) recycle(b *batch) {
	if b.mapEnd > 0 {
		p.mapping.consume(b.mapEnd)
	}
	if b.big != nil {
		select {
		case p.spare <- b.big:
		default:
		}
		b.big = nil
		<-p.bigToken
	}
	if cap(b.slab) != headSlab {
		b.slab = nil
	}
	b.slab = b.slab[:0]
	for _, buf := range b.retired {
		if len(buf) != p.bufferSize {
			continue // not counted in readBuffers: not kept
		}
		select {
		case p.buffers <- buf:
		default:
		}
	}
	clear(b.retired)
	b.retired = b.retired[:0]
	framed := b.members != nil || b.membersWanted > 0 // the items' indexes are pieces of b.members
	if b.membersWanted > 0 {
		b.members = make([]jsonx.Member, 0, (cap(b.members)+b.membersWanted)*5/4)
	}
	b.members, b.membersWanted = b.members[:0], 0
	b.size = 0
	for i := range b.items {
		it := &b.items[i]
		it.ev.point(nil, "", 0, 0) // keeps the event's index capacity
		if framed {
			it.ev.top = nil // (the next lines reuse b.members)
		}
		it.err, it.skip = nil, nil
	}
	b.items = b.items[:0]
	b.end = nil
	b.block, b.blockOff, b.lines, b.cont, b.first, b.mapEnd, b.oneLine, b.top = nil, 0, 0, nil, 0, 0, false, nil
	b.done = make(chan struct{})
	select {
	case p.free <- b:
	default:
	}
}

// next is Next for a Parallel decoder.
func (p *pipeline) next() (*Event, error) {
	for {
		if b := p.cur; b != nil {
			if p.k < len(b.items) {
				it := &b.items[p.k]
				p.k++
				if it.err != nil {
					return nil, it.err
				}
				return &it.ev, nil
			}
			if b.end != nil {
				p.unmap() // the last batch: no event of the file is valid now
				return nil, b.end
			}
			h := p.head
			if b != h {
				p.recycle(b) // a continuation, consumed
			}
			if h.cont != nil {
				select {
				case c, ok := <-h.cont:
					if ok {
						c.addLines(p.lineBase)
						p.cur, p.k = c, 0
						continue
					}
				case <-p.quit:
					return nil, ErrClosed
				}
			}
			p.lineBase += h.lines
			p.cur, p.head = nil, nil
			p.recycle(h)
		}
		select {
		case b := <-p.order:
			// After Close the reader may have sent b here but not to the
			// workers, and then no one closes b.done.
			select {
			case <-b.done:
			case <-p.quit:
				return nil, ErrClosed
			}
			if p.blocks {
				b.addLines(p.lineBase)
			}
			p.head, p.cur, p.k = b, b, 0
		case <-p.quit:
			return nil, ErrClosed
		}
	}
}

// buffered is Buffered for a Parallel decoder: an event is ready, or read
// and being checked.
func (p *pipeline) buffered() bool {
	if b := p.cur; b != nil && (p.k < len(b.items) || b.end != nil || p.head.cont != nil && len(p.head.cont) > 0) {
		return true
	}
	return len(p.order) > 0
}

// Close stops a Parallel decoder's goroutines; Next then returns ErrClosed.
// It does nothing for other decoders. It does not close the reader.
func (d *Decoder) Close() error {
	if p := d.pipe; p != nil {
		p.unmap()
	}
	return nil
}

// unmap stops the goroutines and, for a mapped file, waits until they are
// gone and unmaps it (Next's events must not be used after that: Close, or
// the end of the input).
func (p *pipeline) unmap() {
	p.stop.Do(func() { close(p.quit) })
	p.release.Do(func() {
		if p.mapping == nil {
			return
		}
		<-p.readerDone
		p.workers.Wait()
		unmapFile(p.mapping.data)
	})
}

// cutBlock is a worker's part for a block: it cuts, checks and classifies
// its lines, into b and, past batchLines items, into continuation batches
// that Next takes from b.cont.
func (p *pipeline) cutBlock(b *batch, opts *DecoderOptions) {
	cur := b
	if b.mapEnd > 0 {
		defer func() {
			if r := recover(); r != nil {
				if !IsFault(r) {
					panic(r)
				}
				// The mapped file shrank: this is the end of the input, in b
				// itself while Next does not have it yet (no continuation).
				if b.cont == nil {
					b.items, b.end = b.items[:0], ErrFileShrank
					close(b.done)
					return
				}
				end := p.batch()
				end.end = ErrFileShrank
				if p.sendCont(b, end) {
					close(b.cont)
				}
			}
		}()
	}
	var n int64 // lines so far
	var top, room []jsonx.Member
	var roomOf *batch
	rest, off := b.block, b.blockOff
	for len(rest) > 0 {
		// The framing walk finds where a line of one object ends, and the
		// line needs no search for its '\n' of its own (see MembersLine).
		var i int
		framed := false
		switch {
		case b.oneLine:
			// The reader found its end (and framed it, with b.top).
			i = len(rest) - 1
			if b.top != nil {
				top, framed = b.top, true
			}
		case opts.Check == CheckFraming:
			// Into the room left in the batch's members (see batch).
			room, roomOf = cur.members[len(cur.members):], cur
			if top, i, framed = jsonx.MembersLine(rest, room); !framed {
				i = bytes.IndexByte(rest, '\n') // a block ends with one
			}
		default:
			i = bytes.IndexByte(rest, '\n')
		}
		line, lineOff := rest[:i], off
		rest, off = rest[i+1:], off+int64(i+1)
		n++
		if len(line) > opts.MaxLineBytes {
			cur.add().err = &LineTooLongError{Source: opts.Source, Line: n, Offset: lineOff, Size: int64(len(line)), Max: opts.MaxLineBytes}
			continue
		}
		if line = trimLine(line); len(line) == 0 {
			continue
		}
		if len(cur.items) >= batchLines {
			if cur == b {
				b.cont = make(chan *batch, 1)
				close(b.done)
			} else if !p.sendCont(b, cur) {
				return
			}
			cur = p.batch()
		}
		it := cur.add()
		if framed {
			if !b.oneLine {
				if roomOf != cur {
					// The line went on into a new batch: its members must
					// not lie in the last one's, reused once that is read.
					top = slices.Clone(top)
					room = nil
				}
				if len(top) <= cap(room) {
					cur.members = cur.members[:len(cur.members)+len(top)]
				} else {
					cur.membersWanted += len(top) // (top is an array of its own)
				}
				top = top[:len(top):len(top)] // nothing appended to it reaches the next line's
			}
			it.err = prepareFramed(&it.ev, line[:len(line):len(line)], top, opts, n, lineOff)
			continue
		}
		it.err = prepare(&it.ev, line[:len(line):len(line)], opts, n, lineOff)
	}
	b.lines = n
	if cur == b {
		close(b.done)
		return
	}
	if p.sendCont(b, cur) {
		close(b.cont)
	}
}

func (p *pipeline) sendCont(b, c *batch) bool {
	select {
	case b.cont <- c:
		return true
	case <-p.quit:
		return false
	}
}

// addLines adds n to the line numbers of a batch's events and errors.
func (b *batch) addLines(n int64) {
	if n == 0 {
		return
	}
	for i := range b.items {
		it := &b.items[i]
		it.ev.Line += n
		switch e := it.err.(type) {
		case *SyntaxError:
			e.Line += n
		case *LineTooLongError:
			e.Line += n
		}
	}
}
