package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The examples in README.md, docs/cookbook.md and docs/transcripts.md are run by TestDocExamples
// and must show what they really print. The convention:
//
//   - A fenced block whose info string is "console" is run. Lines that start
//     with "$ " are commands; a command line ending in a backslash goes on
//     on the next line. The lines after a command, up to the next "$ " line
//     or the end of the block, are what it prints: stdout and stderr as one
//     stream, as a terminal shows them.
//   - A command that exits non-zero ends its output with the line
//     "[exit N]"; one without that line must exit 0.
//   - Trailing spaces on a line and blank lines at the end of an output are
//     not compared (editors strip them; -update puts one blank line between
//     commands).
//   - Each command runs in `sh -c`, so pipes and redirections work, with
//     the ccfilter under test first on PATH, LC_ALL=C, TZ=UTC and no
//     terminal. All commands of a block share a scratch directory in which
//     testdata/ is the repository's: they read the captures as they would
//     from the repository root, and files they write are thrown away.
//   - "console needs=sqlite3,jq" runs the block only where those programs
//     are installed, and is skipped (with a message) elsewhere: CI has Go
//     and a Debian base system only. A block that calls one of ciLacks
//     without saying so fails.
//   - Anything else (```sh, ```yaml: claude -p, CI configuration) is
//     shown, not run.
//
// go test ./cmd/ccfilter -update rewrites every shown output (and [exit N]
// line) with what the commands print now; review it with git diff.
var docFiles = []string{"../../README.md", "../../docs/cookbook.md", "../../docs/transcripts.md", "../../docs/otel.md", "../../docs/usage.md"}

// ciLacks are programs the docs may use that a fresh CI machine lacks.
var ciLacks = []string{"sqlite3", "jq", "gojq", "zstd", "yq", "csvlook"}

var (
	fenceOpen = regexp.MustCompile("^(`{3,})console((?:\\s+\\S+)*)\\s*$")
	// a program name where a shell command starts: at the beginning, after
	// a pipe, ;, &&, || or an opening parenthesis or $(.
	cmdWord = regexp.MustCompile(`(?:^|[|;&(])\s*([A-Za-z0-9_][A-Za-z0-9_.-]*)`)
)

// docBlock is one console block.
type docBlock struct {
	file  string
	line  int // 1-based line of the opening fence
	needs []string
	cmds  []docCmd
}

// docCmd is one command of a block and the output the doc shows for it.
type docCmd struct {
	line     int    // 1-based line of the "$ " line
	script   string // the command, continuation lines joined with "\n"
	from, to int    // the shown output: lines[from:to] (0-based)
}

// parseDoc finds the console blocks of a markdown file.
func parseDoc(file string, lines []string) ([]docBlock, error) {
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			if n := fenceLen(lines[i]); n > 0 {
				// Skip other fenced blocks whole: a "$ " line in a ```sh
				// block is not run.
				for i++; i < len(lines) && !isFenceClose(lines[i], n); i++ {
				}
			}
			continue
		}
		b := docBlock{file: file, line: i + 1}
		for _, w := range strings.Fields(m[2]) {
			v, ok := strings.CutPrefix(w, "needs=")
			if !ok {
				return nil, fmt.Errorf("%s:%d: unknown word %q after console (only needs=PROG,...)", file, i+1, w)
			}
			b.needs = append(b.needs, strings.Split(v, ",")...)
		}
		n := len(m[1])
		i++
		for ; i < len(lines) && !isFenceClose(lines[i], n); i++ {
			l := lines[i]
			if !strings.HasPrefix(l, "$ ") {
				if len(b.cmds) == 0 {
					if strings.TrimSpace(l) == "" {
						continue
					}
					return nil, fmt.Errorf("%s:%d: output before the first \"$ \" command", file, i+1)
				}
				b.cmds[len(b.cmds)-1].to = i + 1
				continue
			}
			c := docCmd{line: i + 1, script: strings.TrimPrefix(l, "$ ")}
			for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
				i++
				l = lines[i]
				c.script += "\n" + l
			}
			c.from, c.to = i+1, i+1
			b.cmds = append(b.cmds, c)
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: console block is not closed", file, b.line)
		}
		if len(b.cmds) == 0 {
			return nil, fmt.Errorf("%s:%d: console block without a \"$ \" command", file, b.line)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

// fenceLen is the length of the backtick fence a line opens, or 0.
func fenceLen(l string) int {
	n := len(l) - len(strings.TrimLeft(l, "`"))
	if n < 3 {
		return 0
	}
	return n
}

func isFenceClose(l string, n int) bool {
	t := strings.TrimRight(l, " ")
	return len(t) >= n && strings.Trim(t, "`") == ""
}

// shown is the output a doc shows, as compared: trailing spaces and blank
// lines dropped.
func shown(lines []string) string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.TrimRight(l, " \t"))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// runDocCmd runs a command as the convention says and returns its output
// in the doc's form, [exit N] included.
func runDocCmd(t *testing.T, dir, script string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C", "TZ=UTC", "GORACE=" + os.Getenv("GORACE")}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out // one pipe: the order a terminal would show
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee) && ee.Exited():
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", script, err)
	}
	got := shown(strings.Split(out.String(), "\n"))
	if code != 0 {
		if got != "" {
			got += "\n"
		}
		got += "[exit " + strconv.Itoa(code) + "]"
	}
	return got
}

