package main

import (
	"fmt"
	"io"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// foreignLines looks at the events of unknown kind for a line that is
// certainly another kind's: two CLIs' output in one file (cat
// claude.jsonl codex.jsonl) is read as the first's kind, and the second's
// lines are then passed over unread; that is said once, with the line,
// not left for the figures to show. (A Codex or Gemini CLI input's
// reader hands another CLI's lines out as of unknown kind: it knows which
// it did not translate, where a look here at every event's marker cost a
// Codex run 9% more instructions.)
type foreignLines struct {
	kind   input.Kind
	cli    stream.CLI
	source string
	said   bool
}

func (f *foreignLines) see(ev *stream.Event, stderr io.Writer) {
	if f.said || ev.Kind != stream.KindUnknown {
		return
	}
	kind, cli, ok := input.Recognise(ev.Raw)
	if !ok || kind == f.kind {
		return
	}
	f.said = true
	say(stderr, fmt.Sprintf("warning: %s:%d: this line is %s output (%s) in %s input (%s): an input holding two CLIs' output is read as the first's, and its figures mix the two; read each on its own (--input %s)",
		f.source, ev.Line, cli.Name, kind, f.cli.Name, f.kind, kind))
}
