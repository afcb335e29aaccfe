package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// BenchmarkFollowLatency measures the time from a line's write to its
// output under --follow (an expression prints each event at once): the
// lines of the real long session appended one at a time, each after the
// last came out. It reports the median and the worst of the lines, the
// figure docs/follow.md quotes (go test ./cmd/ccfilter -run '^$' -bench
// FollowLatency -benchtime 1x).
func BenchmarkFollowLatency(b *testing.B) {
	data, err := os.ReadFile("../../testdata/real/60-long-session.jsonl")
	if err != nil {
		b.Skip(err)
	}
	lines := strings.SplitAfter(string(data), "\n")[:400]
	var all []time.Duration
	for range b.N {
		path := filepath.Join(b.TempDir(), "run.jsonl")
		os.WriteFile(path, nil, 0o644)
		run := startFollow(b, "-f", "-c", ".", path)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		for i, l := range lines {
			start := time.Now()
			f.WriteString(l)
			want := i + 1
			for strings.Count(run.stdout.String(), "\n") < want {
				select {
				case <-run.stdout.more:
				case <-time.After(liveTimeout):
					b.Fatalf("line %d never came out", want)
				}
			}
			all = append(all, time.Since(start))
		}
		f.Close()
		(*softInterrupt.Load())()
		<-run.code
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "ms-p99")
	b.ReportMetric(float64(all[len(all)-1].Microseconds())/1000, "ms-worst")
}
