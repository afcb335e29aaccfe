package render

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes a string from the stream safe to write to a terminal or a
// report: nothing in it can move the cursor, change colors, ring the bell,
// reorder text (Trojan Source) or end a line where the reader does not see
// one. Every such character is written visibly escaped instead:
//
//   - C0 controls (ESC, BEL, BS, CR, …) as \x1b, \x07, \x08, \r; \n and \t
//     are kept only when multiline is set (else \n and \t);
//   - DEL as \x7f;
//   - C1 controls U+0080–U+009F, the bidi embeddings, overrides and isolates
//     U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F, U+061C, and
//     the separators U+2028, U+2029 as \u0085, \u202e, \u2028, …;
//   - each byte of invalid UTF-8 as \xff.
//
// A string that needs nothing is returned as is, without allocating.
func Sanitize(s string, multiline bool) string {
	i := unsafeAt(s, multiline)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	return string(appendSanitized(b, s[i:], multiline))
}

// unsafeAt returns the index of the first byte that Sanitize would change,
// or -1.
func unsafeAt(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < 0x80 {
			if multiline && (c == '\n' || c == '\t') {
				i++
				continue
			}
			return i
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || escapedRune(r) {
			return i
		}
		i += n
	}
	return -1
}

// escapedRune reports the non-ASCII runes that Sanitize escapes.
func escapedRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls (CSI is U+009B)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c: // LRM, RLM, ALM
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

