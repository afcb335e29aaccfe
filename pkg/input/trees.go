package input

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// SessionTree is where an agent CLI keeps its sessions by default, as
// its kind declares it (Format.SessionsTree).
type SessionTree struct {
	Kind Kind
	CLI  stream.CLI
	Dir  string
}

// SessionTrees returns the default session trees of every kind that
// declares one, in the order of Formats: what `sessions` and `usage
// --by` read when no PATH is given. getenv reads the environment ("" for
// unset), home is the user's home folder.
func SessionTrees(getenv func(string) string, home string) []SessionTree {
	var out []SessionTree
	for _, f := range Formats() {
		if f.SessionsTree != nil {
			out = append(out, SessionTree{Kind: f.Kind, CLI: stream.CLIOf(f.CLI, ""), Dir: f.SessionsTree(getenv, home)})
		}
	}
	return out
}

// TreeSessions returns the session files of a folder laid out as a
// kind's tree of sessions other than Claude Code's projects tree (a
// Format's SessionGlob: Codex's YYYY/MM/DD/rollout-*.jsonl), by the times
// inside them; ok is false when dir holds no such file.
func TreeSessions(dir string) (files []string, ok bool) { return (*Listing)(nil).TreeSessions(dir) }

// TreeSessions is TreeSessions over the folders' listings kept.
func (l *Listing) TreeSessions(dir string) (files []string, ok bool) {
	for _, f := range Formats() {
		if f.SessionGlob == "" {
			continue
		}
		found, _ := l.Glob(filepath.Join(dir, f.SessionGlob))
		files = append(files, found...)
	}
	type file struct{ name, first, last string }
	var list []file
	for _, f := range files {
		fi, err := RegularFile(f)
		if err != nil {
			continue
		}
		first, last := recordTimes(f, fi.Size())
		list = append(list, file{f, first, last})
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.first != b.first {
			return a.first < b.first
		}
		return a.name < b.name
	})
	files = files[:0]
	for _, f := range list {
		files = append(files, f.name)
	}
	return files, len(files) > 0
}

// ErrNoOtherSession: a file that is no session file of another agent
// CLI's kind (one that declares a SessionsTree, Claude Code's transcript
// aside).
var ErrNoOtherSession = errors.New("not a session file of an agent CLI ccfilter reads")

// EachOtherSessionEvent reads a session file of another agent CLI (Codex's
// rollout) through its kind's reader, calling fn with each event, as
// Claude Code's stream has them; it returns the CLI and the bad lines,
// with their numbers. A file of no such kind is ErrNoOtherSession.
func EachOtherSessionEvent(path string, fn func(*stream.Event)) (cli stream.CLI, bad []error, err error) {
	if _, err := RegularFile(path); err != nil {
		return cli, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return cli, nil, err
	}
	defer f.Close()
	in, err := Open(f, path, "")
	if err != nil {
		return cli, nil, fmt.Errorf("%s: %w", path, err)
	}
	defer in.Close()
	if in.format.SessionsTree == nil || in.format.Kind == Transcript || in.Empty() {
		return cli, nil, fmt.Errorf("%s: %w", path, ErrNoOtherSession)
	}
	events := in.Events(stream.DecoderOptions{Source: path, Check: stream.CheckFraming})
	defer events.Close()
	for {
		ev, err := events.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if stream.IsLineError(err) {
				bad = append(bad, err)
				continue
			}
			return cli, bad, err
		}
		if ev.Kind == stream.KindInit && cli.ID == "" {
			cli = stream.CLIOf(ev.Str("cli"), ev.Str("cli_version"))
		}
		fn(ev)
	}
	if cli.ID == "" {
		cli = in.CLI()
	}
	return cli, bad, nil
}

// scanOtherSession is ScanSession of another agent CLI's session file:
// the same listing, from the events its kind's reader makes.
func scanOtherSession(path string, also *Also) (Session, error) {
	s := Session{Path: path, ID: SessionID(path)}
	msgs := map[string]stream.Usage{}
	cli, bad, err := EachOtherSessionEvent(path, func(ev *stream.Event) {
		switch {
		case ev.Kind == stream.KindInit:
			if id := ev.Str("session_id"); id != "" {
				s.ID = id
			}
			s.CWD = ev.Str("cwd")
		case ev.Kind == stream.KindPrompt:
			s.Turns++
			if s.Title == "" {
				s.Title = firstLine(ev.Text())
			}
		case ev.Type == "assistant":
			if ev.Kind == stream.KindToolUse {
				s.ToolCalls++
			}
			if a := ev.AssistantHead(); a.MessageID != "" {
				msgs[a.MessageID] = a.Usage
			}
		case ev.Type == "result":
			s.Runs++
		}
		if ts := ev.Str("timestamp"); ts != "" {
			if s.Start == "" || ts < s.Start {
				s.Start = ts
			}
			s.Last = max(s.Last, ts)
		}
		if also.Main != nil {
			also.Main(ev)
		}
	})
	s.Bad, s.CLI = bad, cli.ID
	if s.Turns > 0 {
		s.Runs = s.Turns // (one prompt a run: codex exec; a resume appends to the file)
	}
	for _, u := range msgs {
		s.Tokens += u.Total()
	}
	return s, err
}

// CLIName is the name a listing shows for a CLI's id ("" is Claude
// Code's).
func CLIName(id string) string { return stream.CLIOf(id, "").Name }
