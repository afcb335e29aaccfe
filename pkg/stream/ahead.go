package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/internal/readahead"
)

// lineSource is what the Decoder reads its input through: the part of
// bufio.Reader it uses. A *bufio.Reader is the reference; aheadSource is
// the same reading over the buffers a read-ahead goroutine filled.
type lineSource interface {
	io.Reader
	io.ByteScanner
	ReadSlice(delim byte) ([]byte, error)
	Peek(n int) ([]byte, error)
	Discard(n int) (int, error)
	Buffered() int
}

var (
	_ lineSource = (*bufio.Reader)(nil)
	_ lineSource = (*aheadSource)(nil)
)

// aheadSource reads a readahead.Reader's buffers where they were filled,
// instead of copying each into a bufio.Reader's buffer: that copy was a
// memmove of every byte of the input on the decoder's goroutine, a
// quarter of `final`'s time on a file (issue 41). Each buffer has size
// bytes of room in front of the bytes read (readahead.New): the
// unread end of a buffer (the head of a line it cut, under size bytes)
// is moved there, in front of the next buffer's bytes, so that a line of
// up to size bytes is always whole in one buffer.
//
// It reads as a bufio.Reader of size bytes would, call for call: the same
// bytes, a line longer than size bytes cut into pieces of size bytes
// (bufio.ErrBufferFull), Peek and Buffered never beyond size bytes, and
// the same errors, so that the Decoder gives the same events and line
// errors whichever it reads through (TestNewReaderMatchesDecoder).
type aheadSource struct {
	ra   *readahead.Reader
	size int
	id   int    // the buffer being read (-1 before the first)
	buf  []byte // it whole
	r, w int    // its unread bytes are buf[r:w]
	err  error  // the read-ahead's error, once its last buffer came
	// unread: the last call was a ReadByte that UnreadByte may undo.
	unread bool
	// frames is what the read-ahead goroutine found in each buffer
	// (framer.look), indexed by the buffer's id; nil when it frames none.
	// last is the entry of the line ReadSlice returned last, from it.
	frames []frames
	last   *framedLine
}

// newAheadSource reads the file f ahead in buffers of size bytes. With a
// check of CheckFraming or CheckAll, the read-ahead goroutine also frames
// the lines that lie whole in each buffer (framer), so that the decoder's
// goroutine does not walk them again; screen, when set, is given each
// buffer's bytes on the reading goroutine.
func newAheadSource(f io.Reader, size int, check Check, validate bool, screen func([]byte)) *aheadSource {
	// Eight in flight: with four, the three stages waited on each other
	// (final on real 0.103-0.113 s against 0.096-0.102 s with eight; peak
	// RSS of all -F html on real19 44.6 MB with either).
	const buffers = 8
	a := &aheadSource{size: size, id: -1}
	var look func(int, []byte)
	if check == CheckFraming || check == CheckAll {
		a.frames = make([]frames, buffers)
		fr := &framer{check: check, frames: a.frames, head: size, validate: validate}
		look = fr.look
	}
	a.ra = readahead.New(f, size, size, buffers, screen, look)
	return a
}

// Close stops the read-ahead goroutine.
func (a *aheadSource) Close() error { return a.ra.Close() }

// fill takes the next buffer read ahead, moves the unread bytes in front
// of its bytes and gives the one before back. The caller checks that no
// error came before (a.err == nil) and that fewer than size bytes are
// unread.
func (a *aheadSource) fill() {
	id, data, err := a.ra.Next()
	buf := a.ra.Buffer(id)
	head := cap(buf) - cap(data) // the room in front of data
	u := a.w - a.r
	copy(buf[head-u:head], a.buf[a.r:a.w])
	if a.id >= 0 {
		a.ra.Release(a.id)
	}
	a.id, a.buf, a.r, a.w, a.err = id, buf, head-u, head+len(data), err
	a.last = nil // (its table is the framer's again)
}

