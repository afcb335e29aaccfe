package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/preset"
)

// watched is an output a test watches grow: written by the command on
// its goroutine, read by the test, which waits for what it expects.
type watched struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
}

func newWatched() *watched { return &watched{more: make(chan struct{}, 1)} }

func (w *watched) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	select {
	case w.more <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watched) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitUntil waits until ok(what was written) holds, or the run ended,
// or liveTimeout passed.
func (w *watched) waitUntil(t *testing.T, done <-chan int, what string, ok func(string) bool) {
	t.Helper()
	deadline := time.After(liveTimeout)
	for !ok(w.String()) {
		select {
		case <-w.more:
		case <-done:
			require.True(t, ok(w.String()), "the run ended before %s:\n%s", what, w.String())
			return
		case <-deadline:
			t.Fatalf("waited %v for %s; have:\n%s", liveTimeout, what, w.String())
		}
	}
}

// followRun is a command running in the test's process, its outputs
// watched; code receives its exit code when it ends.
type followRun struct {
	stdout, stderr *watched
	code           chan int
}

func startFollow(t testing.TB, args ...string) *followRun {
	t.Helper()
	r := &followRun{stdout: newWatched(), stderr: newWatched(), code: make(chan int, 1)}
	go func() {
		o := &options{presets: preset.Builtin()}
		r.code <- runWith(o, args, strings.NewReader(""), r.stdout, r.stderr, []string{"NO_COLOR=1", "HOME=" + os.Getenv("HOME")})
	}()
	return r
}

// end waits for the run's exit code.
func (r *followRun) end(t *testing.T) int {
	t.Helper()
	select {
	case c := <-r.code:
		return c
	case <-time.After(liveTimeout):
		t.Fatalf("the run did not end; stderr:\n%s", r.stderr.String())
	}
	return -1
}

