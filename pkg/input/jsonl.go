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
func GlobJSONL(pattern string) ([]string, error) { return (*Listing)(nil).GlobJSONL(pattern) }

// GlobJSONL is GlobJSONL over the folders' listings kept (a nil Listing
// lists each folder afresh).
func (l *Listing) GlobJSONL(pattern string) ([]string, error) {
	var files []string
	err := l.eachJSONL(pattern, func(f string) bool {
		files = append(files, f)
		return true
	})
	slices.Sort(files)
	return files, err
}

// HasJSONL reports whether GlobJSONL(pattern) finds a file, stopping at
// the first (is this folder a tree of projects: one look, not a listing
// of the whole tree).
func HasJSONL(pattern string) bool { return (*Listing)(nil).HasJSONL(pattern) }

// HasJSONL is HasJSONL over the folders' listings kept.
func (l *Listing) HasJSONL(pattern string) bool {
	found := false
	_ = l.eachJSONL(pattern, func(string) bool {
		found = true
		return false
	})
	return found
}

// eachJSONL calls found with each of GlobJSONL's files, in no order, until
// it returns false. Each folder the pattern's folder part names is listed
// once, for the plain names and the compressed ones together: three
// filepath.Globs listed a tree of projects three times over, which was a
// seventh of usage --by day on one (issue 41).
func (l *Listing) eachJSONL(pattern string, found func(string) bool) error {
	base := filepath.Base(pattern)
	if _, err := filepath.Match(base, ""); err != nil {
		return err
	}
	dirs, err := l.Glob(filepath.Dir(pattern)) // (no pattern in it: the folder, when it is there)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		names := l.names(d) // (none: a folder it cannot list holds nothing, as for filepath.Glob)
		has := make(map[string]bool, len(names))
		for _, n := range names {
			has[n] = true
		}
		for _, n := range names {
			if matchJSONL(base, n, has) && !found(filepath.Join(d, n)) {
				return nil
			}
		}
	}
	return nil
}

// matchJSONL reports whether the folder entry name is one of GlobJSONL's:
// it matches base, or it is a compressed copy of a name that does and
// the folder holds no plain file of it (nor, for a .gz, a .zst copy).
func matchJSONL(base, name string, has map[string]bool) bool {
	if ok, _ := filepath.Match(base, name); ok {
		return true
	}
	for i, ext := range compressedExts {
		plain, ok := strings.CutSuffix(name, ext)
		if !ok {
			continue
		}
		if m, _ := filepath.Match(base, plain); !m || has[plain] {
			return false
		}
		// (an earlier extension's copy is the one taken)
		return !slices.ContainsFunc(compressedExts[:i], func(e string) bool { return has[plain+e] })
	}
	return false
}

// readNames lists a folder's entries' names (no stat of each).
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
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
