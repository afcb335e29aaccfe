package render

import (
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
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

// metricsData lays m out as one OTLP request, sampled at now.
func metricsData(m *Metrics, producer string, now time.Time) *metricspb.MetricsData {
	var out []*metricspb.Metric
	for _, s := range m.Sums {
		sum := &metricspb.Sum{AggregationTemporality: metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE, IsMonotonic: true}
		for _, p := range s.Points {
			dp := &metricspb.NumberDataPoint{StartTimeUnixNano: nanos(p.Start), TimeUnixNano: nanos(now)}
			if s.Double {
				dp.Value = &metricspb.NumberDataPoint_AsDouble{AsDouble: p.Float}
			} else {
				dp.Value = &metricspb.NumberDataPoint_AsInt{AsInt: p.Int}
			}
			for _, a := range p.Attrs {
				dp.Attributes = append(dp.Attributes, strAttr(a.Key, a.Value))
			}
			sum.DataPoints = append(sum.DataPoints, dp)
		}
		out = append(out, &metricspb.Metric{Name: s.Name, Unit: s.Unit, Description: s.Description, Data: &metricspb.Metric_Sum{Sum: sum}})
	}
	return &metricspb.MetricsData{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{strAttr("service.name", "claude-code")}},
		ScopeMetrics: []*metricspb.ScopeMetrics{{
			Scope:     &commonpb.InstrumentationScope{Name: "ccfilter", Version: producer},
			Metrics:   out,
			SchemaUrl: SemconvSchema,
		}},
		SchemaUrl: SemconvSchema,
	}}}
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
	req := metricsData(rep.Metrics, t.o.Producer, now())
	if t.o.Metrics != nil {
		return t.o.Metrics(req)
	}
	b, err := OTLPJSON(req)
	if err != nil {
		return err
	}
	t.raw(b)
	t.raw([]byte{'\n'})
	return t.err
}
