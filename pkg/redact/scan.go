package redact

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The scan for triggers: where, in a text, a pair of bytes may start a
// rule's trigger. triggerScan is the one entry; the plain scan below is
// the reference, and on amd64 with AVX2 a vector kernel (scan_amd64.s)
// passes over 32 positions at a time, finding the same triggers among a
// few more candidates (TestVectorScanSameAsPlain, FuzzScan).

// maxBatch is how many blocks of 32 positions one call of the vector
// kernel passes over (2 KiB). The kernel was called once per block with a
// candidate, which is every third block or so of a real run (prose is
// full of "ok", "ey", "cr"): its call and its tables' loads were a third
// of the prefilter's instructions (issue 41).
const maxBatch = 64

// triggerScan reads the blocks of b where a trigger may start, in order,
// the kernel's found a batch at a time.
type triggerScan struct {
	b    []byte
	pos  int // where the kernel or the plain scan goes on from
	k, n int // the next of buf, and how many it holds
	buf  [maxBatch]uint64
}

// next returns the first block of 32 positions, starting at or after i
// or holding i, where a trigger starts: its start, base, and a mask whose
// bit k says one starts at b[base+k] (the caller passes over the bits
// before i). mask is 0 when none is left. i never goes back.
func (s *triggerScan) next(i int) (base int, mask uint32) {
	b := s.b
	for {
		for s.k < s.n {
			e := s.buf[s.k]
			s.k++
			if base := int(e >> 32); base+32 > i {
				return base, uint32(e)
			}
		}
		s.pos = max(s.pos, i)
		if useVectorScan && len(b)-s.pos >= 33 {
			n := min((len(b)-s.pos-1)/32, maxBatch)
			s.n, s.k = s.keep(vectorMasks(b[s.pos:], n, &s.buf)), 0
			s.pos += 32 * n
			continue
		}
		if s.pos >= len(b) {
			return len(b), 0
		}
		base, mask := nextTriggersPlain(b, s.pos)
		s.pos = base + 32
		return base, mask
	}
}

// keep turns the kernel's k blocks in buf, offsets from s.pos, into
// blocks of b with the candidates the table turns down taken out, and
// returns how many are left: two in three of the kernel's blocks hold
// only such candidates on real runs (its groups of triggers let pairs
// through that are none of them: "ex" by "ey"'s group, "lu" by "lp"'s),
// and each cost a return to the scan's loop (issue 41).
func (s *triggerScan) keep(k int) int {
	set := &triggers.set
	kept := 0
	for _, e := range s.buf[:k] {
		base := s.pos + int(e>>32)
		var m uint32
		for c := uint32(e); c != 0; c &= c - 1 {
			if bit := bits.TrailingZeros32(c); set[pairAt(s.b, base+bit)] != 0 {
				m |= 1 << bit
			}
		}
		if m != 0 {
			s.buf[kept] = uint64(base)<<32 | uint64(m)
			kept++
		}
	}
	return kept
}

// nextTriggersPlain is triggerScan.next over the table alone, eight pairs at
// a time past the stretches where no trigger is (most of a run): on the
// real long session 2.4x faster than the loop over single anchor bytes it
// replaced, which stopped too often (':', '_' and '-' are in every JSON
// line), and 1.4x faster than looking only at the pairs at even offsets
// for triggers of three bytes (there are too few three-byte triggers both
// of whose pairs are rare). BenchmarkRedactRealRun measures it.
func nextTriggersPlain(b []byte, i int) (int, uint32) {
	set := &triggers.set
	n := len(b)
	for i < n {
		for i+9 <= n {
			w := binary.LittleEndian.Uint64(b[i:])
			x := uint64(b[i+8])
			if set[uint16(w)]|set[uint16(w>>8)]|set[uint16(w>>16)]|set[uint16(w>>24)]|
				set[uint16(w>>32)]|set[uint16(w>>40)]|set[uint16(w>>48)]|set[uint16(w>>56|x<<8)] != 0 {
				break
			}
			i += 8
		}
		var mask uint32
		for k := 0; k < 32 && i+k < n; k++ {
			if set[pairAt(b, i+k)] != 0 {
				mask |= 1 << k
			}
		}
		if mask != 0 {
			return i, mask
		}
		i += 32
	}
	return n, 0
}

// pairAt is the pair of bytes at b[i] as the table indexes it; the last
// byte of b pairs with 0.
func pairAt(b []byte, i int) uint16 {
	p := uint16(b[i])
	if i+1 < len(b) {
		p |= uint16(b[i+1]) << 8
	}
	return p
}

// triggerTable maps each pair of bytes (b[i] | b[i+1]<<8; the last byte
// of a text pairs with 0) to the set of rules triggered there (0: none).
type triggerTable struct {
	set  [1 << 16]uint8
	sets [][]int // sets[0] is empty
	// escape is the set of escapeTrigger: no rule, so find passes over
	// it, but the scan stops there for the prefilter (Redactor.mayHold).
	escape uint8
}

