package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareWorseDependsOnDirection(t *testing.T) {
	tests := []struct {
		name string
		v, b float64
		dir  Direction
		want Verdict
	}{
		{"wc ratio 12% larger regresses", 5.27, 4.7, LowerIsBetter, Regression},
		{"wc ratio 9% larger is within", 5.12, 4.7, LowerIsBetter, Within},
		{"wc ratio exactly 10% larger is within", 1.1, 1.0, LowerIsBetter, Within},
		{"wc ratio much smaller is better", 2.5, 4.7, LowerIsBetter, Improved},
		{"jq speed-up 12% smaller regresses", 9.6, 10.8, HigherIsBetter, Regression},
		{"jq speed-up 9% smaller is within", 9.9, 10.8, HigherIsBetter, Within},
		{"jq speed-up larger is better, not a regression", 14.4, 10.8, HigherIsBetter, Improved},
		{"rss larger regresses", 75, 68, LowerIsBetter, Regression},
		{"no baseline", 3, 0, LowerIsBetter, NoBaseline},
		{"a speed-up of zero regresses", 0, 2.45, HigherIsBetter, Regression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Compare(tt.v, tt.b, tt.dir))
		})
	}
}

// issueRun is a run's measurements made from issue 41's table ("now",
// taken on the 300 MB real corpus): wc -l at 0.06 s, so that final's
// 0.28 s is 4.7× it, jq's and jaq's times from the ratios the issue
// quotes, and so on for every row.
const issueRun = `# derived from issue 41's table
@corpus	/tmp/ccfilter-bench/real.jsonl (301 MB)
@cache	dropped, then read once
wc	0.0596
final	0.28	0.27,0.28,0.29
final/jq	3.024
final/jaq	1.316
types	0.25
types/jq	3.725
text	0.59
text/jq	4.307
text/jaq	2.124
tools	0.89
tools/jq	4.272
tools/jaq	2.314
usage	0.73
usage/jq	4.526
redact-ndjson/plain	1.0
redact-ndjson/redacted	1.46
redact-markdown/plain	1.0
redact-markdown/redacted	1.19
ndjson	1.054
otlp	5.8
markdown	2.0
html	1.78
spend-day	1.0
spend-day/ccusage	2.45
spend-session	1.0
spend-session/ccusage	3.19
rss/all/markdown	76800
rss/final/text	20480
line_bytes	100000000
rssline/all/markdown	698368
rssline/tools/json	655360
`

func measurements(t *testing.T, s string) Measurements {
	m, err := ReadMeasurements(strings.NewReader(s))
	require.NoError(t, err)
	return m
}

func TestTableShowsIssueFiguresAndGoals(t *testing.T) {
	var out bytes.Buffer
	res := Write(&out, Rows(), measurements(t, issueRun), nil)
	var missing []string
	for _, k := range res.Missing {
		if !strings.HasPrefix(k, "codex/") && !strings.HasPrefix(k, "gemini/") { // (issue 43's rows: TestAgentRowsArePerByte)
			missing = append(missing, k)
		}
	}
	assert.Equal(t, []string{"types/jaq", "usage/jaq", "spend-day/floor", "spend-session/floor"}, missing, "the issue quotes no jaq for types and usage, and no floor: n/a")
	assert.Empty(t, res.Regressions, "no baseline, no regression")
	lines := strings.Split(out.String(), "\n")
	find := func(prefix string) string {
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Fatalf("no row %q in\n%s", prefix, out.String())
		return ""
	}
	tests := []struct{ row, want string }{
		{"| `final` |", "| `final` | 0.280 s | 4.70× wc -l; 10.8× faster than jq; 4.70× faster than jaq | ≤ 2.50× wc -l; ≥ 10.0× faster than jaq | not met; not met |"},
		{"| `types` |", "4.19× wc -l; 14.9× faster than jq; n/a"},
		{"| `all --format ndjson --redact`", "| 1.46× | ≤ 1.15× | not met |"},
		{"| `all --format html`", "| 0.89× | ≤ 1.00× | met |"},
		{"| `sessions`", "| 3.19× faster than ccusage; n/a × the floor | ≥ 5.00× faster than ccusage | not met |"},
		{"| peak RSS, every", "| 20–75 MiB (final/text … all/markdown) | 75.0 MiB (largest) | < 48.0 MiB (largest) | not met |"},
		// (682 MiB − 32 MiB) / 100 MB
		{"| peak RSS on one long line", "| 6.82× the line + 32 MiB (largest) | ≤ 3.00× the line + 32 MiB (largest) | not met |"},
	}
	for _, tt := range tests {
		t.Run(tt.row, func(t *testing.T) {
			assert.Contains(t, find(tt.row), tt.want)
		})
	}
	assert.Contains(t, out.String(), "cache: dropped, then read once", "the table says which page cache state it was taken in")
}

