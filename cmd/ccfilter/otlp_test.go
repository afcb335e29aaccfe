package main

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/ccfilter/ccfilter/pkg/preset"
)

// otlpSpan is a span of OTLP/JSON, as a collector reads it.
type otlpSpan struct {
	TraceID    string `json:"traceId"`
	SpanID     string `json:"spanId"`
	Parent     string `json:"parentSpanId"`
	Name       string `json:"name"`
	Kind       int    `json:"kind"`
	Start      string `json:"startTimeUnixNano"`
	End        string `json:"endTimeUnixNano"`
	Attributes []struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	} `json:"attributes"`
	Status struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
	Events []struct {
		Name string `json:"name"`
	} `json:"events"`
}

func (s *otlpSpan) attr(k string) any {
	for _, a := range s.Attributes {
		if a.Key == k {
			for _, v := range a.Value {
				return v
			}
		}
	}
	return nil
}

func (s *otlpSpan) str(k string) string { v, _ := s.attr(k).(string); return v }

func (s *otlpSpan) int(k string) int64 {
	v, _ := s.attr(k).(string) // OTLP/JSON writes 64-bit integers as strings
	n, _ := strconv.ParseInt(v, 10, 64)
	return n
}

func (s *otlpSpan) times() (uint64, uint64) {
	a, _ := strconv.ParseUint(s.Start, 10, 64)
	b, _ := strconv.ParseUint(s.End, 10, 64)
	return a, b
}

