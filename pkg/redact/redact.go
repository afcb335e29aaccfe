// Package redact replaces secrets in what ccfilter writes with a marker
// that names their kind: [REDACTED:github-token#1]. The same secret gets
// the same marker wherever it appears (the number counts the distinct
// secrets of a kind), and the value never appears, not even hashed.
//
// It is made for runs, not for any text: a scanner that looks up every
// pair of bytes in one table of the rules' triggers (pairs rare in runs:
// "k-" of sk-, "gh", "yJ" of a JWT, "OK" of TOKEN, ...) and checks a rule
// only where one of its triggers is (see Rules). Secrets inside a JSON
// string are replaced inside it (no rule's match holds a quote), so JSON
// output stays valid.
//
// A Redactor is the one stage every output passes through: Writer for the
// bytes written, and RecutDeltas for the partial-message deltas a secret
// can be split across.
package redact

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// maxDistinct bounds the secrets a Redactor numbers; past it, a new secret
// is marked #? (still replaced).
const maxDistinct = 1 << 16

// Redactor finds and replaces secrets. It keeps the numbering of the
// secrets it saw and the counts of what it replaced. It is safe for use
// by several goroutines at once (the Writer on its own goroutine, Deltas
// on the reader's): finding reads only, and the numbering and counting
// are under a lock (markers are rare).
type Redactor struct {
	*numbering
	// quiet: what it replaces is not counted (Quiet).
	quiet bool
}

// numbering is what the Redactors of one run share: the secrets seen, their
// numbers and the counts.
type numbering struct {
	mu      sync.Mutex
	env     []literal
	seed    maphash.Seed
	numbers map[uint64]int
	next    map[string]int
	counts  map[string]int
}

// literal is a value of the environment that is a secret, and the kind
// it is marked as: env-secret, or the kind its shape says (kindOf).
type literal struct {
	name  string
	value []byte
	id    string
}

// envSecretWords end a word of a variable's name (between its _) that
// says its value is a secret: API_KEY, GHTOKEN, OAUTH, CREDENTIALS; not
// AUTHOR, KEYBOARD.
var envSecretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"}

// envNotSecret in a variable's name say it names a place, not a secret.
var envNotSecret = []string{"PATH", "FILE", "DIR", "SOCK", "URL", "HOST", "PORT", "ID", "TYPE", "MODE", "NAME"}

// minEnvSecret is the length an environment value must have to be taken
// for a secret wherever it appears: shorter ones (1, true, a word) are
// everywhere.
const minEnvSecret = 12

// New returns a Redactor with the rules of the table, and the values of
// the variables of environ ("NAME=value") whose names say secret and
// that look like one (not a path, an email: GOOGLE_APPLICATION_CREDENTIALS
// names a file).
func New(environ []string) *Redactor {
	r := &Redactor{numbering: &numbering{seed: maphash.MakeSeed(), numbers: map[uint64]int{}, next: map[string]int{}, counts: map[string]int{}}}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if !ok || len(value) < minEnvSecret || !secretVariable(up) || hasWord(up, envNotSecret) || strings.ContainsAny(value, " \n") || !looksSecret([]byte(value)) {
			continue
		}
		// A value of a known shape is marked as its kind, as it is
		// where the environment does not hold it.
		id := kindOf([]byte(value))
		if id == "" {
			id = "env-secret"
		}
		r.env = append(r.env, literal{name: name, value: []byte(value), id: id})
		if q := strconv.Quote(value); q[1:len(q)-1] != value {
			// As a JSON string writes it.
			r.env = append(r.env, literal{name: name, value: []byte(q[1 : len(q)-1]), id: id})
		}
	}
	return r
}

// secretVariable reports whether a word of the variable's name (up, in
// capitals) ends in a word that says secret, or in its plural.
func secretVariable(up string) bool {
	for _, w := range strings.FieldsFunc(up, func(c rune) bool { return c == '_' || c == '-' || c == '.' }) {
		w = strings.TrimSuffix(w, "S")
		for _, s := range envSecretWords {
			if strings.HasSuffix(w, s) || strings.HasSuffix(w+"S", s) {
				return true
			}
		}
	}
	return false
}

// kindOf is the id of the rule of a shape (not byContext) that finds v
// whole, or "": what a secret found by its context (a header, a name,
// the environment) is marked as, so that one token has one marker.
func kindOf(v []byte) string {
	for j := range v {
		for _, ri := range triggers.sets[triggers.set[pairAt(v, j)]] {
			rule := &Rules[ri]
			if rule.byContext {
				continue
			}
			if s, e, ok := rule.match(v, j); ok && s == 0 && e == len(v) {
				return rule.ID
			}
		}
	}
	return ""
}