// lineAt returns the framer's entry for the line that starts at the read
// position of the buffer being read, or nil: a line the table holds lies
// whole in the buffer (ReadSlice returns it without waiting, and without
// searching for its end).
func (a *aheadSource) lineAt() *framedLine {
	if a.frames == nil || a.id < 0 {
		return nil
	}
	t := &a.frames[a.id]
	for t.cur < len(t.lines) && int(t.lines[t.cur].start) < a.r {
		t.cur++
	}
	if t.cur < len(t.lines) && int(t.lines[t.cur].start) == a.r && int(t.lines[t.cur].end)-a.r < a.size {
		return &t.lines[t.cur]
	}
	return nil
}

// framed returns the framing the read-ahead goroutine found for line, the
// line the Decoder just read, trimmed (trimLine): the one ReadSlice last
// returned from its table, known by where its bytes are. nil for any
// other: a line cut by a buffer's end and moved, one not starting with
// '{', a long line read into a buffer of its own.
func (a *aheadSource) framed(line []byte) *framedLine {
	e := a.last
	if e == nil || !e.framed || len(line) != int(e.le-e.ls) || &line[0] != &a.buf[e.ls] {
		return nil
	}
	return e
}

// appendMembers appends the members the framer found for e, a line of the
// buffer being read (framed), to dst.
func (a *aheadSource) appendMembers(dst []jsonx.Member, e *framedLine) []jsonx.Member {
	return a.appendSpans(dst, a.frames[a.id].spans[e.from:e.to])
}

// appendSpans appends the members at spans, in the buffer being read, to
// dst.
func (a *aheadSource) appendSpans(dst []jsonx.Member, spans []memberSpan) []jsonx.Member {
	buf := a.buf
	n := len(dst)
	dst = slices.Grow(dst, len(spans))[:n+len(spans)]
	for i, m := range spans {
		dst[n+i] = jsonx.Member{Key: buf[m.k0:m.k1:m.k1], Val: jsonx.Value(buf[m.v0:m.v1:m.v1])}
	}
	return dst
}

// appendMessage appends the members of e's message, which the framer
// indexed (framedLine.msg), to dst.
func (a *aheadSource) appendMessage(dst []jsonx.Member, e *framedLine) []jsonx.Member {
	return a.appendSpans(dst, a.frames[a.id].spans[e.to:e.msgTo])
}

// appendResults appends the tool results the framer found in e
// (framedLine.results) to dst, as Event.ToolResults finds them.
func (a *aheadSource) appendResults(dst []ToolResult, e *framedLine) []ToolResult {
	for _, s := range a.frames[a.id].results[e.rFrom:e.rTo] {
		r := ToolResult{IsError: s.isError, size: int(s.size), ToolUseID: a.valueAt(s.id0, s.id1).Str()}
		if c := a.valueAt(s.c0, s.c1); c != nil {
			r.Content = json.RawMessage(c)
		}
		dst = append(dst, r)
	}
	return dst
}

// usage is the usage of e's message, which the framer read
// (framedLine.usage).
func (a *aheadSource) usage(e *framedLine) Usage { return a.frames[a.id].usages[e.uAt] }

// appendBlocks appends the heads of e's message's blocks, which the framer
// read (framedLine.blocks), to dst.
func (a *aheadSource) appendBlocks(dst []blockHead, e *framedLine) []blockHead {
	for _, b := range a.frames[a.id].blocks[e.bFrom:e.bTo] {
		dst = append(dst, blockHead{a.valueAt(b[0], b[1]), a.valueAt(b[2], b[3]), a.valueAt(b[4], b[5]), a.valueAt(b[6], b[7])})
	}
	return dst
}

// valueAt is the value at [v0, v1) in the buffer being read, as spanAt
// wrote where it lies; nil for -1 (none).
func (a *aheadSource) valueAt(v0, v1 int32) jsonx.Value {
	if v0 < 0 {
		return nil
	}
	return jsonx.Value(a.buf[v0:v1:v1])
}

