// Package archive keeps a copy of Claude Code's project folders that
// outlives its cleanup (transcripts older than cleanupPeriodDays are
// deleted): everything under each project folder, in the same layout,
// the JSON-lines files compressed with zstd (x.jsonl → x.jsonl.zst, which
// pkg/input reads where and as it reads x.jsonl), the rest as it is.
//
// A run is incremental and never deletes: a file is copied when it is
// new, has grown or has changed, and skipped when its size and its hash
// are those of its copy. Each copy is written to a temporary file in its
// folder, synced, read back (decompressed and hashed) and only then
// renamed into place, so a crash or a kill mid-run leaves no torn file,
// and a lock on the archive keeps two runs from writing it at once.
package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/klauspost/compress/zstd"

	"github.com/ccfilter/ccfilter/pkg/input"
)

// ProjectsDir is the folder of an archive that holds the project
// folders: DIR/projects/<project>/..., as ~/.claude/projects holds them
// (DIR plays the part of ~/.claude, so CLAUDE_CONFIG_DIR=DIR reads it
// too).
const ProjectsDir = "projects"

// tempMark is in the name of every temporary file a run writes
// (<name>.ccfilter-tmp-<random>): none is a session's name, and a run
// removes the ones a killed run left.
const tempMark = ".ccfilter-tmp-"

// A Project is a project folder to archive and its name in the archive.
type Project struct {
	Dir  string // the folder (~/.claude/projects/-home-user-project)
	Name string // its name under DIR/projects (the folder's own name)
}

// Projects returns the project folders paths stand for: a folder that
// holds sessions (*.jsonl) is one project folder; any other folder is a
// folder of them (~/.claude/projects), each sub-folder a project.
func Projects(paths []string) ([]Project, error) {
	var out []Project
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s: not a folder (a project folder or a folder of them, such as ~/.claude/projects)", p)
		}
		if own, _ := input.GlobJSONL(filepath.Join(p, "*.jsonl")); len(own) > 0 {
			out = append(out, Project{Dir: p, Name: filepath.Base(filepath.Clean(p))})
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, Project{Dir: filepath.Join(p, e.Name()), Name: e.Name()})
			}
		}
	}
	return out, nil
}

// A Point is a step of writing one copy, where Options.Hook is called.
type Point int

const (
	AtOpen   Point = iota // before the source is opened: an error is the source's (a file it may not read)
	AtCreate              // before its temporary file is created
	AtWrite               // before each write to the temporary file
	AtRename              // written, synced and read back; before the rename into place
)

// Options are a run's settings.
type Options struct {
	// To is the archive's folder (DIR); the copies go under DIR/projects.
	To string
	// Progress, when set, is told after each file how far the run is.
	Progress func(Progress)
	// Problem, when set, is told of each file that could not be read (a
	// FIFO, no permission, gone); the run goes on with the others.
	Problem func(error)
	// Hook, when set, is called at each Point of writing a copy with the
	// file's path under DIR/projects; an error it returns is that step's
	// error (tests: a full disk, a denied folder, a kill at a known step).
	Hook func(at Point, rel string) error
}

// Progress is how far a run is.
type Progress struct {
	Files, Total   int    // files looked at, of all found
	Copied         int    // files copied
	Bytes          int64  // of their source, copied
	Current        string // the file just looked at
	Skipped, Fails int    // unchanged; not read
}

// Result is what a run did.
type Result struct {
	Files   int   // files found under the project folders
	Copied  int   // written (new, grown or changed)
	Same    int   // skipped: size and hash those of the copy
	Bytes   int64 // of the sources, copied
	Stored  int64 // of the copies written, on disk
	Partial int   // JSON-lines files copied (or left) up to their last complete line: still being written
	Failed  int   // files not read (each told to Options.Problem)
}

// ErrBusy: another run holds the archive's lock.
var ErrBusy = errors.New("another ccfilter archive run is writing to it")

// Run copies the projects into the archive o.To. A file it cannot read is
// told to o.Problem and counted in Result.Failed, and the run goes on; an
// error writing the archive (a full disk, a folder it may not write)
// stops it, with the temporary file removed and the copies done so far
// in place and recorded. ctx's end stops it between files.
func Run(ctx context.Context, projects []Project, o Options) (Result, error) {
	a, err := open(o)
	if err != nil {
		return Result{}, err
	}
	defer a.close()
	var files []file
	for _, p := range projects {
		fs, err := a.list(p)
		if err != nil {
			return a.res, err
		}
		files = append(files, fs...)
	}
	a.res.Files = len(files)
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return a.res, a.save(err)
		}
		if err := a.one(f); err != nil {
			return a.res, a.save(err)
		}
		if o.Progress != nil {
			o.Progress(Progress{Files: i + 1, Total: len(files), Copied: a.res.Copied, Bytes: a.res.Bytes, Current: f.rel,
				Skipped: a.res.Same, Fails: a.res.Failed})
		}
		if a.unsaved >= saveEvery {
			if err := a.save(nil); err != nil {
				return a.res, err
			}
		}
	}
	return a.res, a.save(nil)
}

