package input

import (
	"errors"
	"path/filepath"
	"strconv"
	"unicode/utf16"
)

// maxFolderName is the longest project folder name Claude Code writes;
// a longer escaped cwd is cut there and given a hash of the cwd.
const maxFolderName = 200

// ProjectFolder returns the folder under projects (~/.claude/projects)
// where Claude Code keeps the sessions of the working directory cwd:
// every character of cwd that is not an ASCII letter or digit becomes
// '-', one per UTF-16 unit; past 200 characters the name is cut to 200
// and '-' and the base-36 Java hashCode of cwd are appended.
func ProjectFolder(projects, cwd string) string {
	units := utf16.Encode([]rune(cwd))
	name := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = 31*hash + int32(u) // Java's String.hashCode, overflowing as it does
		switch {
		case u >= 'a' && u <= 'z', u >= 'A' && u <= 'Z', u >= '0' && u <= '9':
			name[i] = byte(u)
		default:
			name[i] = '-'
		}
	}
	if len(name) > maxFolderName {
		h := int64(hash)
		if h < 0 {
			h = -h
		}
		name = append(name[:maxFolderName], "-"+strconv.FormatInt(h, 36)...)
	}
	return filepath.Join(projects, string(name))
}

// ErrNoSession: a project folder with no session transcript in it (yet).
var ErrNoSession = errors.New("no session transcript in it")

// NewestSession returns the session of a project folder written to
// last: by the time of its last record (a resumed session goes on in its
// own file), then of its first; never by the files' modification times,
// which Claude Code changes in bulk.
func NewestSession(dir string) (string, error) {
	files, err := GlobJSONL(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return "", err
	}
	best, bestFirst, bestLast := "", "", ""
	for _, f := range files {
		fi, err := RegularFile(f)
		if err != nil {
			continue
		}
		first, last := recordTimes(f, fi.Size())
		if best == "" || last > bestLast || last == bestLast && (first > bestFirst || first == bestFirst && f > best) {
			best, bestFirst, bestLast = f, first, last
		}
	}
	if best == "" {
		return "", ErrNoSession
	}
	return best, nil
}
