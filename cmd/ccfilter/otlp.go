package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/ccfilter/ccfilter/pkg/render"
)

// --format otlp and --otlp-endpoint: a run as OpenTelemetry traces
// (pkg/render/otlp.go lays them out), written as OTLP/JSON lines or sent
// to a collector over OTLP/HTTP by the OpenTelemetry project's own client
// (otlptracehttp), which takes the protobuf messages the layout makes.

// traceOptions sets what the trace takes from the command: its producer
// and where its requests go. Nothing of how the input was given: its
// times and ids are the run's own (pkg/render/otlp.go).
func (o *options) traceOptions(r *render.Options) {
	r.Producer = buildVersion()
	r.Spans = o.spans
}

// otlpSender sends the traces to a collector (--otlp-endpoint).
type otlpSender struct {
	client   otlptrace.Client
	endpoint string
	mu       sync.Mutex
	partial  []string // what the collector said it rejected (partial success)
	sent     int
	traces   map[string]bool // the trace ids of the spans sent
	failed   bool            // a request was not delivered (and said so)
}

// startOTLP starts the client of --otlp-endpoint: the URL's path is the
// traces path (/v1/traces when none is given); headers come from
// OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS
// (key=value,... as the OpenTelemetry specification writes them); each
// request waits at most --otlp-timeout, retries included.
func (o *options) startOTLP(ctx context.Context) (*otlpSender, error) {
	u, err := url.Parse(o.OTLPEndpoint)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, &flagError{fmt.Errorf("--otlp-endpoint %q: want an http:// or https:// URL (a collector's OTLP/HTTP receiver, e.g. http://localhost:4318)", o.OTLPEndpoint)}
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	tlsConfig, err := o.otlpTLS()
	if err != nil {
		return nil, errorf(exitInput, "--otlp-endpoint %s: %v", u, err)
	}
	// The client is ours (see otlpAnswers): it takes the place of the one
	// the OpenTelemetry client makes, with that one's proxy, TLS and
	// timeout.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	httpClient := &http.Client{Transport: otlpAnswers{transport}, Timeout: o.OTLPTimeout}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String()), otlptracehttp.WithHTTPClient(httpClient),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond,
			MaxInterval: 5 * time.Second, MaxElapsedTime: o.OTLPTimeout})}
	headers := map[string]string{}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if v, ok := o.getenv(k); ok {
			if err := parseOTLPHeaders(v, headers); err != nil {
				return nil, &flagError{fmt.Errorf("%s: %v", k, err)}
			}
		}
	}
	if len(headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(headers))
	}
	s := &otlpSender{client: otlptracehttp.NewClient(opts...), endpoint: u.String(), traces: map[string]bool{}}
	// The client reports a partial success (the collector kept some spans
	// and said why it rejected the rest) to OpenTelemetry's error handler.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.partial = append(s.partial, err.Error())
	}))
	if err := s.client.Start(ctx); err != nil {
		return nil, errorf(exitInput, "--otlp-endpoint %s: %v", s.endpoint, err)
	}
	return s, nil
}

// parseOTLPHeaders reads key=value pairs separated by commas, each
// URL-encoded (the specification's OTEL_EXPORTER_OTLP_HEADERS).
func parseOTLPHeaders(v string, into map[string]string) error {
	for _, pair := range strings.Split(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", pair)
		}
		key, err1 := url.QueryUnescape(strings.TrimSpace(k))
		value, err2 := url.QueryUnescape(strings.TrimSpace(val))
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		into[key] = value
	}
	return nil
}

