package redact

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkRedactRealRun measures Append over the real long session (the
// shape of a real run: mostly JSON keys, ids and tool output), the bytes
// of every line; CCFILTER_BENCH_FILE=FILE measures it on FILE instead.
func BenchmarkRedactRealRun(b *testing.B) {
	path := os.Getenv("CCFILTER_BENCH_FILE")
	if path == "" {
		path = filepath.Join("..", "..", "testdata", "real", "60-long-session.jsonl")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	if len(data) > 64<<20 {
		data = data[:64<<20]
	}
	r := New(nil)
	var out []byte
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		out = r.Append(out[:0], data)
	}
}