// interrupt does what Ctrl-C does to a followed input (exitOnInterrupt
// calls the same hook), once the run has put it in place.
func (r *followRun) interrupt(t *testing.T) {
	t.Helper()
	hook := softInterrupt.Load()
	require.NotNil(t, hook, "a followed input takes Ctrl-C")
	softInterrupt.CompareAndSwap(hook, nil)
	(*hook)()
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// writes cuts a capture into what a writer appends, one event at a time:
// every third line in two pieces (the CLI's line, as a slow pipe passes
// it on), and the results that end the capture together (the CLI holds
// them and prints them at the very end).
func writes(text string) []string {
	lines := strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n")
	lines[len(lines)-1] += "\n"
	end := len(lines)
	for end > 1 && strings.HasPrefix(lines[end-2], `{"type":"result"`) {
		end--
	}
	var out []string
	for i, l := range lines[:end-1] {
		if i%3 == 2 && len(l) > 10 {
			out = append(out, l[:len(l)/2], l[len(l)/2:])
			continue
		}
		out = append(out, l)
	}
	return append(out, strings.Join(lines[end-1:], ""))
}

// TestFollowShowsEachEventAsWritten proves ccfilter -f on a file being
// written by a run (real captures appended event by event, some lines in
// two pieces) prints each event before the next is written, waits for a
// file not there yet and says so, and ends on its own after the run's
// result with the run's exit code: byte for byte what ccfilter prints of
// the whole file, in an expression's JSON, the text view and final.
func TestFollowShowsEachEventAsWritten(t *testing.T) {
	for _, name := range []string{"04-parallel-tools.jsonl", "05-subagents-async.jsonl", "06-background-bash.jsonl", "09-auth-401.jsonl", "12-max-turns.jsonl", "07-partial-messages.jsonl"} {
		for _, args := range [][]string{{"-c", "."}, {}, {"final"}} {
			t.Run(name+" "+strings.Join(args, " "), func(t *testing.T) {
				whole := capture(t, name)
				path := filepath.Join(t.TempDir(), "run.jsonl")
				full := filepath.Join(t.TempDir(), "full.jsonl")
				require.NoError(t, os.WriteFile(full, []byte(whole), 0o644))
				want := runIn(t, append(append([]string{}, args...), full), "")

				run := startFollow(t, append(append([]string{"-f", "--follow-grace", "200ms"}, args...), path)...)
				run.stderr.waitUntil(t, run.code, "the note of a missing file", func(s string) bool {
					return strings.Contains(s, "run.jsonl does not exist yet: waiting for it")
				})
				written := ""
				for _, w := range writes(whole) {
					appendFile(t, path, w)
					written += w
					if len(args) == 0 || args[0] != "-c" || !strings.HasSuffix(written, "\n") {
						continue // the views print some events, and final at the end
					}
					// One JSON line out for each event in: out before the next is written.
					events := strings.Count(written, "\n")
					run.stdout.waitUntil(t, run.code, "event "+string(rune('0'+events%10)), func(s string) bool { return strings.Count(s, "\n") >= events })
				}
				code := run.end(t)
				assert.Equal(t, want.Code, code, "the run's exit code")
				assert.Equal(t, want.Stdout, run.stdout.String())
				assert.Equal(t, strings.ReplaceAll(want.Stderr, full, path), strings.Replace(run.stderr.String(),
					"ccfilter: "+path+" does not exist yet: waiting for it\nccfilter: "+path+" is there now: reading it\n", "", 1))
			})
		}
	}
}

// TestFollowTruncatedAndRotated proves a followed file truncated or
// replaced midway (a run written again over it, log rotation) is said on
// stderr and read again from its start: the output is the cut run's, then
// the new run's, and the exit code the new run's.
func TestFollowTruncatedAndRotated(t *testing.T) {
	first := capture(t, "04-parallel-tools.jsonl")
	half := strings.Join(strings.SplitAfter(first, "\n")[:6], "")
	second := capture(t, "09-auth-401.jsonl")
	dir := t.TempDir()
	halfFile, secondFile := filepath.Join(dir, "half.jsonl"), filepath.Join(dir, "second.jsonl")
	require.NoError(t, os.WriteFile(halfFile, []byte(half), 0o644))
	require.NoError(t, os.WriteFile(secondFile, []byte(second), 0o644))
	wantHalf, wantSecond := runIn(t, []string{"-e", halfFile}, ""), runIn(t, []string{"-e", secondFile}, "")
	require.Equal(t, 1, wantSecond.Code)

	for _, tc := range []struct {
		how, said string
		change    func(path string)
	}{
		// Truncated and written again at once: the reader sees either.
		{"truncated", "was (truncated|rewritten from its start)", func(path string) { require.NoError(t, os.WriteFile(path, []byte(second), 0o644)) }},
		{"rotated", "was replaced", func(path string) {
			require.NoError(t, os.Rename(path, path+".1"))
			require.NoError(t, os.WriteFile(path, []byte(second), 0o644))
		}},
	} {
		t.Run(tc.how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(half), 0o644))
			run := startFollow(t, "-e", "-f", "--follow-grace", "200ms", path)
			run.stdout.waitUntil(t, run.code, "the first half's calls", func(s string) bool {
				return strings.HasPrefix(wantHalf.Stdout, s) && strings.Contains(s, "→ Write  /home/user/project/c.txt\n")
			})
			tc.change(path)
			code := run.end(t)
			assert.Equal(t, 1, code, "the new run's exit code")
			assert.Equal(t, wantHalf.Stdout+wantSecond.Stdout, run.stdout.String())
			assert.Regexp(t, "ccfilter: "+regexp.QuoteMeta(path)+" "+tc.said+": reading it again from its start\n", run.stderr.String())
		})
	}
}

// transcriptLines returns a session transcript's copy (its folder with
// it) and the main file's lines, the file emptied for the test to write.
func transcriptLines(t *testing.T, name string) (string, []string) {
	t.Helper()
	path := copySession(t, name)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, nil, 0o644))
	return path, strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// lastUUID is the uuid of the last record among lines that has one.
func lastUUID(t *testing.T, lines []string) string {
	t.Helper()
	for i := len(lines) - 1; i >= 0; i-- {
		if _, after, ok := strings.Cut(lines[i], `"uuid":"`); ok {
			id, _, _ := strings.Cut(after, `"`)
			return id
		}
	}
	t.Fatal("no uuid")
	return ""
}

