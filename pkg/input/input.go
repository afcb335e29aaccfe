// Package input opens what ccfilter reads. Open undoes compression (gzip
// and zstd, known by their magic bytes), recognises the kind of input from
// its first line, and Events hands back that kind's reader of events. Each
// kind is a Format, one file each (stream.go: the stream-json output of
// claude -p); recognising a kind happens here and nowhere else.
package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"

	"github.com/ccfilter/ccfilter/internal/jsonx"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// Kind names a kind of input.
type Kind string

// Source is the events of an input and the kind of input they come from.
type Source interface {
	stream.Reader
	Kind() Kind
}

// Format is one kind of input: how to recognise it and how to read it.
type Format struct {
	Kind Kind
	// CLI is the id of the agent CLI whose output this kind reads
	// (stream.CLIOf; "" for Claude Code's). A report's first line names
	// it; the init a kind's reader makes carries the same id ("cli").
	CLI string
	// Detect reports whether line, one line of the input's head (valid
	// JSON, trimmed: recognise checks it once for every kind), is
	// certainly one of this kind's: Open takes the kind of the first line
	// of the head that a kind recognises.
	Detect func(line []byte) bool
	// Events returns the reader of the input's events; path is the file
	// the input was opened from ("" for stdin), for kinds that read the
	// files beside it.
	Events func(r io.Reader, path string, opts stream.DecoderOptions) stream.Reader
	// Live, when set, returns the reader of an input that is still being
	// written (followed: Input.Live); nil: Events reads it as well.
	Live func(r io.Reader, path string, opts stream.DecoderOptions) stream.Reader
	// SessionsTree, when set, is where the CLI keeps its sessions by
	// default (getenv reads the environment, "" for unset; home is the
	// user's home folder): `sessions` and `usage --by` read every kind's
	// tree when given no PATH (SessionTrees).
	SessionsTree func(getenv func(string) string, home string) string
	// SessionGlob, when set, finds the kind's session files in its tree
	// (relative to it), for a tree laid out otherwise than Claude Code's
	// projects (TreeSessions).
	SessionGlob string
}

// Formats returns the kinds of input, in the order Open tries them on each
// line; the last, Claude Code's stream, also takes an input of which no
// line of the head is recognised.
func Formats() []Format {
	return []Format{geminiFormat, geminiSessionFormat, transcriptFormat, codexFormat, codexSessionFormat, streamFormat}
}

// Kinds returns the names of the kinds, for --help and flag checks.
func Kinds() []Kind {
	var out []Kind
	for _, f := range Formats() {
		out = append(out, f.Kind)
	}
	return out
}

// Input is an opened input whose kind is known.
type Input struct {
	r      io.Reader
	path   string
	format Format
	close  func()
	empty  bool
	live   bool
}

// ErrPrettyJSON is Open's diagnosis of an input whose first line is a lone
// '{': JSON written over several lines (jq's default output), which no
// kind of input ccfilter reads is; read line by line it gave one warning
// per line.
var ErrPrettyJSON = errors.New("this looks like pretty-printed JSON, not one event per line (try jq -c . first)")

// prettyKey appends to keys the key line opens when it is a member of a
// pretty-printed document's top level: indented by two spaces, as jq,
// JSON.stringify(v, null, 2) and Gemini CLI write them.
func prettyKey(line []byte, keys []string) []string {
	rest, ok := bytes.CutPrefix(line, []byte(`  "`))
	if !ok {
		return keys
	}
	if end := bytes.Index(rest, []byte(`":`)); end > 0 {
		keys = append(keys, string(rest[:end]))
	}
	return keys
}

// Open opens r, read from the file path ("" for stdin): it undoes gzip or
// zstd compression, looks at the first line (ErrPrettyJSON; Empty), and
// picks the kind of input: want, or (when want is empty) the kind of the
// first line of the head that a format recognises (sniff). It reads no
// more of r than that: on a live pipe, the first line of a known kind.
func Open(r io.Reader, path string, want Kind) (*Input, error) {
	return open(r, path, want, Formats())
}

