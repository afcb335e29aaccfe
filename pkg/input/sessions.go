package input

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
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
