package main

import (
	"math"
	"os"
	"runtime/debug"
)

// memoryBase is the soft memory limit before any long line: the read
// buffers, the tracker's bounded state, the renderers' state. A soft limit
// makes the GC hand back the buffers of huge lines (tool results of tens of
// MB) promptly. At 64 MiB it never bound on real runs: the heap grew to
// twice what was live (GOGC's goal, about 30 MB beside 14 MB live) and
// peak RSS with it, 52-67 MiB for all -F markdown, tools -F json and otlp
// on 318 MB of real captures; at 32 MiB (plus the longest line) they stay
// under 48 MiB, the GC taking no more CPU.
const memoryBase = 32 << 20

// softLimit raises the soft memory limit, for an expression, by twice the
// longest line seen so far: the line and its tree. A fixed 64 MiB limit
// under a 47 MB line (with its tree, 94 MB) kept the GC running back to
// back: an expression over a 1 GiB stream took 2.2 s, 1.75 s with room.
// The presets that read long lines whole get room for one: the decoder
// keeps the longest line's buffer for reuse (see stream's longBuffer), and
// under a limit that left no room for it the GC would run back to back.
type softLimit struct {
	on      bool // main sets it when GOMEMLIMIT is not set (tests leave it off)
	longest int
}

// memory is the process's limit: main turns it on before run.
var memory softLimit

// limitMemory sets the soft limit (see softLimit: raised as long lines
// arrive) unless GOMEMLIMIT is set. The test binary's ccfilter calls it
// too, so that the peak-memory tests measure what main runs.
func limitMemory() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryBase)
		memory.on = true
	}
}

// line makes room for a line of n bytes kept perLine times over.
func (m *softLimit) line(n, perLine int) {
	if !m.on || perLine == 0 || n*perLine <= m.longest {
		return
	}
	m.longest = n * perLine
	limit := memoryBase + m.longest
	if perLine == 1 && m.longest >= longLine {
		// A kept buffer only (no tree): the base less what the presets'
		// own heap does not need beside it. Measured on the 1 GiB stream
		// (47 MB lines), text and tools: at 64 MiB + the line the heap
		// grew to fill the room (peak RSS 110 MB); at 48 MiB + the line,
		// 96 MB; at 40 MiB + the line, 90 MB and as fast (what the
		// presets took before the buffer was kept); at 32 MiB + the line
		// the GC ran back to back (text 0.55 -> 0.78 s). Below longLine
		// the line is a small part of the heap and the base is room
		// enough.
		limit = max(memoryBase, keptLineBase+m.longest)
	}
	debug.SetMemoryLimit(int64(limit))
}

// account lifts the limit for a run that keeps an account of every
// session it reads (usage --by, sessions): its heap is that account, which
// grows with the tree and is what was asked for, and GOGC alone bounds the
// heap at twice it. Under the base limit the collector ran more often as
// the account neared it and back to back past it: on three links to the
// bench's 0.8 GB tree, 53 collections and 1.64 s of user time for usage
// --by day, against 14 and 0.81 s without (peak RSS 55 -> 65 MB).
func (m *softLimit) account() {
	if m.on {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// keptLineBase is the base of the limit once a long line's buffer is kept.
const keptLineBase = 40 << 20

// end is called when the input is read: after a long line, the heap is
// collected and handed back before the run's end decodes its final answer
// (the decoder let go of the line's buffer at the end of the input), so
// that the answer does not come on top of the line: final on a 110 MB
// result peaked at three times it, two after.
func (m *softLimit) end() {
	if m.on && m.longest >= longLine {
		debug.FreeOSMemory()
	}
}

// pass is called after a pass over a file of size bytes read ahead of the
// run (the glance of a markdown report): from a file that may hold a long
// line, the heap is collected and handed back, so that the run's own
// reading of that line does not come on top of the pass's (all -F
// markdown on one 100 MB line peaked at 220 to 320 MB, as the GC ran
// before or after the run's first long line).
func (m *softLimit) pass(size int64) {
	if m.on && size >= longLine {
		debug.FreeOSMemory()
	}
}

// longLine is the line length from which end hands memory back.
const longLine = 16 << 20
