package spend

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// PriceTable prices a model's tokens for the runs that recorded no cost:
// dollars per million input tokens, by model name prefix (the longest that
// matches wins); the other kinds follow Claude's ratios (see weight).
type PriceTable map[string]float64

// Prices are Anthropic's list prices of the Claude models per million
// input tokens, as anthropic.com/pricing gave them in 2025 (the other
// kinds follow the ratios of weight). A run that recorded its cost never
// uses them (the CLI's figure is exact, whatever the model); they price a
// killed run's calls only when the session has no recorded run of the
// same model to take the rate from. --prices FILE overrides or adds
// entries (ReadPrices).
var Prices = PriceTable{
	"claude-opus-4":     15,
	"claude-opus-4-5":   5,
	"claude-sonnet-4":   3,
	"claude-sonnet-4-5": 3,
	"claude-3-7-sonnet": 3,
	"claude-3-5-sonnet": 3,
	"claude-haiku-4-5":  1,
	"claude-3-5-haiku":  0.8,
	"claude-3-haiku":    0.25,
}

// rate is the dollars per weight unit of model (weight counts input
// tokens at 1), and whether the table knows it.
func (p PriceTable) rate(model string) (float64, bool) {
	best, price := "", 0.0
	for prefix, perMillion := range p {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, price = prefix, perMillion
		}
	}
	return price / 1e6, best != ""
}

// ReadPrices returns Prices with the entries of a JSON file over them: an
// object of model name prefixes and dollars per million input tokens,
// {"claude-opus-4-5": 5, "my-proxy-model": 2.5}.
func ReadPrices(path string) (PriceTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var extra map[string]float64
	if err := json.Unmarshal(b, &extra); err != nil {
		return nil, fmt.Errorf("%s: want an object of model prefixes and dollars per million input tokens: %v", path, err)
	}
	t := maps.Clone(Prices)
	for k, v := range extra {
		if v < 0 {
			return nil, fmt.Errorf("%s: %s: a negative price", path, k)
		}
		t[k] = v
	}
	return t, nil
}

// Estimate prices usage u of model at the table's rate: a run's cost so
// far, before its CLI says the figure (ccfilter --follow's status line);
// false when the table knows no such model.
func (p PriceTable) Estimate(model string, u stream.Usage) (float64, bool) {
	rate, ok := p.rate(model)
	return rate * weight(u), ok
}
