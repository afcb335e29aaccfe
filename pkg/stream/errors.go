package stream

import (
	"errors"
	"fmt"
)

// SyntaxError reports a line that is not a JSON object: garbage, or a line
// cut off because the producer was killed mid-write. The Decoder that
// returned it can go on with the next line.
type SyntaxError struct {
	Source    string // input name
	Line      int64  // 1-based line number (element number for JSON-array input)
	Offset    int64  // input offset of the line's first byte
	Column    int    // byte offset of the problem within the line
	Truncated bool   // the line ended in the middle of a value
	Err       error  // what the JSON scanner found
}

func (e *SyntaxError) Error() string {
	what := "invalid JSON"
	if e.Truncated {
		what = "truncated JSON (the line ends mid-value)"
	}
	return fmt.Sprintf("%s:%d: %s: %v", sourceName(e.Source), e.Line, what, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// LineTooLongError reports a line longer than DecoderOptions.MaxLineBytes.
// The line was skipped; the Decoder goes on with the next one.
type LineTooLongError struct {
	Source string
	Line   int64
	Offset int64
	Size   int64 // length of the whole line in bytes (with Unended, the bytes read so far)
	Max    int   // the cap in force
	// Unended says the line was reported as soon as it passed the cap,
	// before its end (which may never come): its length is not known.
	Unended bool
}

func (e *LineTooLongError) Error() string {
	if e.Unended {
		return fmt.Sprintf("%s:%d: line longer than the limit of %d bytes (skipped without reading it whole)", sourceName(e.Source), e.Line, e.Max)
	}
	return fmt.Sprintf("%s:%d: line of %d bytes exceeds the limit of %d bytes (skipped)", sourceName(e.Source), e.Line, e.Size, e.Max)
}

// PassedOver reports a part of an input that could not be read and was
// passed over (a transcript's subagent file that is missing or unreadable);
// reading goes on.
type PassedOver struct {
	Source string
	Err    error
}

func (e *PassedOver) Error() string { return fmt.Sprintf("%s: %v", sourceName(e.Source), e.Err) }

func (e *PassedOver) Unwrap() error { return e.Err }

// IsLineError reports whether err concerns one input line only (a malformed
// or over-long line) or a part of the input passed over, so that reading
// can go on after it.
func IsLineError(err error) bool {
	var se *SyntaxError
	var le *LineTooLongError
	var po *PassedOver
	return errors.As(err, &se) || errors.As(err, &le) || errors.As(err, &po)
}

func sourceName(s string) string {
	if s == "" {
		return "<stdin>"
	}
	return s
}
