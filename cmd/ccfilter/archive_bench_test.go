package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// benchTree builds a projects tree of copies of every real transcript's
// project folder under testdata/transcripts, each copy's session ids,
// message ids and request ids renamed (so that no call of a copy is
// another's to usage --by), until it holds about mb megabytes.
func benchTree(b *testing.B, root string, mb int) int64 {
	b.Helper()
	homes, err := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects")
	if err != nil || len(homes) == 0 {
		b.Fatal("no transcripts", err)
	}
	uuid := regexp.MustCompile(`[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})`)
	ids := regexp.MustCompile(`"(msg|req)_`)
	var total int64
	for i := 0; total < int64(mb)<<20; i++ {
		tag := fmt.Sprintf("%08x", i)
		for _, h := range homes {
			err := filepath.WalkDir(h, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				rel, _ := filepath.Rel(h, path)
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				data = uuid.ReplaceAll(data, []byte(tag+"$1"))
				data = ids.ReplaceAll(data, []byte(`"${1}_`+tag))
				dst := filepath.Join(root, uuid.ReplaceAllString(rel, tag+"$1"))
				if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
					return err
				}
				total += int64(len(data))
				return os.WriteFile(dst, data, 0o644)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	return total
}

// BenchmarkArchive times `ccfilter archive` of a tree made from the real
// transcripts (its first run, then a run with nothing new), and `usage
// --by day` over the archive and the tree together, each as its own
// process, with its peak RSS (by /usr/bin/time, when there). Not in make
// test. The tree's size:
// CCFILTER_BENCH_ARCHIVE_MB (default 40).
//
// Measured with CCFILTER_BENCH_ARCHIVE_MB=800 (a 0.8 GB tree), on 2
// cores shared with other work (load 12 to 18, so the times are upper
// bounds): figures in docs/archive.md#cost.
func BenchmarkArchive(b *testing.B) {
	mb := 40
	if v, err := strconv.Atoi(os.Getenv("CCFILTER_BENCH_ARCHIVE_MB")); err == nil {
		mb = v
	}
	dir := b.TempDir()
	tree := filepath.Join(dir, "projects")
	size := benchTree(b, tree, mb)
	// The command as built, not the test binary: main's memory limit
	// is part of what its peak RSS is.
	exe := filepath.Join(dir, "ccfilter")
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		b.Fatal(err)
	}
	timeCmd, _ := exec.LookPath("/usr/bin/time")
	maxRSS := regexp.MustCompile(`maxrss ([0-9]+)`)
	run := func(b *testing.B, args ...string) {
		b.Helper()
		// The peak RSS by GNU time's %M: a child this process starts
		// itself reports, in its rusage, this process's own peak too
		// (Go starts a child with vfork, and exec keeps the shared
		// memory's high-water mark), so a small process in between
		// starts it.
		var cmd *exec.Cmd
		if timeCmd != "" {
			cmd = exec.Command(timeCmd, append([]string{"-f", "maxrss %M", exe}, args...)...)
		} else {
			cmd = exec.Command(exe, args...)
		}
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME=", "CLAUDE_CONFIG_DIR=")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = nil, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		if m := maxRSS.FindSubmatch(stderr.Bytes()); m != nil {
			kb, _ := strconv.Atoi(string(m[1]))
			b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
		}
		b.ReportMetric(float64(size)/(1<<20), "tree-MB")
	}
	archive := filepath.Join(dir, "archive")
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			os.RemoveAll(archive)
			b.StartTimer()
			run(b, "archive", "--to", archive, tree)
		}
	})
	b.Run("nothing-new", func(b *testing.B) {
		for b.Loop() {
			run(b, "archive", "--to", archive, tree)
		}
	})
	b.Run("usage-by-day-archive-and-tree", func(b *testing.B) {
		for b.Loop() {
			run(b, "usage", "--by", "day", filepath.Join(archive, "projects"), tree)
		}
	})
}