// frameErr is the framing error the framer found for e (nil: none).
func (a *aheadSource) frameErr(e *framedLine) error {
	if e.errAt == 0 {
		return nil
	}
	return a.frames[a.id].errs[e.errAt-1]
}

// frames is what the read-ahead goroutine found in one buffer: each line
// that lies whole in it, in order, and the framing of those that start
// with '{'. Offsets, not slices, so that the tables hold no pointer for
// the garbage collector to scan at every cycle (with its members as
// slices, final on a Codex CLI corpus, which allocates an event per
// line, spent half its time scanning them: 2.4 s against 1.6), and a
// buffer of tiny lines costs little (TestShortLinesMemoryIsBounded).
type frames struct {
	lines []framedLine
	spans []memberSpan // the lines' members, one after the other
	errs  []error      // the lines' framing errors (framedLine.errAt)
	// results are the tool results of the user lines (framedLine.results)
	results []resultSpan
	// usages are the usage objects of the assistant lines
	// (framedLine.usage).
	usages []Usage
	// blocks are the heads of the tool calls' blocks (framedLine.blocks):
	// the type, id, name and input of each, [start, end) in the buffer
	// (-1: none).
	blocks [][8]int32
	cur    int // the first line the decoder has not read
}

// resultSpan is a ToolResult, sized, as offsets in its buffer: its
// tool_use_id as written and its content (-1: none).
type resultSpan struct {
	id0, id1, c0, c1 int32
	size             int32 // ToolResult.size
	isError          bool
}

// framedLine is one line of a buffer: where it is, and the top-level
// members the decoder's framing walk (Event.frame, or frameValid with
// CheckAll) would find in it, with its error. Offsets are the buffer's.
type framedLine struct {
	start, end int32 // the line is [start, end), its '\n' at end
	ls, le     int32 // the line trimmed (trimLine)
	from, to   int32 // its members: frames.spans[from:to]
	msgTo      int32 // with msg, its message's members: frames.spans[to:msgTo]
	rFrom, rTo int32 // with results, its tool results: frames.results[rFrom:rTo]
	uAt        int32 // with usage, its message's usage: frames.usages[uAt]
	bFrom, bTo int32 // with blocks, its message's block heads: frames.blocks[bFrom:bTo]
	errAt      int32 // its framing error: frames.errs[errAt-1]; 0: none
	framed     bool  // the line starts with '{', and members and errAt are its framing
	valid      bool  // the line was validated in full (framer.validate)
	msg        bool  // its message was indexed as it was validated (framer.validateCall)
	results    bool  // its tool results were found and sized (framer.findResults)
	usage      bool  // its message's usage was read, every number fitting (framer.readUsage)
	blocks     bool  // its message's block heads were read (framer.readBlocks)
}

// memberSpan is a jsonx.Member as offsets in its buffer.
type memberSpan struct{ k0, k1, v0, v1 int32 }

// framer frames, on a goroutine of its own (readahead.New's
// watch), the lines that lie whole in each buffer read: the decoder's
// goroutine then finds their ends in its table instead of searching for
// them, and only classifies them and hands them on (issue 41). Lines cut
// by a buffer's end are left to the decoder, which reads and frames them
// as it does on a pipe.
type framer struct {
	check  Check
	frames []frames
	head   int // the room in front of each buffer's bytes
	// validate: the lines the consumer validates (DecoderOptions.
	// ValidateAhead: the assistant lines, the inits and the results) are
	// validated in full as they are framed, an assistant line's message
	// indexed on the way (validateCall); a user line's tool results are
	// found and sized (findResults).
	validate bool
	// scratch is the members of the line being framed; msg its message's.
	scratch, msg []jsonx.Member
	// lastUsage: the usage objects read (readUsage), the last remembered.
	lastUsage usageMemo
	// heads is the block heads of the line being framed (readBlocks).
	heads []blockHead
	// cut: the last buffer did not end with '\n', so the first line of the
	// next is the end of one it cut.
	cut bool
}

