//go:build jaeger

package main

// Traces into a real backend: Jaeger v2 (built on the OpenTelemetry
// Collector), built from tools/jaeger by make test-otel and named by
// CCFILTER_JAEGER. Built only with -tags jaeger: make test needs no
// Jaeger.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jaeger is a Jaeger running for the test: its OTLP/HTTP receiver and its
// query API.
type jaeger struct {
	otlp, query string
}

// startJaeger runs Jaeger with in-memory storage on loopback ports of its
// own, and waits until it answers (its health check), however long a
// loaded machine takes.
func startJaeger(t *testing.T) *jaeger {
	bin := os.Getenv("CCFILTER_JAEGER")
	if bin == "" {
		t.Fatal("CCFILTER_JAEGER names no Jaeger: make test-otel builds it (tools/jaeger)")
	}
	otlp, query, grpc, health := freePort(t), freePort(t), freePort(t), freePort(t)
	config := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:%d
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
processors:
  batch:
    timeout: 50ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`, health, query, grpc, otlp)
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	require.NoError(t, os.WriteFile(path, []byte(config), 0o644))
	startBackend(t, "jaeger", bin, "--config", path)
	j := &jaeger{otlp: fmt.Sprintf("http://127.0.0.1:%d", otlp), query: fmt.Sprintf("http://127.0.0.1:%d", query)}
	waitFor(t, "jaeger to start", func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/status", health))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return j
}

// jaegerSpan is a span as Jaeger's query API (/api/traces/ID) shows it.
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

func (s jaegerSpan) tag(k string) any {
	for _, t := range s.Tags {
		if t.Key == k {
			return t.Value
		}
	}
	return nil
}

// trace asks Jaeger for a trace until it holds n distinct spans (Jaeger
// may keep a second copy of a span sent twice), and returns them, one
// copy each.
func (j *jaeger) trace(t *testing.T, id string, n int) []jaegerSpan {
	t.Helper()
	var spans []jaegerSpan
	waitFor(t, fmt.Sprintf("trace %s to hold %d spans", id, n), func() bool {
		resp, err := http.Get(j.query + "/api/traces/" + id)
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var out struct {
			Data []struct {
				Spans []jaegerSpan `json:"spans"`
			} `json:"data"`
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &out) != nil || len(out.Data) == 0 {
			return false
		}
		spans = distinct(out.Data[0].Spans)
		return len(spans) >= n
	})
	return spans
}

// distinct keeps the first copy of each span id.
func distinct(spans []jaegerSpan) []jaegerSpan {
	seen := map[string]bool{}
	var out []jaegerSpan
	for _, s := range spans {
		if !seen[s.SpanID] {
			seen[s.SpanID] = true
			out = append(out, s)
		}
	}
	return out
}

// TestJaegerReceivesEveryRun proves --otlp-endpoint into a real Jaeger
// delivers every span of real runs (parallel tools, background subagents,
// a 401 that failed the run, a failing tool, a transcript with its
// subagents), each with its parent link, its tokens, its error status and
// its join keys to Claude Code's own telemetry (a transcript's chat spans
// its request ids), as the run's OTLP/JSON holds them. Each run is sent
// twice: one trace, whose distinct span ids are the run's spans.
func TestJaegerReceivesEveryRun(t *testing.T) {
	j := startJaeger(t)
	transcripts, _ := filepath.Glob("../../testdata/transcripts/05-subagents-async/home/.claude/projects/*/*.jsonl")
	require.Len(t, transcripts, 1)
	inputs := []string{"../../testdata/events/04-parallel-tools.jsonl", "../../testdata/events/05-subagents-async.jsonl",
		"../../testdata/events/09-auth-401.jsonl", "../../testdata/events/03-bash-fail.jsonl",
		"../../testdata/events/60-long-session.jsonl", transcripts[0]}
	for _, in := range inputs {
		if _, err := os.Stat(in); err != nil {
			in = "../../testdata/real/" + filepath.Base(in)
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			want := otlpSpans(t, runIn(t, []string{"-F", "otlp", in}, "").Stdout)
			for range 2 { // the same run sent twice is the same trace
				sent := runIn(t, []string{"--otlp-endpoint", j.otlp, in}, "")
				require.Contains(t, []int{0, 1}, sent.Code, sent.Stderr)
				assert.Empty(t, sent.Stdout)
				assert.Contains(t, sent.Stderr, "of trace "+want[0].TraceID+"\n")
			}
			got := j.trace(t, want[0].TraceID, len(want))
			assert.Len(t, got, len(want), "the trace's distinct spans are the run's")
			eachArrived(t, want, got, func(w *otlpSpan, g jaegerSpan) {
				assert.Equal(t, w.Name, g.OperationName)
				if w.Parent != "" {
					require.NotEmpty(t, g.References, "%s keeps its parent", w.Name)
					assert.Equal(t, w.Parent, g.References[0].SpanID, "%s: its parent", w.Name)
				}
				if w.Status.Code == 2 {
					assert.Equal(t, true, g.tag("error"), "%s: an error in Jaeger", w.Name)
				}
				for _, k := range []string{"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens"} {
					if w.attr(k) != nil {
						n, _ := g.tag(k).(float64) // JSON numbers
						assert.Equal(t, w.int(k), int64(n), "%s: %s", w.Name, k)
					}
				}
				for _, k := range []string{"gen_ai.tool.call.id", "gen_ai.response.id", "gen_ai.conversation.id",
					"session.id", "request_id", "message.uuid", "tool_use_id", "prompt.id"} {
					if v := w.str(k); v != "" {
						assert.Equal(t, v, g.tag(k), "%s: %s", w.Name, k)
					}
				}
			})
			if strings.HasSuffix(in, transcripts[0]) {
				chats := 0
				for _, g := range got {
					if strings.HasPrefix(g.OperationName, "chat ") {
						chats++
						id, _ := g.tag("request_id").(string)
						assert.True(t, strings.HasPrefix(id, "req_"), "%s carries its request id: %q", g.OperationName, id)
					}
				}
				assert.Positive(t, chats)
			}
		})
	}
}

// TestJaegerFindsARunUnderItsTraceParent proves a run sent under a
// TRACEPARENT (a CI job's trace) is found in Jaeger under the parent's
// trace id, its root span a child of the parent's span, every span there.
// On the capture 05-subagents-async.
func TestJaegerFindsARunUnderItsTraceParent(t *testing.T) {
	j := startJaeger(t)
	const traceID, spanID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	in := "../../testdata/events/05-subagents-async.jsonl"
	want := otlpSpans(t, runIn(t, []string{"-F", "otlp", in}, "").Stdout)
	sent := runEnv(t, []string{"TRACEPARENT=00-" + traceID + "-" + spanID + "-01"}, "--otlp-endpoint", j.otlp, in)
	require.Equal(t, exitOK, sent.Code, sent.Stderr)
	assert.Contains(t, sent.Stderr, "of trace "+traceID+"\n")
	got := j.trace(t, traceID, len(want))
	assert.Len(t, got, len(want))
	eachArrived(t, want, got, func(w *otlpSpan, g jaegerSpan) {
		if w.Parent == "" {
			require.NotEmpty(t, g.References, "the root has the caller's span for parent")
			assert.Equal(t, spanID, g.References[0].SpanID)
		}
	})
}

// eachArrived checks that every span of want is in got (by its id), and
// calls check with each and its copy in Jaeger.
func eachArrived(t *testing.T, want []*otlpSpan, got []jaegerSpan, check func(*otlpSpan, jaegerSpan)) {
	t.Helper()
	byID := map[string]jaegerSpan{}
	for _, s := range got {
		byID[s.SpanID] = s
	}
	for _, w := range want {
		g, ok := byID[w.SpanID]
		if assert.True(t, ok, "span %s (%s) arrived", w.SpanID, w.Name) {
			check(w, g)
		}
	}
}
