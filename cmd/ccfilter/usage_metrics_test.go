package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// metricSums adds up the points of each metric of a request by the
// values of one attribute ("" for all): metric name → attribute value
// (the token type's appended for ccfilter.token.usage: "model/input")
// → sum. It also checks each point: cumulative and monotonic, sampled
// after its start.
func metricSums(t *testing.T, req *metricspb.MetricsData, by string) map[string]map[string]float64 {
	t.Helper()
	out := map[string]map[string]float64{}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				sum := m.GetSum()
				require.NotNil(t, sum, m.Name)
				assert.Equal(t, metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE, sum.AggregationTemporality, m.Name)
				assert.True(t, sum.IsMonotonic, m.Name)
				if out[m.Name] == nil {
					out[m.Name] = map[string]float64{}
				}
				for _, dp := range sum.DataPoints {
					require.NotZero(t, dp.StartTimeUnixNano, m.Name)
					require.Greater(t, dp.TimeUnixNano, dp.StartTimeUnixNano, m.Name)
					attrs := map[string]string{}
					for _, kv := range dp.Attributes {
						attrs[kv.Key] = kv.Value.GetStringValue()
					}
					for _, k := range []string{"session.id", "model", "subagent", "machine"} {
						require.NotEmpty(t, attrs[k], "%s: %s", m.Name, k)
					}
					key := attrs[by]
					if typ, ok := attrs["type"]; ok {
						key += "/" + typ
					}
					out[m.Name][key] += dp.GetAsDouble() + float64(dp.GetAsInt())
				}
			}
		}
	}
	return out
}

// TestUsageMetricsAreUsageBy proves usage's OTLP metrics over the tree of
// every real transcript (projectsTree), named laptop: --format otlp
// writes one OTLP/JSON line, and --otlp-endpoint sends the same metrics
// as protobuf (default) or JSON (--otlp-protocol) to /v1/metrics of the
// test's receiver; whatever --by says, the points are per session ×
// model × subagent × machine, and their sums by model (tokens by
// Claude Code's type names, cost, calls) and by machine are usage --by
// model's and --by machine's rows, to the token and the nano-dollar.
func TestUsageMetricsAreUsageBy(t *testing.T) {
	tree := projectsTree(t)
	named := "laptop=" + tree
	want := map[string]map[string]float64{}
	for _, r := range spendRows(t, "--by", "model", named) {
		m := r["model"].(string)
		want[m+"/input"] = map[string]float64{"": r["input_tokens"].(float64)}
		want[m+"/output"] = map[string]float64{"": r["output_tokens"].(float64)}
		want[m+"/cacheRead"] = map[string]float64{"": r["cache_read_input_tokens"].(float64)}
		want[m+"/cacheCreation"] = map[string]float64{"": r["cache_creation_input_tokens"].(float64)}
		want[m] = map[string]float64{"cost": r["cost_usd"].(float64), "calls": r["calls"].(float64)}
	}
	require.NotEmpty(t, want)
	check := func(t *testing.T, req *metricspb.MetricsData) {
		byModel := metricSums(t, req, "model")
		for key, w := range want {
			if v, ok := w[""]; ok {
				assert.Equal(t, v, byModel["ccfilter.token.usage"][key], key)
				continue
			}
			assert.InDelta(t, w["cost"], byModel["ccfilter.cost.usage"][key], 1e-9, key)
			assert.Equal(t, w["calls"], byModel["ccfilter.calls"][key], key)
		}
		machines := spendRows(t, "--by", "machine", named)
		require.Len(t, machines, 1)
		byMachine := metricSums(t, req, "machine")
		assert.InDelta(t, machines[0]["cost_usd"], byMachine["ccfilter.cost.usage"]["laptop"], 1e-9)
		assert.Equal(t, machines[0]["calls"], byMachine["ccfilter.calls"]["laptop"])
	}

	t.Run("written", func(t *testing.T) {
		res := runIn(t, []string{"usage", "--by", "day", "-F", "otlp", named}, "")
		require.Equal(t, 0, res.Code, res.Stderr)
		require.Equal(t, 1, strings.Count(res.Stdout, "\n"), "one OTLP/JSON line")
		var req metricspb.MetricsData
		require.NoError(t, protojson.Unmarshal([]byte(res.Stdout), &req))
		check(t, &req)
	})
	for _, tc := range []struct{ protocol, contentType string }{{"", "application/x-protobuf"}, {"http/json", "application/json"}} {
		t.Run("sent "+tc.contentType, func(t *testing.T) {
			rcv := newReceiver(t)
			args := []string{"usage", "--by", "month", "--otlp-endpoint", rcv.srv.URL, named}
			if tc.protocol != "" {
				args = append(args, "--otlp-protocol", tc.protocol)
			}
			res := runSend(t, nil, nil, args...)
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Empty(t, res.Stdout, "sent, not printed")
			assert.Contains(t, res.Stderr, "--otlp-endpoint "+rcv.srv.URL+"/v1/metrics: sent ")
			assert.Contains(t, res.Stderr, " data points")
			got := rcv.requests()
			require.Len(t, got, 1)
			assert.Equal(t, "/v1/metrics", got[0].path)
			assert.Equal(t, tc.contentType, got[0].contentType)
			var req metricspb.MetricsData
			if tc.protocol == "" {
				require.NoError(t, proto.Unmarshal(got[0].body, &req))
			} else {
				require.NoError(t, protojson.Unmarshal(got[0].body, &req))
			}
			check(t, &req)
		})
	}
}

// TestUsageMetricsPartialSuccessFails proves a collector that keeps some
// data points and rejects the rest (an ExportMetricsServiceResponse's
// partial success, in OTLP/JSON: rejectedDataPoints) fails the run, exit
// 5, with its reason, on 43-nested-subagent's project (two series, main
// and general-purpose, of six points each: four token types, cost, calls).
func TestUsageMetricsPartialSuccessFails(t *testing.T) {
	body, err := json.Marshal(map[string]any{"partialSuccess": map[string]any{"rejectedDataPoints": "2", "errorMessage": "too old"}})
	require.NoError(t, err)
	rcv := newReceiver(t, answer{status: http.StatusOK, contentType: "application/json", body: body})
	res := runSend(t, nil, nil, "usage", "--by", "model", "--otlp-protocol", "http/json", "--otlp-endpoint", rcv.srv.URL,
		"../../testdata/transcripts/43-nested-subagent/home/.claude/projects/-home-user-project")
	assert.Equal(t, exitInput, res.Code)
	assert.Contains(t, res.Stderr, "/v1/metrics: partial success: the collector rejected 2 of the 12 data points sent: too old")
}
