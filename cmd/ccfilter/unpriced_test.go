package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// killedAs writes a real session transcript of testdata (its one file)
// into dir as a killed run leaves it (its cost-state records taken out),
// each call's model renamed to model ("" keeps it), as
// /tmp/s6/tb/mkmodel.py made the tester's.
func killedAs(t *testing.T, run, model, dir string) {
	t.Helper()
	src, _ := filepath.Glob("../../testdata/transcripts/" + run + "/home/.claude/projects/*/*.jsonl")
	require.Len(t, src, 1)
	b, err := os.ReadFile(src[0])
	require.NoError(t, err)
	var kept []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.Contains(l, `"type":"cost-state"`) {
			continue
		}
		if model != "" {
			l = strings.ReplaceAll(l, `"model":"claude-opus-5-5"`, `"model":"`+model+`"`)
		}
		kept = append(kept, l)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(src[0])), []byte(strings.Join(kept, "")), 0o644))
}

// TestAnUnpricedModelsCostIsUnknownNotZero proves that a killed session
// of a model no price is known for (02-write-read with its cost-state
// taken out and its model renamed: a future Claude, a future GPT, an
// OpenAI reasoning model) has a cost that says so, in usage --by and in
// sessions, rather than $0.0000* (the mark of a priced estimate): ? in a
// table with a line naming the model and its tokens, null in JSON with
// the model named, no point in the OTLP cost metric (its tokens sent); and that a total with a priced session beside it
// (04-parallel-tools, killed: an estimate at list prices) is marked as
// leaving those tokens out (+).
func TestAnUnpricedModelsCostIsUnknownNotZero(t *testing.T) {
	for _, model := range []string{"claude-opus-6", "gpt-7", "o5"} {
		t.Run(model, func(t *testing.T) {
			alone := t.TempDir()
			killedAs(t, "02-write-read", model, alone)
			note := "? unpriced: no price is known for " + model + " (37288 tokens)"

			res := runIn(t, []string{"usage", "--by", "model", alone}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Regexp(t, `(?m)^`+model+` +3 +9 +80 +2652 +34547 +37288 +\? +\? +\$0\.0000 +0$`, res.Stdout, "the row: its cost unknown, its subagents' nothing")
			assert.Regexp(t, `(?m)^total +3 .* 37288 +\? +\? +\$0\.0000 +0$`, res.Stdout)
			assert.Contains(t, res.Stdout, note)
			assert.NotContains(t, res.Stdout, "* estimated", "nothing of it is priced at a rate")

			rows := spendRows(t, "--by", "model", alone)
			require.Len(t, rows, 1)
			assert.Nil(t, rows[0]["cost_usd"])
			assert.Nil(t, rows[0]["main_cost_usd"])
			assert.Equal(t, 0.0, rows[0]["subagent_cost_usd"], "no subagent call: known to be none")
			assert.Equal(t, true, rows[0]["unpriced"])
			assert.Equal(t, false, rows[0]["estimated"])
			assert.Equal(t, 37288.0, rows[0]["unpriced_tokens"])
			assert.Equal(t, model, rows[0]["unpriced_models"])

			res = runIn(t, []string{"usage", "--by", "model", "-F", "otlp", alone}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			var md metricspb.MetricsData
			require.NoError(t, protojson.Unmarshal([]byte(res.Stdout), &md), res.Stdout)
			sums := metricSums(t, &md, "model")
			assert.Equal(t, 80.0, sums["ccfilter.token.usage"][model+"/output"], "its tokens are sent")
			assert.NotContains(t, sums["ccfilter.cost.usage"], model, "no cost point: not a cost of 0")

			res = runIn(t, []string{"sessions", alone}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Regexp(t, `(?m) 37288 +37288 +\?\s*$`, res.Stdout, "its cost ?, no /cost recorded")
			assert.Contains(t, res.Stdout, note)
			res = runIn(t, []string{"sessions", "-F", "json", alone}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			var list []map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Stdout), &list), res.Stdout)
			require.Len(t, list, 1)
			assert.Contains(t, list[0], "cost_usd")
			assert.Nil(t, list[0]["cost_usd"])
			assert.Equal(t, false, list[0]["estimated"])
			assert.Equal(t, 37288.0, list[0]["unpriced_tokens"])
			assert.Equal(t, model, list[0]["unpriced_models"])

			mixed := t.TempDir()
			killedAs(t, "02-write-read", model, mixed)
			killedAs(t, "04-parallel-tools", "", mixed)
			res = runIn(t, []string{"usage", "--by", "session", mixed}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Regexp(t, `(?m)^0db2634f-\S+ .* 37288 +\? +\? +\$0\.0000 +0$`, res.Stdout)
			assert.Regexp(t, `(?m)^f35eefc6-\S+ .* \$0\.0293\* +\$0\.0293\* +\$0\.0000\* +0$`, res.Stdout, "the priced one: estimated")
			assert.Regexp(t, `(?m)^total .* \$0\.0293\+\* +\$0\.0293\+\* +\$0\.0000\* +0$`, res.Stdout, "a total that leaves the unpriced tokens out says so")
			assert.Contains(t, res.Stdout, "* estimated")
			assert.Contains(t, res.Stdout, note)
			res = runIn(t, []string{"sessions", mixed}, "")
			require.Equal(t, 0, res.Code, res.Stderr)
			assert.Regexp(t, `(?m) \$0\.0293\*\s*$`, res.Stdout)
			assert.Contains(t, res.Stdout, "* estimated")
			assert.Contains(t, res.Stdout, note)
		})
	}
}