// otlpSpans reads OTLP/JSON lines: every line one request, every
// resource claude-code's.
func otlpSpans(t *testing.T, out string) []*otlpSpan {
	t.Helper()
	var spans []*otlpSpan
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var req struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string         `json:"key"`
						Value map[string]any `json:"value"`
					} `json:"attributes"`
				} `json:"resource"`
				ScopeSpans []struct {
					Spans []*otlpSpan `json:"spans"`
				} `json:"scopeSpans"`
			} `json:"resourceSpans"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &req), "each line one ExportTraceServiceRequest")
		require.NotEmpty(t, req.ResourceSpans)
		for _, rs := range req.ResourceSpans {
			require.Equal(t, "service.name", rs.Resource.Attributes[0].Key)
			require.Equal(t, "claude-code", rs.Resource.Attributes[0].Value["stringValue"])
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
	}
	return spans
}

// otlpInputs are the runs the trace is checked on: every capture (a
// sample in -short mode) and every transcript.
func otlpInputs(t *testing.T) []string {
	captures, _ := filepath.Glob("../../testdata/events/*.jsonl")
	if testing.Short() {
		captures = sampleCaptures(captures)
	}
	transcripts, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	require.NotEmpty(t, transcripts)
	return append(captures, transcripts...)
}

// TestOTLPTraceOfEveryRun proves the trace of every capture and
// transcript is valid OTLP/JSON of one trace that holds the run: one
// root; every parent a span of the trace; every tool call a span (an
// error result its span's error); every model call (message id) a chat
// span; every subagent an invoke_agent span under the Agent call that
// started it, its calls under it; every span within its time and the
// root's; the tokens of the chat spans and the root those the usage
// preset counts; and the same ids when the run is read again.
func TestOTLPTraceOfEveryRun(t *testing.T) {
	for _, path := range otlpInputs(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			r := runIn(t, []string{"-F", "otlp", path}, "")
			if r.Code == exitNoResult && r.Stdout == "" {
				return // an empty capture: no run, no trace
			}
			require.Contains(t, []int{0, 1}, r.Code, r.Stderr)
			spans := otlpSpans(t, r.Stdout)
			byID := map[string]*otlpSpan{}
			var root *otlpSpan
			for _, s := range spans {
				require.NotContains(t, byID, s.SpanID, "span ids are unique: %s", s.Name)
				byID[s.SpanID] = s
				assert.Len(t, s.TraceID, 32)
				assert.Equal(t, spans[0].TraceID, s.TraceID, "one trace per run")
				if s.Parent == "" {
					require.Nil(t, root, "one root")
					root = s
				}
			}
			require.NotNil(t, root)
			assert.Equal(t, "invoke_agent claude-code", root.Name)
			rs, re := root.times()
			for _, s := range spans {
				if s.Parent != "" {
					assert.Contains(t, byID, s.Parent, "%s: its parent is in the trace", s.Name)
				}
				st, en := s.times()
				assert.LessOrEqual(t, st, en, "%s starts before it ends", s.Name)
				assert.True(t, st >= rs && en <= re, "%s lies within the run: %d..%d in %d..%d", s.Name, st, en, rs, re)
			}
			checkToolSpans(t, path, spans, byID)
			checkChatSpans(t, path, spans, root)
			again := runIn(t, []string{"-F", "otlp", path}, "")
			assert.Equal(t, r.Stdout, again.Stdout, "the same run, the same trace")
		})
	}
}

// checkToolSpans: every call of the tools preset is an execute_tool span,
// failed as its result is; a subagent's under its invoke_agent span, which
// sits under the Agent call that started it.
func checkToolSpans(t *testing.T, path string, spans []*otlpSpan, byID map[string]*otlpSpan) {
	t.Helper()
	var calls []struct {
		ID      string `json:"tool_use_id"`
		Agent   string `json:"agent"`
		Tool    string `json:"tool"`
		IsError *bool  `json:"is_error"`
	}
	r := runIn(t, []string{"tools", "-F", "json", path}, "")
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &calls), r.Stderr)
	tools := map[string]*otlpSpan{}
	for _, s := range spans {
		if strings.HasPrefix(s.Name, "execute_tool ") {
			tools[s.str("gen_ai.tool.call.id")] = s
		}
	}
	for _, c := range calls {
		s := tools[c.ID]
		if !assert.NotNil(t, s, "call %s (%s) has a span", c.ID, c.Tool) {
			continue
		}
		assert.Equal(t, "execute_tool "+c.Tool, s.Name)
		failed := c.IsError != nil && *c.IsError
		assert.Equal(t, failed, s.Status.Code == 2, "%s %s: failed as its result", c.Tool, c.ID)
		parent := byID[s.Parent]
		require.NotNil(t, parent)
		if c.Agent == "main" {
			assert.Equal(t, "", parent.Parent, "a main-agent call sits under the root")
			continue
		}
		assert.True(t, strings.HasPrefix(parent.Name, "invoke_agent "), "a subagent's call sits under its agent: %s", parent.Name)
		agentCall := byID[parent.Parent]
		require.NotNil(t, agentCall)
		assert.Equal(t, parent.str("gen_ai.agent.id"), agentCall.str("gen_ai.tool.call.id"), "the subagent under the call that started it")
	}
	assert.Len(t, tools, len(calls), "no span of a call the tools preset does not list")
}

// checkChatSpans: every message id of the run's model calls is one chat
// span (an assistant event's, but a message Claude Code writes itself,
// model "<synthetic>", unless an API error: 38-local-commands's command
// outputs were two "chat <synthetic>" spans); their tokens add up to the
// usage preset's per model call, and the root's are its totals.
func checkChatSpans(t *testing.T, path string, spans []*otlpSpan, root *otlpSpan) {
	t.Helper()
	// The calls the run made: its assistant messages, and the calls whose
	// stream began (message_start) and died before any.
	ids := runIn(t, []string{"-r", `(select(.type == "assistant" and (.message.model != "<synthetic>" or .error)) | .message.id // empty), (select(.type == "stream_event" and .event.type == "message_start") | .event.message.id // empty)`, path}, "")
	want := map[string]bool{}
	for _, id := range strings.Fields(ids.Stdout) {
		want[id] = true
	}
	var sum struct{ input, uncached, output, read, write int64 }
	got := map[string]bool{}
	for _, s := range spans {
		if !strings.HasPrefix(s.Name, "chat ") {
			continue
		}
		assert.Equal(t, 3, s.Kind, "a model call is a client span")
		got[s.str("gen_ai.response.id")] = true
		sum.input += s.int("gen_ai.usage.input_tokens")
		sum.uncached += s.int("claude_code.usage.uncached_input_tokens")
		sum.output += s.int("gen_ai.usage.output_tokens")
		sum.read += s.int("gen_ai.usage.cache_read.input_tokens")
		sum.write += s.int("gen_ai.usage.cache_creation.input_tokens")
	}
	assert.Equal(t, want, got, "one chat span per message id")
	var rows []struct {
		Side                     string `json:"side"`
		Input, Output            int64
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	}
	u := runIn(t, []string{"usage", "-F", "json", path}, "")
	require.NoError(t, json.Unmarshal([]byte(u.Stdout), &rows), u.Stderr)
	var calls struct{ input, output, read, write int64 }
	for _, row := range rows {
		switch row.Side {
		case "main", "subagent":
			calls.input += row.InputTokens
			calls.output += row.OutputTokens
			calls.read += row.CacheReadInputTokens
			calls.write += row.CacheCreationInputTokens
		case "total":
			assert.Equal(t, row.InputTokens+row.CacheReadInputTokens+row.CacheCreationInputTokens, root.int("gen_ai.usage.input_tokens"), "the root: the run's input, cache included")
			assert.Equal(t, row.OutputTokens, root.int("gen_ai.usage.output_tokens"), "the root: the run's output")
		}
	}
	assert.Equal(t, calls.input, sum.uncached)
	assert.Equal(t, calls.input+calls.read+calls.write, sum.input, "input tokens include the cache's, as the GenAI conventions count them")
	assert.Equal(t, calls.output, sum.output)
	assert.Equal(t, calls.read, sum.read)
	assert.Equal(t, calls.write, sum.write)
	assert.True(t, slices.ContainsFunc(root.Attributes, func(a struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	}) bool {
		return a.Key == "claude_code.times"
	}), "the root says where its times come from")
}

