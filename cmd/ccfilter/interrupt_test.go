package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptEndsAtOnce proves Ctrl-C (SIGINT) ends a run at once with
// exit 130 and "interrupted" on stderr, whatever it is doing: waiting on a
// pipe that sends nothing more (a terminal behaves the same), or on a file
// it cannot open yet (a FIFO with no writer); and that a cut run claims no
// final answer. The command runs as its own process (the test binary
// called as ccfilter, see TestMain).
func TestInterruptEndsAtOnce(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "ccfilter")
	require.NoError(t, os.Symlink(os.Args[0], exe))
	data, err := os.ReadFile("../../testdata/events/04-parallel-tools.jsonl")
	require.NoError(t, err)
	head := strings.Join(strings.SplitAfter(string(data), "\n")[:6], "")
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, exec.Command("mkfifo", fifo).Run())

	for _, args := range [][]string{{"final"}, {"-c", "."}, {"tools", "--format", "markdown"}, {"final", fifo}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(exe, args...)
			readyR, readyW, err := os.Pipe()
			require.NoError(t, err)
			cmd.ExtraFiles = []*os.File{readyW}
			cmd.Env = append(os.Environ(), readyEnv+"=3")
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer w.Close()
			cmd.Stdin = r
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())
			r.Close()
			readyW.Close()
			w.WriteString(head) // some events, and the pipe stays open
			// Wait for the handler, however long a loaded machine takes to
			// start the process; EOF here means it died first.
			ready := make(chan string, 1)
			go func() {
				line, _ := bufio.NewReader(readyR).ReadString('\n')
				ready <- line
			}()
			select {
			case line := <-ready:
				require.Equal(t, "ready\n", line, "the command ended before it was ready")
			case <-time.After(liveTimeout):
				cmd.Process.Kill()
				t.Fatal("the command never said it was ready")
			}
			readyR.Close()
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(liveTimeout):
				cmd.Process.Kill()
				t.Fatal("Ctrl-C did not end the run")
			}
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%v", err)
			assert.Equal(t, exitInterrupted, ee.ExitCode())
			assert.Equal(t, "ccfilter: interrupted\n", stderr.String())
			if args[0] == "final" {
				assert.Empty(t, stdout.String(), "no final answer claimed")
			}
		})
	}
}

// TestTerminalStdinHint proves that with stdin a terminal, ccfilter says
// on stderr what it reads and how to end or pass a file; and says nothing
// when stdin is a pipe or a file is named.
func TestTerminalStdinHint(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		args     []string
		hint     bool
	}{
		{true, []string{"final"}, true},
		{true, []string{"final", "-"}, true},
		{false, []string{"final"}, false},
		{true, []string{"final", "../../testdata/events/01-plain-text.jsonl"}, false},
	} {
		var stdout, stderr bytes.Buffer
		o := &options{terminalIn: func() bool { return tc.terminal }}
		runWith(o, tc.args, strings.NewReader(""), &stdout, &stderr, nil)
		hint := strings.Contains(stderr.String(), "ccfilter: reading a stream-json stream from stdin (a terminal)")
		assert.Equal(t, tc.hint, hint, "%v terminal=%v: %s", tc.args, tc.terminal, stderr.String())
		if tc.hint {
			assert.Contains(t, stderr.String(), "Ctrl-C quits")
			assert.Equal(t, 1, strings.Count(stderr.String(), "reading a stream-json"), "one line")
		}
	}
}

// TestStderrOnTerminalIsEscaped proves a message that quotes the stream
// (final's account of a failed run) reaches a terminal with its control
// characters escaped (an OSC 52 clipboard write, BEL, a bidi override),
// and a file or pipe with its bytes.
func TestStderrOnTerminalIsEscaped(t *testing.T) {
	line := `{"type":"result","subtype":"error_during_execution","is_error":true,"result":"x\u001b]52;c;ZXZpbA==\u0007 \u202e y","errors":["e\u001b[2J"]}`
	for _, terminal := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		o := &options{terminalErr: func() bool { return terminal }}
		code := runWith(o, []string{"final"}, strings.NewReader(line+"\n"), &stdout, &stderr, nil)
		assert.Equal(t, exitFailed, code)
		if terminal {
			assert.NotContains(t, stderr.String(), "\x1b", "no raw ESC on a terminal")
			assert.NotContains(t, stderr.String(), "\u202e")
			assert.NotContains(t, stderr.String(), "\a")
			assert.Contains(t, stderr.String(), `\x1b]52;c;ZXZpbA==`)
		} else {
			assert.Contains(t, stderr.String(), "\x1b]52;c;ZXZpbA==\a", "a file gets the bytes")
		}
	}
}
