// Package realcorpus builds large benchmark and test inputs out of real
// claude-code streams: captures concatenated with their ids renamed (what a
// directory of runs, or a long CI log, looks like), and a stream of tool
// calls that are never answered (the tracker's worst case).
//
// The generator (package streamgen) writes streams whose bytes are mostly
// long tool results; real runs are mostly short lines (60-long-session: p50
// 195 B). A benchmark on one shape hid an out-of-memory failure on the
// other, so the benchmarks and memory tests run on these corpora too.
package realcorpus

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// idPattern matches the ids that tie events together: tool_use ids,
// message ids, request ids, uuids (session, event, parent), and agent and
// task ids (12-17 hex digits after a letter). Renaming them per copy keeps
// every copy's tool calls, messages and subagents distinct, as in separate
// runs; a repeated id would be deduplicated (usage) or paired with the
// wrong call (tools).
var idPattern = regexp.MustCompile(`\b(?:toolu_|srvtoolu_|msg_|req_)[A-Za-z0-9]+|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\b[ab][0-9a-f]{11,16}\b`)

// geminiIDPattern adds a Gemini CLI stream's tool ids to idPattern (its
// session ids are uuids): "read_file__read_file_1796523000320_0", matched
// up to its closing quote so that the suffix goes inside the string.
var geminiIDPattern = regexp.MustCompile(idPattern.String() + `|"tool_id":"[^"\\]+`)

// codexIDPattern adds a Codex CLI stream's item ids to idPattern (its
// thread ids are uuids): "item_3", which a run numbers from item_0 and
// which the reader makes its tool calls' ids (a call pairs with its
// result by it), and a web_search item's Responses id, matched up to the
// closing quote so that the suffix goes inside the string.
var codexIDPattern = regexp.MustCompile(idPattern.String() + `|"id":"[^"\\]+`)

// Source is one stream with the places of its ids found once, so that each
// copy is written at copy speed.
type Source struct {
	Name string
	data []byte
	ends []int // end offset of each id in data
}

// NewSource indexes data's ids.
func NewSource(name string, data []byte) *Source { return newSource(name, data, idPattern) }

// NewGeminiSource indexes the ids of data, a Gemini CLI stream.
func NewGeminiSource(name string, data []byte) *Source {
	return newSource(name, data, geminiIDPattern)
}

// NewCodexSource indexes the ids of data, a Codex CLI stream
// (`codex exec --json`).
func NewCodexSource(name string, data []byte) *Source {
	return newSource(name, data, codexIDPattern)
}

func newSource(name string, data []byte, ids *regexp.Regexp) *Source {
	s := &Source{Name: name, data: data}
	for _, m := range ids.FindAllIndex(data, -1) {
		s.ends = append(s.ends, m[1])
	}
	return s
}

// WriteCopy writes the stream with every id suffixed by "x" and the copy
// number in base 36 (copy 0 is written unchanged). The suffix is made of
// letters and digits, so the JSON stays valid and every id stays a plain
// string.
func (s *Source) WriteCopy(w io.Writer, copyNo int) (int64, error) {
	if copyNo == 0 {
		n, err := w.Write(s.data)
		return int64(n), err
	}
	suffix := []byte("x" + strconv.FormatInt(int64(copyNo), 36))
	var total int64
	prev := 0
	for _, end := range s.ends {
		n, err := w.Write(s.data[prev:end])
		total += int64(n)
		if err != nil {
			return total, err
		}
		n, err = w.Write(suffix)
		total += int64(n)
		if err != nil {
			return total, err
		}
		prev = end
	}
	n, err := w.Write(s.data[prev:])
	return total + int64(n), err
}

// Concat writes the sources one after the other, round after round, each
// round with new ids, until at least size bytes are written (at least one
// round). Every source must end with a newline, or its last line would be
// merged with the next copy's first.
func Concat(w io.Writer, sources []*Source, size int64) (int64, error) {
	for _, s := range sources {
		if n := len(s.data); n > 0 && s.data[n-1] != '\n' {
			return 0, fmt.Errorf("%s: does not end with a newline", s.Name)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var total int64
	for round := 0; round == 0 || total < size; round++ {
		for _, s := range sources {
			n, err := s.WriteCopy(bw, round)
			total += n
			if err != nil {
				return total, err
			}
		}
	}
	return total, bw.Flush()
}

// Unanswered writes an init, n assistant tool_use events that no tool
// result ever answers (each its own model call, its model first as
// claude-code writes it, about 200 bytes a line) and a result: the input on
// which a consumer that keeps every open call grows without bound.
func Unanswered(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintln(bw, `{"type":"system","subtype":"init","cwd":"/home/user/project","session_id":"9d4f3f52-0b6c-4d2e-9d0e-2f5a8c1e7b10","tools":["Bash","Read"],"model":"claude-opus-5-5","permissionMode":"default","claude_code_version":"2.1.328","uuid":"5e0b9c1a-2f43-4f0e-8d7c-3a1b2c4d5e6f"}`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(bw, `{"type":"assistant","message":{"model":"claude-opus-5-5","id":"msg_%012d","content":[{"type":"tool_use","id":"toolu_%012d","name":"Read","input":{"file_path":"/p/f%d.go"}}],"usage":{"input_tokens":3,"output_tokens":1}},"parent_tool_use_id":null}`+"\n", i, i, i%1000)
	}
	fmt.Fprintln(bw, `{"type":"result","subtype":"success","is_error":false,"duration_ms":1000,"num_turns":1,"result":"done","session_id":"9d4f3f52-0b6c-4d2e-9d0e-2f5a8c1e7b10","total_cost_usd":0.01,"usage":{"input_tokens":3,"output_tokens":1}}`)
	return bw.Flush()
}
