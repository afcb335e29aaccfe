package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLiveOutputIsFlushedPerEvent proves that on a pipe each event's output
// appears before the next event is written: the writer waits for the line
// of event N before it writes event N+1, with a timeout.
func TestLiveOutputIsFlushedPerEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want func(i int) string
	}{
		{"text preset", []string{"text"}, func(i int) string { return "hello " + string(rune('a'+i)) }},
		{"ndjson passthrough", []string{"--format", "ndjson", "all"}, func(i int) string { return `"text":"hello ` + string(rune('a'+i)) }},
		{"expression", []string{"-r", `select(.type=="assistant") | .message.content[0].text`}, func(i int) string { return "hello " + string(rune('a'+i)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan int, 1)
			go func() {
				code := run(tc.args, inR, outW, io.Discard, nil)
				inR.Close() // a run that ends early fails the writes instead of hanging
				outW.Close()
				done <- code
			}()
			lines := make(chan string, 16)
			go func() {
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			for i := 0; i < 5; i++ {
				ev := `{"type":"assistant","message":{"id":"m` + string(rune('a'+i)) + `","model":"x","content":[{"type":"text","text":"hello ` + string(rune('a'+i)) + `"}]},"parent_tool_use_id":null}` + "\n"
				_, err := inW.Write([]byte(ev))
				require.NoError(t, err)
				select {
				case l := <-lines:
					assert.Contains(t, l, tc.want(i), "event %d", i)
				case <-time.After(liveTimeout):
					t.Fatalf("event %d: no output before the next event was written", i)
				}
			}
			inW.Close()
			select {
			case <-done:
			case <-time.After(liveTimeout):
				t.Fatal("ccfilter did not end at EOF")
			}
		})
	}
}

// TestFileOutputIsWrittenInLargeBlocks proves the other half of the flush
// policy: reading a file (input readily available), output is not flushed
// per event: a capture's 123 events reach the writer in a few writes.
func TestFileOutputIsWrittenInLargeBlocks(t *testing.T) {
	var w countingWriter
	code := run([]string{"--format", "ndjson", "all", "../../testdata/events/21-sixty-tool-calls.jsonl"}, strings.NewReader(""), &w, io.Discard, nil)
	require.Equal(t, 0, code)
	assert.Equal(t, 123, bytes.Count(w.buf.Bytes(), []byte("\n")))
	assert.LessOrEqual(t, w.writes, 4, "output is block-buffered on a file")
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) { c.writes++; return c.buf.Write(p) }

// TestBrokenPipeEndsQuietly proves `ccfilter ... | head -1` ends without a
// message: the reader closes the pipe after one line; the process ends by
// SIGPIPE or with exit 0, and stderr stays empty.
func TestBrokenPipeEndsQuietly(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ccfilter")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	// A large input so that the writer is still writing when the pipe closes.
	big := filepath.Join(t.TempDir(), "big.jsonl")
	data, err := os.ReadFile("../../testdata/events/21-sixty-tool-calls.jsonl")
	require.NoError(t, err)
	f, err := os.Create(big)
	require.NoError(t, err)
	for i := 0; i < 200; i++ {
		f.Write(data)
	}
	f.Close()
	for _, args := range [][]string{{"--format", "ndjson", "all", big}, {"-c", ".", big}} {
		cmd := exec.Command(bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		assert.NotEmpty(t, line)
		out.Close()
		err = cmd.Wait()
		if err != nil {
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%v", err)
			ws := ee.Sys().(syscall.WaitStatus)
			assert.True(t, ws.Signaled() && ws.Signal() == syscall.SIGPIPE, "ended by %v", err)
		}
		assert.Empty(t, stderr.String(), "no broken-pipe message")
	}
}
