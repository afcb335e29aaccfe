package archive

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// homeTree copies the project folders of every real transcript under
// testdata/transcripts (NAME/home/.claude/projects/..., the files exactly
// as Claude Code 2.1.328 left them: sessions, subagents, .meta.json,
// tool-results/, a Workflow's journal and workflows/) into one projects
// tree, as ~/.claude/projects holds them, and returns it.
func homeTree(t *testing.T) string {
	t.Helper()
	projects := filepath.Join(t.TempDir(), "projects")
	homes, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects")
	require.NoError(t, err)
	require.NotEmpty(t, homes)
	for _, h := range homes {
		require.NoError(t, os.CopyFS(projects, os.DirFS(h)))
	}
	return projects
}

// run archives the tree into dir with o's hook and problems.
func run(t *testing.T, tree, dir string, o Options) (Result, error) {
	t.Helper()
	o.To = dir
	ps, err := Projects([]string{tree})
	require.NoError(t, err)
	return Run(context.Background(), ps, o)
}

// archived is what the archive holds of a file of the tree: its copy,
// decompressed when it is a JSON-lines file.
func archived(t *testing.T, dir, rel string) ([]byte, bool) {
	t.Helper()
	path := filepath.Join(dir, ProjectsDir, rel)
	if strings.HasSuffix(rel, ".jsonl") {
		path += ".zst"
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	require.NoError(t, err)
	if strings.HasSuffix(rel, ".jsonl") {
		require.True(t, bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}), "%s: not zstd", path)
		d, err := zstd.NewReader(nil)
		require.NoError(t, err)
		defer d.Close()
		b, err = d.DecodeAll(b, nil)
		require.NoError(t, err)
	}
	return b, true
}

// treeFiles are the files of the tree, by their path under it.
func treeFiles(t *testing.T, tree string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(tree, path)
			out[rel], err = os.ReadFile(path)
			require.NoError(t, err)
		}
		return nil
	}))
	return out
}

// requireEqual proves the archive holds every file of the tree, byte for
// byte once decompressed, and no temporary file.
func requireEqual(t *testing.T, tree, dir string) {
	t.Helper()
	files := treeFiles(t, tree)
	require.NotEmpty(t, files)
	for rel, want := range files {
		got, ok := archived(t, dir, rel)
		require.True(t, ok, "%s: not in the archive", rel)
		require.True(t, bytes.Equal(want, got), "%s: the archive's copy differs (%d bytes, %d in the tree)", rel, len(got), len(want))
	}
	require.Empty(t, temps(t, dir))
}

// temps are the temporary files under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), tempMark) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestInterruptedRunThenFullRunEqualsTree stops a run in the middle of a
// copy (the hook fails the 6th file's rename: its temporary file written,
// as a kill there leaves it), with and without the manifest of the copies
// done (a kill before it is saved), and proves the next run copies only
// what is missing and leaves the archive equal to the tree, with no
// temporary file left. (A real SIGKILL: cmd/ccfilter's
// TestArchiveKilledMidCopy.)
func TestInterruptedRunThenFullRunEqualsTree(t *testing.T) {
	for _, lostManifest := range []bool{false, true} {
		t.Run(map[bool]string{false: "manifest saved", true: "manifest lost"}[lostManifest], func(t *testing.T) {
			tree, dir := homeTree(t), t.TempDir()
			killed := errors.New("killed")
			renames := 0
			res, err := run(t, tree, dir, Options{Hook: func(at Point, rel string) error {
				if at == AtRename {
					if renames++; renames == 6 {
						return killed
					}
				}
				return nil
			}})
			require.ErrorIs(t, err, killed)
			assert.Equal(t, 5, res.Copied)
			assert.Empty(t, temps(t, dir), "the 6th file's temporary file was removed")
			if lostManifest {
				require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
			}
			res, err = run(t, tree, dir, Options{})
			require.NoError(t, err)
			assert.Equal(t, res.Files-5, res.Copied, "the 5 copies done are not made again")
			assert.Equal(t, 5, res.Same)
			requireEqual(t, tree, dir)
		})
	}
}