// TestDocExamples runs every console block of the docs and compares what
// each command prints with what the doc shows (see the convention above).
func TestDocExamples(t *testing.T) {
	// TestMain (testscript.Main) put this package's ccfilter first on PATH.
	bin, err := exec.LookPath("ccfilter")
	require.NoError(t, err)
	require.Equal(t, filepath.SplitList(os.Getenv("PATH"))[0], filepath.Dir(bin), "the ccfilter under test runs, not an installed one")
	testdata, err := filepath.Abs("../../testdata")
	require.NoError(t, err)
	total := 0
	for _, file := range docFiles {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		lines := strings.Split(string(data), "\n")
		blocks, err := parseDoc(filepath.Base(file), lines)
		require.NoError(t, err)
		require.NotEmpty(t, blocks, "%s has no console block", file)
		type edit struct {
			from, to int
			with     []string
		}
		var edits []edit
		for _, b := range blocks {
			t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
				for _, c := range b.cmds {
					for _, m := range cmdWord.FindAllStringSubmatch(c.script, -1) {
						for _, p := range ciLacks {
							if m[1] == p && !contains(b.needs, p) {
								t.Errorf("%s:%d: calls %s, which CI lacks: open the block with ```console needs=%s", b.file, c.line, p, p)
							}
						}
					}
				}
				for _, p := range b.needs {
					if _, err := exec.LookPath(p); err != nil {
						t.Skipf("needs %s, which is not installed (the block is marked needs=%s)", p, p)
					}
				}
				dir := t.TempDir()
				require.NoError(t, os.Symlink(testdata, filepath.Join(dir, "testdata")))
				for i, c := range b.cmds {
					total++
					got := runDocCmd(t, dir, c.script)
					if !*update {
						assert.Equal(t, shown(lines[c.from:c.to]), got,
							"%s:%d: $ %s\n(the doc shows the left side; go test ./cmd/ccfilter -update rewrites it)", b.file, c.line, c.script)
					}
					with := strings.Split(got, "\n")
					if got == "" {
						with = nil
					}
					if i < len(b.cmds)-1 {
						with = append(with, "")
					}
					edits = append(edits, edit{c.from, c.to, with})
				}
			})
		}
		if *update && len(edits) > 0 {
			// Apply from the end so that earlier line numbers stay valid.
			for i := len(edits) - 1; i >= 0; i-- {
				e := edits[i]
				lines = append(lines[:e.from], append(e.with, lines[e.to:]...)...)
			}
			require.NoError(t, os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644))
		}
	}
	t.Logf("ran %d commands", total)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestParseDoc pins the convention on a small document: which blocks run,
// where a command's output starts and ends, continuation lines, longer
// fences, needs=, and the mistakes that are reported.
func TestParseDoc(t *testing.T) {
	doc := strings.Split(strings.Join([]string{
		"# Title",                      // 0
		"```sh",                        // 1
		"$ claude -p hi | ccfilter",    // 2: shown, not run
		"```",                          // 3
		"```console",                   // 4
		"$ ccfilter final a.jsonl",     // 5
		"the answer",                   // 6
		"",                             // 7
		"$ ccfilter x \\",              // 8
		"    b.jsonl",                  // 9
		"[exit 4]",                     // 10
		"```",                          // 11
		"````console needs=sqlite3,jq", // 12
		"$ cat report.md",              // 13
		"```text",                      // 14: output, not a fence
		"```",                          // 15
		"````",                         // 16
	}, "\n"), "\n")
	blocks, err := parseDoc("doc.md", doc)
	require.NoError(t, err)
	require.Len(t, blocks, 2)
	assert.Equal(t, 5, blocks[0].line)
	assert.Empty(t, blocks[0].needs)
	assert.Equal(t, []docCmd{
		{line: 6, script: "ccfilter final a.jsonl", from: 6, to: 8},
		{line: 9, script: "ccfilter x \\\n    b.jsonl", from: 10, to: 11},
	}, blocks[0].cmds)
	assert.Equal(t, "the answer", shown(doc[6:8]))
	assert.Equal(t, []string{"sqlite3", "jq"}, blocks[1].needs)
	assert.Equal(t, []docCmd{{line: 14, script: "cat report.md", from: 14, to: 16}}, blocks[1].cmds)
	assert.Equal(t, "```text\n```", shown(doc[14:16]))

	for _, tc := range []struct{ doc, err string }{
		{"```console\noutput\n$ x\n```", "doc.md:2: output before the first"},
		{"```console\n$ x\n", "doc.md:1: console block is not closed"},
		{"```console\n\n```", "doc.md:1: console block without"},
		{"```console need=jq\n$ x\n```", `doc.md:1: unknown word "need=jq"`},
	} {
		_, err := parseDoc("doc.md", strings.Split(tc.doc, "\n"))
		assert.ErrorContains(t, err, tc.err, tc.doc)
	}
}