// TestFollowTranscriptJoinsSubagentsAndEndsAtInterrupt proves a session
// transcript written as the run goes (05-subagents-async: two background
// subagents) is followed past what a stream's end would be, with each
// subagent's records joined once it has finished; and that Ctrl-C ends it
// with exit 130 after what was read is printed, as the whole file's
// report prints it (the same tool calls, the subagents' among them).
func TestFollowTranscriptJoinsSubagentsAndEndsAtInterrupt(t *testing.T) {
	path, lines := transcriptLines(t, "05-subagents-async")
	whole := strings.Join(lines, "")
	wholeCopy := filepath.Join(filepath.Dir(path), "whole-"+filepath.Base(path))
	require.NoError(t, os.WriteFile(wholeCopy, []byte(whole), 0o644))
	require.NoError(t, os.Symlink(strings.TrimSuffix(path, ".jsonl"), strings.TrimSuffix(wholeCopy, ".jsonl")))
	want := runIn(t, []string{"tools", "-F", "csv", wholeCopy}, "")
	require.Equal(t, 0, want.Code, want.Stderr)
	require.Equal(t, 5, strings.Count(want.Stdout, "\n"), "a header and 4 calls, 2 of them the subagents':\n%s", want.Stdout)

	run := startFollow(t, "-f", "--follow-grace", "10ms", "-c", ".", path)
	half := len(lines) / 2
	appendFile(t, path, strings.Join(lines[:half], ""))
	run.stdout.waitUntil(t, run.code, "the first half", func(s string) bool { return strings.Contains(s, lastUUID(t, lines[:half])) })
	appendFile(t, path, strings.Join(lines[half:], ""))
	run.stdout.waitUntil(t, run.code, "the second half", func(s string) bool { return strings.Contains(s, lastUUID(t, lines)) })
	for _, agent := range []string{"aaf4be6061cae469c", "a2efea0094b20e458"} {
		assert.Contains(t, run.stdout.String(), `"agentId":"`+agent+`"`, "subagent %s joined", agent)
	}
	select {
	case code := <-run.code:
		t.Fatalf("a transcript has no end; the run ended with %d", code)
	default:
	}
	run.interrupt(t)
	assert.Equal(t, exitInterrupted, run.end(t))
	assert.Contains(t, run.stderr.String(), "ccfilter: interrupted\n")

	tools := startFollow(t, "tools", "-F", "csv", "-f", path)
	tools.stdout.waitUntil(t, tools.code, "every call", func(s string) bool { return strings.Count(s, "\n") >= 5 })
	tools.interrupt(t)
	assert.Equal(t, exitInterrupted, tools.end(t), tools.stderr.String())
	// The same calls; the background subagents' after the main agent's
	// (joined when each has finished, not at its call).
	assert.ElementsMatch(t, strings.Split(want.Stdout, "\n"), strings.Split(tools.stdout.String(), "\n"))
}

// TestFollowProjectFolderSwitches proves -f on a project folder follows
// its newest session, waits for one when it has none, and switches to a
// newer session when one starts, saying so; and that -f with no file
// follows the working directory's project under ~/.claude/projects.
func TestFollowProjectFolderSwitches(t *testing.T) {
	a, aLines := transcriptLines(t, "02-write-read")
	b, bLines := transcriptLines(t, "04-parallel-tools")
	home := t.TempDir()
	cwd, err := os.Getwd()
	require.NoError(t, err)
	project := input.ProjectFolder(filepath.Join(home, ".claude", "projects"), cwd)
	for _, tc := range []struct {
		name string
		dir  string
		args []string
	}{
		{"folder", filepath.Join(t.TempDir(), "-home-user-project"), nil},
		{"no file", project, []string{"HOME"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.MkdirAll(tc.dir, 0o755))
			args := []string{"-f", "-c", ".", tc.dir}
			if tc.args != nil {
				t.Setenv("HOME", home)
				args = []string{"-f", "-c", "."}
			}
			run := startFollow(t, args...)
			run.stderr.waitUntil(t, run.code, "the wait for a session", func(s string) bool { return strings.Contains(s, "no session yet: waiting for one to start") })
			sa := filepath.Join(tc.dir, filepath.Base(a))
			appendFile(t, sa, strings.Join(aLines, ""))
			run.stdout.waitUntil(t, run.code, "the first session", func(s string) bool { return strings.Contains(s, lastUUID(t, aLines)) })
			sb := filepath.Join(tc.dir, filepath.Base(b))
			appendFile(t, sb, strings.Join(bLines, ""))
			run.stdout.waitUntil(t, run.code, "the newer session", func(s string) bool { return strings.Contains(s, lastUUID(t, bLines)) })
			assert.Contains(t, run.stderr.String(), "ccfilter: following "+sa+"\n")
			assert.Contains(t, run.stderr.String(), "ccfilter: a newer session started: switching to it\nccfilter: following "+sb+"\n")
			run.interrupt(t)
			assert.Equal(t, exitInterrupted, run.end(t))
		})
	}
}

