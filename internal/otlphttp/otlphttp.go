// Package otlphttp posts OTLP/HTTP export requests to a receiver, as the
// OTLP specification asks of an exporter
// (https://opentelemetry.io/docs/specs/otlp/#otlphttp), with net/http
// alone: a jq-like tool does not need an RPC framework or a telemetry SDK
// to make an HTTP POST (the OpenTelemetry client, otlptracehttp, brought
// grpc, grpc-gateway, genproto and the SDK: 426 packages instead of 167).
//
// The caller encodes the request (protobuf or JSON); the package sends it
// (gzipped on request), retries what the specification calls retryable
// (429, 502, 503, 504) after the server's Retry-After or an exponential
// backoff with jitter, all within one deadline, and reads the answer: a
// partial success is returned, and a 2xx whose body is no OTLP answer (a
// web page) is an error.
package otlphttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The two encodings of OTLP/HTTP, as OTEL_EXPORTER_OTLP_PROTOCOL names
// them.
const (
	Protobuf = "http/protobuf"
	JSON     = "http/json"
)

// Backoff bounds: the first wait, and the longest. The specification
// leaves them to the exporter; these are the OpenTelemetry SDKs'.
const (
	InitialBackoff = 500 * time.Millisecond
	MaxBackoff     = 5 * time.Second
)

// Exporter sends export requests to one receiver.
type Exporter struct {
	URL      string // the traces' or metrics' URL, as resolved (.../v1/traces, .../v1/metrics)
	Protocol string // Protobuf or JSON
	Gzip     bool   // Content-Encoding: gzip
	Header   http.Header
	Timeout  time.Duration // one export, retries included
	Client   *http.Client  // nil: http.DefaultClient

	// Sleep waits d, or until ctx is done; Now is the clock the deadline
	// is kept by; Jitter returns a number in [0, 1). Nil: the real ones
	// (tests give their own: no wall-clock waits).
	Sleep  func(ctx context.Context, d time.Duration) error
	Now    func() time.Time
	Jitter func() float64
}

// Result is what a receiver said of a delivered request.
type Result struct {
	// Rejected is the number of items the receiver did not keep, Message
	// its reason (a partial success); a Message with nothing rejected is
	// a warning.
	Rejected int64
	Message  string
	Attempts int
}

// StatusError is a request the receiver refused: a status that is not
// retried, or a retryable one still answered when the deadline came.
type StatusError struct {
	Code     int
	Status   string // "503 Service Unavailable"
	Message  string // the receiver's reason, when its body gave one
	Attempts int
	GaveUp   time.Duration // > 0: retried for this long, then out of time
}

func (e *StatusError) Error() string {
	s := "it answered " + e.Status
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.GaveUp > 0 {
		s += fmt.Sprintf(" (%d attempts; no time left in %s to try again)", e.Attempts, e.GaveUp)
	}
	return s
}

// NotOTLPError is a success whose body is no OTLP answer: what answered
// is not an OTLP receiver (Jaeger's UI port, 16686, answers POST
// /v1/traces with its page and 200, and keeps nothing).
type NotOTLPError struct{ Status, ContentType, Title string }

func (e *NotOTLPError) Error() string {
	what := e.ContentType
	if what == "" {
		what = "no Content-Type"
	}
	if e.Title != "" {
		what += fmt.Sprintf(", a page titled %q", e.Title)
	}
	return fmt.Sprintf("it answered %s with %s, not an OTLP response: is it a collector's OTLP/HTTP receiver (port 4318)?", e.Status, what)
}

// Retryable reports whether the specification asks for a retry of an
// answer with this status.
func Retryable(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Export sends body, an encoded ExportTraceServiceRequest (or TracesData,
// the same encoding; or the metrics' ExportMetricsServiceRequest), until it is answered with a success or a status not
// retried, or e.Timeout has passed.
func (e *Exporter) Export(ctx context.Context, body []byte) (Result, error) {
	now, sleep, jitter := e.Now, e.Sleep, e.Jitter
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	if jitter == nil {
		jitter = rand.Float64
	}
	start := now()
	deadline := start.Add(e.Timeout)
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if e.Gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body) // (a bytes.Buffer does not fail)
		zw.Close()
		body = b.Bytes()
	}
	backoff := InitialBackoff
	for attempt := 1; ; attempt++ {
		resp, err := e.post(ctx, body)
		if err != nil {
			return Result{}, err
		}
		if resp.StatusCode >= 200 && resp.StatusCode <= 299 {
			res, err := readAnswer(resp)
			res.Attempts = attempt
			return res, err
		}
		serr := refusal(resp, attempt)
		if !Retryable(resp.StatusCode) {
			return Result{}, serr
		}
		// The server's Retry-After, else the backoff: a random wait
		// between half of it and all of it, so that exporters refused
		// together do not come back together.
		wait, ok := retryAfter(resp.Header.Get("Retry-After"), now())
		if !ok {
			wait = backoff/2 + time.Duration(jitter()*float64(backoff/2))
			backoff = min(2*backoff, MaxBackoff)
		}
		if now().Add(wait).After(deadline) {
			serr.GaveUp = e.Timeout
			return Result{}, serr
		}
		if err := sleep(ctx, wait); err != nil {
			return Result{}, err
		}
	}
}

