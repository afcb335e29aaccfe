package render

import (
	"html"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"
)

// Markdown building blocks. The rule they keep: text from the stream can
// never open or close a block of the report. Prose (assistant text,
// prompts, reports) keeps its markdown but cannot start a heading or an HTML
// block and has its unclosed fences closed; one-line text is escaped; code
// and tool output sit in fences longer than any backtick run inside.

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			if cur > best {
				best = cur
			}
		} else {
			cur = 0
		}
	}
	return best
}

// fenceFor returns a backtick fence that no line of content can close: at
// least three backticks, one more than the longest run inside.
func fenceFor(content string) string {
	n := longestRun(content, '`') + 1
	if n < 3 {
		n = 3
	}
	return strings.Repeat("`", n)
}

// fenced returns content (sanitized) as a fenced code block with an info
// string, ending with a newline.
func fenced(info, content string) string {
	content = Sanitize(content, true)
	f := fenceFor(content)
	var b strings.Builder
	b.Grow(len(content) + 2*len(f) + len(info) + 4)
	b.WriteString(f)
	b.WriteString(info)
	b.WriteByte('\n')
	b.WriteString(content)
	if content != "" && !strings.HasSuffix(content, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(f)
	b.WriteByte('\n')
	return b.String()
}

// mdEscaped are the ASCII punctuation characters escaped in one-line text:
// emphasis, code, links, HTML, tables, strikethrough, headings, math,
// mentions.
const mdEscaped = "\\`*_[]<>|~&#$@"

// mdInline returns a one-line string as literal markdown text: sanitized,
// newlines escaped, markdown punctuation backslash-escaped.
func mdInline(s string) string {
	s = line(s)
	if !strings.ContainsAny(s, mdEscaped) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(mdEscaped, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mdCode returns a one-line string as an inline code span, with a backtick
// fence longer than any run inside. Pipes are escaped so that the span can
// sit in a table cell (GitHub reads \| there as a pipe, even in code).
func mdCode(s string) string {
	s = line(s)
	if s == "" {
		return ""
	}
	f := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ' {
		pad = " "
	}
	return strings.ReplaceAll(f+pad+s+pad+f, "|", `\|`)
}

// htmlText returns a one-line string escaped for an HTML element such as
// <summary>.
func htmlText(s string) string { return html.EscapeString(line(s)) }

// capText cuts s to at most maxBytes bytes and maxLines lines (at a UTF-8
// boundary), and says so in a note.
func capText(s string, maxBytes, maxLines int) (string, string) {
	head, cut := capHead(s, maxBytes, maxLines)
	if !cut {
		return s, ""
	}
	return head, capNote(head, len(s), countLines(s))
}

// capHead is the part of s that capText shows, and whether that is less
// than s. s may be only the start of the text, from maxBytes+1 bytes on:
// the cut is the same.
func capHead(s string, maxBytes, maxLines int) (string, bool) {
	cut := len(s)
	if cut > maxBytes {
		cut = maxBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
	}
	n := 0
	for i := 0; i < cut; i++ {
		if s[i] == '\n' {
			n++
			if n == maxLines {
				cut = i + 1
				break
			}
		}
	}
	return s[:cut], cut < len(s)
}

// capNote is capText's note on a text of size bytes and lines lines cut
// to head.
func capNote(head string, size int, lines int64) string {
	return "truncated: " + plural(countLines(head), "line") + " of " + plural(lines, "line") + ", " + fmtBytes(len(head)) + " of " + fmtBytes(size) + " shown"
}

// fenceOpen reports whether l opens a fenced code block (CommonMark: at
// most three spaces, then three or more backticks or tildes; a backtick
// fence's info string has no backtick), with its character and length.
func fenceOpen(l string) (byte, int, bool) {
	i := 0
	for i < len(l) && i < 3 && l[i] == ' ' {
		i++
	}
	if i >= len(l) || (l[i] != '`' && l[i] != '~') {
		return 0, 0, false
	}
	c := l[i]
	n := 0
	for i+n < len(l) && l[i+n] == c {
		n++
	}
	if n < 3 || (c == '`' && strings.IndexByte(l[i+n:], '`') >= 0) {
		return 0, 0, false
	}
	return c, n, true
}

// fenceCloses reports whether l closes a fence of n characters c.
func fenceCloses(l string, c byte, n int) bool {
	i := 0
	for i < len(l) && i < 3 && l[i] == ' ' {
		i++
	}
	m := 0
	for i+m < len(l) && l[i+m] == c {
		m++
	}
	return m >= n && strings.TrimRight(l[i+m:], " \t") == ""
}

// MarkdownAnswer is an answer from the stream as a markdown document of
// its own, safe to paste or render: as written (its headings, lists and
// line breaks are the document's), but with no raw HTML ('<' outside code
// is &lt;), no link to a script, and a fence left open closed. (mdProse is
// the rule inside a report, which also keeps the text's headings out of
// the report's outline.)
func MarkdownAnswer(text string) string {
	var b strings.Builder
	var fc byte
	fn := 0
	// A paragraph is escaped whole: a link's destination can be on the
	// line after its text, a code span can span lines.
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString(escapeHTMLOutsideCode(strings.Join(para, "\n")))
			b.WriteByte('\n')
			para = para[:0]
		}
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if fn > 0 {
			if fenceCloses(l, fc, fn) {
				fn = 0
			}
			b.WriteString(l + "\n")
			continue
		}
		if c, n, ok := fenceOpen(l); ok {
			flush()
			fc, fn = c, n
			b.WriteString(l + "\n")
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			b.WriteString(l + "\n")
			continue
		}
		para = append(para, l)
	}
	flush()
	if fn > 0 {
		b.WriteString(strings.Repeat(string(fc), fn) + "\n")
	}
	return b.String()
}