// TestTreeRowsSayTheFloorAndWhatTheGoalLeaves proves a tree task's row
// gives its time against the floor measured in the same run, and what
// its goal against ccusage allows, in seconds and in times the floor
// (ccusage's time over the goal, over the floor's).
func TestTreeRowsSayTheFloorAndWhatTheGoalLeaves(t *testing.T) {
	var out bytes.Buffer
	Write(&out, Rows(), measurements(t, "spend-day\t0.25\nspend-day/ccusage\t0.75\nspend-day/floor\t0.1\n"), nil)
	assert.Contains(t, out.String(), "| `usage --by day` vs `ccusage daily` (transcripts) | 0.250 s (floor 0.100 s; the goal allows 0.188 s, 1.88× the floor) | 3.00× faster than ccusage; 2.50× the floor | ≥ 4.00× faster than ccusage | not met |")
}

func TestRegressionInEitherDirectionFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.tsv")
	before := filepath.Join(dir, "before.tsv")
	require.NoError(t, os.WriteFile(before, []byte(issueRun), 0o644))
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"-baseline", base, "-update", before}, &out, &errOut), errOut.String())
	written, err := os.ReadFile(base)
	require.NoError(t, err)
	assert.Contains(t, string(written), "#   cache: dropped, then read once", "the baseline's header says how it was taken")
	assert.Contains(t, string(written), "final/wc\t4.698\n")

	// The same run against its own baseline: nothing to report.
	out.Reset()
	assert.Equal(t, 0, run([]string{"-baseline", base, before}, &out, &errOut), out.String())
	assert.NotContains(t, out.String(), "REGRESSION")

	tests := []struct {
		name   string
		change func(string) string
		want   string // the regression reported, "" for none
	}{
		{"final slower against wc -l", func(s string) string { return strings.Replace(s, "final\t0.28\t", "final\t0.32\t", 1) },
			"final/wc: 5.37 against 4.70"},
		{"jq faster, so ccfilter less ahead of it", func(s string) string { return strings.Replace(s, "text/jq\t4.307", "text/jq\t3.8", 1) },
			"text/jq: 6.44 against 7.30"},
		{"ccusage slower: more ahead, no regression", func(s string) string {
			return strings.Replace(s, "spend-day/ccusage\t2.45", "spend-day/ccusage\t3.5", 1)
		}, ""},
		{"wc -l slower: every wc ratio smaller, no regression", func(s string) string { return strings.Replace(s, "wc\t0.0596", "wc\t0.07", 1) },
			""},
		{"more memory on the long line", func(s string) string {
			return strings.Replace(s, "rssline/all/markdown\t698368", "rssline/all/markdown\t800000", 1)
		}, "rss-line: 7.86 against 6.82"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			after := filepath.Join(dir, "after.tsv")
			require.NoError(t, os.WriteFile(after, []byte(tt.change(issueRun)), 0o644))
			var out bytes.Buffer
			code := run([]string{"-baseline", base, after}, &out, &errOut)
			if tt.want == "" {
				assert.Equal(t, 0, code, out.String())
				assert.NotContains(t, out.String(), "REGRESSION")
				return
			}
			assert.Equal(t, 1, code, out.String())
			assert.Contains(t, out.String(), "REGRESSION "+tt.want)
		})
	}
}

