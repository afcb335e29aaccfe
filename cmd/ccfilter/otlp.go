package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccfilter/ccfilter/internal/otlphttp"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// --format otlp and --otlp-endpoint: a run as OpenTelemetry traces
// (pkg/render/otlp.go lays them out), written as OTLP/JSON lines or sent
// to a collector over OTLP/HTTP (internal/otlphttp: net/http and the
// OpenTelemetry project's proto packages, no SDK, no grpc), in the
// encoding the environment or --otlp-protocol asks for: protobuf, or the
// very JSON --format otlp writes, each written straight from the spans
// (render.OTLPBatch).

// traceOptions sets what the trace takes from the command: its producer
// and where its requests go. Nothing of how the input was given: its
// times and ids are the run's own (pkg/render/otlp.go).
func (o *options) traceOptions(r *render.Options) {
	r.Producer = buildVersion()
	r.Spans = o.spans
	r.Parent = o.traceParent()
}

// traceParent is the trace context of the command's environment
// (TRACEPARENT, TRACESTATE), read once: as claude -p puts its own spans
// under it, the run's trace goes there too, so that a run inside a traced
// CI job lands in the job's trace. An invalid one is said once and
// ignored, as the W3C specification has it (the run is a trace of its
// own).
func (o *options) traceParent() *render.TraceParent {
	if o.parentRead {
		return o.parent
	}
	o.parentRead = true
	v, ok := o.getenv("TRACEPARENT")
	if !ok || strings.TrimSpace(v) == "" {
		return nil
	}
	state, _ := o.getenv("TRACESTATE")
	p, err := render.ParseTraceParent(v, state)
	if err != nil {
		say(o.stderr, "TRACEPARENT: "+err.Error()+"; ignored: the run is a trace of its own")
		return nil
	}
	o.parent = p
	return p
}

// otlpSignal is what --otlp-endpoint sends: a run's traces, or usage
// --by's metrics. The two differ in their path, their variables'
// signal-specific spelling and what their items are called; the
// exporter is the same.
type otlpSignal struct {
	name string // "traces": what is not delivered
	env  string // "TRACES": OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, ...
	item string // "span": what a request holds, counted
}

var (
	signalTraces  = otlpSignal{name: "traces", env: "TRACES", item: "span"}
	signalMetrics = otlpSignal{name: "metrics", env: "METRICS", item: "data point"}
)

// path is the signal's OTLP/HTTP path: /v1/traces, /v1/metrics.
func (s otlpSignal) path() string { return "/v1/" + s.name }

// otlpSender sends the traces, or the metrics, to a collector
// (--otlp-endpoint).
type otlpSender struct {
	sig      otlpSignal
	exp      *otlphttp.Exporter
	endpoint string
	sent     int
	traces   map[string]bool // the trace ids of the spans sent
	failed   bool            // a request was not delivered (and said so)
	rejected int64           // items the collector said it did not keep (partial success)
	said     []string        // what the collector said of them, or warned of
	size     int             // the last request's size: the next one's buffer's
}

// otlpEnv reads an OTLP exporter variable, its signal's own spelling
// first, as the specification orders them: the name it was found under,
// and its value ("" when neither is set).
func (o *options) otlpEnv(sig otlpSignal, name string) (string, string) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_" + sig.env + "_" + name, "OTEL_EXPORTER_OTLP_" + name} {
		if v, ok := o.getenv(k); ok && strings.TrimSpace(v) != "" {
			return k, strings.TrimSpace(v)
		}
	}
	return "", ""
}

