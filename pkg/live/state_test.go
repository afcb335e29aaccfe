package live

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/spend"
	"github.com/ccfilter/ccfilter/pkg/stream"
)

// events reads a stream's events (each its own copy).
func events(t *testing.T, text string) []*stream.Event {
	t.Helper()
	return readAll(t, stream.NewReader(strings.NewReader(text), stream.DecoderOptions{Source: "test"}))
}

// readAll reads r to its end, each event its own copy, and closes it.
func readAll(t *testing.T, r stream.Reader) []*stream.Event {
	t.Helper()
	defer r.Close()
	var out []*stream.Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, ev.Clone())
	}
}

func capture(t *testing.T, name string) []*stream.Event {
	t.Helper()
	b, err := os.ReadFile("../../testdata/events/" + name + ".jsonl")
	require.NoError(t, err)
	return events(t, string(b))
}

var t0 = time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)

// TestMayHaveEnded proves a run may have ended after a result only when
// no background task runs: 06-background-bash prints a result while its
// background Bash runs, then another when it reports; each capture's last
// event is a result the run ends with.
func TestMayHaveEnded(t *testing.T) {
	for _, tc := range []struct {
		name    string
		results []bool // MayHaveEnded after each result
	}{
		{"06-background-bash", []bool{false, true}},
		{"05-subagents-async", []bool{true, true, true}}, // the results come last, the agents done
		{"01-plain-text", []bool{true}},
		{"09-auth-401", []bool{true}},
	} {
		s := New(spend.PriceTable{})
		var got []bool
		for i, ev := range capture(t, tc.name) {
			s.Observe(ev, t0.Add(time.Duration(i)*time.Second))
			if ev.Kind == stream.KindResult {
				got = append(got, s.MayHaveEnded())
			} else {
				assert.False(t, s.MayHaveEnded(), "%s: event %d is no result", tc.name, i+1)
			}
		}
		assert.Equal(t, tc.results, got, tc.name)
	}
}

// lineAfter observes the capture's events up to the one match picks (each
// a second after the last) and returns the line then, seconds later.
//
// The events arrive 10 ms apart from a second before the capture's first
// record time (the CLI's assistant and user events carry one, which
// counts over the arrival).
func lineAfter(t *testing.T, evs []*stream.Event, match func(*stream.Event) bool, seconds int) (*State, string) {
	t.Helper()
	start := t0
	for _, ev := range evs {
		if ts, err := time.Parse(time.RFC3339Nano, ev.Timestamp()); err == nil {
			start = ts.Add(-time.Second)
			break
		}
	}
	s := New(spend.PriceTable{})
	s.Watching() // a run read as it is written
	for i, ev := range evs {
		at := start.Add(time.Duration(i) * 10 * time.Millisecond)
		if ts, err := time.Parse(time.RFC3339Nano, ev.Timestamp()); err == nil {
			at = ts
		}
		s.Observe(ev, at)
		if match(ev) {
			return s, s.Line(at.Add(time.Duration(seconds)*time.Second), 0, time.UTC)
		}
	}
	t.Fatal("no event matched")
	return nil, ""
}

// TestLineShowsTheRun proves the line says where a real run stands: its
// elapsed time and turns, the tool calls running and for how long, the
// subagents running, tokens and the cost (the result's once it came), an
// API retry in progress with its attempt, wait and cause (gone once the
// model answers).
func TestLineShowsTheRun(t *testing.T) {
	par := capture(t, "04-parallel-tools")
	lastCall := lastOfKind(par, stream.KindToolUse)
	_, line := lineAfter(t, par, func(ev *stream.Event) bool { return ev == par[lastCall] }, 3)
	for _, want := range []string{"Read 3s, Read 3s, Bash 3s, +1 more", "1 model call", "tokens"} {
		assert.Contains(t, line, want, "four calls running: %s", line)
	}
	assert.True(t, strings.HasPrefix(line, "⏵ 4s · "), "elapsed since the first event: %s", line)

	s, line := lineAfter(t, par, func(ev *stream.Event) bool { return ev.Kind == stream.KindResult }, 0)
	assert.NotContains(t, line, "Read", "no call runs: %s", line)
	assert.Contains(t, line, "5 turns", "the result's turns")
	assert.Regexp(t, `tokens \$0\.\d\d`, line, "the result's cost")
	assert.Equal(t, stream.Succeeded, s.Outcome().Status)

	auth := capture(t, "09-auth-401")
	_, line = lineAfter(t, auth, func(ev *stream.Event) bool { return ev.Kind == stream.KindRetry }, 0)
	assert.Contains(t, line, "retry 1/10 in 0s (401 authentication_failed)", line)
	n := 0
	_, line = lineAfter(t, auth, func(ev *stream.Event) bool {
		if ev.Kind == stream.KindRetry {
			n++
		}
		return n == 3
	}, 1)
	assert.Contains(t, line, "retry 3/10 in 1s (401", "2.4 s of wait, 1 s gone: %s", line)
	_, line = lineAfter(t, auth, func(ev *stream.Event) bool { return ev.Type == "assistant" }, 0)
	assert.NotContains(t, line, "retry", "the model answered: %s", line)

	sub := capture(t, "05-subagents-async")
	started := 0
	_, line = lineAfter(t, sub, func(ev *stream.Event) bool {
		if ev.Subtype == "task_started" {
			started++
		}
		return started == 2
	}, 0)
	assert.Contains(t, line, "2 subagents", line)
}

