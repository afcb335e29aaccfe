package spend

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

const transcripts = "../../testdata/transcripts"

// streamResult is the CLI's own account of a run: the result event of the
// stream written beside the transcript (the last one).
type streamResult struct {
	Cost       float64 `json:"total_cost_usd"`
	ModelUsage map[string]struct {
		In    int64 `json:"inputTokens"`
		Out   int64 `json:"outputTokens"`
		Read  int64 `json:"cacheReadInputTokens"`
		Write int64 `json:"cacheCreationInputTokens"`
		// The 1-hour part of Write: the calls' own split adds up to it.
		Write1h int64   `json:"cacheCreationEphemeral1hInputTokens"`
		Cost    float64 `json:"costUSD"`
	} `json:"modelUsage"`
}

func lastResult(t *testing.T, path string) (streamResult, bool) {
	f, err := os.Open(path)
	if err != nil {
		return streamResult{}, false
	}
	defer f.Close()
	var r streamResult
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "result" {
			r = streamResult{}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
			found = true
		}
	}
	return r, found
}

// TestEverySessionAddsUpToTheCLIsOwnTotal proves, on every real session
// of one run (its stream is beside it), that the calls Scan finds add up
// to the CLI's own result: the cost, and each model's four kinds of
// tokens (and the 1-hour part of its cache writes), compaction and helper calls included (as hidden calls).
func TestEverySessionAddsUpToTheCLIsOwnTotal(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(transcripts, "*"))
	checked := 0
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "home/.claude/projects/*/*.jsonl"))
		res, ok := lastResult(t, filepath.Join(dir, "stream.jsonl"))
		if len(files) != 1 || !ok {
			continue // several sessions (50: resumed and forked): TestForkCountsOnlyItsOwn
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			byModel := map[string]stream.Usage{}
			cost := 0.0
			sum, err := Scan(files[0], func(c Call) {
				byModel[c.Model] = byModel[c.Model].Add(c.Usage)
				cost += c.CostUSD
				assert.False(t, c.Estimated || c.Unpriced, "a recorded run's call")
			})
			require.NoError(t, err)
			assert.InDelta(t, res.Cost, cost, 1e-6, "cost")
			assert.InDelta(t, res.Cost, sum.CostUSD, 1e-6, "the summary's cost")
			for model, u := range res.ModelUsage {
				assert.Equal(t, stream.Usage{InputTokens: u.In, OutputTokens: u.Out, CacheReadInputTokens: u.Read, CacheCreationInputTokens: u.Write,
					CacheWrite1hTokens: u.Write1h}, byModel[model], "%s tokens", model)
			}
			checked++
		})
	}
	assert.GreaterOrEqual(t, checked, 15)
}

// TestForkCountsOnlyItsOwn proves, on a real session resumed, continued
// and forked (50-multi-turn), that the fork carries only its own calls and
// spend, its parent all of its own runs, and the two add up to the fork's
// recorded total (which includes its parent's).
func TestForkCountsOnlyItsOwn(t *testing.T) {
	dir := filepath.Join(transcripts, "50-multi-turn/home/.claude/projects/-home-user-project")
	parent := filepath.Join(dir, "50505050-aaaa-4bbb-8ccc-000000000050.jsonl")
	fork := filepath.Join(dir, "68992e40-6f27-496d-8514-27ef389eef23.jsonl")
	var pc, fc int
	ps, err := Scan(parent, func(c Call) { pc++ })
	require.NoError(t, err)
	fs, err := Scan(fork, func(c Call) {
		fc++
		assert.Equal(t, "68992e40-6f27-496d-8514-27ef389eef23", c.Session)
	})
	require.NoError(t, err)
	assert.Equal(t, 3, ps.Runs)
	assert.Equal(t, "50505050-aaaa-4bbb-8ccc-000000000050", fs.ForkedFrom)
	assert.Equal(t, 10, fs.Copied, "the parent's calls the fork copied")
	assert.Equal(t, 10, pc, "the parent's own calls")
	assert.Equal(t, 3, fc, "the fork's own calls")
	assert.InDelta(t, 0.0940894, ps.CostUSD, 1e-9)
	assert.InDelta(t, 0.1252596-0.0940894, fs.CostUSD, 1e-9, "the fork's own spend")
	assert.InDelta(t, fs.RecordedUSD, ps.CostUSD+fs.CostUSD, 1e-9, "together: what the fork's /cost shows")
}