// ccfilterExe is the test binary called as ccfilter (TestMain), for the
// tests that need a process of its own: a terminal, a signal.
func ccfilterExe(t *testing.T) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "ccfilter")
	require.NoError(t, os.Symlink(os.Args[0], exe))
	return exe
}

// waitExit waits for cmd's exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(liveTimeout):
		cmd.Process.Kill()
		t.Fatal("the command did not end")
	}
	return -1
}

// TestFollowCtrlCEndsATranscript proves a followed transcript ends at
// Ctrl-C (SIGINT to the process) with exit 130, after printing what was
// read, and no result made of it (the session has not ended).
func TestFollowCtrlCEndsATranscript(t *testing.T) {
	path, lines := transcriptLines(t, "02-write-read")
	appendFile(t, path, strings.Join(lines, ""))
	cmd := exec.Command(ccfilterExe(t), "-f", "-c", ".", path)
	stdout, stderr := newWatched(), newWatched()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	stdout.waitUntil(t, nil, "the session's records", func(s string) bool { return strings.Contains(s, lastUUID(t, lines)) })
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, exitInterrupted, waitExit(t, cmd))
	assert.Equal(t, "ccfilter: interrupted\n", stderr.String())
	assert.NotContains(t, stdout.String(), `"type":"result"`, "no result made up for a session cut by Ctrl-C")
}

// TestFollowCtrlCEndsStreamAndTranscriptAlike proves Ctrl-C under -f ends
// a stream and a session transcript cut at the same point alike (the
// real 04-parallel-tools run, as a stream and as its transcript, written
// up to its calls): what was read is printed, the calls without a result
// are listed as such, and no outcome is made up (a transcript's result,
// made of a finished session's records, said "✓ run ok" of a session cut
// mid-call); exit 130.
func TestFollowCtrlCEndsStreamAndTranscriptAlike(t *testing.T) {
	// The stream's init, text and first three calls; the transcript's
	// records up to the same three calls (its line 22).
	streamLines := strings.SplitAfter(capture(t, "04-parallel-tools.jsonl"), "\n")
	streamPath := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(streamPath, []byte(strings.Join(streamLines[:5], "")), 0o644))
	transcriptPath, lines := transcriptLines(t, "04-parallel-tools")
	require.Contains(t, lines[21], `"name":"Bash"`)
	appendFile(t, transcriptPath, strings.Join(lines[:22], ""))
	open := "○ main  Read  /home/user/project/a.txt  (no result)\n" +
		"○ main  Read  /home/user/project/b.txt  (no result)\n" +
		"○ main  Bash  sleep 0.5; echo slow-bash-done  (no result)\n"
	for _, tc := range []struct{ kind, path string }{{"stream", streamPath}, {"transcript", transcriptPath}} {
		t.Run(tc.kind, func(t *testing.T) {
			run := startFollow(t, "-f", tc.path)
			run.stdout.waitUntil(t, run.code, "the Bash call", func(s string) bool { return strings.Contains(s, "→ Bash") })
			run.interrupt(t)
			assert.Equal(t, exitInterrupted, run.end(t))
			out := run.stdout.String()
			assert.True(t, strings.HasSuffix(out, open), "the calls without a result, last:\n%s", out)
			assert.NotContains(t, out, "run ok", "no outcome made up")
		})
	}
}