// TestLineRateLimitAndEstimate proves the rate-limit state of a
// rate_limit_event is shown (which limit, how much is used, when it
// resets), and the cost before the result is an estimate at list prices,
// marked as one.
func TestLineRateLimitAndEstimate(t *testing.T) {
	evs := events(t, `{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":1000000,"output_tokens":0}}}
{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","rateLimitType":"five_hour","utilization":0.82,"resetsAt":1796220000}}
`)
	s := New(spend.PriceTable{})
	for _, ev := range evs {
		s.Observe(ev, t0)
	}
	line := s.Line(t0, 0, time.UTC)
	assert.Contains(t, line, "1.0M tokens ~$3.00", line)
	assert.Contains(t, line, "five_hour limit 82%, resets "+time.Unix(1796220000, 0).UTC().Format("15:04"), line)

	rejected := events(t, `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","rateLimitType":"seven_day"}}`+"\n")
	s.Observe(rejected[0], t0)
	assert.Contains(t, s.Line(t0, 0, time.UTC), "seven_day limit reached")
	allowed := events(t, `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}`+"\n")
	s.Observe(allowed[0], t0)
	assert.NotContains(t, s.Line(t0, 0, time.UTC), "limit", "allowed, no use reported: nothing to say")
}

// TestLineIsSafeAndFits proves nothing of the stream reaches the line
// raw (a tool name with a terminal escape), and the line fits its width.
func TestLineIsSafeAndFits(t *testing.T) {
	evs := events(t, `{"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t1","name":"Evil\u001b]52;c;ZXZpbA==\u0007\u202e","input":{}}]}}
{"type":"system","subtype":"api_retry","attempt":1,"max_retries":3,"retry_delay_ms":1000,"error_status":529,"error":"over\u001b[2Jloaded"}
`)
	s := New(spend.PriceTable{})
	for _, ev := range evs {
		s.Observe(ev, t0)
	}
	line := s.Line(t0, 0, time.UTC)
	assert.NotContains(t, line, "\x1b")
	assert.NotContains(t, line, "\a")
	assert.NotContains(t, line, "\u202e")
	assert.Contains(t, line, "Evil")
	for _, w := range []int{10, 30, 60} {
		cut := s.Line(t0, w, time.UTC)
		assert.LessOrEqual(t, utf8.RuneCountInString(cut), w, cut)
		assert.True(t, strings.HasSuffix(cut, "…"), cut)
	}
	assert.Equal(t, "⏵ waiting for the run", New(spend.PriceTable{}).Line(t0, 0, time.UTC))
}

// transcript reads a real session transcript's events as ccfilter does
// (input.Open: its subagents joined, an init and a result made).
func transcript(t *testing.T, path string) []*stream.Event {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	in, err := input.Open(f, path, "")
	require.NoError(t, err)
	require.Equal(t, input.Transcript, in.Kind())
	return readAll(t, in.Events(stream.DecoderOptions{Source: "test"}))
}