// mdProse returns prose from the stream as markdown that stays inside its
// own blocks: its formatting, lists, quotes and fenced code are kept, but
// no line can become a heading (ATX or setext) or an HTML block, '<' outside
// code is written as &lt; (no raw HTML, so no <details>, </details> or
// <script>), and a fence left open is closed. The result ends with a
// newline; it is empty for empty text.
func mdProse(text string) string {
	text = strings.TrimRight(Sanitize(text, true), "\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(text) + 16)
	var para []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString(escapeHTMLOutsideCode(joinLines(para)))
			b.WriteByte('\n')
			para = para[:0]
		}
	}
	var fc byte
	fn := 0
	for _, l := range strings.Split(text, "\n") {
		if fn > 0 {
			b.WriteString(l)
			b.WriteByte('\n')
			if fenceCloses(l, fc, fn) {
				fn = 0
			}
			continue
		}
		if c, n, ok := fenceOpen(l); ok {
			flush()
			fc, fn = c, n
			b.WriteString(l)
			b.WriteByte('\n')
			continue
		}
		if strings.TrimSpace(l) == "" {
			flush()
			b.WriteByte('\n')
			continue
		}
		para = append(para, escapeLineStart(l))
	}
	flush()
	if fn > 0 {
		b.WriteString(strings.Repeat(string(fc), fn))
		b.WriteByte('\n')
	}
	return b.String()
}

