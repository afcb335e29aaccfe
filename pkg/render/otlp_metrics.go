package render

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Metrics are a report's figures as OpenTelemetry metrics, which the otlp
// format writes of a grouped report (usage --by): cumulative monotonic
// sums, each point with its attributes and the time its sum counts from.
// The figures are the report's (computed by the preset); the layout adds
// the sample time alone, the time of writing (Options.Now), so that the
// same figures sent again are the same points of the same series, and
// old sessions are never an out-of-order sample.
type Metrics struct {
	Sums []MetricSum
}

// MetricSum is one metric: its name, unit and description, and its
// points; Double says its values are Float, else Int.
type MetricSum struct {
	Name, Unit, Description string
	Double                  bool
	Points                  []MetricPoint
}

// MetricPoint is one series' cumulative value.
type MetricPoint struct {
	Attrs []MetricAttr
	Start time.Time // what the sum counts from
	Int   int64
	Float float64
}

// MetricAttr is a point's attribute: a string.
type MetricAttr struct{ Key, Value string }

// MetricsRequest is one OTLP request of metrics, sampled at a time, in
// either encoding of OTLP/HTTP. It is encoded here by hand, field by
// field of opentelemetry-proto's metrics.proto (MetricsData: the
// ExportMetricsServiceRequest's encoding), as the few fields a cumulative
// sum of numbers needs: the generated package of every kind of metric
// (histograms, summaries, exemplars) would add 170 kB to the command for
// them (issue 42's weight). The tests decode it with that package.
type MetricsRequest struct {
	m        *Metrics
	producer string
	now      uint64
}

// Points is the number of data points the request holds.
func (r *MetricsRequest) Points() int {
	n := 0
	for _, s := range r.m.Sums {
		n += len(s.Points)
	}
	return n
}

// The field numbers of opentelemetry-proto v1 (metrics.proto,
// common.proto, resource.proto) that the request uses.
const (
	fieldResourceMetrics  = 1 // MetricsData
	fieldResource         = 1 // ResourceMetrics
	fieldScopeMetrics     = 2
	fieldSchemaURL        = 3 // ResourceMetrics, ScopeMetrics
	fieldAttributes       = 1 // Resource
	fieldScope            = 1 // ScopeMetrics
	fieldMetrics          = 2
	fieldScopeName        = 1 // InstrumentationScope
	fieldScopeVersion     = 2
	fieldMetricName       = 1 // Metric
	fieldDescription      = 2
	fieldUnit             = 3
	fieldSum              = 7
	fieldDataPoints       = 1 // Sum
	fieldTemporality      = 2
	fieldMonotonic        = 3
	fieldPointAttributes  = 7 // NumberDataPoint
	fieldStartTime        = 2
	fieldTime             = 3
	fieldAsDouble         = 4
	fieldAsInt            = 6
	fieldKey              = 1 // KeyValue
	fieldValue            = 2
	fieldStringValue      = 1 // AnyValue
	temporalityCumulative = 2 // AGGREGATION_TEMPORALITY_CUMULATIVE
)

// Protobuf is the request in protobuf.
func (r *MetricsRequest) Protobuf() []byte {
	msg := func(b []byte, num protowire.Number, inner []byte) []byte {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendBytes(b, inner)
	}
	str := func(b []byte, num protowire.Number, s string) []byte {
		if s == "" {
			return b
		}
		b = protowire.AppendTag(b, num, protowire.BytesType)
		return protowire.AppendString(b, s)
	}
	kv := func(b []byte, num protowire.Number, k, v string) []byte {
		any := str(nil, fieldStringValue, v)
		return msg(b, num, msg(str(nil, fieldKey, k), fieldValue, any))
	}
	var metrics []byte
	for _, s := range r.m.Sums {
		var sum []byte
		for _, p := range s.Points {
			var dp []byte
			dp = protowire.AppendTag(dp, fieldStartTime, protowire.Fixed64Type)
			dp = protowire.AppendFixed64(dp, nanos(p.Start))
			dp = protowire.AppendTag(dp, fieldTime, protowire.Fixed64Type)
			dp = protowire.AppendFixed64(dp, r.now)
			if s.Double {
				dp = protowire.AppendTag(dp, fieldAsDouble, protowire.Fixed64Type)
				dp = protowire.AppendFixed64(dp, math.Float64bits(p.Float))
			} else {
				dp = protowire.AppendTag(dp, fieldAsInt, protowire.Fixed64Type)
				dp = protowire.AppendFixed64(dp, uint64(p.Int))
			}
			for _, a := range p.Attrs {
				dp = kv(dp, fieldPointAttributes, a.Key, a.Value)
			}
			sum = msg(sum, fieldDataPoints, dp)
		}
		sum = protowire.AppendTag(sum, fieldTemporality, protowire.VarintType)
		sum = protowire.AppendVarint(sum, temporalityCumulative)
		sum = protowire.AppendTag(sum, fieldMonotonic, protowire.VarintType)
		sum = protowire.AppendVarint(sum, 1)
		m := str(nil, fieldMetricName, s.Name)
		m = str(m, fieldDescription, s.Description)
		m = str(m, fieldUnit, s.Unit)
		metrics = msg(metrics, fieldMetrics, msg(m, fieldSum, sum))
	}
	scope := str(str(nil, fieldScopeName, "ccfilter"), fieldScopeVersion, r.producer)
	sm := str(append(msg(nil, fieldScope, scope), metrics...), fieldSchemaURL, SemconvSchema)
	res := kv(nil, fieldAttributes, "service.name", "claude-code")
	rm := str(msg(msg(nil, fieldResource, res), fieldScopeMetrics, sm), fieldSchemaURL, SemconvSchema)
	return msg(nil, fieldResourceMetrics, rm)
}