// TestGroupingsAddUpToOneTotal proves every grouping of the same calls
// adds up to the same total, whatever order the files are read in.
func TestGroupingsAddUpToOneTotal(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(transcripts, "*/home/.claude/projects/*/*.jsonl"))
	require.Greater(t, len(files), 15)
	var want Row
	for i, k := range Keys {
		b := By{k}
		tot := NewTotals(b, time.UTC, "", "")
		order := files
		if i%2 == 1 { // the other way round
			order = make([]string, len(files))
			for k := range files {
				order[k] = files[len(files)-1-k]
			}
		}
		for _, f := range order {
			_, err := Scan(f, tot.Add)
			require.NoError(t, err)
		}
		rows, total := tot.Rows()
		require.NotEmpty(t, rows, b)
		if i == 0 {
			want = total
			continue
		}
		assert.Equal(t, want.All, total.All, "%s", b)
		assert.Equal(t, want.Calls, total.Calls, "%s", b)
	}
}

// derived writes a real transcript with edit applied to its lines to a
// temporary project folder, and returns its path.
func derived(t *testing.T, src string, edit func(lines []string) []string) string {
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	lines := edit(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return path
}

// TestFinalRecordWins proves a call's usage is its final record's (the
// one with a stop_reason, else the largest), even when a record of it with
// less comes after: the lines of one message moved so that its last line
// holds an early snapshot of its usage.
func TestFinalRecordWins(t *testing.T) {
	src := filepath.Join(transcripts, "02-write-read/home/.claude/projects/-home-user-project/0db2634f-ae79-455c-9f0e-6a3434377177.jsonl")
	want := map[string]int64{}
	_, err := Scan(src, func(c Call) {
		if !c.Hidden {
			want[c.Model] += c.Usage.OutputTokens
		}
	})
	require.NoError(t, err)
	path := derived(t, src, func(lines []string) []string {
		id := regexp.MustCompile(`"id":"(msg_[A-Za-z0-9]+)"`)
		for i, l := range lines {
			if strings.Contains(l, `"type":"assistant"`) && strings.Contains(l, `"stop_reason":"`) {
				// An early snapshot of the same call after its last line:
				// no stop reason, one output token.
				msg := id.FindString(l)
				last := i
				for k := i; k < len(lines); k++ {
					if strings.Contains(lines[k], msg) {
						last = k
					}
				}
				snap := regexp.MustCompile(`"stop_reason":"[a-z_]+"`).ReplaceAllString(l, `"stop_reason":null`)
				snap = regexp.MustCompile(`"output_tokens":[0-9]+`).ReplaceAllString(snap, `"output_tokens":1`)
				return append(lines[:last+1], append([]string{snap}, lines[last+1:]...)...)
			}
		}
		t.Fatal("no assistant line with a stop_reason")
		return nil
	})
	got := map[string]int64{}
	_, err = Scan(path, func(c Call) {
		if !c.Hidden {
			got[c.Model] += c.Usage.OutputTokens
		}
	})
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// TestKilledRunIsEstimatedNotBorrowed proves a run that wrote no
// cost-state (killed) is priced at the session's recorded rate for its
// model and marked estimated, never given the previous run's figure: the
// resumed session 50-multi-turn with its last cost-state taken out, whose
// third run the rate prices at what the CLI recorded for it.
func TestKilledRunIsEstimatedNotBorrowed(t *testing.T) {
	src := filepath.Join(transcripts, "50-multi-turn/home/.claude/projects/-home-user-project/50505050-aaaa-4bbb-8ccc-000000000050.jsonl")
	path := derived(t, src, func(lines []string) []string {
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], `"type":"cost-state"`) {
				return append(lines[:i], lines[i+1:]...)
			}
		}
		t.Fatal("no cost-state")
		return nil
	})
	var estimated, recorded float64
	sum, err := Scan(path, func(c Call) {
		if c.Estimated {
			estimated += c.CostUSD
			assert.False(t, c.Unpriced, "the session's recorded rate prices it")
		} else {
			recorded += c.CostUSD
		}
	})
	require.NoError(t, err)
	assert.Equal(t, 2, sum.Runs)
	assert.InDelta(t, 0.0709438, recorded, 1e-9, "the two recorded runs")
	assert.Greater(t, estimated, 0.0)
	// The real third run cost 0.0231456, not the second run's figure, nor
	// nothing: the recorded runs' rate, each call weighed at its model's
	// own prices (claude-opus-5-5's cache read 0.05 of its input) as the
	// recorded cost was shared, prices it to a millionth. Weighed at fixed
	// Claude ratios (a read 0.1), it came to 0.0214867.
	assert.InEpsilon(t, 0.0940894-0.0709438, estimated, 1e-5)
}