// post makes one attempt.
func (e *Exporter) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range e.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", contentType(e.Protocol))
	if e.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	c := e.Client
	if c == nil {
		c = http.DefaultClient
	}
	return c.Do(req)
}

func contentType(protocol string) string {
	if protocol == JSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// answerLimit bounds what is read of an answer: an OTLP answer is small.
const answerLimit = 64 << 10

// readAnswer reads a success: an ExportTraceServiceResponse in protobuf
// or JSON, or nothing; anything else (a web page) is no OTLP answer.
func readAnswer(resp *http.Response) (Result, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, answerLimit))
	if err != nil {
		return Result{}, err
	}
	var res Result
	ok := true
	switch mediaType(resp) {
	case "application/x-protobuf", "application/protobuf":
		res, ok = decodeResponse(body)
	case "application/json":
		res, ok = decodeJSONResponse(body)
	default:
		ok = len(bytes.TrimSpace(body)) == 0
	}
	if !ok {
		return Result{}, &NotOTLPError{Status: resp.Status, ContentType: resp.Header.Get("Content-Type"), Title: pageTitle(body)}
	}
	return res, nil
}

func mediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// decodeResponse reads a protobuf ExportTraceServiceResponse (or an
// ExportMetricsServiceResponse, the same fields): field 1, its
// partial_success, with rejected_spans (rejected_data_points) (1) and
// error_message (2). Read by
// hand: the generated type lives in the collector package, which brings
// grpc with it.
func decodeResponse(b []byte) (Result, bool) {
	var res Result
	ok := eachField(b, func(num protowire.Number, v []byte) bool {
		if num != 1 {
			return true // a field of a later version
		}
		return eachField(v, func(num protowire.Number, v []byte) bool {
			switch num {
			case 1:
				n, l := protowire.ConsumeVarint(v)
				res.Rejected = int64(n)
				return l > 0
			case 2:
				res.Message = string(v)
			}
			return true
		})
	})
	return res, ok
}

// eachField calls fn with the number and value of each field of a
// protobuf message (a varint's bytes, a length-delimited field's
// contents), false when b is not one.
func eachField(b []byte, fn func(protowire.Number, []byte) bool) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		var v []byte
		switch typ {
		case protowire.BytesType:
			s, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return false
			}
			v, n = s, m
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return false
			}
			v = b[:n]
		}
		if !fn(num, v) {
			return false
		}
		b = b[n:]
	}
	return true
}

// decodeJSONResponse reads an ExportTraceServiceResponse (or an
// ExportMetricsServiceResponse) in OTLP/JSON (rejectedSpans,
// rejectedDataPoints a 64-bit integer: a string, or a number).
func decodeJSONResponse(b []byte) (Result, bool) {
	if len(bytes.TrimSpace(b)) == 0 {
		return Result{}, true
	}
	var r struct {
		PartialSuccess *struct {
			RejectedSpans      json.RawMessage `json:"rejectedSpans"`
			RejectedDataPoints json.RawMessage `json:"rejectedDataPoints"` // (an ExportMetricsServiceResponse's)
			ErrorMessage       string          `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(b, &r) != nil {
		return Result{}, false
	}
	if r.PartialSuccess == nil {
		return Result{}, true
	}
	rejected := r.PartialSuccess.RejectedSpans
	if rejected == nil {
		rejected = r.PartialSuccess.RejectedDataPoints
	}
	n, _ := strconv.ParseInt(strings.Trim(string(rejected), `"`), 10, 64)
	return Result{Rejected: n, Message: r.PartialSuccess.ErrorMessage}, true
}

// refusal reads an answer that is no success: its status, and the
// reason its body gives (a google.rpc.Status, whose field 2 is the
// message, in protobuf or JSON; a short text).
func refusal(resp *http.Response, attempt int) *StatusError {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, answerLimit))
	e := &StatusError{Code: resp.StatusCode, Status: resp.Status, Attempts: attempt}
	switch mediaType(resp) {
	case "application/x-protobuf", "application/protobuf":
		eachField(body, func(num protowire.Number, v []byte) bool {
			if num == 2 {
				e.Message = string(v)
			}
			return true
		})
	case "application/json":
		var s struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &s) == nil {
			e.Message = s.Message
		}
	case "text/plain":
		e.Message = string(bytes.TrimSpace(body))
	}
	if len(e.Message) > 200 {
		e.Message = e.Message[:200] + "…"
	}
	return e
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>([^<]{1,200})</title>`)

// pageTitle is the title of an HTML page, to name what answered.
func pageTitle(body []byte) string {
	if m := titleRE.FindSubmatch(body); m != nil {
		return strings.Join(strings.Fields(html.UnescapeString(string(m[1]))), " ")
	}
	return ""
}

// errNoProtocol is returned by ParseProtocol for grpc: what ccfilter
// sends is OTLP over HTTP.
var errNoProtocol = errors.New("ccfilter sends OTLP over HTTP only: http/protobuf (the default) or http/json")

// ParseProtocol checks a protocol's name (OTEL_EXPORTER_OTLP_PROTOCOL's
// values); grpc is refused.
func ParseProtocol(p string) (string, error) {
	switch p {
	case Protobuf, JSON:
		return p, nil
	case "grpc":
		return "", errNoProtocol
	}
	return "", fmt.Errorf("unknown protocol %q (want http/protobuf or http/json)", p)
}
