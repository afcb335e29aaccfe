package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"

	"github.com/ccfilter/ccfilter/pkg/input"
	"github.com/ccfilter/ccfilter/pkg/redact"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// --format otlp and --otlp-endpoint: a run as OpenTelemetry traces
// (pkg/render/otlp.go lays them out), written as OTLP/JSON lines or sent
// to a collector over OTLP/HTTP by the OpenTelemetry project's own client
// (otlptracehttp), which takes the protobuf messages the layout makes.

// traceTimes sets where the trace's times come from: a live input's
// arrival; a file's records (its first record time read ahead, for the
// events before it); else the file's modification time, the events placed
// in order from it (docs/otel.md).
func (o *options) traceTimes(r *render.Options, name string) {
	r.Producer = buildVersion()
	r.Spans = o.spans
	if o.followed != nil || name == "-" && isPipe(o.stdin) {
		r.Live = true
		return
	}
	if name == "-" {
		return // a file given on stdin: reconstructed from now
	}
	if t, ok := input.FirstRecordTime(name); ok {
		r.Base, r.BaseRecorded = t, true
		return
	}
	if fi, err := os.Stat(name); err == nil {
		r.Base = fi.ModTime()
	}
}

// otlpSender sends the traces to a collector (--otlp-endpoint).
type otlpSender struct {
	client   otlptrace.Client
	endpoint string
	mu       sync.Mutex
	partial  []string // what the collector said it rejected (partial success)
	sent     int
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
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String()), otlptracehttp.WithTimeout(o.OTLPTimeout),
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
	s := &otlpSender{client: otlptracehttp.NewClient(opts...), endpoint: u.String()}
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

// send uploads one request; an error says the endpoint and what it
// answered (the client's message carries the HTTP status).
func (s *otlpSender) send(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) error {
	if err := s.client.UploadTraces(ctx, req.ResourceSpans); err != nil {
		return &exitError{code: exitInput, msg: fmt.Sprintf("--otlp-endpoint %s: the traces were not delivered: %v", s.endpoint, err)}
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			s.sent += len(ss.Spans)
		}
	}
	return nil
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

// redactTrace replaces the secrets in a trace's strings (attributes,
// events' attributes, statuses): what --redact does to the bytes of an
// output, for traces that are sent rather than written.
func redactTrace(req *coltracepb.ExportTraceServiceRequest, red *redact.Redactor) {
	str := func(kvs []*commonpb.KeyValue) {
		for _, kv := range kvs {
			if v, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValue); ok {
				v.StringValue = red.String(v.StringValue)
			}
		}
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, sp := range ss.Spans {
				str(sp.Attributes)
				for _, ev := range sp.Events {
					str(ev.Attributes)
				}
				if sp.Status != nil {
					sp.Status.Message = red.String(sp.Status.Message)
				}
			}
		}
	}
}