// TestFastScanSameAsPlain proves the fast scan (lines picked by where
// they say their type, one read buffer and one long lines' scratch shared
// by every file) finds the same calls, in the same order, as the plain
// one that reads every record of every real transcript (testdata's, and
// ../shared/transcripts' with 19-big-tool-result's 3 MB lines, where
// that is there).
func TestFastScanSameAsPlain(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(transcripts, "*/home/.claude/projects/*/*.jsonl"))
	require.Greater(t, len(files), 15)
	more, _ := filepath.Glob("../../../shared/transcripts/*/home/.claude/projects/*/*.jsonl")
	files = append(files, more...)
	shared := Options{Buffer: bufio.NewReaderSize(nil, 1<<20), Scratch: &stream.Scratch{}}
	for _, f := range files {
		var plain, fast []Call
		ps, err := ScanWith(f, Options{Plain: true}, func(c Call) { plain = append(plain, c) })
		require.NoError(t, err)
		fs, err := ScanWith(f, shared, func(c Call) { fast = append(fast, c) })
		require.NoError(t, err)
		assert.Equal(t, plain, fast, f)
		assert.Equal(t, ps, fs, f)
	}
}

// TestCallsOfAModelTheCostStateDoesNotName proves calls of a model the
// run's cost-state does not name are priced as unrecorded (here unpriced:
// no rate knows the model), not given $0 silently, and that the
// cost-state's own figures still all count (as a hidden call of the model
// it names).
func TestCallsOfAModelTheCostStateDoesNotName(t *testing.T) {
	src := filepath.Join(transcripts, "02-write-read/home/.claude/projects/-home-user-project/0db2634f-ae79-455c-9f0e-6a3434377177.jsonl")
	path := derived(t, src, func(lines []string) []string {
		for i, l := range lines {
			if strings.Contains(l, `"type":"cost-state"`) {
				lines[i] = strings.Replace(l, `"modelUsage":{"claude-opus-5-5"`, `"modelUsage":{"claude-other"`, 1)
			}
			// A model no list price knows (the shipped catalog prices
			// claude-opus-5-5).
			lines[i] = strings.ReplaceAll(lines[i], `"model":"claude-opus-5-5"`, `"model":"claude-nonesuch"`)
		}
		return lines
	})
	var unpriced, hidden int
	cost := 0.0
	_, err := Scan(path, func(c Call) {
		cost += c.CostUSD
		if c.Unpriced {
			unpriced++
			assert.Equal(t, "claude-nonesuch", c.Model)
		}
		if c.Hidden {
			hidden++
			assert.Equal(t, "claude-other", c.Model)
		}
	})
	require.NoError(t, err)
	assert.Equal(t, 3, unpriced, "the three calls, marked")
	assert.Equal(t, 1, hidden, "the cost-state's figures, as a call of the model it names")
	assert.InDelta(t, 0.0297614, cost, 1e-9, "the recorded cost, all of it")
}