func hasWord(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// match is one secret found: b[start:end], of kind id.
type match struct {
	start, end int
	id         string
}

// find returns the secrets of b in order, without overlaps.
func (r *Redactor) find(b []byte, dst []match) []match { return r.scan(b, dst, nil) }

// scan is find that, when escapes is not nil, also sets *escapes if b
// holds a \u00XX escape of a printable ASCII character (asciiEscapeAt).
func (r *Redactor) scan(b []byte, dst []match, escapes *bool) []match {
	dst = dst[:0]
	for _, l := range r.env {
		for off := 0; ; {
			k := bytes.Index(b[off:], l.value)
			if k < 0 {
				break
			}
			dst = append(dst, match{off + k, off + k + len(l.value), l.id})
			off += k + len(l.value)
		}
	}
	// The rules are checked only where the scan finds one of their
	// triggers (scan.go).
	set := &triggers.set
	ts := triggerScan{b: b}
	for i := 0; i < len(b); {
		base, mask := ts.next(i)
		if mask == 0 {
			break
		}
		for ; mask != 0; mask &= mask - 1 {
			j := base + bits.TrailingZeros32(mask)
			if j < i { // inside the secret just found
				continue
			}
			k := set[pairAt(b, j)] // (not 0: triggerScan hands out the table's triggers only)
			if k == triggers.escape {
				if escapes != nil && asciiEscapeAt(b, j) {
					*escapes = true
				}
				continue
			}
			for _, ri := range triggers.sets[k] {
				rule := &Rules[ri]
				if s, e, ok := rule.match(b, j); ok && e > s {
					id := rule.ID
					if rule.byContext {
						if k := kindOf(b[s:e]); k != "" {
							id = k
						}
					}
					dst = append(dst, match{s, e, id})
					i = e
					break
				}
			}
		}
		i = max(i, base+32)
	}
	if len(dst) > 1 {
		// (slices', not sort's: sort.SliceStable's closure made dst, and the
		// array of every caller's matches, escape: an allocation a line.)
		slices.SortStableFunc(dst, func(a, c match) int { return a.start - c.start })
		// Drop overlaps, the earlier first.
		out := dst[:0]
		end := -1
		for _, m := range dst {
			if m.start < end {
				continue
			}
			out = append(out, m)
			end = m.end
		}
		dst = out
	}
	return dst
}

// marker returns the marker of the secret s of kind id, and counts it.
func (r *Redactor) marker(id string, s []byte) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.quiet {
		r.counts[id]++
	}
	var h maphash.Hash
	h.SetSeed(r.seed)
	h.WriteString(id)
	h.Write(s)
	k := h.Sum64()
	n, ok := r.numbers[k]
	if !ok {
		if len(r.numbers) >= maxDistinct {
			return "[REDACTED:" + id + "#?]"
		}
		r.next[id]++
		n = r.next[id]
		r.numbers[k] = n
	}
	return "[REDACTED:" + id + "#" + strconv.Itoa(n) + "]"
}

// Quiet returns a Redactor that numbers the secrets as r does (the same
// marker for the same secret) and counts nothing: for a pass over a run
// ahead of its report (the markdown glance), whose secrets the report's
// own pass counts.
func (r *Redactor) Quiet() *Redactor { return &Redactor{numbering: r.numbering, quiet: true} }

// Append appends b to dst with its secrets replaced.
func (r *Redactor) Append(dst, b []byte) []byte {
	var buf [8]match
	return r.replace(dst, b, r.find(b, buf[:0]))
}

// replace appends b to dst with the secrets ms (find's) replaced.
func (r *Redactor) replace(dst, b []byte, ms []match) []byte {
	last := 0
	for _, m := range ms {
		dst = append(dst, b[last:m.start]...)
		dst = append(dst, r.marker(m.id, b[m.start:m.end])...)
		last = m.end
	}
	return append(dst, b[last:]...)
}

// String returns s with its secrets replaced.
func (r *Redactor) String(s string) string { return string(r.Append(nil, []byte(s))) }

// Count is how many secrets were replaced.
func (r *Redactor) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count()
}

func (r *Redactor) count() int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

// Counts returns how many secrets of each kind were replaced so far (a
// copy: a run's own count is SummarySince the counts at its start).
func (r *Redactor) Counts() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := make(map[string]int, len(r.counts))
	for id, n := range r.counts {
		c[id] = n
	}
	return c
}

// Summary says how many secrets of which kinds were replaced, most first:
// "7 secrets (github-token 2, anthropic-key 1, ...)"; "" for none.
func (r *Redactor) Summary() string { return r.SummarySince(nil) }

// SummarySince is Summary of what was replaced since Counts returned
// before.
func (r *Redactor) SummarySince(before map[string]int) string {
	counts := r.Counts()
	n := 0
	for id := range counts {
		counts[id] -= before[id]
		if counts[id] <= 0 {
			delete(counts, id)
		}
		n += counts[id]
	}
	if n == 0 {
		return ""
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool {
		if counts[ids[a]] != counts[ids[b]] {
			return counts[ids[a]] > counts[ids[b]]
		}
		return ids[a] < ids[b]
	})
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s %d", id, counts[id])
	}
	noun := "secrets"
	if n == 1 {
		noun = "secret"
	}
	return fmt.Sprintf("%d %s (%s)", n, noun, strings.Join(parts, ", "))
}