func open(r io.Reader, path string, want Kind, formats []Format) (*Input, error) {
	in := &Input{close: func() {}, path: path}
	var err error
	if in.r, in.close, err = decompress(r); err != nil {
		return nil, err
	}
	var h head
	if h, in.r, err = sniff(in.r, want, formats); err != nil {
		in.Close()
		return nil, err
	}
	switch first := bytes.TrimSpace(h.first); {
	case len(first) == 1 && first[0] == '{':
		in.Close()
		if geminiJSONOutput(h.keys) {
			return nil, ErrGeminiJSON
		}
		return nil, ErrPrettyJSON
	case len(first) == 0:
		in.empty = true // sniff reads past blank lines: all there is
	case want == "" && first[0] == '{' && geminiJSONLine(first) && !recognised(first, formats):
		// The same document made one line (jq -c .), as the advice for
		// a pretty one says: still no stream.
		in.Close()
		return nil, ErrGeminiJSON
	}
	if want != "" {
		if in.format, err = pick(want, formats); err != nil {
			in.Close()
			return nil, err
		}
		return in, nil
	}
	in.format = h.format
	return in, nil
}

// Empty reports whether the input holds no event at all: no byte, or only
// white space (claude -p --output-format stream-json without --verbose
// prints nothing).
func (in *Input) Empty() bool { return in.empty }

// Kind says what kind of input this is.
func (in *Input) Kind() Kind { return in.format.Kind }

// CLI is the agent CLI whose output the input's kind reads.
func (in *Input) CLI() stream.CLI { return stream.CLIOf(in.format.CLI, "") }

// Live says the input is still being written (a followed file): Events
// then returns its kind's live reader (Format.Live).
func (in *Input) Live() { in.live = true }

// Events returns the input's events, read by its kind's reader.
func (in *Input) Events(opts stream.DecoderOptions) Source {
	events := in.format.Events
	if in.live && in.format.Live != nil {
		events = in.format.Live
	}
	return source{events(in.r, in.path, opts), in.format.Kind}
}

// Close lets go of the decompressor (not of the reader Open was given).
func (in *Input) Close() error {
	in.close()
	return nil
}

type source struct {
	stream.Reader
	kind Kind
}

func (s source) Kind() Kind { return s.kind }

// pick returns the format asked for.
func pick(want Kind, formats []Format) (Format, error) {
	for _, f := range formats {
		if f.Kind == want {
			return f, nil
		}
	}
	return Format{}, fmt.Errorf("unknown input kind %q", want)
}

// headSize bounds the head Open looks at.
const headSize = 64 << 10

// head is what sniff found at the input's start.
type head struct {
	first  []byte // the first line that is not blank
	format Format // the kind of the first line a format recognises
	// keys are the top-level keys of a pretty-printed JSON document (a
	// lone '{' first) in the head, as written: what tells whose it is.
	keys []string
}