// look is the read-ahead's watch: it is given buffer id's bytes read.
func (fr *framer) look(id int, data []byte) {
	t := &fr.frames[id]
	clear(t.errs) // (let the errors go)
	t.lines, t.spans, t.errs, t.results, t.usages, t.blocks, t.cur = t.lines[:0], t.spans[:0], t.errs[:0], t.results[:0], t.usages[:0], t.blocks[:0], 0
	end := fr.head + cap(data) // the buffer's end, which cap counts from
	at := 0                    // offset in data
	if fr.cut {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return // (cut stays: the line goes on in the next buffer)
		}
		at = i + 1
	}
	for len(t.lines) < maxFramedLines && len(t.spans) < maxFramedMembers {
		i := bytes.IndexByte(data[at:], '\n')
		if i < 0 {
			break
		}
		line := trimLine(data[at : at+i])
		ls := int32(end - cap(line))
		e := framedLine{start: int32(fr.head + at), end: int32(fr.head + at + i), ls: ls, le: ls + int32(len(line))}
		at += i + 1
		if len(line) > 0 && line[0] == '{' {
			var err error
			switch {
			case fr.check == CheckAll:
				fr.scratch, err = jsonx.ValidMembers(line, fr.scratch[:0])
			case fr.validate && bytes.HasPrefix(line, assistantHead):
				// (Which walk is a guess from the head; the index is the
				// same either way, and only a line found valid says so.)
				if err = fr.validateCall(line, &e); e.msg {
					fr.readUsage(t, &e)
					fr.readBlocks(t, end, &e)
				}
			case fr.validate && (bytes.HasPrefix(line, initHead) || bytes.HasPrefix(line, resultHead)):
				if fr.scratch, err = jsonx.ValidMembers(line, fr.scratch[:0]); err == nil {
					e.valid = true
				} else {
					fr.scratch, err = jsonx.Members(line, fr.scratch[:0])
				}
			case fr.validate && bytes.HasPrefix(line, userHead):
				if fr.scratch, err = jsonx.Members(line, fr.scratch[:0]); err == nil {
					fr.findResults(t, line, end, &e)
				}
			default:
				fr.scratch, err = jsonx.Members(line, fr.scratch[:0])
			}
			if err != nil {
				t.errs = append(t.errs, err)
				e.errAt = int32(len(t.errs))
			}
			e.framed, e.from = true, int32(len(t.spans))
			for _, m := range fr.scratch {
				k0, v0 := int32(end-cap(m.Key)), int32(end-cap(m.Val))
				t.spans = append(t.spans, memberSpan{k0, k0 + int32(len(m.Key)), v0, v0 + int32(len(m.Val))})
			}
			e.to = int32(len(t.spans))
			if e.msg {
				for _, m := range fr.msg {
					k0, v0 := int32(end-cap(m.Key)), int32(end-cap(m.Val))
					t.spans = append(t.spans, memberSpan{k0, k0 + int32(len(m.Key)), v0, v0 + int32(len(m.Val))})
				}
				e.msgTo = int32(len(t.spans))
			}
		}
		t.lines = append(t.lines, e)
	}
	fr.cut = data[len(data)-1] != '\n' // (data is never empty)
}