// TestFollowStatusLine proves the status line under a pseudo-terminal:
// drawn on stderr while the run goes (the tool calls running), redrawn in
// place when the run moves on, cleared when it ends; never on stdout; and
// not printed at all when stderr is a file.
func TestFollowStatusLine(t *testing.T) {
	exe := ccfilterExe(t)
	events := strings.SplitAfter(capture(t, "04-parallel-tools.jsonl"), "\n")
	for _, terminal := range []bool{true, false} {
		path := filepath.Join(t.TempDir(), "run.jsonl")
		cmd := exec.Command(exe, "-f", "--follow-grace", "200ms", path)
		cmd.Env = append(os.Environ(), "TERM=xterm", "NO_COLOR=1")
		stdout, stderr := newWatched(), newWatched()
		cmd.Stdout = stdout
		// drained is closed when all the terminal got is copied (its read
		// fails once the command, the last holder of its other end, has
		// ended): what the test reads after the exit is all of it.
		drained := make(chan struct{})
		if terminal {
			ptm, pts, err := pty.Open()
			require.NoError(t, err)
			defer ptm.Close()
			require.NoError(t, pty.Setsize(ptm, &pty.Winsize{Rows: 24, Cols: 100}))
			cmd.Stderr = pts
			go func() { io.Copy(stderr, ptm); close(drained) }()
			require.NoError(t, cmd.Start())
			pts.Close()
		} else {
			cmd.Stderr = stderr
			require.NoError(t, cmd.Start())
		}
		appendFile(t, path, strings.Join(events[:6], "")) // the init and four calls
		stdout.waitUntil(t, nil, "the calls", func(s string) bool { return strings.Contains(s, "→ Write") })
		if terminal {
			stderr.waitUntil(t, nil, "a status line with the calls running", func(s string) bool {
				return strings.Contains(s, "\r⏵ ") && strings.Contains(s, "Read") && strings.Contains(s, "+1 more")
			})
		}
		appendFile(t, path, strings.Join(events[6:], ""))
		assert.Equal(t, 0, waitExit(t, cmd))
		if terminal {
			select {
			case <-drained:
			case <-time.After(liveTimeout):
				t.Fatalf("the terminal's output was not drained in %v", liveTimeout)
			}
		}
		got := stderr.String()
		if !terminal {
			assert.NotContains(t, got, "⏵", "no status line when stderr is a file")
			assert.NotContains(t, got, "\x1b")
			continue
		}
		last := strings.LastIndex(got, "\r⏵ ")
		require.GreaterOrEqual(t, last, 0)
		rest := got[last:]
		assert.Contains(t, rest, "\x1b[K\r\x1b[K", "the last line drawn is cleared")
		assert.NotContains(t, strings.TrimSuffix(rest[strings.Index(rest, "\x1b[K")+3:], "\r\x1b[K"), "⏵", "nothing drawn after")
		assert.NotContains(t, stdout.String(), "⏵", "never on stdout")
		assert.NotContains(t, stdout.String(), "\x1b")
	}
}

// TestFollowRefusals proves --follow refuses what it cannot do with a
// usage error: several files, usage --by, a grace of nothing; and reads a
// FIFO as it reads it without --follow (its reads wait anyway).
func TestFollowRefusals(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a.jsonl")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-f", a, a}, "--follow follows one file, session or project folder"},
		{[]string{"usage", "--by", "day", "-f"}, "--follow reads one run as it is written"},
		{[]string{"-f", "--follow-grace", "0s", a}, "--follow-grace must be positive"},
		{[]string{"--status", "--no-status", a}, "--status and --no-status say the opposite"},
		{[]string{"--pid", "1", a}, "--pid PID goes with --follow"},
		{[]string{"-f", "--pid", "-3", a}, "--pid PID goes with --follow, PID a process's id"},
	} {
		r := runIn(t, tc.args, "")
		assert.Equal(t, exitUsage, r.Code, "%v", tc.args)
		assert.Contains(t, r.Stderr, tc.says, "%v", tc.args)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	mkfifo(t, fifo)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(capture(t, "01-plain-text.jsonl"))
			f.Close()
		}
	}()
	r := runIn(t, []string{"final", "-f", fifo}, "")
	assert.Equal(t, 0, r.Code, r.Stderr)
	assert.Equal(t, "Hello! I am a scripted fake model. 2 + 2 = 4.\n", r.Stdout)
}