// joinLines joins the lines of a paragraph keeping each line break: the
// model writes a line per item, step or sentence, which markdown would
// join into one paragraph. A line ends in a hard break (two spaces), unless
// it ends in one already; at the end of a block (a list item's last line)
// the spaces are ignored.
func joinLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i == len(lines)-1 {
			break
		}
		if !strings.HasSuffix(l, "  ") && !strings.HasSuffix(l, `\`) && !tableRow(l) && !tableRow(lines[i+1]) {
			b.WriteString("  ")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// tableRow reports whether a line is a row of a GFM table, whose rows stay
// rows without a hard break.
func tableRow(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "|") }

// escapeLineStart escapes what would make a line a heading: a '#' or a
// setext underline (=== or ---) at its start, after any indentation,
// blockquote markers and list markers.
func escapeLineStart(l string) string {
	i := blockStart(l)
	rest := strings.TrimLeft(l[i:], " \t")
	at := len(l) - len(rest)
	if rest == "" {
		return l
	}
	if rest[0] == '#' {
		return l[:at] + `\` + rest
	}
	if t := strings.TrimRight(rest, " \t"); strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "" {
		return l[:at] + `\` + rest
	}
	return l
}

// blockStart returns where a line's content begins after up to three
// spaces of indentation and any blockquote and list markers.
func blockStart(l string) int {
	i := 0
	for {
		j := i
		for j < len(l) && j-i < 3 && l[j] == ' ' {
			j++
		}
		switch {
		case j < len(l) && l[j] == '>':
			i = j + 1
			continue
		case j+1 < len(l) && (l[j] == '-' || l[j] == '+' || l[j] == '*') && isBlank(l[j+1]):
			i = j + 2
			continue
		}
		k := j
		for k < len(l) && k-j < 9 && l[k] >= '0' && l[k] <= '9' {
			k++
		}
		if k > j && k+1 < len(l) && (l[k] == '.' || l[k] == ')') && isBlank(l[k+1]) {
			i = k + 2
			continue
		}
		return j
	}
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// escapeHTMLOutsideCode writes '<' as &lt; except inside code spans (a run
// of n backticks up to the next run of exactly n), so that the paragraph
// holds no raw HTML.
func escapeHTMLOutsideCode(p string) string {
	if strings.IndexByte(p, '<') < 0 && !strings.Contains(p, "](") && !strings.Contains(p, "]:") {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + 16)
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i += 2
		case c == '`':
			n := 0
			for i+n < len(p) && p[i+n] == '`' {
				n++
			}
			if end := closingRun(p, i+n, n); end >= 0 {
				b.WriteString(p[i:end])
				i = end
			} else {
				b.WriteString(p[i : i+n])
				i += n
			}
		case c == '<':
			b.WriteString("&lt;")
			i++
		case c == ']' && i+1 < len(p) && (p[i+1] == '(' || p[i+1] == ':') && unsafeLink(p[i+2:]):
			// A link (or a link reference definition) to a script
			// (javascript:, data:, vbscript:): the bracket escaped, it is
			// text, shown as written, never a link.
			b.WriteString("]\\")
			b.WriteByte(p[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// unsafeLink reports whether a link destination (what follows "](" or
// "]:") has a scheme other than http, https or mailto, or one written so
// that a markdown renderer decodes it into one (an entity, a backslash
// escape), as "javascript:alert(1)" and "javascript&#58;x" are.
func unsafeLink(dest string) bool {
	dest = strings.TrimLeft(dest, " \t\n<")
	end := strings.IndexAny(dest, ":/?#) >")
	if end < 0 {
		end = len(dest)
	}
	scheme := dest[:end]
	if strings.ContainsAny(scheme, "&\\") {
		return true
	}
	if end == len(dest) || dest[end] != ':' {
		return false // no scheme: a relative link
	}
	switch strings.ToLower(scheme) {
	case "http", "https", "mailto":
		return false
	}
	return true
}

// closingRun returns the index after the first run of exactly n backticks
// in p from i, or -1.
func closingRun(p string, i, n int) int {
	for i < len(p) {
		if p[i] != '`' {
			i++
			continue
		}
		m := 0
		for i+m < len(p) && p[i+m] == '`' {
			m++
		}
		if m == n {
			return i + m
		}
		i += m
	}
	return -1
}

// quote prefixes every line of markdown with "> ".
func quote(md string) string {
	md = strings.TrimRight(md, "\n")
	if md == "" {
		return ""
	}
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if l == "" {
			lines[i] = ">"
		} else {
			lines[i] = "> " + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// proseChecker verifies with a CommonMark+GFM parser that prose made by
// mdProse stays inside its blocks: no heading, no HTML, and a paragraph
// after it is a paragraph of the document (no fence or list swallows it).
// mdProse's line rules miss a few container cases (a fence inside a deeply
// indented list item); the check catches them, and the prose is then shown
// in a fence instead.
type proseChecker struct{ p parser.Parser }

const proseSentinel = "ccfilter-prose-end"

func newProseChecker() *proseChecker {
	return &proseChecker{goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()}
}

func (c *proseChecker) contained(md string) bool {
	src := []byte(md + "\n" + proseSentinel + "\n")
	doc := c.p.Parse(gmtext.NewReader(src))
	ok := true
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n.Kind() {
		case ast.KindHeading, ast.KindHTMLBlock, ast.KindRawHTML:
			ok = false
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	last := doc.LastChild()
	if !ok || last == nil || last.Kind() != ast.KindParagraph {
		return false
	}
	lines := last.Lines()
	if lines.Len() != 1 {
		return false
	}
	seg := lines.At(0)
	return strings.TrimSpace(string(seg.Value(src))) == proseSentinel
}

// safeProse is mdProse checked by c; prose that would escape is fenced.
func (c *proseChecker) safeProse(text string) string {
	p := mdProse(text)
	if p == "" || c.contained(p) {
		return p
	}
	return fenced("text", text)
}