// otlpTLS is the TLS the OpenTelemetry client would take from the
// environment for a client of its own: the CA of
// OTEL_EXPORTER_OTLP_[TRACES_]CERTIFICATE, the client's certificate and
// key of ..._CLIENT_CERTIFICATE and ..._CLIENT_KEY (nil: Go's defaults).
// It reads none of them when given a client, as it is (otlpAnswers).
func (o *options) otlpTLS() (*tls.Config, error) {
	file := func(name string) (string, []byte, error) {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + name, "OTEL_EXPORTER_OTLP_" + name} {
			if v, ok := o.getenv(k); ok && v != "" {
				b, err := os.ReadFile(v)
				if err != nil {
					return "", nil, fmt.Errorf("%s: %w", k, err)
				}
				return k, b, nil
			}
		}
		return "", nil, nil
	}
	var c tls.Config
	k, ca, err := file("CERTIFICATE")
	if err != nil {
		return nil, err
	}
	if ca != nil {
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(ca) {
			return nil, fmt.Errorf("%s: no PEM certificate in it", k)
		}
	}
	_, cert, err1 := file("CLIENT_CERTIFICATE")
	_, key, err2 := file("CLIENT_KEY")
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	if cert != nil || key != nil {
		pair, err := tls.X509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY: %w", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	if ca == nil && cert == nil && key == nil {
		return nil, nil
	}
	return &c, nil
}

// otlpAnswers is the sender's transport: a success that is not an OTLP
// answer is an error. The OpenTelemetry client takes any 2xx for a
// delivery and reads its body only when it is protobuf or JSON: a web
// server on the port (Jaeger's UI on 16686 answers POST /v1/traces with
// 200 text/html) had every span dropped, and exit 0. An OTLP receiver
// answers an ExportTraceServiceResponse: protobuf (or JSON), or nothing.
type otlpAnswers struct{ next http.RoundTripper }

func (a otlpAnswers) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(r)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt {
	case "application/x-protobuf", "application/protobuf", "application/json":
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		resp.Body = io.NopCloser(bytes.NewReader(nil))
		return resp, nil
	}
	return nil, &notOTLPError{status: resp.Status, contentType: resp.Header.Get("Content-Type"), title: pageTitle(body)}
}

// notOTLPError: the endpoint answered a success that is no OTLP answer.
type notOTLPError struct{ status, contentType, title string }

func (e *notOTLPError) Error() string {
	what := e.contentType
	if what == "" {
		what = "no Content-Type"
	}
	if e.title != "" {
		what += fmt.Sprintf(", a page titled %q", e.title)
	}
	return fmt.Sprintf("it answered %s with %s, not an OTLP response: is it a collector's OTLP/HTTP receiver (port 4318)?", e.status, what)
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>([^<]{1,200})</title>`)

// pageTitle is the title of an HTML page, to name what answered.
func pageTitle(body []byte) string {
	if m := titleRE.FindSubmatch(body); m != nil {
		return strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " ")
	}
	return ""
}

// send uploads one request; an error says the endpoint and what it
// answered (the client's message carries the HTTP status).
func (s *otlpSender) send(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) error {
	if err := s.client.UploadTraces(ctx, req.ResourceSpans); err != nil {
		var notOTLP *notOTLPError
		if errors.As(err, &notOTLP) { // without the client's wrapping (Post "…": …)
			err = notOTLP
		}
		s.failed = true
		return &exitError{code: exitInput, msg: fmt.Sprintf("--otlp-endpoint %s: the traces were not delivered: %v", s.endpoint, err)}
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			s.sent += len(ss.Spans)
			for _, sp := range ss.Spans {
				s.traces[string(sp.TraceId)] = true
			}
		}
	}
	return nil
}

// delivered says what was sent where, for the success's line on stderr
// ("" when a request failed: its error said so); one trace is named by its
// id, which finds an old run in a backend whose search looks at the last
// hour (docs/otel.md).
func (s *otlpSender) delivered() string {
	if s.failed {
		return ""
	}
	of := render.Plural(int64(len(s.traces)), "trace")
	if len(s.traces) == 1 {
		for id := range s.traces {
			of = "trace " + hex.EncodeToString([]byte(id))
		}
	}
	return fmt.Sprintf("--otlp-endpoint %s: sent %s of %s", s.endpoint, render.Plural(int64(s.sent), "span"), of)
}

// stop ends the client; a partial success is said, and is a failure to
// deliver (exit 5).
func (s *otlpSender) stop(ctx context.Context) error {
	err := s.client.Stop(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		return &exitError{code: exitInput, msg: fmt.Sprintf("--otlp-endpoint %s: partial success: the collector rejected part of the %d spans sent: %s", s.endpoint, s.sent, strings.Join(s.partial, "; "))}
	}
	if err != nil {
		return errorf(exitInput, "--otlp-endpoint %s: %v", s.endpoint, err)
	}
	return nil
}