func TestBadMeasurementsSayTheLine(t *testing.T) {
	_, err := ReadMeasurements(strings.NewReader("wc\t0.06\nfinal 0.28\n"))
	assert.EqualError(t, err, `line 2: want KEY<TAB>VALUE, got "final 0.28"`)
	_, err = ReadMeasurements(strings.NewReader("# c\nfinal\tn/a\n"))
	assert.EqualError(t, err, `line 2: final: not a number: "n/a"`)
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run([]string{filepath.Join(t.TempDir(), "none.tsv")}, &out, &errOut))
	assert.Contains(t, errOut.String(), "benchtable: ")
}

func TestUpdateOfPartOfTheTableKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "baseline.tsv")
	full := filepath.Join(dir, "full.tsv")
	require.NoError(t, os.WriteFile(full, []byte(issueRun), 0o644))
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"-baseline", base, "-update", full}, &out, &errOut), errOut.String())

	// SPEND=1 TIMED=0 SWEEP=0: only the ccusage rows, ccfilter twice as fast.
	part := filepath.Join(dir, "part.tsv")
	require.NoError(t, os.WriteFile(part, []byte("@cache\tdropped\nspend-day\t0.5\nspend-day/ccusage\t2.45\nspend-session\t0.5\nspend-session/ccusage\t3.19\n"), 0o644))
	require.Equal(t, 0, run([]string{"-baseline", base, "-update", part}, &out, &errOut), errOut.String())
	written, err := os.ReadFile(base)
	require.NoError(t, err)
	b, err := ReadBaseline(bytes.NewReader(written))
	require.NoError(t, err)
	assert.Equal(t, 4.9, b["spend-day/ccusage"], "measured now")
	assert.Equal(t, 6.38, b["spend-session/ccusage"], "measured now")
	assert.Equal(t, 4.698, b["final/wc"], "kept")
	assert.Equal(t, 6.816, b["rss-line"], "kept")
	assert.Contains(t, string(written), "# Kept from the baseline before (not measured in this run): final/wc ")
}

// TestAgentRowsArePerByte: issue 43's rows divide each preset's time on
// another CLI's corpus by its size, and Claude Code's by its own, so that
// corpora of different sizes compare; a missing series is n/a, not 0.
func TestAgentRowsArePerByte(t *testing.T) {
	m := measurements(t, "@cache\tdropped\nreal_bytes\t300000000\ncodex_bytes\t150000000\nfinal\t0.1\ncodex/final\t0.1\ntext\t0.2\ncodex/text\t0.6\n")
	var out bytes.Buffer
	res := Write(&out, []Row{agentRow("codex", "Codex CLI")}, m, nil)
	row := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "| Codex CLI's stream") {
			row = l
		}
	}
	require.NotEmpty(t, row, out.String())
	// final: 0.1 s on half the bytes is twice the time per byte; text six times.
	assert.Contains(t, row, "2.00× (final); 6.00× (text)")
	assert.Contains(t, row, "not met; not met")
	assert.ElementsMatch(t, []string{"codex/tools", "codex/usage", "codex/types"}, res.Missing)
}

// TestWcOfTheTaskWhenTimedInTurn: a task's ratio to wc -l divides by the
// wc -l runs timed in turn with it ("wc@TASK"), not by wc -l's series
// timed minutes before, when the run has them; an older run without them
// is divided by "wc".
func TestWcOfTheTaskWhenTimedInTurn(t *testing.T) {
	v, ok := againstWc("final", 2.5, nil)[0].Value(measurements(t, "wc\t0.05\nwc@final\t0.04\nfinal\t0.1\n"))
	require.True(t, ok)
	assert.InDelta(t, 2.5, v, 1e-9)
	v, ok = againstWc("final", 2.5, nil)[0].Value(measurements(t, "wc\t0.05\nfinal\t0.1\n"))
	require.True(t, ok)
	assert.InDelta(t, 2.0, v, 1e-9)
}