// sniff reads r up to the end of the first line that a format recognises
// (want empty), or of its first line that is not blank (want set), at
// most headSize bytes, and returns what it found and a reader that yields
// all of r again: r itself, sought back, when it can seek (a file stays a
// file, which the stream reader reads ahead and looks into), else the
// bytes read put back in front. It stops there so that a live pipe is not
// waited on once its kind is known. Lines no format recognises are looked
// past: what a CLI wrote on stderr, mixed in with 2>&1, before its first
// event; a first line cut or corrupted; in a file, an event of a type this
// version does not know (on a pipe, a whole JSON line no kind knows ends
// the look). An input none of whose first lines is recognised is
// Claude Code's stream (the last format), whose reader reports its lines
// one by one. A blank first line means the input is blank to its end (or
// its first headSize bytes are white space).
func sniff(r io.Reader, want Kind, formats []Format) (head, io.Reader, error) {
	var read []byte
	var h head
	file := isRegularFile(r)
	buf := make([]byte, 4096)
	scanned := 0 // read[:scanned] is whole lines looked at
	found := false
	for !found && len(read) < headSize {
		n, err := r.Read(buf[:min(len(buf), headSize-len(read))])
		read = append(read, buf[:n]...)
		end := err != nil || len(read) >= headSize
		for !found {
			i := bytes.IndexByte(read[scanned:], '\n')
			if i < 0 && (!end || scanned == len(read)) {
				break
			}
			start, line := scanned, read[scanned:]
			if i >= 0 {
				line, scanned = line[:i], scanned+i+1
			} else {
				scanned = len(read) // (the input's last line, or the head's end)
			}
			if start == 0 {
				line = bytes.TrimPrefix(line, utf8BOM)
			}
			if bytes.Equal(h.first, []byte("{")) && len(h.keys) < 16 {
				h.keys = prettyKey(line, h.keys)
			}
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if h.first == nil {
				h.first = line
				if want != "" || line[0] == '[' {
					// (A '[' is the JSON array of --output-format json.)
					found = true
					h.format = formats[len(formats)-1]
					break
				}
			}
			if line[0] == '{' {
				var valid bool
				h.format, found, valid = recognise(line, formats)
				if !found && !file && valid {
					// On a pipe, a whole JSON line no kind knows is
					// decided on at once (Claude Code's stream, whose
					// reader takes any line): looking past it would hold
					// a live pipe of other JSON (ccfilter as jq) until
					// 64 KiB came. Only lines that are not JSON (stderr
					// mixed in, a line cut) are looked past there.
					h.format, found = formats[len(formats)-1], true
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return head{}, nil, err
		}
	}
	if !found {
		h.format = formats[len(formats)-1]
	}
	h.first = bytes.Clone(h.first) // (read is put back)
	rest, err := putBack(r, read)
	return h, rest, err
}

// isRegularFile reports whether r is a regular file, whose head sniff
// may read far into without waiting on a writer.
func isRegularFile(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// utf8BOM is the byte order mark an editor may put in front of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// Recognise says which kind of input line (one line, trimmed) is
// certainly a line of, and that kind's CLI: for a reader's caller that
// meets a line its input's kind did not know, to tell another CLI's
// output concatenated after the first's from an event of a new type.
func Recognise(line []byte) (Kind, stream.CLI, bool) {
	f, ok, _ := recognise(line, Formats())
	return f.Kind, stream.CLIOf(f.CLI, ""), ok
}

// recognise returns the first format that recognises line, and whether
// line is valid JSON, which it checks once for all the formats' Detects.
func recognise(line []byte, formats []Format) (f Format, ok, valid bool) {
	if jsonx.Validate(line) != nil {
		return Format{}, false, false
	}
	for _, f := range formats {
		if f.Detect != nil && f.Detect(line) {
			return f, true, true
		}
	}
	return Format{}, false, true
}

// recognised reports whether a format recognises line.
func recognised(line []byte, formats []Format) bool {
	_, ok, _ := recognise(line, formats)
	return ok
}

// putBack returns a reader of head followed by the rest of r.
func putBack(r io.Reader, head []byte) (io.Reader, error) {
	if sk, ok := r.(io.Seeker); ok {
		if _, err := sk.Seek(-int64(len(head)), io.SeekCurrent); err == nil {
			return r, nil
		}
	}
	return io.MultiReader(bytes.NewReader(head), r), nil
}

// decompress undoes gzip or zstd, known by their magic bytes. The bytes
// read to look are put back with putBack rather than a bufio.Reader, which
// would copy every byte of the input once more.
func decompress(r io.Reader) (io.Reader, func(), error) {
	var magic [4]byte
	n, err := io.ReadFull(r, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, nil, err
	}
	br, err := putBack(r, magic[:n])
	if err != nil {
		return nil, nil, err
	}
	switch m := magic[:n]; {
	case len(m) >= 2 && m[0] == 0x1f && m[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, func() { zr.Close() }, nil
	case bytes.Equal(m, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, nil, fmt.Errorf("zstd: %w", err)
		}
		return zr, zr.Close, nil
	}
	return br, func() {}, nil
}