// TestStatusLineWhen proves when the status line is shown: never when
// stderr is not a terminal or with --no-status; with --status, --follow,
// or a pipe on stdin read alone; not for a file read to its end, nor for
// several inputs.
func TestStatusLineWhen(t *testing.T) {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	defer pw.Close()
	file, err := os.Open("../../testdata/events/01-plain-text.jsonl")
	require.NoError(t, err)
	defer file.Close()
	for _, tc := range []struct {
		name                       string
		terminal, follow, st, nost bool
		stdin                      io.Reader
		files                      []string
		want                       bool
	}{
		{"a live pipe", true, false, false, false, pr, []string{"-"}, true},
		{"a file on stdin", true, false, false, false, file, []string{"-"}, false},
		{"a named file", true, false, false, false, pr, []string{"run.jsonl"}, false},
		{"a file, --status", true, false, true, false, file, []string{"run.jsonl"}, true},
		{"--follow", true, true, false, false, file, []string{"run.jsonl"}, true},
		{"--follow --no-status", true, true, false, true, file, []string{"run.jsonl"}, false},
		{"stderr a file", false, true, true, false, pr, []string{"-"}, false},
		{"two inputs", true, false, false, false, pr, []string{"-", "run.jsonl"}, false},
	} {
		o := &options{Follow: tc.follow, Status: tc.st, NoStatus: tc.nost, stdin: tc.stdin,
			terminalErr: func() bool { return tc.terminal }}
		assert.Equal(t, tc.want, o.statusWanted(&plan{files: tc.files}), tc.name)
	}
}

// TestFollowInterruptMidLine proves Ctrl-C while a line is being written
// ends the run without calling that line malformed: it was cut by the
// reading, not by the writer.
func TestFollowInterruptMidLine(t *testing.T) {
	lines := strings.SplitAfter(capture(t, "04-parallel-tools.jsonl"), "\n")
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:3], "")+lines[3][:40]), 0o644))
	run := startFollow(t, "-f", path)
	run.stdout.waitUntil(t, run.code, "the calls read", func(s string) bool { return strings.Contains(s, "→ Read") })
	run.interrupt(t)
	assert.Equal(t, exitInterrupted, run.end(t))
	assert.Equal(t, "ccfilter: interrupted\n", run.stderr.String())
}

// TestFollowSessionFolder proves -f on a session's folder (the one
// beside its transcript, with subagents/ in it) follows that transcript,
// not a project of one.
func TestFollowSessionFolder(t *testing.T) {
	path, lines := transcriptLines(t, "05-subagents-async")
	appendFile(t, path, strings.Join(lines, ""))
	run := startFollow(t, "-f", "-c", ".", strings.TrimSuffix(path, ".jsonl")+"/")
	run.stdout.waitUntil(t, run.code, "the session's records", func(s string) bool { return strings.Contains(s, lastUUID(t, lines)) })
	run.interrupt(t)
	assert.Equal(t, exitInterrupted, run.end(t))
	assert.NotContains(t, run.stderr.String(), "no session yet")
}

// TestFollowEndsAtAResultWithoutNewline proves -f ends a run whose last
// line, its result, has no newline after it (a writer that ends without
// one), as the same file is read without -f: once the grace period has
// passed, a whole JSON value is the last line. The inputs are real
// captures with their last newline cut off.
func TestFollowEndsAtAResultWithoutNewline(t *testing.T) {
	for _, tc := range []struct {
		capture string
		args    []string
	}{
		{"01-plain-text.jsonl", []string{"final"}},
		{"01-plain-text.jsonl", []string{"-c", "."}},
		{"12-max-turns.jsonl", []string{"-e"}},
	} {
		t.Run(tc.capture+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(strings.TrimSuffix(capture(t, tc.capture), "\n")), 0o644))
			want := runIn(t, append(append([]string{}, tc.args...), path), "")
			run := startFollow(t, append(append([]string{"-f", "--follow-grace", "50ms"}, tc.args...), path)...)
			assert.Equal(t, want.Code, run.end(t), "the run's exit code")
			assert.Equal(t, want.Stdout, run.stdout.String())
			assert.Equal(t, want.Stderr, run.stderr.String())
		})
	}
}

