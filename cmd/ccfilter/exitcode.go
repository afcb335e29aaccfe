package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
)

// Exit codes, in line with jq's 2/3/5 (docs/exit-codes.md).
const (
	exitOK       = 0
	exitFailed   = 1 // the run failed (final; others with --exit-status); -e: last output false/null
	exitUsage    = 2 // bad flag, unknown format or preset
	exitCompile  = 3 // the expression does not compile
	exitNoResult = 4 // the stream ended without a result event
	exitInput    = 5 // unreadable file, malformed line with --strict, expression runtime error

	exitInterrupted = 130 // Ctrl-C (SIGINT), as a shell reports it
)

// exitCodes says what each code means, for --help and the man page.
var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success"},
	{exitFailed, "the run failed (last result has is_error): always for final, otherwise with --exit-status; for expressions with -e: the last output was false or null"},
	{exitUsage, "usage error: bad flag, unknown format or preset"},
	{exitCompile, "the expression does not compile"},
	{exitNoResult, "the stream ended without a result event (killed, cut off): always for final, otherwise with --exit-status; an empty input, for every preset; expressions with -e: no output"},
	{exitInput, "input error: a file cannot be read, input that is not a stream (not JSON lines, pretty-printed JSON), a malformed line with --strict, an expression's runtime error, traces --otlp-endpoint could not deliver; archive: a file it could not read, or an archive it could not write"},
	{exitInterrupted, "interrupted (Ctrl-C): nothing more is written"},
}

// exitCodesHelp is the exit code table as --help shows it, wrapped to 80
// columns.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:")
	for _, c := range exitCodes {
		fmt.Fprintf(&b, "\n  %d ", c.code)
		col := 4
		for _, w := range strings.Fields(c.meaning) {
			if col+1+len(w) > 80 {
				b.WriteString("\n    ")
				col = 4
			}
			b.WriteString(" " + w)
			col += 1 + len(w)
		}
	}
	return b.String()
}

// exitError carries an exit code and the message printed for it.
type exitError struct {
	code int
	msg  string // printed as "ccfilter: msg" unless empty
}

func (e *exitError) Error() string { return e.msg }

func errorf(code int, format string, a ...any) *exitError {
	return &exitError{code: code, msg: fmt.Sprintf(format, a...)}
}

// flagError is a usage error: the only kind that prints the usage hint.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// severity orders exit codes when several files give different ones: an
// input error outranks a failed run, which outranks a missing result.
func severity(code int) int {
	switch code {
	case exitInput:
		return 4
	case exitFailed:
		return 3
	case exitNoResult:
		return 2
	case exitOK:
		return 0
	}
	return 5 // 2, 3 and halt codes stop everything anyway
}

func worse(a, b int) int {
	if severity(b) > severity(a) {
		return b
	}
	return a
}

// isBrokenPipe reports a write to a reader that went away. On stdout the
// runtime's SIGPIPE normally ends the process first; this covers the cases
// where SIGPIPE is ignored by the parent.
func isBrokenPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}

// say writes one of the command's own lines to stderr, "ccfilter: msg",
// with exactly one newline: the one shape of every message, the command's
// here and the presets' through preset.Warn (to the writer the command
// gives them).
func say(stderr io.Writer, msg string) {
	if msg = strings.TrimRight(msg, "\n"); msg != "" {
		fmt.Fprintf(stderr, "ccfilter: %s\n", msg)
	}
}