// escapeTrigger starts a JSON string's \u escape. It is no rule's trigger:
// the scan stops at it too so that the prefilter finds, in its one pass
// over a line, a \u00XX escape of a printable ASCII character, which may
// hide a trigger that a rule reads decoded. Looked for on its own
// (bytes.Index of "u00", whose 'u' is a common letter), it cost a third of
// the prefilter.
const escapeTrigger = `\u`

// triggers is the table of Rules, built once: it only reads the table.
var triggers = newTriggerTable(Rules)

func newTriggerTable(rules []Rule) *triggerTable {
	byPair := map[uint16][]int{}
	for ri, rule := range rules {
		for _, t := range rule.triggers {
			switch len(t) {
			case 1: // with any byte after it
				for c := range 256 {
					p := uint16(t[0]) | uint16(c)<<8
					byPair[p] = append(byPair[p], ri)
				}
			case 2:
				p := uint16(t[0]) | uint16(t[1])<<8
				byPair[p] = append(byPair[p], ri)
			default:
				panic("redact: a trigger is one byte or two: " + t)
			}
		}
	}
	t := &triggerTable{sets: [][]int{nil}}
	index := map[string]uint8{}
	for p, set := range byPair {
		key := fmt.Sprint(set)
		k, ok := index[key]
		if !ok {
			if len(t.sets) > 255 {
				panic("redact: more than 255 distinct trigger sets")
			}
			k = uint8(len(t.sets))
			index[key] = k
			t.sets = append(t.sets, set)
		}
		t.set[p] = k
	}
	p := uint16(escapeTrigger[0]) | uint16(escapeTrigger[1])<<8
	if t.set[p] != 0 {
		panic("redact: a rule's trigger is " + escapeTrigger)
	}
	t.escape = uint8(len(t.sets))
	t.sets = append(t.sets, nil)
	t.set[p] = t.escape
	return t
}

// vectorBuckets group the triggers for the vector scan, which tells eight
// groups apart: it finds a pair when its first byte's two halves (4 bits
// each) and its second byte's are each among those of one group's
// triggers, so a group of unlike triggers lets through pairs that are
// none of them (which the table then turns down). The groups were chosen
// by counting, over the real captures, the pairs each grouping lets
// through (90,000 in 15.8 MB, against 37,000 triggers); a trigger missing
// here is put in the last group (TestVectorBucketsHoldEveryTrigger).
// Single-byte triggers ('@') have the eighth group to themselves. The \u
// of an escape (escapeTrigger) is in the group where it lets fewest pairs
// through: 141,000 candidates in 8 MB of the real corpus, against 128,000
// without it (in the others, 181,000 to 597,000).
var vectorBuckets = [7][]string{
	{"k-", "b_", "k_", "f_", "dt", "g="},
	{"gh", "ok", "ey"},
	{"lp", "cr", "SW", ":A", escapeTrigger},
	{"xo", "sw"},
	{"AG", "AC", "Be", "Ba", "AS", "OK", "AK"},
	{"pm", "wd", "WD", "yJ"},
	{"-B", "-E", "EY", "CR", "AI", "G.", "AR", "AN", "AB", "-A", "/T"},
}

// nibbleTables are the vector scan's four tables of 16 bytes (each twice,
// for the two halves of a 32-byte register): the groups of the low and of
// the high half of a trigger's first byte, then of its second; and 0x0f,
// the mask of a low half. escapeTrigger is in them, as a trigger.
func nibbleTables(rules []Rule) (t [5][32]byte) {
	for k := range t[4] {
		t[4][k] = 0x0f
	}
	bucket := map[string]int{}
	for k, g := range vectorBuckets {
		for _, tr := range g {
			bucket[tr] = k
		}
	}
	set := func(table int, nibble byte, bit byte) {
		t[table][nibble] |= bit
		t[table][nibble+16] |= bit
	}
	all := []string{escapeTrigger}
	for _, rule := range rules {
		all = append(all, rule.triggers...)
	}
	for _, tr := range all {
		if len(tr) == 1 {
			bit := byte(1 << 7)
			set(0, tr[0]&15, bit)
			set(1, tr[0]>>4, bit)
			for n := range byte(16) {
				set(2, n, bit)
				set(3, n, bit)
			}
			continue
		}
		k, ok := bucket[tr]
		if !ok {
			k = len(vectorBuckets) - 1
		}
		bit := byte(1) << k
		set(0, tr[0]&15, bit)
		set(1, tr[0]>>4, bit)
		set(2, tr[1]&15, bit)
		set(3, tr[1]>>4, bit)
	}
	return t
}
