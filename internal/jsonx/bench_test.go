package jsonx

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// benchLines is a generated stream's lines (CCFILTER_BENCH_FILE) or a small
// capture, split on LF.
func benchLines(b *testing.B) ([][]byte, int64) {
	f := os.Getenv("CCFILTER_BENCH_FILE")
	if f == "" {
		f = "../../testdata/events/04-parallel-tools.jsonl"
	}
	data, err := os.ReadFile(f)
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n")), int64(len(data))
}

// eachLine runs check on every line of the bench input, as one op, failing
// on the first error.
func eachLine(b *testing.B, check func(line []byte) error) {
	lines, n := benchLines(b)
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if err := check(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkValidate measures full validation, the default path of every line.
func BenchmarkValidate(b *testing.B) { eachLine(b, Validate) }

// BenchmarkValidMembers measures full validation that indexes the top
// level on its way (the decoder's --full-check), against Validate.
func BenchmarkValidMembers(b *testing.B) {
	var ms []Member
	eachLine(b, func(l []byte) (err error) { ms, err = ValidMembers(l, ms[:0]); return err })
}

// BenchmarkSkip measures jumping over each line's value without validating
// (the framing walk).
func BenchmarkSkip(b *testing.B) {
	eachLine(b, func(l []byte) error {
		if skip(l, 0) != len(l) {
			return errors.New("skip stopped early")
		}
		return nil
	})
}

// BenchmarkDecodeValid measures validating and building each line's tree
// in one pass (what an expression needs), to set beside the candidates in
// bench/candidates.
func BenchmarkDecodeValid(b *testing.B) {
	eachLine(b, func(l []byte) error { _, err := DecodeValid(l); return err })
}

// BenchmarkSkipScalar is BenchmarkSkip on the quote-to-quote walk alone
// (the path where no vector kernel exists), to set beside the block
// scanner.
func BenchmarkSkipScalar(b *testing.B) {
	withScanner(false, false, func() { BenchmarkSkip(b) })
}

// BenchmarkSkipAVX2 is BenchmarkSkip with the fused loop's AVX2 form,
// where the machine would take the AVX-512 one.
func BenchmarkSkipAVX2(b *testing.B) {
	withoutAVX512(func() { BenchmarkSkip(b) })
}

// BenchmarkStrLen measures the decoded length of each line taken as the
// inside of a string (what sizing a tool result costs), and
// BenchmarkStrLenScalar the same without the block scanner.
func BenchmarkStrLen(b *testing.B) {
	eachLine(b, func(l []byte) error {
		if blockStrLen(l) < 0 {
			return errors.New("negative length")
		}
		return nil
	})
}

func BenchmarkStrLenScalar(b *testing.B) {
	eachLine(b, func(l []byte) error {
		if strLen(l) < 0 {
			return errors.New("negative length")
		}
		return nil
	})
}

// BenchmarkDecodeValidScalar is BenchmarkDecodeValid without the block
// scanner (string ends and unquoting escape to escape).
func BenchmarkDecodeValidScalar(b *testing.B) {
	withScanner(false, false, func() { BenchmarkDecodeValid(b) })
}

// BenchmarkStringEnd measures finding the end of each line's first
// "content" string (a tool result's text, where the generated stream has
// them), what walking past a tool result costs.
func BenchmarkStringEnd(b *testing.B) {
	eachContent(b, func(l []byte, at int) (int, int) { return stringEnd(l, at), 0 })
}

// BenchmarkContentStrLen measures its end and then its decoded length
// (strEndThenLen), what sizing a tool result cost in two passes.
func BenchmarkContentStrLen(b *testing.B) { eachContent(b, strEndThenLen) }

// BenchmarkContentStrEndLen is BenchmarkContentStrLen in one pass
// (strEndLen: the end and the decoded length together), what sizing a
// tool result costs where it is found.
func BenchmarkContentStrEndLen(b *testing.B) { eachContent(b, strEndLen) }

// eachContent runs scan on each bench line's first "content" string (at:
// its opening quote), as one op, failing when the string does not end or
// its length is negative.
func eachContent(b *testing.B, scan func(l []byte, at int) (end, n int)) {
	key := []byte(`"content":"`)
	eachLine(b, func(l []byte) error {
		if i := bytes.Index(l, key); i >= 0 {
			end, n := scan(l, i+len(key)-1)
			if end < 0 {
				return errors.New("string not terminated")
			}
			if n < 0 {
				return errors.New("negative length")
			}
		}
		return nil
	})
}