// TestAccountOwnsASharedCallOnceWhateverTheOrder proves, on 50-multi-turn
// with requestSessionId taken out of the fork's lines (copies that do
// not name their origin), that Account counts each call once, in the
// session that started first (the parent: 10 calls, $0.0940894; the
// fork: its own 3, $0.0311702), whichever order the ledgers come in, and
// names the fork's parent.
func TestAccountOwnsASharedCallOnceWhateverTheOrder(t *testing.T) {
	src := filepath.Join(transcripts, "50-multi-turn/home/.claude/projects/-home-user-project")
	dir := t.TempDir()
	strip := regexp.MustCompile(`,"requestSessionId":"[^"]*"`)
	var paths []string
	for _, id := range []string{"50505050-aaaa-4bbb-8ccc-000000000050", "68992e40-6f27-496d-8514-27ef389eef23"} {
		b, err := os.ReadFile(filepath.Join(src, id+".jsonl"))
		require.NoError(t, err)
		p := filepath.Join(dir, id+".jsonl")
		require.NoError(t, os.WriteFile(p, strip.ReplaceAll(b, nil), 0o644))
		paths = append(paths, p)
	}
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		var ledgers []*Ledger
		for _, i := range order {
			l, err := Read(paths[i], Options{})
			require.NoError(t, err)
			ledgers = append(ledgers, l)
		}
		calls := map[string]int{}
		cost := map[string]float64{}
		sums := Account(ledgers, Options{}, func(c Call) {
			calls[c.Session]++
			cost[c.Session] += c.CostUSD
		})
		assert.Equal(t, map[string]int{"50505050-aaaa-4bbb-8ccc-000000000050": 10, "68992e40-6f27-496d-8514-27ef389eef23": 3}, calls, "order %v", order)
		assert.InDelta(t, 0.0940894, cost["50505050-aaaa-4bbb-8ccc-000000000050"], 1e-9)
		assert.InDelta(t, 0.1252596-0.0940894, cost["68992e40-6f27-496d-8514-27ef389eef23"], 1e-9)
		for _, s := range sums {
			if s.Session == "68992e40-6f27-496d-8514-27ef389eef23" {
				assert.Equal(t, "50505050-aaaa-4bbb-8ccc-000000000050", s.ForkedFrom)
				assert.Equal(t, 10, s.Copied)
			}
		}
	}
}

// TestSharedScratchReadsLongLinesWithoutAllocating proves a scan that
// shares its read buffer and long lines' scratch from file to file (as
// usage --by day's workers do) allocates no new buffer for a long line it
// has room for: on 02-write-read's session with a tool result made 3 MB
// long (as 19-big-tool-result's are: longer than the 1 MiB read buffer),
// the second read allocates less than a tenth of the line. A buffer per
// file was three quarters of the bytes usage --by day allocated on the
// bench tree (issue 41). Bytes allocated, not time: the same on a busy
// machine.
func TestSharedScratchReadsLongLinesWithoutAllocating(t *testing.T) {
	const long = 3 << 20
	src := filepath.Join(transcripts, "02-write-read/home/.claude/projects/-home-user-project/0db2634f-ae79-455c-9f0e-6a3434377177.jsonl")
	path := derived(t, src, func(lines []string) []string {
		for i, l := range lines {
			if k := strings.Index(l, `"type":"tool_result","content":"`); k >= 0 {
				k += len(`"type":"tool_result","content":"`)
				lines[i] = l[:k] + strings.Repeat("x", long) + l[k:]
				break
			}
		}
		return lines
	})
	o := Options{Buffer: bufio.NewReaderSize(nil, 1<<20), Scratch: &stream.Scratch{}}
	first, err := Read(path, o)
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	second, err := Read(path, o)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, first.runs, second.runs, "the same ledger")
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("second read: %d bytes allocated, line of %d", allocated, long)
	assert.Less(t, allocated, uint64(long/10))
}

// TestAPIModelTakesOffTheContextSelectorOnly proves stream.APIModel takes off
// Claude Code's 1M-context selector (any case, repeated), the part of a
// model's name the API never sees, and nothing else.
func TestAPIModelTakesOffTheContextSelectorOnly(t *testing.T) {
	for in, want := range map[string]string{
		"claude-opus-5-5[1m]":     "claude-opus-5-5",
		"claude-opus-5-5[1M]":     "claude-opus-5-5",
		"claude-opus-5-5[1M][1m]": "claude-opus-5-5",
		"claude-opus-5-5":         "claude-opus-5-5",
		"claude-opus-5-5[2m]":     "claude-opus-5-5[2m]",
		"claude-opus-5-5[1m]x":    "claude-opus-5-5[1m]x",
		"[1m]":                    "[1m]",
		"gpt-5.5":                 "gpt-5.5",
		"":                        "",
	} {
		assert.Equal(t, want, stream.APIModel(in), in)
	}
}