// saveEvery is how many copies the manifest may be behind: a run killed
// before saving it costs the next one a read of those copies (see
// needless), never a wrong skip.
const saveEvery = 64

// file is one file to archive: its source and its place in the archive.
type file struct {
	src   string // its path
	rel   string // its path under the project folders' parent (<project>/...)
	lines bool   // a JSON-lines file: compressed, copied up to its last complete line
}

// archive is a run's state.
type archive struct {
	o       Options
	root    string // DIR/projects
	lock    *os.File
	man     manifest
	manPath string
	unsaved int
	res     Result
	enc     *zstd.Encoder
	dec     *zstd.Decoder
	buf     []byte
}

func open(o Options) (*archive, error) {
	if o.To == "" {
		return nil, errors.New("no archive folder")
	}
	a := &archive{o: o, root: filepath.Join(o.To, ProjectsDir), manPath: filepath.Join(o.To, manifestName), buf: make([]byte, 256<<10)}
	if err := os.MkdirAll(a.root, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockDir(o.To)
	if err != nil {
		return nil, err
	}
	a.lock = lock
	// With the lock held no other run writes here: a temporary file
	// under the archive is a killed run's, half-written, and goes.
	if err := removeTemps(o.To); err != nil {
		a.close()
		return nil, err
	}
	if a.man, err = readManifest(a.manPath); err != nil {
		a.close()
		return nil, err
	}
	// One encoder and one decoder, reused: a goroutine each and a
	// bounded window, so a run's memory does not grow with the files.
	a.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	a.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	return a, nil
}

func (a *archive) close() {
	if a.dec != nil {
		a.dec.Close()
	}
	if a.lock != nil {
		unlock(a.lock)
	}
}

// list returns the files under a project folder, by path.
func (a *archive) list(p Project) ([]file, error) {
	var out []file
	err := filepath.WalkDir(p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == p.Dir {
				return err
			}
			a.problem(err) // a folder it may not read: the rest goes on
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(p.Dir, path)
		out = append(out, file{src: path, rel: filepath.Join(p.Name, rel), lines: strings.HasSuffix(path, ".jsonl")})
		return nil
	})
	return out, err
}

func (a *archive) problem(err error) {
	a.res.Failed++
	if a.o.Problem != nil {
		a.o.Problem(err)
	}
}

// one archives a file, unless its copy is already what it holds. Only an
// error of the archive's side is returned; the source's are problems.
func (a *archive) one(f file) error {
	src, size, err := openSource(f.src)
	if a.o.Hook != nil && err == nil {
		if herr := a.o.Hook(AtOpen, f.rel); herr != nil {
			src.Close()
			err = &fs.PathError{Op: "open", Path: f.src, Err: herr}
		}
	}
	if err != nil {
		a.problem(err)
		return nil
	}
	defer src.Close()
	n := size
	if f.lines {
		// A session being written ends in a line not yet whole: the copy
		// stops at the last newline, and the next run takes the rest.
		if n, err = lastNewline(src, size, a.buf); err != nil {
			a.problem(fmt.Errorf("%s: %w", f.src, err))
			return nil
		}
		if n < size {
			a.res.Partial++
		}
	}
	dst := filepath.Join(a.root, f.rel)
	if f.lines {
		dst += ".zst"
	}
	e, known := a.man.Files[f.rel]
	if known && f.lines && n < e.Size {
		a.problem(fmt.Errorf("%s: %d bytes, shorter than its archived copy (%d): the copy is kept, not overwritten", f.src, n, e.Size))
		return nil
	}
	if n == 0 && f.lines {
		return nil // nothing whole yet
	}
	same, err := a.unchanged(src, n, f, dst, e, known)
	if err != nil {
		a.problem(err)
		return nil
	}
	if same {
		a.res.Same++
		return nil
	}
	return a.copy(src, n, f, dst)
}

// unchanged reports whether the copy at dst already holds src's first n
// bytes: by the manifest's size and hash (src hashed; the copy's size
// looked at), or, with no entry (a run killed before it saved its
// manifest, a copy made elsewhere), by reading the copy back.
func (a *archive) unchanged(src *os.File, n int64, f file, dst string, e entry, known bool) (bool, error) {
	fi, err := os.Stat(dst)
	if err != nil {
		return false, nil // no copy yet
	}
	if known && (e.Size != n || e.Stored != fi.Size()) {
		return false, nil
	}
	sum, err := hashOf(io.NewSectionReader(src, 0, n), a.buf)
	if err != nil {
		return false, fmt.Errorf("%s: %w", f.src, err)
	}
	if known {
		return sum == e.Hash, nil
	}
	got, gotN, err := a.readBack(dst, f.lines)
	if err != nil || got != sum || gotN != n {
		return false, nil
	}
	a.record(f.rel, entry{Size: n, Hash: sum, Stored: fi.Size()})
	return true, nil
}

