//go:build prometheus

package main

// usage's metrics into a real Prometheus, through its OTLP receiver
// (--web.enable-otlp-receiver): Prometheus is built from tools/prometheus
// by make test-prometheus and named by CCFILTER_PROMETHEUS. Built only
// with -tags prometheus: make test needs no Prometheus.

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prometheus is a Prometheus running for the test: its HTTP API, which
// holds the OTLP receiver too.
type prometheus struct{ url string }

// startPrometheus runs Prometheus with its OTLP receiver, its storage in
// a temporary folder, on a loopback port of its own, and waits until it
// says it is ready, however long a loaded machine takes.
func startPrometheus(t *testing.T) *prometheus {
	bin := os.Getenv("CCFILTER_PROMETHEUS")
	if bin == "" {
		t.Fatal("CCFILTER_PROMETHEUS names no Prometheus: make test-prometheus builds it (tools/prometheus)")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	// Nothing scraped: the samples come through the OTLP receiver.
	require.NoError(t, os.WriteFile(config, []byte("global:\n  evaluation_interval: 1m\n"), 0o644))
	port := freePort(t)
	startBackend(t, "prometheus", bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--web.enable-otlp-receiver", "--log.level=warn")
	p := &prometheus{url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	waitFor(t, "prometheus to be ready", func() bool {
		resp, err := http.Get(p.url + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// query runs an instant PromQL query and returns its vector: each
// series' labels and value.
func (p *prometheus) query(t *testing.T, q string) []promSample {
	t.Helper()
	resp, err := http.Get(p.url + "/api/v1/query?query=" + url.QueryEscape(q))
	require.NoError(t, err)
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	require.Equal(t, "success", r.Status, "%s: %s", q, r.Error)
	var out []promSample
	for _, s := range r.Data.Result {
		v, err := strconv.ParseFloat(s.Value[1].(string), 64)
		require.NoError(t, err)
		out = append(out, promSample{s.Metric, v})
	}
	return out
}

type promSample struct {
	labels map[string]string
	value  float64
}

// metricName is the name Prometheus gave a ccfilter metric (its OTLP
// name translated, the unit and _total appended as its translation
// strategy says): the one of its metric names that starts with prefix.
func (p *prometheus) metricName(t *testing.T, prefix string) string {
	t.Helper()
	resp, err := http.Get(p.url + "/api/v1/label/__name__/values")
	require.NoError(t, err)
	defer resp.Body.Close()
	var r struct {
		Data []string `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	var found []string
	for _, n := range r.Data {
		if strings.HasPrefix(n, prefix) {
			found = append(found, n)
		}
	}
	require.Len(t, found, 1, "metric names starting %s among %v", prefix, r.Data)
	return found[0]
}

// TestPrometheusSumsAreUsageBy proves usage's metrics in a real
// Prometheus: the tree of every real transcript (projectsTree) as laptop,
// and a copy of it without 50-multi-turn's project as ci, named first
// (so each machine has sessions of its own, and the copies count once,
// in ci), sent to Prometheus's OTLP receiver twice; then PromQL's sums by
// model and by machine (tokens by type, cost, calls; each series' last
// value over 90 days, as docs/usage.md queries them) equal ccfilter
// usage --by model's and --by machine's rows, to the token and the cent,
// and the second sending changed no sum.
func TestPrometheusSumsAreUsageBy(t *testing.T) {
	p := startPrometheus(t)
	laptop := projectsTree(t)
	ci := filepath.Join(t.TempDir(), "projects")
	require.NoError(t, os.CopyFS(ci, os.DirFS(laptop)))
	require.NoError(t, os.RemoveAll(filepath.Join(ci, "50-multi-turn-home-user-project")))
	trees := []string{"ci=" + ci, "laptop=" + laptop}

	for range 2 {
		res := runIn(t, append([]string{"usage", "--by", "day", "--otlp-endpoint", p.url + "/api/v1/otlp/v1/metrics"}, trees...), "")
		require.Equal(t, 0, res.Code, res.Stderr)
		require.Contains(t, res.Stderr, "data points")
	}

	for _, tc := range []struct{ key, field string }{{"model", "model"}, {"machine", "machine"}} {
		rows := spendRows(t, append([]string{"--by", tc.key}, trees...)...)
		require.NotEmpty(t, rows, tc.key)
		if tc.key == "machine" {
			require.Len(t, rows, 2, "each machine has calls of its own")
		}
		waitFor(t, "prometheus to hold the sums by "+tc.key, func() bool {
			names := map[string]bool{}
			for _, s := range p.query(t, `{__name__=~"ccfilter_.*"}`) {
				names[s.labels["__name__"]] = true
			}
			return len(names) == 3
		})
		tokens, cost, calls := p.metricName(t, "ccfilter_token_usage"), p.metricName(t, "ccfilter_cost_usage"), p.metricName(t, "ccfilter_calls")
		t.Logf("Prometheus's names: %s, %s, %s", tokens, cost, calls)
		byTokens := map[string]float64{}
		for _, s := range p.query(t, fmt.Sprintf("sum by (%s, type) (last_over_time(%s[90d]))", tc.key, tokens)) {
			byTokens[s.labels[tc.key]+"/"+s.labels["type"]] = s.value
		}
		byCost, byCalls := map[string]float64{}, map[string]float64{}
		for _, s := range p.query(t, fmt.Sprintf("sum by (%s) (last_over_time(%s[90d]))", tc.key, cost)) {
			byCost[s.labels[tc.key]] = s.value
		}
		for _, s := range p.query(t, fmt.Sprintf("sum by (%s) (last_over_time(%s[90d]))", tc.key, calls)) {
			byCalls[s.labels[tc.key]] = s.value
		}
		assert.Len(t, byCost, len(rows), tc.key)
		for _, r := range rows {
			k := r[tc.field].(string)
			for typ, field := range map[string]string{"input": "input_tokens", "output": "output_tokens", "cacheRead": "cache_read_input_tokens", "cacheCreation": "cache_creation_input_tokens"} {
				assert.Equal(t, r[field], byTokens[k+"/"+typ], "%s %s %s", tc.key, k, typ)
			}
			cents := func(usd float64) float64 { return math.Round(usd * 100) }
			assert.Equal(t, cents(r["cost_usd"].(float64)), cents(byCost[k]), "%s %s: cost to the cent (%v, %v)", tc.key, k, r["cost_usd"], byCost[k])
			assert.InDelta(t, r["cost_usd"], byCost[k], 1e-6, "%s %s cost", tc.key, k)
			assert.Equal(t, r["calls"], byCalls[k], "%s %s calls", tc.key, k)
		}
	}
}