// validateCall frames an assistant line into fr.scratch and validates
// it as Event.Validate checks a tool call's (jsonx.ValidIndexed), its
// message's members indexed into fr.msg on the way: the tracker reads
// every assistant event's message by its members (its id, model and
// usage, past the content), and that walk, on the Decoder's goroutine,
// was a tenth of what tools -F csv left there (issue 41). e says valid
// and msg only for a line found valid; its error is the framing's.
func (fr *framer) validateCall(line []byte, e *framedLine) (err error) {
	if fr.scratch, err = jsonx.Members(line, fr.scratch[:0]); err != nil {
		return err
	}
	if msg := jsonx.Lookup(fr.scratch, "message"); msg.Type() == jsonx.Object {
		fr.msg, e.valid = jsonx.ValidIndexed(line, fr.scratch, msg, fr.msg[:0])
		e.msg = e.valid
	} else {
		e.valid = jsonx.Validate(line) == nil
	}
	return nil
}

// readUsage reads the usage of e's message, indexed in fr.msg, as the
// tracker does (Tracker.usageOf), into t.usages: reading each message's
// usage object (about 500 bytes, with objects in it) was a twelfth of
// what the Decoder's goroutine did for tools -F csv (issue 41). A usage
// with a number that does not fit is left to the tracker, which notes it
// with its line.
func (fr *framer) readUsage(t *frames, e *framedLine) {
	v := jsonx.Lookup(fr.msg, "usage")
	if v.Type() != jsonx.Object {
		return
	}
	var nf Unfits
	if u := fr.lastUsage.read(v, &nf); nf.Count == 0 {
		e.usage, e.uAt = true, int32(len(t.usages))
		t.usages = append(t.usages, u)
	}
}

// readBlocks reads the heads of the blocks of a tool call's message,
// indexed in fr.msg, as Event.blockHeads does, into t.blocks: the tracker
// reads each call's (its id, name and input), and that walk of the
// content, which skips each block and then walks it again for its
// members, was a twentieth of what the Decoder's goroutine did for tools
// -F csv (issue 41). Only a message whose first block is a call's (the
// events the tracker reads the calls of: KindToolUse); end is where the
// buffer's capacity ends, which offsets count from.
func (fr *framer) readBlocks(t *frames, end int, e *framedLine) {
	content := jsonx.Lookup(fr.msg, "content")
	if blockKind(content) != KindToolUse {
		return
	}
	fr.heads = appendBlockHeads(fr.heads[:0], content)
	e.blocks, e.bFrom = true, int32(len(t.blocks))
	for _, b := range fr.heads {
		var s [8]int32
		s[0], s[1] = spanAt(end, b.Type)
		s[2], s[3] = spanAt(end, b.ID)
		s[4], s[5] = spanAt(end, b.Name)
		s[6], s[7] = spanAt(end, b.Input)
		t.blocks = append(t.blocks, s)
	}
	e.bTo = int32(len(t.blocks))
}

// findResults finds and sizes the tool results of a user line, as
// Event.ToolResults does, into t.results: tools reads every result with
// its size (result_bytes), whose count over the whole text was a sixth
// of what the Decoder's goroutine did for it (issue 41). end is where
// the buffer's capacity ends, which offsets count from.
func (fr *framer) findResults(t *frames, line []byte, end int, e *framedLine) {
	e.results, e.rFrom = true, int32(len(t.results))
	eachToolResult(line, true, func(r ToolResult, id jsonx.Value) {
		r = r.sized()
		s := resultSpan{size: int32(r.size), isError: r.IsError}
		s.id0, s.id1 = spanAt(end, id)
		s.c0, s.c1 = spanAt(end, r.Content)
		t.results = append(t.results, s)
	})
	e.rTo = int32(len(t.results))
}

// spanAt is where v lies in a buffer whose capacity ends at end, [start,
// end) as offsets; -1, -1 for nil (none).
func spanAt(end int, v []byte) (int32, int32) {
	if v == nil {
		return -1, -1
	}
	v0 := int32(end - cap(v))
	return v0, v0 + int32(len(v))
}

// assistantHead, initHead and resultHead are how a Claude Code stream
// writes the head of an assistant line, an init and a result: the lines
// whose events tools validates (preset.keepsFacts).
var (
	assistantHead = []byte(`{"type":"assistant"`)
	initHead      = []byte(`{"type":"system","subtype":"init"`)
	resultHead    = []byte(`{"type":"result"`)
	userHead      = []byte(`{"type":"user"`)
)

