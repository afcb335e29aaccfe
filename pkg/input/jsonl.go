package input

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A session folder's JSON-lines files (a session, its subagents, a
// Workflow's journal) may be kept compressed: `ccfilter archive` writes
// x.jsonl as x.jsonl.zst, and a user may gzip one. Each is read where and
// as x.jsonl is, so an archive reads as ~/.claude/projects does; these
// are the one place that knows the names.
var compressedExts = []string{".zst", ".gz"}

// GlobJSONL returns the files that match pattern (which ends in .jsonl)
// or its compressed copies' names (pattern.zst, pattern.gz), sorted. A
// compressed copy beside its plain file is left out: the plain file is
// the one Claude Code writes to, the copy an older state of it.
func GlobJSONL(pattern string) ([]string, error) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	plain := len(files)
	for _, ext := range compressedExts {
		more, err := filepath.Glob(pattern + ext)
		if err != nil {
			return nil, err
		}
		for _, m := range more {
			if base := strings.TrimSuffix(m, ext); !slices.Contains(files[:plain], base) && !slices.Contains(files[plain:], base+".zst") {
				files = append(files, m)
			}
		}
	}
	slices.Sort(files)
	return files, nil
}

// JSONLFile returns the file that holds path (x.jsonl): path itself, or
// its compressed copy when only that is there.
func JSONLFile(path string) string {
	if _, err := os.Lstat(path); err == nil {
		return path
	}
	for _, ext := range compressedExts {
		if _, err := os.Lstat(path + ext); err == nil {
			return path + ext
		}
	}
	return path
}

// plainJSONL is the name of a JSON-lines file without its compression
// suffix (x.jsonl.zst → x.jsonl).
func plainJSONL(path string) string {
	for _, ext := range compressedExts {
		if strings.HasSuffix(path, ".jsonl"+ext) {
			return strings.TrimSuffix(path, ext)
		}
	}
	return path
}
