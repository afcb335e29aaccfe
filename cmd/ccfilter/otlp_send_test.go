package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/internal/otlphttp"
	"github.com/ccfilter/ccfilter/internal/otlpref"
	"github.com/ccfilter/ccfilter/pkg/preset"
)

// What the OTLP/HTTP specification asks of an exporter, each checked
// against a receiver of the test's own (receiver below), on the capture
// 05-subagents-async (15 spans, one request) unless said.

// received is one request as the receiver saw it.
type received struct {
	path, contentType, encoding string
	header                      http.Header
	body                        []byte // as sent (gzipped when it was)
}

// answer is what the receiver says to one request.
type answer struct {
	status      int
	contentType string
	body        []byte
	retryAfter  string
}

// receiver answers its requests from a script (the last answer again when
// it runs out) and keeps each.
type receiver struct {
	mu      sync.Mutex
	script  []answer
	got     []received
	srv     *httptest.Server
	answers int
}

func newReceiver(t *testing.T, script ...answer) *receiver {
	r := &receiver{script: script}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, received{req.URL.Path, req.Header.Get("Content-Type"), req.Header.Get("Content-Encoding"), req.Header.Clone(), body})
	a := answer{status: http.StatusOK, contentType: "application/x-protobuf"}
	if len(r.script) > 0 {
		a = r.script[min(r.answers, len(r.script)-1)]
	}
	r.answers++
	if a.retryAfter != "" {
		w.Header().Set("Retry-After", a.retryAfter)
	}
	if a.contentType != "" {
		w.Header().Set("Content-Type", a.contentType)
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// fakeTime is the exporter's clock and waits in a test: a wait advances
// the clock and is noted, and takes no time; jitter is none (the backoff's
// shortest wait, half of it).
type fakeTime struct {
	now   time.Time
	waits []time.Duration
}

func (f *fakeTime) exporter(e *otlphttp.Exporter) {
	e.Now = func() time.Time { return f.now }
	e.Sleep = func(_ context.Context, d time.Duration) error {
		f.waits = append(f.waits, d)
		f.now = f.now.Add(d)
		return nil
	}
	e.Jitter = func() float64 { return 0 }
}

// runSend runs the command with env and the fake clock.
func runSend(t *testing.T, ft *fakeTime, env []string, args ...string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	o := &options{presets: preset.Builtin()}
	if ft != nil {
		o.otlpExporter = ft.exporter
	}
	code := runWith(o, args, strings.NewReader(""), &stdout, &stderr, env)
	return runResult{stdout.String(), stderr.String(), code}
}

const sendCapture = "../../testdata/events/05-subagents-async.jsonl"

// TestOTLPEndpointSendsProtobufOrTheJSONLinesAsked proves the encodings of
// OTLP/HTTP: protobuf by default (a TracesData, the request's encoding);
// http/json on request (--otlp-protocol, OTEL_EXPORTER_OTLP_PROTOCOL, its
// traces-only spelling first), whose body is byte for byte the line
// --format otlp writes, redacted the same (a capture given a token in a
// command: 03-bash-fail, derived); gzip when
// OTEL_EXPORTER_OTLP_COMPRESSION says so.
func TestOTLPEndpointSendsProtobufOrTheJSONLinesAsked(t *testing.T) {
	secret := derived(t, "03-bash-fail.jsonl", "ls /nonexistent-dir-for-probe", "curl -H 'Authorization: Bearer ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' https://example.com")
	written := runIn(t, []string{"-F", "otlp", secret}, "").Stdout
	require.Contains(t, written, "[REDACTED:")
	requests := strings.Count(written, "\n") // the spans as they end, the root last
	require.Greater(t, requests, 1)
	for _, tc := range []struct {
		name        string
		env         []string
		args        []string
		contentType string
		gzip        bool
	}{
		{"protobuf by default", nil, nil, "application/x-protobuf", false},
		{"json by flag", nil, []string{"--otlp-protocol", "http/json"}, "application/json", false},
		{"json by the environment", []string{"OTEL_EXPORTER_OTLP_PROTOCOL=http/json"}, nil, "application/json", false},
		{"the traces' variable first", []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"}, nil, "application/json", false},
		{"the flag over the environment", []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, []string{"--otlp-protocol", "http/protobuf"}, "application/x-protobuf", false},
		{"gzip", []string{"OTEL_EXPORTER_OTLP_COMPRESSION=gzip"}, nil, "application/x-protobuf", true},
		{"json and gzip", []string{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION=gzip"}, []string{"--otlp-protocol", "http/json"}, "application/json", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t)
			r := runSend(t, nil, tc.env, append(append([]string{"--otlp-endpoint", rc.srv.URL}, tc.args...), secret)...)
			require.Equal(t, exitOK, r.Code, r.Stderr)
			got := rc.requests()
			require.Equal(t, requests, len(got), "a request per line")
			var sent strings.Builder
			for _, g := range got {
				assert.Equal(t, "/v1/traces", g.path)
				assert.Equal(t, tc.contentType, g.contentType)
				body := g.body
				if tc.gzip {
					assert.Equal(t, "gzip", g.encoding)
					zr, err := gzip.NewReader(bytes.NewReader(body))
					require.NoError(t, err)
					body, err = io.ReadAll(zr)
					require.NoError(t, err)
				} else {
					assert.Empty(t, g.encoding)
				}
				if tc.contentType == "application/protobuf" || tc.contentType == "application/x-protobuf" {
					var err error
					_, body, err = otlpref.FromProtobuf(body)
					require.NoError(t, err)
				}
				sent.Write(body)
				sent.WriteString("\n")
			}
			// The JSON sent is the lines --format otlp writes; the
			// protobuf holds them.
			assert.Equal(t, written, sent.String())
		})
	}
}

// TestOTLPEndpointRefusesWhatItDoesNotSend proves grpc (which Claude
// Code's own telemetry may have set in OTEL_EXPORTER_OTLP_PROTOCOL) and
// other values are refused in one line that says what ccfilter sends,
// before anything is sent (exit 2).
func TestOTLPEndpointRefusesWhatItDoesNotSend(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"grpc by flag", nil, []string{"--otlp-protocol", "grpc"}, "ccfilter: --otlp-protocol grpc: ccfilter sends OTLP over HTTP only: http/protobuf (the default) or http/json\n"},
		{"grpc by the environment", []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, nil, "ccfilter: OTEL_EXPORTER_OTLP_PROTOCOL grpc: ccfilter sends OTLP over HTTP only: http/protobuf (the default) or http/json\n"},
		{"an unknown protocol", nil, []string{"--otlp-protocol", "http/xml"}, "ccfilter: --otlp-protocol http/xml: unknown protocol \"http/xml\" (want http/protobuf or http/json)\n"},
		{"an unknown compression", []string{"OTEL_EXPORTER_OTLP_COMPRESSION=zstd"}, nil, "ccfilter: OTEL_EXPORTER_OTLP_COMPRESSION \"zstd\": want gzip or none\n"},
		{"a timeout that is no number", []string{"OTEL_EXPORTER_OTLP_TIMEOUT=10s"}, nil, "ccfilter: OTEL_EXPORTER_OTLP_TIMEOUT \"10s\": want a positive number of milliseconds\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t)
			r := runSend(t, nil, tc.env, append(append([]string{"--otlp-endpoint", rc.srv.URL}, tc.args...), sendCapture)...)
			assert.Equal(t, exitUsage, r.Code)
			assert.Equal(t, tc.want, firstLine(r.Stderr)+"\n")
			assert.Empty(t, rc.requests(), "nothing sent")
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestOTLPEndpointRetriesAsTheSpecSays proves the retries: 429, 502, 503
// and 504 are tried again, after the server's Retry-After (seconds or a
// date) or an exponential backoff (jitter none here: half of 0.5 s, 1 s,
// 2 s, ...), within --otlp-timeout (else OTEL_EXPORTER_OTLP_TIMEOUT, in
// milliseconds), then given up with the last status; any other 4xx or 5xx
// is not tried again. The waits are the test's (no time passes).
func TestOTLPEndpointRetriesAsTheSpecSays(t *testing.T) {
	ok := answer{status: 200, contentType: "application/x-protobuf"}
	start := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		script   []answer
		env      []string
		args     []string
		code     int
		waits    []time.Duration
		stderr   string
		attempts int
	}{
		{"503 with Retry-After seconds", []answer{{status: 503, retryAfter: "3"}, ok}, nil, nil, exitOK,
			[]time.Duration{3 * time.Second}, "sent 15 spans", 2},
		{"429 with a Retry-After date", []answer{{status: 429, retryAfter: start.Add(2 * time.Second).Format(http.TimeFormat)}, ok}, nil, nil, exitOK,
			[]time.Duration{2 * time.Second}, "sent 15 spans", 2},
		{"502 and 504: the backoff doubles", []answer{{status: 502}, {status: 504}, {status: 502}, ok}, nil, nil, exitOK,
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}, "sent 15 spans", 4},
		{"still 503 at --otlp-timeout", []answer{{status: 503, contentType: "text/plain", body: []byte("overloaded")}}, nil, []string{"--otlp-timeout", "3s"}, exitInput,
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second},
			"the traces were not delivered: it answered 503 Service Unavailable: overloaded (4 attempts; no time left in 3s to try again)", 4},
		{"OTEL_EXPORTER_OTLP_TIMEOUT", []answer{{status: 503}}, []string{"OTEL_EXPORTER_OTLP_TIMEOUT=1000"}, nil, exitInput,
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond}, "(3 attempts; no time left in 1s to try again)", 3},
		{"the flag over OTEL_EXPORTER_OTLP_TIMEOUT", []answer{{status: 503}}, []string{"OTEL_EXPORTER_OTLP_TIMEOUT=1000"}, []string{"--otlp-timeout", "2s"}, exitInput,
			[]time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}, "(4 attempts; no time left in 2s to try again)", 4},
		{"a Retry-After past the timeout", []answer{{status: 429, retryAfter: "60"}}, nil, nil, exitInput,
			nil, "it answered 429 Too Many Requests (1 attempts; no time left in 10s to try again)", 1},
		{"400 is not retried", []answer{{status: 400, contentType: "application/json", body: []byte(`{"code":3,"message":"bad span"}`)}, ok}, nil, nil, exitInput,
			nil, "the traces were not delivered: it answered 400 Bad Request: bad span\n", 1},
		{"500 is not retried", []answer{{status: 500}, ok}, nil, nil, exitInput,
			nil, "it answered 500 Internal Server Error\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := newReceiver(t, tc.script...)
			ft := &fakeTime{now: start}
			r := runSend(t, ft, tc.env, append(append([]string{"--otlp-endpoint", rc.srv.URL}, tc.args...), sendCapture)...)
			assert.Equal(t, tc.code, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, tc.stderr)
			assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line: %s", r.Stderr)
			assert.Equal(t, tc.waits, ft.waits)
			n := len(rc.requests())
			if tc.code == exitOK {
				n-- // the second request, the root span's, answered at once
			}
			assert.Equal(t, tc.attempts, n, "attempts")
		})
	}
}