// TestGrownSessionIsCopiedAgain appends a whole record to a real session
// (60-long-session's last line, again) and proves the next run copies
// that session alone.
func TestGrownSessionIsCopiedAgain(t *testing.T) {
	tree, dir := homeTree(t), t.TempDir()
	first, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, first.Files, first.Copied)
	session := filepath.Join(tree, "-home-user-project", "6e7ff9fa-7236-4618-a5f9-c62fb06889c4.jsonl")
	b, err := os.ReadFile(session)
	require.NoError(t, err)
	lines := bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	appendTo(t, session, append(lines[len(lines)-1], '\n'))

	res, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Copied)
	assert.Equal(t, res.Files-1, res.Same)
	requireEqual(t, tree, dir)
}

// TestDeletedSessionStaysInArchive removes a session and its folder (as
// Claude Code's cleanup does, 05-subagents-async with its subagents) and
// proves the archive keeps every file of it.
func TestDeletedSessionStaysInArchive(t *testing.T) {
	tree, dir := homeTree(t), t.TempDir()
	before := treeFiles(t, tree)
	_, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	session := filepath.Join(tree, "-home-user-project", "cb10905b-9d5a-4d11-a6f3-8e2e6e2068cd")
	require.NoError(t, os.RemoveAll(session))
	require.NoError(t, os.Remove(session+".jsonl"))

	res, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Copied)
	assert.Equal(t, len(before)-5, res.Files, "the session, 2 subagents' files and 2 .meta.json are gone from the tree")
	for rel, want := range before {
		got, ok := archived(t, dir, rel)
		require.True(t, ok, "%s: gone from the archive", rel)
		require.Equal(t, want, got, rel)
	}
}

// TestHalfWrittenLastLineWaitsForNextRun appends half a record to a real
// session (02-write-read's first line, cut in two, as a session being
// written ends) and proves the copy stops at its last whole line, and the
// next run, once the line is whole, takes the rest.
func TestHalfWrittenLastLineWaitsForNextRun(t *testing.T) {
	tree, dir := homeTree(t), t.TempDir()
	session := filepath.Join(tree, "-home-user-project", "0db2634f-ae79-455c-9f0e-6a3434377177.jsonl")
	rel := filepath.Join("-home-user-project", "0db2634f-ae79-455c-9f0e-6a3434377177.jsonl")
	whole, err := os.ReadFile(session)
	require.NoError(t, err)
	line, _, _ := bytes.Cut(whole, []byte("\n"))
	appendTo(t, session, line[:len(line)/2])

	res, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Partial)
	got, _ := archived(t, dir, rel)
	require.Equal(t, whole, got, "copied to its last complete line")

	appendTo(t, session, append(line[len(line)/2:], '\n'))
	res, err = run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Copied)
	assert.Equal(t, 0, res.Partial)
	requireEqual(t, tree, dir)
}

// TestUnreadableFilesAreNamedAndTheRestCopied puts a FIFO (no writer: an
// open for reading would wait forever) beside a real session, and makes
// a real session unreadable (a denied open: by the hook, since root reads
// a mode-000 file; by chmod as any other user), and proves each is named,
// counted as failed, and every other file copied.
func TestUnreadableFilesAreNamedAndTheRestCopied(t *testing.T) {
	for _, how := range []string{"hook", "chmod"} {
		t.Run(how, func(t *testing.T) {
			if how == "chmod" && os.Geteuid() == 0 {
				t.Skip("root reads a mode-000 file: the hook case denies the open instead")
			}
			tree, dir := homeTree(t), t.TempDir()
			fifo := filepath.Join(tree, "-home-user-project", "fifo.jsonl")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			denied := filepath.Join("-home-user-project", "f35eefc6-2471-4bfe-a1fe-5c11c2eed96e.jsonl")
			o := Options{}
			if how == "chmod" {
				require.NoError(t, os.Chmod(filepath.Join(tree, denied), 0))
			} else {
				o.Hook = func(at Point, rel string) error {
					if at == AtOpen && rel == denied {
						return fs.ErrPermission
					}
					return nil
				}
			}
			var problems []string
			o.Problem = func(err error) { problems = append(problems, err.Error()) }
			res, err := run(t, tree, dir, o)
			require.NoError(t, err)
			assert.Equal(t, 2, res.Failed)
			require.Len(t, problems, 2)
			assert.Contains(t, strings.Join(problems, "\n"), fifo+": not a regular file (a FIFO): not archived")
			assert.Contains(t, strings.Join(problems, "\n"), filepath.Join(tree, denied)+": ")
			assert.Equal(t, res.Files-2, res.Copied)
			require.NoError(t, os.Remove(fifo))
			files := treeFiles(t, tree)
			for rel, want := range files {
				got, ok := archived(t, dir, rel)
				if rel == denied {
					assert.False(t, ok)
					continue
				}
				require.True(t, ok, rel)
				require.Equal(t, want, got, rel)
			}
		})
	}
}

