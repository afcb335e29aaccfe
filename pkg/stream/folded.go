package stream

import "hash/maphash"

// foldedIDs remembers, in a fixed 2 MiB (a Bloom filter), the message ids
// whose usage the tracker folded into its totals to stay bounded
// (MaxOpenMessages calls open at once). A block of one of them that comes
// later would be counted as a call of its own; the filter lets the tracker
// say so (Stats.RecountedMessages) rather than double-count in silence.
// It cannot forget, only err on the side of "seen": with 4 bits an id
// among 2^24, over the 67,000 calls of a gigabyte of real runs (245 per 4
// MB, 60-long-session) the expected number of false "seen" is 0.0006, one
// run in 1,700. (One word an id, a cache line instead of four, erred
// about once a run.) Real runs never fold a call that goes on: its blocks
// are contiguous, up to the few subagents running beside it.
type foldedIDs struct {
	seed maphash.Seed
	bits []uint64
}

const (
	foldedBits   = 1 << 24 // 2 MiB
	foldedHashes = 4
)

// probes returns where id's bits are: h1 + i*h2 for i below foldedHashes.
func (f *foldedIDs) probes(id string) (h1, h2 uint32) {
	h := maphash.String(f.seed, id)
	return uint32(h), uint32(h>>32) | 1
}

func (f *foldedIDs) add(id string) {
	if f.bits == nil {
		f.seed, f.bits = maphash.MakeSeed(), make([]uint64, foldedBits/64)
	}
	h1, h2 := f.probes(id)
	for i := range uint32(foldedHashes) {
		p := (h1 + i*h2) % foldedBits
		f.bits[p/64] |= 1 << (p % 64)
	}
}

// has reports whether id was probably added (certainly, when false).
func (f *foldedIDs) has(id string) bool {
	if f.bits == nil {
		return false
	}
	h1, h2 := f.probes(id)
	for i := range uint32(foldedHashes) {
		p := (h1 + i*h2) % foldedBits
		if f.bits[p/64]&(1<<(p%64)) == 0 {
			return false
		}
	}
	return true
}
