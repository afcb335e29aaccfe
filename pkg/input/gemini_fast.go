package input

import (
	"bytes"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// The Gemini stream's fast path: a line that makes no event the run reads
// and only moves the reader's state is passed over by the decoder (its
// DecoderOptions.Want), its state moved from a look at its bytes, without
// the decoder's framing, indexing and classification of it nor its
// translation. Its lines are small and many (197 B where Claude Code's are
// 2.1 KB), so what each line costs before any translation is most of a run
// (docs/performance.md, issue 43).
//
// The one rule: a line is passed over when it is written exactly in the
// shape Gemini CLI writes it (its keys in Gemini's order, each once, its
// type and role plain strings), is valid JSON in full, and the plain
// path (translate) would make no event of it: a tool result when the run
// reads none, a prompt when it reads none, a text piece after the turn's
// first when it reads no pieces; and the turn's text is not ended there
// into an event the run reads (that event is queued where the plain path
// makes it, at the line that ends it). Any other line, a malformed one
// first of all, takes the plain path, which reports it with its number
// (TestGeminiFastPathMatchesPlainTranslation).

// passes reports whether the reader passes over lines at all: when the run
// leaves some kind of line unread, and nothing else looks at the lines it
// would pass over: no Want of the caller's, no redaction (its Screen: the
// decoder's Prepare redacts every line, passed over or not), no check
// looser than the framing one (CheckEnds reports fewer bad lines than the
// full validation a passed line gets).
func (g *geminiReader) passes() bool {
	o := g.opts
	if o.Want != nil || o.Screen != nil || o.Check == stream.CheckEnds {
		return false
	}
	return !g.wants(stream.KindToolResult) || !g.wants(stream.KindPrompt) || !g.wants(stream.KindDelta)
}

// The heads of the lines passed over, as Gemini writes them.
var (
	gfToolResult = []byte(`{"type":"tool_result","timestamp":`)
	gfMessage    = []byte(`{"type":"message","timestamp":`)
)

// read is the decoder's Want: false for a line passed over, its state
// moved; true for a line to translate.
func (g *geminiReader) read(line []byte) bool {
	// The turn's text ends at a tool result or a prompt: an event when the
	// run reads texts, to be queued at that line.
	ends := g.msgID == "" || !g.wants(stream.KindText)
	switch {
	case bytes.HasPrefix(line, gfToolResult):
		if g.wants(stream.KindToolResult) || !ends || !geminiToolResultShape(line[len(gfToolResult):]) || jsonx.Validate(line) != nil {
			return true
		}
		// translate's tool result, of which the run reads no event: no
		// call name was kept to forget (remember keeps none).
		g.flush()
		g.answered = false
		g.lastText = ""
		return false
	case bytes.HasPrefix(line, gfMessage):
		role, content, delta, ok := geminiMessageShape(line[len(gfMessage):])
		if !ok {
			return true
		}
		switch {
		case role == "user" && ends && !g.wants(stream.KindPrompt):
			if jsonx.Validate(line) != nil {
				return true
			}
			g.flush()
			g.answered = false
			return false
		case role == "assistant" && delta && g.msgID != "" && !g.wants(stream.KindDelta):
			// A piece after the turn's first (the first opens the text at
			// its line, which only the decoder numbers): added to the text.
			if jsonx.Validate(line) != nil {
				return true
			}
			g.respond()
			g.keepPiece(line, content)
			g.piece = content.AppendStr(g.piece[:0])
			g.add(g.piece) // (a restart's stop event is a delta: not read)
			return false
		}
	}
	return true
}

// geminiToolResultShape reports whether rest, a tool result line after its
// timestamp's key, is Gemini's: "timestamp", "tool_id", "status",
// "output" when there is one, strings each, "error" when there is one (its
// "type" and "message"), and nothing else.
func geminiToolResultShape(rest []byte) bool {
	s := shape{rest, true}
	s.str()
	s.lit(`,"tool_id":`)
	s.str()
	s.lit(`,"status":`)
	s.str()
	if bytes.HasPrefix(s.b, []byte(`,"output":`)) {
		s.lit(`,"output":`)
		s.str()
	}
	if bytes.HasPrefix(s.b, []byte(`,"error":`)) { // a failed call's
		s.lit(`,"error":{"type":`)
		s.str()
		s.lit(`,"message":`)
		s.str()
		s.lit(`}`)
	}
	s.lit(`}`)
	return s.ok && len(s.b) == 0
}

// geminiMessageShape reads rest, a message line after its timestamp's key,
// when it is Gemini's: "timestamp", "role" user or assistant, "content", a
// string each, and "delta":true or nothing after.
func geminiMessageShape(rest []byte) (role string, content jsonx.Value, delta, ok bool) {
	s := shape{rest, true}
	s.str()
	switch {
	case bytes.HasPrefix(s.b, []byte(`,"role":"user",`)):
		role = "user"
	case bytes.HasPrefix(s.b, []byte(`,"role":"assistant",`)):
		role = "assistant"
	default:
		return "", nil, false, false
	}
	s.lit(`,"role":"` + role + `","content":`)
	content = s.str()
	delta = bytes.HasPrefix(s.b, []byte(`,"delta":true`))
	if delta {
		s.lit(`,"delta":true`)
	}
	s.lit(`}`)
	return role, content, delta, s.ok && len(s.b) == 0
}

// shape reads a line written in a known shape, piece by piece; ok turns
// false at the first piece that differs. Its strings are found by their
// quotes only: the line is validated in full before it is passed over.
type shape struct {
	b  []byte
	ok bool
}

// lit reads the bytes p.
func (s *shape) lit(p string) {
	if s.ok && len(s.b) >= len(p) && string(s.b[:len(p)]) == p {
		s.b = s.b[len(p):]
		return
	}
	s.ok = false
}

// str reads a JSON string, returned with its quotes.
func (s *shape) str() jsonx.Value {
	if !s.ok || len(s.b) == 0 || s.b[0] != '"' {
		s.ok = false
		return nil
	}
	for i := 1; ; {
		j := bytes.IndexByte(s.b[i:], '"')
		if j < 0 {
			s.ok = false
			return nil
		}
		i += j
		// escaped when an odd number of backslashes stands before it
		n := 0
		for k := i - 1; k > 0 && s.b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			v := jsonx.Value(s.b[:i+1])
			s.b = s.b[i+1:]
			return v
		}
		i++
	}
}