func appendSanitized(b []byte, s string, multiline bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b = append(b, c)
			i++
			continue
		}
		if c < 0x80 {
			switch {
			case c == '\n' && multiline, c == '\t' && multiline:
				b = append(b, c)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\t':
				b = append(b, `\t`...)
			case c == '\r':
				b = append(b, `\r`...)
			default:
				b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		case escapedRune(r):
			b = append(b, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// line sanitizes a one-line string: newlines and tabs are escaped too.
func line(s string) string { return Sanitize(s, false) }

// jsonSafe escapes, inside JSON text, the runes Sanitize escapes that JSON
// encoders leave raw (C1 controls, bidi controls, U+2028/U+2029) and
// replaces invalid UTF-8 with \ufffd. JSON has no raw control characters
// below U+0020, and these runes can only occur inside strings, so the result
// is the same JSON value, safe to show on a terminal.
func jsonSafe(b []byte) []byte { return escapeJSON(b, keepControls) }

// TerminalSafe is what NDJSON and JSON write to a terminal for the JSON
// text b: jsonSafe, and the C0 controls but newline and tab made harmless
// (see jsonControls); the same JSON value. A writer of its
// own (final's result) calls it when the output is a terminal.
func TerminalSafe(b []byte) []byte { return escapeJSON(b, jsonControls) }

func escapeJSON(b []byte, ctl controls) []byte {
	var esc [6]byte
	keep, repl, rest := jsonSafeStep(b, &esc, ctl)
	if len(keep) == len(b) {
		return b // nothing to change: the common case, without a copy
	}
	out := make([]byte, 0, len(b)+16)
	for {
		out = append(append(out, keep...), repl...)
		if len(rest) == 0 {
			return out
		}
		keep, repl, rest = jsonSafeStep(rest, &esc, ctl)
	}
}

// jsonSafeStep splits b at the first rune jsonSafe changes: the bytes
// before it, kept as they are, what stands for that rune (in esc, or a
// constant), and the bytes after it (keep is all of b when nothing is to
// change). jsonSafe and out.safe, which writes an event of any length
// without a copy, are loops over it.
//
// ctl says what becomes of the C0 controls but newline and tab.
func jsonSafeStep(b []byte, esc *[6]byte, ctl controls) (keep, repl, rest []byte) {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf && c != 0x7f {
			if ctl != keepControls && c < 0x20 && c != '\n' && c != '\t' {
				if c == '\r' && ctl == jsonControls {
					return b[:i], space, b[i+1:]
				}
				*esc = [6]byte{'\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15]}
				return b[:i], esc[:], b[i+1:]
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return b[:i], replacementEscape, b[i+n:]
		case r == 0x7f || escapedRune(r):
			*esc = [6]byte{'\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15]}
			return b[:i], esc[:], b[i+n:]
		}
		i += n
	}
	return b, nil, nil
}

// controls says what jsonSafeStep does with the C0 controls but newline
// and tab.
type controls uint8

const (
	// keepControls writes them as they are: JSON text, not for a terminal.
	keepControls controls = iota
	// escapeControls writes \u00XX: text that is not JSON (a CSV cell),
	// for a terminal.
	escapeControls
	// jsonControls is for JSON text to a terminal, where a control
	// character can only be whitespace between tokens (a valid line has
	// none in a string): CR becomes a space, so that the text stays JSON;
	// the others (invalid there anyway) \u00XX.
	jsonControls
)

var space = []byte(" ")

// replacementEscape stands for a byte that is not UTF-8 (U+FFFD).
var replacementEscape = []byte(`\ufffd`)

// wideRanges are the East Asian Wide and Fullwidth ranges and the emoji
// presented as wide, sorted: each takes two terminal columns.
var wideRanges = [][2]rune{
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec},
	{0x23f0, 0x23f0}, {0x23f3, 0x23f3}, {0x25fd, 0x25fe}, {0x2614, 0x2615},
	{0x2648, 0x2653}, {0x267f, 0x267f}, {0x2693, 0x2693}, {0x26a1, 0x26a1},
	{0x26aa, 0x26ab}, {0x26bd, 0x26be}, {0x26c4, 0x26c5}, {0x26ce, 0x26ce},
	{0x26d4, 0x26d4}, {0x26ea, 0x26ea}, {0x26f2, 0x26f3}, {0x26f5, 0x26f5},
	{0x26fa, 0x26fa}, {0x26fd, 0x26fd}, {0x2705, 0x2705}, {0x270a, 0x270b},
	{0x2728, 0x2728}, {0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2795, 0x2797}, {0x27b0, 0x27b0}, {0x27bf, 0x27bf},
	{0x2b1b, 0x2b1c}, {0x2b50, 0x2b50}, {0x2b55, 0x2b55},
	{0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
	{0xa000, 0xa4cf}, {0xa960, 0xa97f}, {0xac00, 0xd7a3}, {0xf900, 0xfaff},
	{0xfe10, 0xfe19}, {0xfe30, 0xfe6f}, {0xff00, 0xff60}, {0xffe0, 0xffe6},
	{0x16fe0, 0x16fe4}, {0x17000, 0x18cff}, {0x1b000, 0x1b2ff},
	{0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a},
	{0x1f200, 0x1f202}, {0x1f210, 0x1f23b}, {0x1f240, 0x1f248}, {0x1f250, 0x1f251},
	{0x1f260, 0x1f265}, {0x1f300, 0x1f64f}, {0x1f680, 0x1f6ff}, {0x1f7e0, 0x1f7eb},
	{0x1f90c, 0x1f9ff}, {0x1fa70, 0x1faff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

// runeWidth is the number of terminal columns r takes: 0 for combining
// marks, format characters (ZWJ, variation selectors) and controls, 2 for
// East Asian Wide/Fullwidth characters and wide emoji, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x20 || (r >= 0x7f && r < 0xa0):
		return 0
	case r < 0x300:
		return 1
	case r >= 0x1160 && r <= 0x11ff: // Hangul medial vowels and final consonants
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r < 0x1100:
		return 1
	}
	i := sort.Search(len(wideRanges), func(i int) bool { return wideRanges[i][1] >= r })
	if i < len(wideRanges) && wideRanges[i][0] <= r {
		return 2
	}
	return 1
}

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int {
	w := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			for _, r := range s[i:] {
				w += runeWidth(r)
			}
			return w
		}
		if s[i] >= 0x20 && s[i] < 0x7f {
			w++
		}
	}
	return w
}

// Truncate cuts s to at most w columns (a wide character takes two),
// ending it with "…" when cut: as every one-line view cuts a line.
func Truncate(s string, w int) string { return truncate(s, w) }

// truncate cuts s to at most w columns, ending it with "…" when cut.
func truncate(s string, w int) string {
	if displayWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	cur := 0
	for i, r := range s {
		rw := runeWidth(r)
		if cur+rw > w-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		cur += rw
	}
	return s
}

// padRight pads s with spaces to w columns.
func padRight(s string, w int) string {
	if d := w - displayWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// padLeft right-aligns s in w columns.
func padLeft(s string, w int) string {
	if d := w - displayWidth(s); d > 0 {
		return strings.Repeat(" ", d) + s
	}
	return s
}