// TestOTLPEndpointReadsTheAnswer proves an answer is read as OTLP's: a
// partial success (spans rejected) is said and fails (exit 5), in
// protobuf or JSON (rejectedSpans a string, as OTLP/JSON writes 64-bit
// integers, or a number); a message with nothing rejected is a warning
// said with the success; a 2xx whose body is no OTLP answer fails.
func TestOTLPEndpointReadsTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer answer
		code   int
		stderr string
	}{
		{"partial success, protobuf", answer{status: 200, contentType: "application/x-protobuf", body: otlpResponse(&partialSuccess{rejected: 2, message: "two spans too old"})},
			exitInput, "partial success: the collector rejected 2 of the 15 spans sent: two spans too old\n"},
		{"partial success, JSON", answer{status: 200, contentType: "application/json", body: []byte(`{"partialSuccess":{"rejectedSpans":"3","errorMessage":"three spans too old"}}`)},
			exitInput, "partial success: the collector rejected 3 of the 15 spans sent: three spans too old\n"},
		{"partial success, JSON number", answer{status: 200, contentType: "application/json", body: []byte(`{"partialSuccess":{"rejectedSpans":4,"errorMessage":"four"}}`)},
			exitInput, "the collector rejected 4 of the 15 spans sent: four\n"},
		{"a warning", answer{status: 200, contentType: "application/json", body: []byte(`{"partialSuccess":{"errorMessage":"attributes truncated"}}`)},
			exitOK, " spans of trace fe33f4a61f6f36873064e0fd2abfe555; the collector warned: attributes truncated\n"},
		{"an empty JSON answer", answer{status: 200, contentType: "application/json", body: []byte(`{}`)},
			exitOK, "sent 15 spans of trace fe33f4a61f6f36873064e0fd2abfe555\n"},
		{"JSON that is no answer", answer{status: 200, contentType: "application/json", body: []byte(`[not json`)},
			exitInput, "it answered 200 OK with application/json, not an OTLP response"},
		{"protobuf that is no answer", answer{status: 200, contentType: "application/x-protobuf", body: []byte{0xff, 0xff}},
			exitInput, "it answered 200 OK with application/x-protobuf, not an OTLP response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first request's answer; the second (the root span) kept whole.
			rc := newReceiver(t, tc.answer, answer{status: 200})
			r := runSend(t, nil, nil, "--otlp-endpoint", rc.srv.URL, sendCapture)
			assert.Equal(t, tc.code, r.Code, r.Stderr)
			assert.Contains(t, r.Stderr, tc.stderr)
			assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line")
		})
	}
}