// copy writes src's first n bytes to dst: a temporary file beside it,
// synced, read back and compared, then renamed into place and the folder
// synced.
func (a *archive) copy(src *os.File, n int64, f file, dst string) (err error) {
	hook := func(at Point) error {
		if a.o.Hook == nil {
			return nil
		}
		return a.o.Hook(at, f.rel)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := hook(AtCreate); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(dst)+tempMark+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name()) // nothing half-written stays
		}
	}()
	w := io.Writer(&hooked{w: tmp, hook: func() error { return hook(AtWrite) }})
	h := sha256.New()
	in := sourceReader{io.TeeReader(io.NewSectionReader(src, 0, n), h)}
	if f.lines {
		a.enc.Reset(w)
		w = a.enc
	}
	if _, err := io.CopyBuffer(onlyWriter{w}, in, a.buf); err != nil {
		if rerr := (readError{}); errors.As(err, &rerr) {
			// The source failed mid-read: a problem of it, not of the
			// archive (the temporary file goes).
			tmp.Close()
			os.Remove(tmp.Name())
			a.problem(fmt.Errorf("%s: %w", f.src, rerr.err))
			return nil
		}
		return fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if f.lines {
		if err := a.enc.Close(); err != nil {
			return fmt.Errorf("%s: %w", tmp.Name(), err)
		}
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	want := hex.EncodeToString(h.Sum(nil))
	got, gotN, err := a.readBackFile(tmp, f.lines)
	if err != nil {
		return fmt.Errorf("%s: read back: %w", tmp.Name(), err)
	}
	if got != want || gotN != n {
		return fmt.Errorf("%s: read back: %d bytes that differ from the %d written", tmp.Name(), gotN, n)
	}
	fi, err := tmp.Stat()
	if err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if err := hook(AtRename); err != nil {
		return fmt.Errorf("%s: %w", dst, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	a.res.Copied++
	a.res.Bytes += n
	a.res.Stored += fi.Size()
	a.record(f.rel, entry{Size: n, Hash: want, Stored: fi.Size()})
	return nil
}

func (a *archive) record(rel string, e entry) {
	a.man.Files[rel] = e
	a.unsaved++
}

// save writes the manifest if it changed, and returns err, or the
// manifest's own error when err is nil.
func (a *archive) save(err error) error {
	if a.unsaved == 0 {
		return err
	}
	serr := writeManifest(a.manPath, a.man)
	if serr == nil {
		a.unsaved = 0
	}
	if err != nil {
		return err
	}
	return serr
}

// readBack hashes what the copy at path holds, decompressed.
func (a *archive) readBack(path string, compressed bool) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	return a.readBackFile(f, compressed)
}

func (a *archive) readBackFile(f *os.File, compressed bool) (string, int64, error) {
	r := io.Reader(io.NewSectionReader(f, 0, 1<<62))
	if compressed {
		if err := a.dec.Reset(r); err != nil {
			return "", 0, err
		}
		r = a.dec
	}
	h := sha256.New()
	n, err := io.CopyBuffer(h, r, a.buf)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// openSource opens a file to archive without waiting on it (a FIFO with
// no writer would block an open for reading) and says why it is no
// regular file.
func openSource(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w (%s): not archived", path, input.ErrNotRegular, input.FileKind(fi.Mode()))
	}
	return f, fi.Size(), nil
}

// lastNewline returns the length of f's first size bytes up to and with
// their last newline, read from the end.
func lastNewline(f *os.File, size int64, buf []byte) (int64, error) {
	end := size
	for end > 0 {
		start := max(0, end-int64(len(buf)))
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

func hashOf(r io.Reader, buf []byte) (string, error) {
	h := sha256.New()
	if _, err := io.CopyBuffer(h, r, buf); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hooked is the temporary file, with Options.Hook asked before each write.
type hooked struct {
	w    io.Writer
	hook func() error
}

func (h *hooked) Write(p []byte) (int, error) {
	if err := h.hook(); err != nil {
		return 0, err
	}
	return h.w.Write(p)
}

// onlyWriter hides the encoder's ReadFrom, so that io.CopyBuffer reads
// through sourceReader with the run's buffer.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

// sourceReader marks the source's read errors: a problem of that file,
// not of the archive.
type sourceReader struct{ r io.Reader }

func (s sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = readError{err}
	}
	return n, err
}

// readError is an error reading the source, not writing the archive.
type readError struct{ err error }

func (e readError) Error() string { return e.err.Error() }

// removeTemps removes the temporary files a killed run left under root.
func removeTemps(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(d.Name(), tempMark) {
			return os.Remove(path)
		}
		return nil
	})
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err // (EINVAL: a file system that cannot sync a folder)
	}
	return nil
}
