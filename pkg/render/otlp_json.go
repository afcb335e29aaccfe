package render

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The trace format's OTLP/JSON (OTLPBatch.AppendJSON): the bytes
// protojson's mapping of the request's messages gives once compacted
// (lowerCamelCase names in declaration order, unset fields left out,
// 64-bit integers as strings, enums as numbers), with the one difference
// OTLP/JSON makes: trace and span ids are hex, not base64. Written field
// by field from the run's records of its spans (otlp_span.go), straight
// into one buffer: protojson walked messages by reflection and its output
// then needed compacting and its ids rewriting, which was most of the
// otlp format's time (issue 41). TestOTLPJSONMatchesProtojson holds the
// bytes equal to protojson's of the protobuf the format sends, on every
// capture's and transcript's trace.

// utf8Valid is s with each byte that is not UTF-8 replaced by U+FFFD:
// protojson and proto.Marshal refuse such a string, which a run's input
// may hold anywhere (a file's name, a tool input's key: jsonx's Str
// replaces them in the values it reads, not in the JSON a summary
// quotes), and a trace is not refused for one byte.
func utf8Valid(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

type otlpEncoder struct {
	b   []byte
	err error
	// traceAt, traceEnd are where in b the first span wrote its trace id
	// ("traceId":"…"), which every other span of the request copies: it
	// is encoded once a request, not once a span.
	traceAt, traceEnd int
}

// sep writes the comma before every member or element but the first.
func (e *otlpEncoder) sep(first *bool) {
	if !*first {
		e.b = append(e.b, ',')
	}
	*first = false
}

func (e *otlpEncoder) name(first *bool, n string) {
	e.sep(first)
	e.b = append(e.b, '"')
	e.b = append(e.b, n...)
	e.b = append(e.b, '"', ':')
}

func (e *otlpEncoder) str(first *bool, n, v string) {
	if v == "" {
		return
	}
	e.name(first, n)
	e.quote(v)
}

func (e *otlpEncoder) id(first *bool, n string, v []byte) {
	if len(v) == 0 {
		return
	}
	e.name(first, n)
	e.b = append(e.b, '"')
	e.b = hex.AppendEncode(e.b, v)
	e.b = append(e.b, '"')
}

// u64 writes a 64-bit integer as protojson does: a string.
func (e *otlpEncoder) u64(first *bool, n string, v uint64) {
	if v == 0 {
		return
	}
	e.name(first, n)
	e.b = append(e.b, '"')
	e.b = strconv.AppendUint(e.b, v, 10)
	e.b = append(e.b, '"')
}

// u32 writes a 32-bit integer or an enum's number: a number.
func (e *otlpEncoder) u32(first *bool, n string, v int64) {
	if v == 0 {
		return
	}
	e.name(first, n)
	e.b = strconv.AppendInt(e.b, v, 10)
}

// list writes the member n, the array of items (each written by each),
// unless there are none.
func list[T any](e *otlpEncoder, first *bool, n string, items []T, each func(T)) {
	if len(items) == 0 {
		return
	}
	e.name(first, n)
	e.b = append(e.b, '[')
	for i, it := range items {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		each(it)
	}
	e.b = append(e.b, ']')
}

func (e *otlpEncoder) batch(b *OTLPBatch) {
	e.b = append(e.b, `{"resourceSpans":[{"resource":{`...)
	first := true
	e.attrs(&first, b.resource())
	e.b = append(e.b, `},"scopeSpans":[{"scope":{"name":"ccfilter"`...)
	f := false
	e.str(&f, "version", b.run.o.Producer)
	e.b = append(e.b, '}')
	f = false
	list(e, &f, "spans", b.spans, func(s *otlpSpan) { e.span(b.run, s) })
	e.b = append(e.b, `,"schemaUrl":`...)
	e.quote(SemconvSchema)
	e.b = append(e.b, `}],"schemaUrl":`...)
	e.quote(SemconvSchema)
	e.b = append(e.b, "}]}"...)
}

func (e *otlpEncoder) span(r *otlpRun, s *otlpSpan) {
	e.b = append(e.b, '{')
	first := true
	if e.traceEnd > 0 {
		e.b = append(e.b, e.b[e.traceAt:e.traceEnd]...)
		first = false
	} else if len(r.traceID) > 0 {
		e.traceAt = len(e.b)
		e.id(&first, "traceId", r.traceID)
		e.traceEnd = len(e.b)
	}
	e.id(&first, "spanId", s.id[:])
	e.str(&first, "traceState", r.traceState())
	if s.parent != (otlpID{}) {
		e.id(&first, "parentSpanId", s.parent[:])
	}
	e.str(&first, "name", s.name)
	e.u32(&first, "kind", int64(s.kind))
	e.u64(&first, "startTimeUnixNano", s.start)
	e.u64(&first, "endTimeUnixNano", s.end)
	e.attrs(&first, s.attrs)
	list(e, &first, "events", s.events, e.event)
	e.u32(&first, "droppedEventsCount", int64(s.droppedEvents))
	if st := s.status; st.set {
		e.name(&first, "status")
		e.b = append(e.b, '{')
		f := true
		e.str(&f, "message", st.msg)
		e.u32(&f, "code", int64(st.code))
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}

func (e *otlpEncoder) event(ev otlpEvent) {
	e.b = append(e.b, '{')
	f := true
	e.u64(&f, "timeUnixNano", ev.at)
	e.str(&f, "name", ev.name)
	e.attrs(&f, ev.attrs)
	e.b = append(e.b, '}')
}

// attrs writes the member "attributes", unless there are none: each
// attribute by pointer, in a loop of its own (list's call of a closure
// with a copy of each was a fifth of the encoder's instructions, issue
// 41: a trace is mostly attributes).
func (e *otlpEncoder) attrs(first *bool, kvs []otlpAttr) {
	if len(kvs) == 0 {
		return
	}
	e.name(first, "attributes")
	e.b = append(e.b, '[')
	for i := range kvs {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.attr(&kvs[i])
	}
	e.b = append(e.b, ']')
}

// attr writes a KeyValue: its value's one member is written even when
// zero (a oneof's field is set or not, whatever its value). The constant
// runs between the key and the value are written at once.
func (e *otlpEncoder) attr(a *otlpAttr) {
	if a.key == "" {
		e.b = append(e.b, `{"value":`...) // (an empty key is left out, as protojson does)
	} else {
		e.b = append(e.b, `{"key":`...)
		e.quote(a.key)
		e.b = append(e.b, `,"value":`...)
	}
	switch a.kind {
	case otlpString:
		e.b = append(e.b, `{"stringValue":`...)
		e.quote(a.s)
	case otlpBool:
		e.b = append(e.b, `{"boolValue":`...)
		e.b = strconv.AppendBool(e.b, a.n != 0)
	case otlpInt:
		e.b = append(e.b, `{"intValue":"`...)
		e.b = strconv.AppendInt(e.b, a.n, 10)
		e.b = append(e.b, '"')
	case otlpDouble:
		e.b = append(e.b, `{"doubleValue":`...)
		e.float(a.f)
	}
	e.b = append(e.b, "}}"...)
}

// float writes a double as protojson does (encoding/json's choice of
// notation; not-a-number and the infinities as strings).
func (e *otlpEncoder) float(n float64) {
	switch {
	case math.IsNaN(n):
		e.b = append(e.b, `"NaN"`...)
		return
	case math.IsInf(n, 1):
		e.b = append(e.b, `"Infinity"`...)
		return
	case math.IsInf(n, -1):
		e.b = append(e.b, `"-Infinity"`...)
		return
	}
	f := byte('f')
	if a := math.Abs(n); a != 0 && (a < 1e-6 || a >= 1e21) {
		f = 'e'
	}
	e.b = strconv.AppendFloat(e.b, n, f, -1, 64)
	if f == 'e' {
		// e-07, not e-7... as encoding/json: one digit when it can
		if k := len(e.b); k >= 4 && e.b[k-4] == 'e' && e.b[k-3] == '-' && e.b[k-2] == '0' {
			e.b[k-2] = e.b[k-1]
			e.b = e.b[:k-1]
		}
	}
}

// quote writes a JSON string as protojson does: only the quote, the
// backslash and the control characters escaped (no HTML escapes), a
// string that is not UTF-8 refused. Eight bytes at a time past the runs
// that need no escape (most of a trace's text): byte by byte, quoting was
// a third of the encoder's instructions. The UTF-8 check is made only of
// a string with a byte past ASCII, seen on the way (a second pass over
// every string was half of quoting's instructions).
func (e *otlpEncoder) quote(s string) {
	if plainASCII(s) {
		// Most of a trace's strings (its keys, ids, names): written at
		// once, after one look at each word (the general loop below cost
		// twice that a string, issue 41).
		e.b = append(e.b, '"')
		e.b = append(e.b, s...)
		e.b = append(e.b, '"')
		return
	}
	e.quoteEscaped(s)
}

// plainASCII reports whether s is all ASCII and needs no escape (no
// control character, quote or backslash): quoted, it is itself.
func plainASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !plainWord(word(s, i)) {
			return false
		}
	}
	if i == len(s) {
		return true
	}
	if len(s) >= 8 {
		return plainWord(word(s, len(s)-8)) // the tail, in the last eight bytes (some seen already)
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == '"' || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// plainWord reports whether the eight bytes of x are ASCII and none is a
// control character, a quote or a backslash. Past the high bits, a byte
// below 0x20 borrows in x-0x20..., and a byte equal to c leaves a zero
// that borrows in (x^c...)-0x01...: a borrow can only spread above a byte
// that is one of them, so the answer, for the eight together, is exact.
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	t := x | (x - ones*' ') | ((x ^ ones*'"') - ones) | ((x ^ ones*'\\') - ones)
	return t&highs == 0
}

// quoteEscaped is quote for a string that needs an escape or is not all
// ASCII.
func (e *otlpEncoder) quoteEscaped(s string) {
	at := len(e.b)
	e.b = append(e.b, '"')
	start := 0
	var high uint64 // the bytes' high bits, or'ed: one is set past ASCII
	for i := 0; i < len(s); {
		for i+8 <= len(s) {
			x := word(s, i)
			if mayEscape(x) {
				break
			}
			high |= x
			i += 8
		}
		if i < len(s) && i+8 > len(s) && len(s) >= 8 {
			// The tail, in the last eight bytes (some seen already): most
			// strings need no escape and end in one look, not byte by byte.
			if x := word(s, len(s)-8); !mayEscape(x) {
				high |= x
				i = len(s)
			}
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= ' ' && c != '"' && c != '\\' {
			high |= uint64(c)
			i++
			continue
		}
		e.b = append(e.b, s[start:i]...)
		switch c {
		case '"', '\\':
			e.b = append(e.b, '\\', c)
		case '\b':
			e.b = append(e.b, '\\', 'b')
		case '\f':
			e.b = append(e.b, '\\', 'f')
		case '\n':
			e.b = append(e.b, '\\', 'n')
		case '\r':
			e.b = append(e.b, '\\', 'r')
		case '\t':
			e.b = append(e.b, '\\', 't')
		default:
			e.b = append(e.b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		}
		i++
		start = i
	}
	if high&0x8080808080808080 != 0 && !utf8.ValidString(s) {
		// Written again with each bad byte replaced (utf8Valid).
		e.b = e.b[:at]
		e.quote(utf8Valid(s))
		return
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

// word is the eight bytes of s at i, little-endian (one load).
func word(s string, i int) uint64 {
	w := s[i : i+8] // (one bounds check, not eight: the compiler proves the rest)
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// mayEscape reports whether one of the eight bytes of x may be a control
// character, a quote or a backslash (it may say so of a byte that is
// none, past a byte of 0x80 or more: that byte is then looked at alone).
func mayEscape(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return ((x-ones*' ')|(q-ones)|(bs-ones))&^(x&q&bs)&highs != 0
}