// TestOTLPEndpointOnlyWhereTheCommandLineSays proves where the traces go:
// --otlp-endpoint's URL as given (/v1/traces added only when it has no
// path); --otlp-endpoint env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given
// or OTEL_EXPORTER_OTLP_ENDPOINT as a base (/v1/traces appended); and
// nothing at all without the flag, whatever the environment holds (a
// Claude Code whose telemetry is configured there).
func TestOTLPEndpointOnlyWhereTheCommandLineSays(t *testing.T) {
	rc := newReceiver(t)
	for _, tc := range []struct {
		name string
		env  []string
		url  string
		path string
	}{
		{"a URL with no path", nil, rc.srv.URL, "/v1/traces"},
		{"a URL with a path, as given", nil, rc.srv.URL + "/otlp/traces", "/otlp/traces"},
		{"env: the traces endpoint as given", []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + rc.srv.URL + "/custom", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1"}, "env", "/custom"},
		{"env: the base endpoint plus /v1/traces", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.srv.URL + "/tenant/"}, "env", "/tenant/v1/traces"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(rc.requests())
			r := runSend(t, nil, tc.env, "--otlp-endpoint", tc.url, sendCapture)
			require.Equal(t, exitOK, r.Code, r.Stderr)
			got := rc.requests()[before:]
			require.NotEmpty(t, got)
			for _, g := range got {
				assert.Equal(t, tc.path, g.path)
			}
			assert.Contains(t, r.Stderr, tc.path+": sent 15 spans")
		})
	}

	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.srv.URL, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + rc.srv.URL + "/v1/traces", "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf"}
	before := len(rc.requests())
	r := runSend(t, nil, env, sendCapture)
	assert.Equal(t, exitOK, r.Code, r.Stderr)
	assert.NotEmpty(t, r.Stdout, "printed, as without the variables")
	assert.Len(t, rc.requests(), before, "nothing sent without --otlp-endpoint")

	r = runSend(t, nil, nil, "--otlp-endpoint", "env", sendCapture)
	assert.Equal(t, exitUsage, r.Code)
	assert.Equal(t, "ccfilter: --otlp-endpoint env: neither OTEL_EXPORTER_OTLP_TRACES_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT is set", firstLine(r.Stderr))
	r = runSend(t, nil, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=localhost:4318"}, "--otlp-endpoint", "env", sendCapture)
	assert.Equal(t, exitUsage, r.Code)
	assert.Contains(t, firstLine(r.Stderr), `OTEL_EXPORTER_OTLP_ENDPOINT "localhost:4318": want an http:// or https:// URL`)
}