// The request in OTLP/JSON: protobuf's JSON mapping (lowerCamelCase
// names, 64-bit integers as strings, enums as numbers).
type (
	jsonKV struct {
		Key   string `json:"key"`
		Value struct {
			StringValue string `json:"stringValue"`
		} `json:"value"`
	}
	jsonPoint struct {
		Attributes []jsonKV `json:"attributes"`
		Start      string   `json:"startTimeUnixNano"`
		Time       string   `json:"timeUnixNano"`
		AsInt      *string  `json:"asInt,omitempty"`
		AsDouble   *float64 `json:"asDouble,omitempty"`
	}
	jsonMetric struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Unit        string `json:"unit,omitempty"`
		Sum         struct {
			DataPoints  []jsonPoint `json:"dataPoints"`
			Temporality int         `json:"aggregationTemporality"`
			Monotonic   bool        `json:"isMonotonic"`
		} `json:"sum"`
	}
	jsonScope struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	}
)

func jsonAttr(k, v string) jsonKV {
	a := jsonKV{Key: k}
	a.Value.StringValue = v
	return a
}

// JSON is the request in OTLP/JSON, on one line.
func (r *MetricsRequest) JSON() ([]byte, error) {
	var metrics []jsonMetric
	for _, s := range r.m.Sums {
		m := jsonMetric{Name: s.Name, Description: s.Description, Unit: s.Unit}
		m.Sum.Temporality, m.Sum.Monotonic = temporalityCumulative, true
		for _, p := range s.Points {
			jp := jsonPoint{Start: strconv.FormatUint(nanos(p.Start), 10), Time: strconv.FormatUint(r.now, 10)}
			if s.Double {
				jp.AsDouble = &p.Float
			} else {
				n := strconv.FormatInt(p.Int, 10)
				jp.AsInt = &n
			}
			for _, a := range p.Attrs {
				jp.Attributes = append(jp.Attributes, jsonAttr(a.Key, a.Value))
			}
			m.Sum.DataPoints = append(m.Sum.DataPoints, jp)
		}
		metrics = append(metrics, m)
	}
	type scopeMetrics struct {
		Scope     jsonScope    `json:"scope"`
		Metrics   []jsonMetric `json:"metrics"`
		SchemaURL string       `json:"schemaUrl"`
	}
	type resourceMetrics struct {
		Resource struct {
			Attributes []jsonKV `json:"attributes"`
		} `json:"resource"`
		ScopeMetrics []scopeMetrics `json:"scopeMetrics"`
		SchemaURL    string         `json:"schemaUrl"`
	}
	rm := resourceMetrics{ScopeMetrics: []scopeMetrics{{Scope: jsonScope{Name: "ccfilter", Version: r.producer}, Metrics: metrics, SchemaURL: SemconvSchema}}, SchemaURL: SemconvSchema}
	rm.Resource.Attributes = []jsonKV{jsonAttr("service.name", "claude-code")}
	return json.Marshal(struct {
		ResourceMetrics []resourceMetrics `json:"resourceMetrics"`
	}{[]resourceMetrics{rm}})
}

// Summary writes a grouped report's metrics: one OTLP/JSON line, or the
// request handed to Options.Metrics (an exporter). A report with none is
// no trace nor metrics: refused.
func (t *otlpRenderer) Summary(rep *Report) error {
	if rep == nil || rep.Metrics == nil {
		return errOTLPEvents
	}
	now := time.Now
	if t.o.Now != nil {
		now = t.o.Now
	}
	req := &MetricsRequest{m: rep.Metrics, producer: t.o.Producer, now: nanos(now())}
	if t.o.Metrics != nil {
		return t.o.Metrics(req)
	}
	b, err := req.JSON()
	if err != nil {
		return err
	}
	t.raw(b)
	t.raw([]byte{'\n'})
	return t.err
}