// TestFollowPidEndsWhenTheWriterEnds proves -f --pid PID ends the follow
// once that process has ended, after what it wrote is read, with the
// exit code and output of the finished file: a producer killed before its
// result (09c-auth-401-killed, a 401 retry loop stopped by timeout) no
// longer leaves ccfilter waiting. The producer is a real child process
// (cat, writing the capture to the followed file); it is ended by closing
// its input, and reaped, before the follow is expected to end.
func TestFollowPidEndsWhenTheWriterEnds(t *testing.T) {
	text := capture(t, "09c-auth-401-killed.jsonl")
	for _, args := range [][]string{{"-e"}, {"final"}, {"-c", "."}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			full := filepath.Join(dir, "full.jsonl")
			require.NoError(t, os.WriteFile(full, []byte(text), 0o644))
			want := runIn(t, append(append([]string{}, args...), full), "")
			require.NotEqual(t, 0, want.Code+len(want.Stdout), "the finished file says something")

			path := filepath.Join(dir, "run.jsonl")
			out, err := os.Create(path)
			require.NoError(t, err)
			defer out.Close()
			producer := exec.Command("cat")
			producer.Stdout = out
			in, err := producer.StdinPipe()
			require.NoError(t, err)
			require.NoError(t, producer.Start())
			run := startFollow(t, append(append([]string{"-f", "--follow-grace", "10ms", "--pid", strconv.Itoa(producer.Process.Pid)}, args...), path)...)
			_, err = io.WriteString(in, text)
			require.NoError(t, err)
			if args[0] == "-c" {
				run.stdout.waitUntil(t, run.code, "every event", func(s string) bool { return strings.Count(s, "\n") == strings.Count(text, "\n") })
			}
			select {
			case code := <-run.code:
				t.Fatalf("the follow ended (%d) while its writer runs", code)
			default:
			}
			require.NoError(t, in.Close()) // cat ends at its input's end
			require.NoError(t, producer.Wait())
			assert.Equal(t, want.Code, run.end(t), "the run's exit code as far as it got")
			assert.Equal(t, want.Stdout, run.stdout.String())
			assert.Equal(t, "ccfilter: the process writing "+path+" has ended: read to its end\n"+strings.ReplaceAll(want.Stderr, full, path), run.stderr.String())
		})
	}
}

// TestFollowMarkdownHasNoGlance holds what docs/follow.md says differs
// under -f: the markdown report of a followed file is the finished file's
// without its "At a glance" block (which needs the whole run before the
// report starts) and the anchors its links point to, and otherwise the
// same. Real captures: 03-bash-fail (a trouble listed), 01-plain-text
// (none).
func TestFollowMarkdownHasNoGlance(t *testing.T) {
	glance := regexp.MustCompile(`\*\*At a glance:\*\*[^\n]*\n\n(?:No trouble[^\n]*\n\n|Trouble[^\n]*\n\n(?:\* [^\n]*\n)+\n)`)
	anchor := regexp.MustCompile(`\n<a id="[^"]*"></a>\n`)
	for _, name := range []string{"03-bash-fail.jsonl", "01-plain-text.jsonl"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(capture(t, name)), 0o644))
			want := runIn(t, []string{"-F", "markdown", path}, "")
			require.Len(t, glance.FindAllString(want.Stdout, -1), 1, "the finished file's report opens with a glance:\n%s", want.Stdout)
			run := startFollow(t, "-F", "markdown", "-f", "--follow-grace", "10ms", path)
			assert.Equal(t, want.Code, run.end(t))
			assert.Equal(t, anchor.ReplaceAllString(glance.ReplaceAllString(want.Stdout, ""), ""), run.stdout.String())
		})
	}
}
