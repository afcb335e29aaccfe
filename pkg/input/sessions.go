package input

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// ErrNotSessions reports a directory that holds no session: neither a
// project folder (~/.claude/projects/<escaped-cwd>/, with <session>.jsonl
// files) nor a session's folder (<session>/, beside its <session>.jsonl).
var ErrNotSessions = errors.New("is a directory, and not a project folder or a session's folder of ~/.claude/projects")

// SessionFiles returns the transcripts a directory stands for: a project
// folder's sessions, oldest first (by their files' modification time; a
// resumed session is one file, its last activity decides), or the
// transcript of a session's folder.
func SessionFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		session := strings.TrimSuffix(filepath.Clean(dir), string(filepath.Separator)) + ".jsonl"
		if fi, err := os.Stat(session); err == nil && fi.Mode().IsRegular() {
			return []string{session}, nil
		}
		return nil, ErrNotSessions
	}
	type file struct {
		name string
		mod  int64
	}
	var list []file
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		list = append(list, file{f, fi.ModTime().UnixNano()})
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].mod != list[j].mod {
			return list[i].mod < list[j].mod
		}
		return list[i].name < list[j].name
	})
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.name
	}
	return out, nil
}

// Session is what a listing says of one session transcript, read from
// the transcript file alone (and the names of its subagents' files).
type Session struct {
	ID         string  `json:"session_id"`
	Path       string  `json:"path"`
	CWD        string  `json:"cwd"`
	Title      string  `json:"title"`
	Start      string  `json:"start"`
	Last       string  `json:"last_activity"`
	Runs       int     `json:"runs"` // the claude runs that wrote to the file (resumed, continued: one session)
	Turns      int     `json:"turns"`
	ToolCalls  int     `json:"tool_calls"`
	Subagents  int     `json:"subagents"`
	Tokens     int64   `json:"main_tokens"` // the main agent's, every kind, each message counted once
	CostUSD    float64 `json:"cost_usd"`
	HaveCost   bool    `json:"have_cost"`
	ForkedFrom string  `json:"forked_from,omitempty"` // the session a --fork-session copied
}

// ScanSession reads a session transcript for a listing: one pass over the
// file, its lines framed, not validated, each record looked at for what
// the listing shows.
func ScanSession(path string) (Session, error) {
	s := Session{Path: path, ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	dec := stream.NewDecoder(f, stream.DecoderOptions{Source: path, Check: stream.CheckFraming})
	defer dec.Close()
	tr := stream.NewTracker(stream.TrackerOptions{Needs: stream.Needs{Follow: stream.FollowUsage, NoResultSizes: true}})
	for {
		ev, err := dec.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if stream.IsLineError(err) {
				continue // a listing passes over a bad line
			}
			return s, err
		}
		tr.Observe(ev)
		s.add(ev)
	}
	u := tr.Usage().Total
	s.Tokens = u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	s.ToolCalls = tr.Tally().ToolCalls
	s.Subagents = len(stream.SubagentMetas(stream.SessionDir(path)))
	return s, nil
}

// add takes from one record what the listing shows.
func (s *Session) add(ev *stream.Event) {
	if ts := ev.Str("timestamp"); ts != "" {
		if s.Start == "" || ts < s.Start {
			s.Start = ts
		}
		if ts > s.Last {
			s.Last = ts
		}
	}
	if s.CWD == "" {
		s.CWD = ev.Str("cwd")
	}
	if s.ForkedFrom == "" {
		if from := ev.Str("requestSessionId"); from != "" && from != s.ID {
			s.ForkedFrom = from
		}
	}
	switch {
	case ev.Kind == stream.KindPrompt && ev.Str("turnOrigin") != "task_notification":
		s.Turns++
		if s.Title == "" {
			s.Title = firstLine(ev.Text())
		}
	case ev.Type == "cost-state":
		s.Runs++
		s.CostUSD, s.HaveCost = ev.Float("totalCostUSD"), true
	case ev.Type == "summary" || ev.Type == "custom-title" || ev.Type == "ai-title":
		for _, k := range []string{"summary", "customTitle", "title"} {
			if t := ev.Str(k); t != "" {
				s.Title = firstLine(t)
			}
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Projects returns the transcripts under dirs: each dir is a project
// folder (it holds *.jsonl) or a folder of project folders, such as
// ~/.claude/projects.
func Projects(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		files, err := filepath.Glob(filepath.Join(d, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			files, err = filepath.Glob(filepath.Join(d, "*", "*.jsonl"))
			if err != nil {
				return nil, err
			}
		}
		out = append(out, files...)
	}
	return out, nil
}

// FindSession returns the transcript under the projects folder whose
// session id is id or starts with it; an error when several do.
func FindSession(projects, id string) (string, error) {
	files, err := filepath.Glob(filepath.Join(projects, "*", id+"*.jsonl"))
	if err != nil || len(files) == 0 {
		return "", err
	}
	if len(files) > 1 {
		return "", fmt.Errorf("%s: %d sessions start with it: %s", id, len(files), strings.Join(files, ", "))
	}
	return files[0], nil
}
