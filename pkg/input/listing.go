package input

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ccfilter/ccfilter/internal/cores"
)

// Listing lists each folder once for the several patterns a tree of
// sessions is searched by: the projects' sessions (*/*.jsonl), Codex's
// */*/*/rollout-*.jsonl, Gemini's */chats/session-*.jsonl. Each searched
// a tree of 954 project folders on its own, listing every folder again
// and looking up every entry (a stat of each of 2,000 sessions, to learn
// it is no folder), a tenth of usage --by day's time on 2 CPUs, before
// the first session was read (issue 41). A Listing lists a folder on the
// first pattern that needs it and knows from its parent's listing which
// entries are folders. It is for one search: a folder's later changes
// are not seen. The zero value is not ready: NewListing.
type Listing struct {
	dirs map[string][]fs.DirEntry // a folder's entries, sorted by name
}

// NewListing returns an empty Listing.
func NewListing() *Listing {
	return &Listing{dirs: map[string][]fs.DirEntry{}}
}

// Glob is filepath.Glob, over the folders' listings kept: the same
// matches in the same order, and the same error (ErrBadPattern). A nil
// Listing is filepath.Glob itself (TestListingGlobSameAsFilepathGlob).
func (l *Listing) Glob(pattern string) ([]string, error) {
	if l == nil {
		return filepath.Glob(pattern)
	}
	return l.globDepth(pattern, 0)
}

// globDepth is filepath's globWithLimit, line for line but for the
// folders' listings.
func (l *Listing) globDepth(pattern string, depth int) (matches []string, err error) {
	if depth == 10000 { // (filepath's bound on the recursion)
		return nil, filepath.ErrBadPattern
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	if !hasMeta(pattern) {
		if _, err := os.Lstat(pattern); err != nil {
			return nil, nil
		}
		return []string{pattern}, nil
	}
	dir, file := filepath.Split(pattern)
	dir = cleanGlobPath(dir)
	if !hasMeta(dir) {
		return l.glob(dir, file, nil)
	}
	if dir == pattern {
		return nil, filepath.ErrBadPattern
	}
	dirs, err := l.globDepth(dir, depth+1)
	if err != nil {
		return nil, err
	}
	l.prefetch(dirs)
	for _, d := range dirs {
		if matches, err = l.glob(d, file, matches); err != nil {
			return matches, err
		}
	}
	return matches, nil
}

// glob appends to m the entries of the folder dir that match pattern.
func (l *Listing) glob(dir, pattern string, m []string) ([]string, error) {
	for _, e := range l.entries(dir) {
		ok, err := filepath.Match(pattern, e.Name())
		if err != nil {
			return m, err
		}
		if ok {
			m = append(m, filepath.Join(dir, e.Name()))
		}
	}
	return m, nil
}

// entries lists the folder dir (nil when it is none, or cannot be
// listed, as filepath.Glob takes it), once.
func (l *Listing) entries(dir string) []fs.DirEntry {
	if es, ok := l.dirs[dir]; ok {
		return es
	}
	if l.isFile(dir) {
		return nil // (its folder's listing said: no look)
	}
	es, _ := os.ReadDir(dir) // (sorted by name; a link to a folder is followed)
	l.dirs[dir] = es
	return es
}

// prefetchMin is the fewest folders prefetch lists at once.
const prefetchMin = 16

// prefetch lists the folders of dirs not listed yet, on every core, as
// entries would one after the other: a folder of 1,000 projects is
// searched a level down (*/*.jsonl), and its listing was most of the time
// usage --by spent before its first session was read, one CPU idle
// (issue 41). A speed part only: entries lists what it did not.
func (l *Listing) prefetch(dirs []string) {
	var todo []string
	for _, d := range dirs {
		if _, ok := l.dirs[d]; ok {
			continue
		}
		if l.isFile(d) {
			continue // (entries does not list it)
		}
		todo = append(todo, d)
	}
	if len(todo) < prefetchMin {
		return
	}
	listed := make([][]fs.DirEntry, len(todo))
	cores.Each(0, len(todo), runtime.GOMAXPROCS(0), func(_, i int) { listed[i], _ = os.ReadDir(todo[i]) })
	for i, d := range todo {
		l.dirs[d] = listed[i]
	}
}

// isFile reports whether path is no folder nor a link to one, as its
// folder's listing says (false when that folder was not listed).
func (l *Listing) isFile(path string) bool {
	k, ok := l.kind(path)
	return ok && !k.IsDir() && k&fs.ModeSymlink == 0
}

// kind is the type of the entry at path as its folder's listing says,
// when that folder was listed. (Looked up in the listing, sorted by name,
// not kept by path for every entry: joining and keeping every entry's
// path was most of the search of a tree of 1,000 projects for other
// CLIs' sessions, issue 41.)
func (l *Listing) kind(path string) (fs.FileMode, bool) {
	dir, name := filepath.Split(path)
	es, ok := l.dirs[filepath.Clean(dir)]
	if !ok || name == "" {
		return 0, false
	}
	i, found := slices.BinarySearchFunc(es, name, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
	if !found {
		return 0, false
	}
	return es[i].Type(), true
}

// names are the names of the folder dir's entries (from its listing,
// when l is not nil); none when it cannot be listed.
func (l *Listing) names(dir string) []string {
	if l == nil {
		names, _ := readNames(dir)
		return names
	}
	es := l.entries(dir)
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out
}

// hasMeta and cleanGlobPath are filepath's, for Glob (Unix).
func hasMeta(path string) bool { return strings.ContainsAny(path, `*?[\`) }

func cleanGlobPath(path string) string {
	switch path {
	case "":
		return "."
	case string(filepath.Separator):
		return path
	}
	return path[:len(path)-1]
}
