package stream

import "github.com/ccfilter/ccfilter/internal/jsonx"

// ReadsAhead reports whether r reads its input ahead on a goroutine (the
// rule of NewReader), for the tests that hold it to a plain Decoder.
func ReadsAhead(r Reader) bool {
	d, ok := r.(*Decoder)
	return ok && d.closer != nil
}

// FramedAhead is how many lines a Reader took framed from its read-ahead
// goroutine (aheadSource's framer).
func FramedAhead(r Reader) int64 {
	d, _ := r.(*Decoder)
	return d.pre
}

// KnownValid says the event's line is known to be valid JSON already
// (a CheckAll decoder, Validate, or the read-ahead's ValidateAhead).
func KnownValid(ev *Event) bool { return ev.valid }

// MessageIndex is the event's message members as the Decoder (or the
// read-ahead, ValidateAhead) indexed them when it handed the event out,
// and whether it had: a reader's index, not one the call makes.
func MessageIndex(ev *Event) ([]jsonx.Member, bool) { return ev.msg, ev.haveMsg }

// MessageMembers indexes the event's message as the plain path does
// (Event.message on an event that has none indexed).
func MessageMembers(ev *Event) []jsonx.Member {
	return members(ev.field("message"), nil)
}

// HeldResults is the event's tool results as the reader found them when
// it handed the event out (the read-ahead's, ValidateAhead), and whether
// it had.
func HeldResults(ev *Event) ([]ToolResult, bool) { return ev.results, ev.haveResults }

// PlainToolResults finds the event's tool results as the plain path does
// (Event.ToolResults on an event that has none found).
func PlainToolResults(ev *Event) []ToolResult {
	c := *ev
	c.results, c.haveResults = nil, false
	return c.toolResults(true)
}

// HeldUsage is the usage of the event's message as the reader read it
// when it handed the event out (the read-ahead's, ValidateAhead), and
// whether it had.
func HeldUsage(ev *Event) (Usage, bool) { return ev.usageAhead() }

// PlainUsage reads the usage of the event's message as the tracker does
// on the plain path (usageOf), with the numbers that did not fit.
func PlainUsage(ev *Event) (Usage, Unfits) {
	var nf Unfits
	u := usageOf(MessageMembersLookup(ev, "usage"), &nf)
	return u, nf
}

// MessageMembersLookup is a member of the event's message as the plain
// path finds it.
func MessageMembersLookup(ev *Event, key string) jsonx.Value {
	return jsonx.Lookup(MessageMembers(ev), key)
}

// HeldBlockHeads is the heads of the event's message's blocks as the
// reader read them when it handed the event out (the read-ahead's,
// ValidateAhead), and whether it had.
func HeldBlockHeads(ev *Event) ([]blockHead, bool) { return ev.blocks, ev.haveBlocks }

// PlainBlockHeads reads the heads of the event's message's blocks as the
// plain path does (Event.blockHeads on an event that has none read).
func PlainBlockHeads(ev *Event) []blockHead {
	return appendBlockHeads(nil, MessageMembersLookup(ev, "content"))
}
