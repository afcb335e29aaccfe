package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// archiveHome is a HOME whose ~/.claude/projects holds the project
// folders of every real transcript under testdata/transcripts (copied as
// Claude Code 2.1.328 left them: sessions, subagents, .meta.json,
// tool-results/, a Workflow's journal and workflows/); its archive goes to
// HOME/.local/share/ccfilter, the default with no XDG_DATA_HOME.
func archiveHome(t *testing.T) (home, tree string) {
	t.Helper()
	home = t.TempDir()
	tree = filepath.Join(home, ".claude", "projects")
	homes, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects")
	require.NoError(t, err)
	require.NotEmpty(t, homes)
	for _, h := range homes {
		require.NoError(t, os.CopyFS(tree, os.DirFS(h)))
	}
	return home, tree
}

// requireArchiveEqual proves the archive's projects folder holds every
// file of the tree byte for byte (a .jsonl as a .jsonl.zst, decompressed)
// and no temporary file.
func requireArchiveEqual(t *testing.T, tree, projects string) {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	require.NoError(t, err)
	defer dec.Close()
	n := 0
	require.NoError(t, filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tree, path)
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		copyPath := filepath.Join(projects, rel)
		if strings.HasSuffix(rel, ".jsonl") {
			copyPath += ".zst"
		}
		got, err := os.ReadFile(copyPath)
		require.NoError(t, err, "%s: not archived", rel)
		if strings.HasSuffix(rel, ".jsonl") {
			got, err = dec.DecodeAll(got, nil)
			require.NoError(t, err, rel)
		}
		require.True(t, bytes.Equal(want, got), "%s: the copy differs", rel)
		n++
		return nil
	}))
	require.Positive(t, n)
	assert.Empty(t, archiveTemps(t, projects))
}

func archiveTemps(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".ccfilter-tmp-") {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestArchiveKilledMidCopyThenFullRunEqualsTree SIGKILLs a real
// `ccfilter archive` process at its 3rd copy, written and synced but not
// renamed into place (the process says when it is there: see
// archiveStopEnv), and proves no torn file is in place (the 3rd is a
// temporary file), the lock it held does not block the next run, and the
// next run leaves the archive equal to the tree, the temporary file gone.
func TestArchiveKilledMidCopyThenFullRunEqualsTree(t *testing.T) {
	home, tree := archiveHome(t)
	projects := filepath.Join(home, ".local", "share", "ccfilter", "projects")
	cmd := exec.Command(ccfilterExe(t), "archive")
	stopR, stopW, err := os.Pipe()
	require.NoError(t, err)
	cmd.ExtraFiles = []*os.File{stopW}
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_DATA_HOME=", "CLAUDE_CONFIG_DIR=", archiveStopEnv+"=3")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	stopW.Close()
	stopped := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stopR).ReadString('\n')
		stopped <- line
	}()
	select {
	case line := <-stopped:
		if !strings.HasPrefix(line, "stopped ") {
			// (stderr is read once the process has ended: its copy
			// goroutine writes it until then.)
			cmd.Wait()
			t.Fatalf("the command ended before its 3rd copy: %q %s", line, stderr.String())
		}
	case <-time.After(liveTimeout):
		cmd.Process.Kill()
		t.Fatal("the command never reached its 3rd copy")
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	require.Len(t, archiveTemps(t, projects), 1, "killed with the 3rd copy in its temporary file")

	got := runHome(home, "archive")
	require.Equal(t, 0, got.Code, got.Stderr)
	assert.Contains(t, got.Stderr, "ccfilter: archive "+filepath.Dir(projects)+": ")
	assert.Contains(t, got.Stderr, ", 2 unchanged", "the 2 copies renamed before the kill are not made again")
	requireArchiveEqual(t, tree, projects)
}

// TestArchiveReadsAsTheProjectsTree archives the real transcripts and
// proves every reader takes the archive as it takes ~/.claude/projects:
// sessions lists the same sessions with the same figures, usage --by day
// says the same, usage --by month over the archive and the tree counts
// each call once (the same as the tree alone), and once a session is
// deleted from the tree (Claude Code's cleanup) its id is found in the
// archive and final prints its answer.
func TestArchiveReadsAsTheProjectsTree(t *testing.T) {
	home, tree := archiveHome(t)
	projects := filepath.Join(home, ".local", "share", "ccfilter", "projects")
	got := runHome(home, "archive")
	require.Equal(t, 0, got.Code, got.Stderr)

	rows := func(args ...string) []map[string]any {
		t.Helper()
		r := runHome(home, append(args, "-F", "json")...)
		require.Equal(t, 0, r.Code, r.Stderr)
		var out []map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
		for _, row := range out {
			delete(row, "path") // (the archive's is its .jsonl.zst)
		}
		require.NotEmpty(t, out)
		return out
	}
	assert.Equal(t, rows("sessions", tree), rows("sessions", projects))
	assert.Equal(t, rows("sessions", tree), rows("sessions", filepath.Dir(projects)), "the archive's DIR is read as its projects tree")
	assert.Equal(t, rows("usage", "--by", "day", tree), rows("usage", "--by", "day", projects))
	assert.Equal(t, rows("usage", "--by", "month", tree), rows("usage", "--by", "month", projects, tree), "each call once")

	// A session read whole joins its subagents' files from its folder,
	// compressed in the archive: 60-long-session's three subagents, and
	// 37-workflow's agents in the order of their (compressed) journal.
	for _, session := range []string{"6e7ff9fa-7236-4618-a5f9-c62fb06889c4", "2047a0b8-356e-48bf-903b-9198dfe3aab2"} {
		path := filepath.Join("-home-user-project", session+".jsonl")
		assert.Equal(t, rows("subagents", filepath.Join(tree, path)), rows("subagents", filepath.Join(projects, path+".zst")), session)
		assert.Equal(t, runHome(home, "all", filepath.Join(tree, path)), runHome(home, "all", filepath.Join(projects, path+".zst")), session)
	}

	// 02-write-read's session, gone from the tree.
	const id = "0db2634f-ae79-455c-9f0e-6a3434377177"
	before := runHome(home, "final", id[:8])
	require.Equal(t, 0, before.Code, before.Stderr)
	require.NoError(t, os.Remove(filepath.Join(tree, "-home-user-project", id+".jsonl")))
	after := runHome(home, "final", id[:8])
	require.Equal(t, 0, after.Code, after.Stderr)
	assert.Equal(t, before.Stdout, after.Stdout)
	assert.NotEmpty(t, after.Stdout)
}

// TestArchiveNamesAFIFOAndExits5 puts a FIFO with no writer beside the
// real sessions and proves archive neither waits on it nor stops: it is
// named on stderr, every other file is archived, and the exit is 5.
func TestArchiveNamesAFIFOAndExits5(t *testing.T) {
	home, tree := archiveHome(t)
	fifo := filepath.Join(tree, "-home-user-project", "stuck.jsonl")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	to := filepath.Join(t.TempDir(), "archive")
	got := runHome(home, "archive", "--to", to)
	assert.Equal(t, exitInput, got.Code)
	assert.Contains(t, got.Stderr, "ccfilter: archive: "+fifo+": not a regular file (a FIFO): not archived\n")
	assert.Contains(t, got.Stderr, ", 1 not read\n")
	assert.Empty(t, got.Stdout)
	require.NoError(t, os.Remove(fifo))
	requireArchiveEqual(t, tree, filepath.Join(to, "projects"))
}