// TestLineReadsATranscriptsRetry proves the line says a session
// transcript's API retry as a stream's: its attempt, its wait and its
// cause, from the event's typed view (a transcript spells them
// retryAttempt, maxRetries, retryInMs), not "retry 0/0". The session is
// the real transcript of 09-auth-401 (a 401, retried once).
func TestLineReadsATranscriptsRetry(t *testing.T) {
	evs := transcript(t, "../../testdata/transcripts/09-auth-401/home/.claude/projects/-home-user-project/2cf31a65-49db-45e4-ba3c-e6d2164a20fb.jsonl")
	s := New(spend.PriceTable{})
	s.Watching()
	for _, ev := range evs {
		at, err := time.Parse(time.RFC3339Nano, ev.Timestamp())
		if err != nil {
			at = s.latest
		}
		s.Observe(ev, at)
		if ev.Kind == stream.KindRetry {
			assert.Contains(t, s.Line(at, 0, time.UTC), "retry 1/1 in 0s (401 invalid x-api-key)")
			return
		}
	}
	t.Fatal("the transcript has no retry")
}

// TestLineCountsTheRecordsTimesWhileCatchingUp proves a file written
// long ago and followed now (05-subagents-async, read 83 hours after its
// records were written) shows how long its calls took by the records'
// own times, not how long ago they started; and that once the reader has
// caught up (Watching), what is written next counts on the wall clock.
func TestLineCountsTheRecordsTimesWhileCatchingUp(t *testing.T) {
	evs := capture(t, "05-subagents-async")
	s := New(spend.PriceTable{})
	var agent int
	for i, ev := range evs {
		if ev.Kind == stream.KindToolUse {
			agent = i
			break
		}
	}
	first, err := time.Parse(time.RFC3339Nano, evs[0].Timestamp())
	if err != nil {
		first, err = time.Parse(time.RFC3339Nano, evs[1].Timestamp())
	}
	require.NoError(t, err)
	now := first.Add(83*time.Hour + 56*time.Minute)
	for _, ev := range evs[:agent+1] {
		s.Observe(ev, now)
	}
	line := s.Line(now, 0, time.UTC)
	assert.True(t, strings.HasPrefix(line, "⏵ 0s · "), "the records span less than a second: %s", line)
	assert.Contains(t, line, "Agent 0s", line)
	assert.NotContains(t, line, "83h", line)

	s.Watching()
	s.Observe(evs[agent+1], now.Add(-2*time.Second)) // written while followed (its record's time is older)
	line = s.Line(now.Add(3*time.Second), 0, time.UTC)
	assert.Contains(t, line, "⏵ 83h56m · ", "written while watched: the wall clock counts: %s", line)
}

// TestLineSaysHowLongNothingWasWritten proves the line says how long
// nothing has been written once that passes a minute (a producer killed
// mid-retry, as 09c-auth-401-killed was, leaves the line as it was), and
// not before.
func TestLineSaysHowLongNothingWasWritten(t *testing.T) {
	s := New(spend.PriceTable{})
	s.Watching()
	for _, ev := range capture(t, "09c-auth-401-killed") {
		s.Observe(ev, t0)
	}
	assert.NotContains(t, s.Line(t0.Add(59*time.Second), 0, time.UTC), "nothing written")
	assert.Contains(t, s.Line(t0.Add(61*time.Second), 0, time.UTC), " · nothing written for 1m01s")
	assert.Contains(t, s.Line(t0.Add(2*time.Hour), 0, time.UTC), " · nothing written for 2h00m")
}

// TestLineSaysTheRunsTurnsOverItsResults proves (issue 39 item 9: "turn"
// means one thing everywhere) that a run ended by several results, as
// 05-subagents-async is by its background agents' (three results: 3, 1
// and 1 turns), shows on its status line the turns its closing line and
// the account show, 5, not the last result's 1.
func TestLineSaysTheRunsTurnsOverItsResults(t *testing.T) {
	evs := capture(t, "05-subagents-async")
	last := lastOfKind(evs, stream.KindResult)
	s, line := lineAfter(t, evs, func(ev *stream.Event) bool { return ev == evs[last] }, 0)
	require.Equal(t, 3, s.tr.Outcome().Results, "the capture ends with three results")
	assert.Contains(t, line, "5 turns")
	assert.NotContains(t, line, "1 turn ")
}

// lastOfKind is the index of the last event of kind k in evs (0 if none).
func lastOfKind(evs []*stream.Event, k stream.Kind) int {
	last := 0
	for i, ev := range evs {
		if ev.Kind == k {
			last = i
		}
	}
	return last
}