// TestFullDiskStopsWithNothingHalfWritten fails a write midway through
// the copies with ENOSPC (the hook, before the 2nd write of the 60-long
// -session transcript's copy: its temporary file holds a part of it) and
// proves the run stops with that error, the temporary file removed, the
// copies made before it whole and recorded; then a run with room finishes.
func TestFullDiskStopsWithNothingHalfWritten(t *testing.T) {
	tree, dir := homeTree(t), t.TempDir()
	big := filepath.Join("-home-user-project", "6e7ff9fa-7236-4618-a5f9-c62fb06889c4.jsonl")
	writes := 0
	res, err := run(t, tree, dir, Options{Hook: func(at Point, rel string) error {
		if at == AtWrite && rel == big {
			if writes++; writes == 2 {
				return syscall.ENOSPC
			}
		}
		return nil
	}})
	require.ErrorIs(t, err, syscall.ENOSPC)
	require.Equal(t, 2, writes, "the copy stopped in its middle")
	assert.Empty(t, temps(t, dir))
	_, ok := archived(t, dir, big)
	assert.False(t, ok)
	assert.Positive(t, res.Copied)
	again, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, res.Copied, again.Same, "the copies made before the full disk were whole and recorded")
	requireEqual(t, tree, dir)
}

// TestFullTmpfsStopsWithNothingHalfWritten archives into a real tmpfs too
// small for the tree (a real ENOSPC from the kernel). Mounting needs root.
func TestFullTmpfsStopsWithNothingHalfWritten(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root; TestFullDiskStopsWithNothingHalfWritten injects the same error")
	}
	tree, dir := homeTree(t), t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=256k"); err != nil {
		t.Skipf("no tmpfs can be mounted here (%v); TestFullDiskStopsWithNothingHalfWritten injects the same error", err)
	}
	defer syscall.Unmount(dir, 0)
	res, err := run(t, tree, dir, Options{})
	require.ErrorIs(t, err, syscall.ENOSPC)
	assert.Less(t, res.Copied, res.Files)
	assert.Empty(t, temps(t, dir))
	// Every copy in place is whole.
	for rel, want := range treeFiles(t, tree) {
		if got, ok := archived(t, dir, rel); ok {
			require.Equal(t, want, got, rel)
		}
	}
}

// TestUnwritableDirStops proves a run into a folder it cannot write
// stops at once with the error, nothing written: a path under a regular
// file (which no user, root included, can make a folder in), and a folder
// whose creation is denied (the hook).
func TestUnwritableDirStops(t *testing.T) {
	tree := homeTree(t)
	t.Run("under a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(file, nil, 0o600))
		_, err := run(t, tree, filepath.Join(file, "archive"), Options{})
		require.ErrorIs(t, err, syscall.ENOTDIR)
	})
	t.Run("denied", func(t *testing.T) {
		dir := t.TempDir()
		res, err := run(t, tree, dir, Options{Hook: func(at Point, rel string) error {
			if at == AtCreate {
				return fs.ErrPermission
			}
			return nil
		}})
		require.ErrorIs(t, err, fs.ErrPermission)
		assert.Equal(t, 0, res.Copied)
		assert.Empty(t, temps(t, dir))
		_, err = os.Stat(filepath.Join(dir, manifestName))
		assert.ErrorIs(t, err, fs.ErrNotExist)
	})
}

// TestSecondRunAtOnceStops holds the archive's lock as a running run does
// and proves a second run stops at once (ErrBusy) writing nothing, and
// that the lock file a run leaves (a killed one's too) does not block the
// next once its holder is gone.
func TestSecondRunAtOnceStops(t *testing.T) {
	tree, dir := homeTree(t), t.TempDir()
	held, err := lockDir(dir)
	require.NoError(t, err)
	_, err = run(t, tree, dir, Options{})
	require.ErrorIs(t, err, ErrBusy)
	assert.Contains(t, err.Error(), "process ")
	_, err = os.Stat(filepath.Join(dir, manifestName))
	assert.ErrorIs(t, err, fs.ErrNotExist)
	held.Close() // its holder ends: the kernel lets the lock go, the file stays
	res, err := run(t, tree, dir, Options{})
	require.NoError(t, err)
	assert.Equal(t, res.Files, res.Copied)
}

func appendTo(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}