// otlpURL is where the traces (or metrics) go. Only the command line
// sends anything: a URL as given (/v1/traces, /v1/metrics added when it
// has no path), or "env", the environment's endpoint
// (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given; OTEL_EXPORTER_OTLP_ENDPOINT
// a base, /v1/traces appended, as the specification says). A user whose
// Claude Code telemetry is set in the environment does not find ccfilter
// posting on its own. The traces' URL with its /v1/traces path given
// for metrics is the same collector's: its /v1/metrics.
func (o *options) otlpURL(sig otlpSignal) (string, error) {
	raw, from, base := o.OTLPEndpoint, "--otlp-endpoint", false
	own := "OTEL_EXPORTER_OTLP_" + sig.env + "_ENDPOINT"
	if raw == "env" {
		if v, ok := o.getenv(own); ok && v != "" {
			raw, from = v, "--otlp-endpoint env: "+own
		} else if v, ok := o.getenv("OTEL_EXPORTER_OTLP_ENDPOINT"); ok && v != "" {
			raw, from, base = v, "--otlp-endpoint env: OTEL_EXPORTER_OTLP_ENDPOINT", true
		} else {
			return "", &flagError{fmt.Errorf("--otlp-endpoint env: neither %s nor OTEL_EXPORTER_OTLP_ENDPOINT is set", own)}
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", &flagError{fmt.Errorf("%s %q: want an http:// or https:// URL (a collector's OTLP/HTTP receiver, e.g. http://localhost:4318)", from, raw)}
	}
	switch {
	case base:
		u.Path = strings.TrimSuffix(u.Path, "/") + sig.path()
	case from == "--otlp-endpoint" && (u.Path == "" || u.Path == "/"):
		u.Path = sig.path()
	case from == "--otlp-endpoint" && sig != signalTraces && strings.HasSuffix(u.Path, signalTraces.path()):
		u.Path = strings.TrimSuffix(u.Path, signalTraces.path()) + sig.path()
	}
	return u.String(), nil
}

// startOTLP makes the sender of --otlp-endpoint from the command line and
// the OTLP exporter variables of the command's environment: the protocol
// (--otlp-protocol, else OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL; grpc is
// refused), compression (..._COMPRESSION: gzip or none), headers
// (..._HEADERS, key=value,... URL-encoded), the timeout (--otlp-timeout,
// else ..._TIMEOUT in milliseconds; one request, retries included) and
// TLS (otlpTLS).
func (o *options) startOTLP(sig otlpSignal) (*otlpSender, error) {
	endpoint, err := o.otlpURL(sig)
	if err != nil {
		return nil, err
	}
	exp := &otlphttp.Exporter{URL: endpoint, Protocol: otlphttp.Protobuf, Timeout: o.OTLPTimeout, Header: http.Header{}}
	from, protocol := "--otlp-protocol", o.OTLPProtocol
	if protocol == "" {
		from, protocol = o.otlpEnv(sig, "PROTOCOL")
	}
	if protocol != "" {
		if exp.Protocol, err = otlphttp.ParseProtocol(protocol); err != nil {
			return nil, &flagError{fmt.Errorf("%s %s: %v", from, protocol, err)}
		}
	}
	switch k, v := o.otlpEnv(sig, "COMPRESSION"); v {
	case "gzip":
		exp.Gzip = true
	case "", "none":
	default:
		return nil, &flagError{fmt.Errorf("%s %q: want gzip or none", k, v)}
	}
	if !o.otlpTimeoutChanged {
		if k, v := o.otlpEnv(sig, "TIMEOUT"); v != "" {
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ms <= 0 {
				return nil, &flagError{fmt.Errorf("%s %q: want a positive number of milliseconds", k, v)}
			}
			exp.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	for _, k := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_" + sig.env + "_HEADERS"} {
		if v, ok := o.getenv(k); ok {
			if err := parseOTLPHeaders(v, exp.Header); err != nil {
				return nil, &flagError{fmt.Errorf("%s: %v", k, err)}
			}
		}
	}
	tlsConfig, err := o.otlpTLS(sig)
	if err != nil {
		return nil, errorf(exitInput, "--otlp-endpoint %s: %v", endpoint, err)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone() // (proxies from HTTPS_PROXY, NO_PROXY)
	transport.TLSClientConfig = tlsConfig
	exp.Client = &http.Client{Transport: transport}
	if o.otlpExporter != nil {
		o.otlpExporter(exp)
	}
	return &otlpSender{sig: sig, exp: exp, endpoint: endpoint, traces: map[string]bool{}}, nil
}

// parseOTLPHeaders reads key=value pairs separated by commas, each
// URL-encoded (the specification's OTEL_EXPORTER_OTLP_HEADERS); a later
// key replaces an earlier one.
func parseOTLPHeaders(v string, into http.Header) error {
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
		into.Set(key, value)
	}
	return nil
}

// otlpTLS is the TLS of the OTLP exporter variables: the CA of
// OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]CERTIFICATE, the client's
// certificate and key of ..._CLIENT_CERTIFICATE and ..._CLIENT_KEY (nil:
// Go's defaults).
func (o *options) otlpTLS(sig otlpSignal) (*tls.Config, error) {
	file := func(name string) (string, []byte, error) {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_" + sig.env + "_" + name, "OTEL_EXPORTER_OTLP_" + name} {
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

// sendSpans uploads one request of traces (send), counting its spans and
// its trace.
func (s *otlpSender) sendSpans(ctx context.Context, req *render.OTLPBatch) error {
	// A new buffer each time, of the last one's size: the HTTP transport
	// may still read a request's body after its answer came.
	encode := func() ([]byte, error) { return req.AppendProtobuf(make([]byte, 0, s.size)) }
	if s.exp.Protocol == otlphttp.JSON {
		encode = func() ([]byte, error) { return req.AppendJSON(make([]byte, 0, s.size)) }
	}
	if err := s.send(ctx, encode, req.Len()); err != nil {
		return err
	}
	s.traces[string(req.TraceID())] = true
	return nil
}

// sendMetrics uploads one request of metrics (send).
func (s *otlpSender) sendMetrics(ctx context.Context, req *render.MetricsRequest) error {
	encode := func() ([]byte, error) { return req.Protobuf(), nil }
	if s.exp.Protocol == otlphttp.JSON {
		encode = req.JSON
	}
	return s.send(ctx, encode, req.Points())
}

// send uploads one request of n items, encoded as the protocol asks
// (encode): protobuf, or the JSON line --format otlp writes. An error
// says the endpoint and what it answered.
func (s *otlpSender) send(ctx context.Context, encode func() ([]byte, error), n int) error {
	body, err := encode()
	if err != nil {
		return err
	}
	s.size = len(body)
	res, err := s.exp.Export(ctx, body)
	if err != nil {
		s.failed = true
		return &exitError{code: exitInput, msg: fmt.Sprintf("--otlp-endpoint %s: the %s were not delivered: %v", s.endpoint, s.sig.name, err)}
	}
	s.sent += n
	s.rejected += res.Rejected
	if res.Message != "" && !slices.Contains(s.said, res.Message) {
		s.said = append(s.said, res.Message)
	}
	return nil
}

// delivered says what was sent where, for the success's line on stderr
// ("" when a request failed: its error said so); one trace is named by its
// id, which finds an old run in a backend whose search looks at the last
// hour (docs/otel.md). What the collector warned of, keeping every span,
// is said with it.
func (s *otlpSender) delivered() string {
	if s.failed {
		return ""
	}
	line := fmt.Sprintf("--otlp-endpoint %s: sent %s", s.endpoint, render.Plural(int64(s.sent), s.sig.item))
	if s.sig == signalTraces {
		of := render.Plural(int64(len(s.traces)), "trace")
		if len(s.traces) == 1 {
			for id := range s.traces {
				of = "trace " + hex.EncodeToString([]byte(id))
			}
		}
		line += " of " + of
	}
	if len(s.said) > 0 {
		line += "; the collector warned: " + strings.Join(s.said, "; ")
	}
	return line
}

// stop reports a partial success (the collector kept some items and
// rejected the rest): a failure to deliver (exit 5).
func (s *otlpSender) stop() error {
	if s.rejected > 0 {
		return &exitError{code: exitInput, msg: fmt.Sprintf("--otlp-endpoint %s: partial success: the collector rejected %d of the %d %ss sent: %s",
			s.endpoint, s.rejected, s.sent, s.sig.item, strings.Join(s.said, "; "))}
	}
	return nil
}