// maxFramedLines and maxFramedMembers bound a buffer's table (400 KB): a
// buffer of tiny lines ("{}" 170,000 times) is framed up to there, its
// other lines by the decoder, so that the tables cost less memory than
// the buffers (a real run's 512 KiB hold about 250 lines and 2,500
// members, a Gemini CLI stream's about 2,700 lines and 13,000 members).
const (
	maxFramedLines   = 4096
	maxFramedMembers = 16384
)

// more fills until at least n bytes are unread, or an error came.
func (a *aheadSource) more(n int) {
	for a.w-a.r < n && a.err == nil {
		a.fill()
	}
}

// ReadSlice is bufio.Reader.ReadSlice.
func (a *aheadSource) ReadSlice(delim byte) ([]byte, error) {
	a.unread = false
	a.last = nil
	if e := a.lineAt(); e != nil && delim == '\n' {
		// The framer found the line's end.
		a.last = e
		a.r = int(e.end) + 1
		return a.buf[e.start : e.end+1], nil
	}
	from := 0 // where the search goes on: the bytes before have no delim
	for {
		un := a.buf[a.r:a.w]
		if i := bytes.IndexByte(un[from:min(len(un), a.size)], delim); i >= 0 {
			a.r += from + i + 1
			return un[:from+i+1], nil
		}
		if len(un) >= a.size {
			a.r += a.size
			return un[:a.size], bufio.ErrBufferFull
		}
		if a.err != nil {
			a.r = a.w
			return un, a.err
		}
		from = len(un)
		a.fill()
	}
}

// Peek is bufio.Reader.Peek.
func (a *aheadSource) Peek(n int) ([]byte, error) {
	a.unread = false
	if n < 0 {
		return nil, bufio.ErrNegativeCount
	}
	a.more(min(n, a.size))
	un := a.buf[a.r:a.w]
	if n > a.size {
		return un[:min(len(un), a.size)], bufio.ErrBufferFull
	}
	if len(un) < n {
		err := a.err
		if err == nil {
			err = bufio.ErrBufferFull
		}
		return un, err
	}
	return un[:n], nil
}

// Discard is bufio.Reader.Discard.
func (a *aheadSource) Discard(n int) (int, error) {
	a.unread = false
	done := 0
	for done < n {
		if a.r == a.w {
			if a.err != nil {
				return done, a.err
			}
			a.fill()
			continue
		}
		k := min(n-done, a.w-a.r)
		a.r += k
		done += k
	}
	return done, nil
}

// Buffered is bufio.Reader.Buffered: never more than size bytes.
func (a *aheadSource) Buffered() int { return min(a.w-a.r, a.size) }

// Read is bufio.Reader.Read.
func (a *aheadSource) Read(p []byte) (int, error) {
	a.unread = false
	if len(p) == 0 {
		return 0, nil
	}
	if a.r == a.w {
		if a.err != nil {
			return 0, a.err
		}
		a.fill()
	}
	n := copy(p, a.buf[a.r:a.w])
	a.r += n
	return n, nil
}

// ReadByte is bufio.Reader.ReadByte.
func (a *aheadSource) ReadByte() (byte, error) {
	a.unread = false
	a.more(1)
	if a.r == a.w {
		return 0, a.err
	}
	c := a.buf[a.r]
	a.r++
	a.unread = true
	return c, nil
}

var errUnreadByte = errors.New("stream: UnreadByte not after ReadByte")

// UnreadByte is bufio.Reader.UnreadByte (after a ReadByte only: the byte
// read is still in front of the unread ones, whatever fill did after).
func (a *aheadSource) UnreadByte() error {
	if !a.unread || a.r == 0 {
		return errUnreadByte
	}
	a.unread = false
	a.r--
	return nil
}