// collector is an OTLP/HTTP receiver of the test's own: it decodes what
// it is sent (protobuf: a TracesData has the ExportTraceServiceRequest's
// encoding) and answers as told.
type collector struct {
	mu      sync.Mutex
	spans   []*tracepb.Span
	headers []http.Header
	status  int
	partial *partialSuccess
}

// partialSuccess is an ExportTracePartialSuccess.
type partialSuccess struct {
	rejected int64
	message  string
}

// otlpResponse encodes an ExportTraceServiceResponse (protobuf), by hand:
// its generated type lives in the collector package, which brings grpc
// into the module.
func otlpResponse(p *partialSuccess) []byte {
	if p == nil {
		return nil
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(p.rejected))
	ps = protowire.AppendTag(ps, 2, protowire.BytesType)
	ps = protowire.AppendString(ps, p.message)
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	return protowire.AppendBytes(b, ps)
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req tracepb.TracesData
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP/HTTP protobuf request", http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.headers = append(c.headers, r.Header.Clone())
	if c.status != 0 {
		http.Error(w, "no", c.status)
		return
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(otlpResponse(c.partial))
}

func runEnv(t *testing.T, env []string, args ...string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runWith(&options{presets: preset.Builtin()}, args, strings.NewReader(""), &stdout, &stderr, env)
	return runResult{stdout.String(), stderr.String(), code}
}

// TestOTLPEndpoint proves --otlp-endpoint sends a run to an OTLP/HTTP
// receiver as protobuf, every span the JSON lines hold, with the headers
// of OTEL_EXPORTER_OTLP_HEADERS and nothing on stdout; that a refusal is
// reported with its HTTP status and exit 5, and so is a partial success;
// and that what is sent is redacted as what is written is.
func TestOTLPEndpoint(t *testing.T) {
	path := "../../testdata/events/05-subagents-async.jsonl"
	want := otlpSpans(t, runIn(t, []string{"-F", "otlp", path}, "").Stdout)

	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	r := runEnv(t, []string{"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20s3cr3t,x-team=ci"}, "--otlp-endpoint", srv.URL, path)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Empty(t, r.Stdout, "sent, not printed")
	assert.Len(t, c.spans, len(want), "every span arrived")
	assert.Equal(t, "ccfilter: --otlp-endpoint "+srv.URL+"/v1/traces: sent "+strconv.Itoa(len(want))+" spans of trace "+want[0].TraceID+"\n", r.Stderr,
		"a success says what went where")
	require.NotEmpty(t, c.headers)
	assert.Equal(t, "Bearer s3cr3t", c.headers[0].Get("Authorization"))
	assert.Equal(t, "ci", c.headers[0].Get("X-Team"))

	// A folder of two sessions (the transcripts of 50-multi-turn): two traces.
	folder := "../../testdata/transcripts/50-multi-turn/home/.claude/projects/-home-user-project"
	wantFolder := otlpSpans(t, runIn(t, []string{"-F", "otlp", folder}, "").Stdout)
	c = &collector{}
	srvFolder := httptest.NewServer(c)
	defer srvFolder.Close()
	r = runEnv(t, nil, "--otlp-endpoint", srvFolder.URL, folder)
	require.Equal(t, 0, r.Code, r.Stderr)
	assert.Len(t, c.spans, len(wantFolder))
	assert.Equal(t, "ccfilter: --otlp-endpoint "+srvFolder.URL+"/v1/traces: sent "+strconv.Itoa(len(wantFolder))+" spans of 2 traces\n", r.Stderr)

	c = &collector{status: http.StatusUnauthorized}
	srv401 := httptest.NewServer(c)
	defer srv401.Close()
	r = runEnv(t, nil, "--otlp-endpoint", srv401.URL+"/v1/traces", path)
	assert.Equal(t, exitInput, r.Code)
	assert.Contains(t, r.Stderr, "the traces were not delivered")
	assert.Contains(t, r.Stderr, "401")
	assert.NotContains(t, r.Stderr, "sent ", "nothing was")

	c = &collector{partial: &partialSuccess{rejected: 2, message: "two spans too old"}}
	srvPart := httptest.NewServer(c)
	defer srvPart.Close()
	r = runEnv(t, nil, "--otlp-endpoint", srvPart.URL, path)
	assert.Equal(t, exitInput, r.Code)
	assert.Contains(t, r.Stderr, "partial success")
	assert.Contains(t, r.Stderr, "two spans too old")

	secret := derived(t, "03-bash-fail.jsonl", "ls /nonexistent-dir-for-probe", "curl -H 'Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' https://example.com")
	c = &collector{}
	srvRed := httptest.NewServer(c)
	defer srvRed.Close()
	r = runEnv(t, nil, "--otlp-endpoint", srvRed.URL, secret)
	require.Equal(t, 0, r.Code, r.Stderr)
	sent, _ := protojson.Marshal(&tracepb.ScopeSpans{Spans: c.spans})
	assert.NotContains(t, string(sent), "ghp_0123456789", "the secret is not sent")
	assert.Contains(t, string(sent), "[REDACTED:")
	printed := runIn(t, []string{"-F", "otlp", secret}, "")
	assert.NotContains(t, printed.Stdout, "ghp_0123456789", "nor written")
}

// TestOTLPRefusals proves what the trace format does not do is refused
// with a usage error: another preset's report, an expression, another
// format with --otlp-endpoint, a URL that is none, the sender's flags
// without --otlp-endpoint.
func TestOTLPRefusals(t *testing.T) {
	path := "../../testdata/events/01-plain-text.jsonl"
	for _, args := range [][]string{
		{"usage", "-F", "otlp", path},
		{"-F", "otlp", ".", path},
		{"-F", "markdown", "--otlp-endpoint", "http://localhost:4318", path},
		{"--otlp-endpoint", "localhost:4318", path},
		{"--otlp-protocol", "http/json", path}, // nothing to send
		{"--otlp-timeout", "5s", path},
	} {
		r := runIn(t, args, "")
		assert.Equal(t, exitUsage, r.Code, "%v: %s", args, r.Stderr)
	}
}

// TestOTLPEndpointThatIsNotAReceiverFails proves that a success that is
// not an OTLP response is a failure to deliver (exit 5), said with what
// answered: Jaeger's UI port (16686), given for its OTLP port (4318),
// answers POST /v1/traces with its page, 200 text/html (the server below
// answers as it does), which the OpenTelemetry client takes for a
// delivery. A receiver that answers 200 with nothing, or with an OTLP
// response, delivers. On the capture 05-subagents-async.
func TestOTLPEndpointThatIsNotAReceiverFails(t *testing.T) {
	path := "../../testdata/events/05-subagents-async.jsonl"
	answer := func(contentType, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header()["Content-Type"] = nil // none when "" (no sniffing)
			if contentType != "" {
				w.Header().Set("Content-Type", contentType)
			}
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	jaegerUI := answer("text/html; charset=utf-8", `<!doctype html><html lang="en"><head><meta charset="utf-8"/><title>Jaeger UI</title></head><body><div id="jaeger-ui-root"></div></body></html>`)
	otlpAnswer := otlpResponse(&partialSuccess{})
	for _, tc := range []struct {
		name, url string
		code      int
		stderr    string
	}{
		{"a web page", jaegerUI, exitInput, "ccfilter: --otlp-endpoint " + jaegerUI + "/v1/traces: the traces were not delivered: it answered 200 OK with text/html; charset=utf-8, a page titled \"Jaeger UI\", not an OTLP response: is it a collector's OTLP/HTTP receiver (port 4318)?\n"},
		{"plain text", answer("text/plain", "ok"), exitInput, "200 OK with text/plain, not an OTLP response"},
		{"nothing", answer("", ""), exitOK, " spans of trace "},
		{"an OTLP response", answer("application/x-protobuf", string(otlpAnswer)), exitOK, " spans of trace "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runEnv(t, nil, "--otlp-endpoint", tc.url, path)
			assert.Equal(t, tc.code, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, tc.stderr)
			assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line: the failure, or what was sent")
			assert.Empty(t, r.Stdout)
		})
	}
}

// TestOTLPEndpointTLSFromEnvironment proves the TLS settings the
// OpenTelemetry client reads from the environment still hold with the
// client ccfilter gives it: a receiver whose certificate no system CA
// signed is refused, and reached with its CA in
// OTEL_EXPORTER_OTLP_CERTIFICATE. On the capture 01-plain-text.
func TestOTLPEndpointTLSFromEnvironment(t *testing.T) {
	path := "../../testdata/events/01-plain-text.jsonl"
	c := &collector{}
	srv := httptest.NewUnstartedServer(c)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	srv.StartTLS()
	defer srv.Close()
	r := runEnv(t, nil, "--otlp-endpoint", srv.URL, path)
	assert.Equal(t, exitInput, r.Code, r.Stderr)
	assert.Contains(t, r.Stderr, "certificate")

	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	r = runEnv(t, []string{"OTEL_EXPORTER_OTLP_CERTIFICATE=" + ca}, "--otlp-endpoint", srv.URL, path)
	assert.Equal(t, exitOK, r.Code, r.Stderr)
	assert.NotEmpty(t, c.spans)

	r = runEnv(t, []string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE=" + filepath.Join(t.TempDir(), "none.pem")}, "--otlp-endpoint", srv.URL, path)
	assert.Equal(t, exitInput, r.Code)
	assert.Contains(t, r.Stderr, "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: open ")
}

// TestOTLPCallsOpenAtTheEndAreEndedInOrder proves the trace of a run cut
// while its calls were open is the same bytes every time: the open spans
// are ended earliest first, not in a Go map's order, which changes from
// run to run (04-parallel-tools cut after its four parallel calls
// started, before any result; before, eight runs gave up to eight traces).
func TestOTLPCallsOpenAtTheEndAreEndedInOrder(t *testing.T) {
	b, err := os.ReadFile("../../testdata/events/04-parallel-tools.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	path := filepath.Join(t.TempDir(), "cut.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:7], "")), 0o644))
	first := runIn(t, []string{"-F", "otlp", "--no-redact", path}, "")
	require.NotEmpty(t, first.Stdout, first.Stderr)
	for range 8 {
		again := runIn(t, []string{"-F", "otlp", "--no-redact", path}, "")
		require.Equal(t, first.Stdout, again.Stdout)
	}
}
