package spend

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// PriceTable prices a model's tokens for the runs that recorded no cost:
// the published list prices of the catalog (prices.json: Anthropic's,
// OpenAI's and Google's models), under the entries a --prices file adds
// (ReadPrices). The zero value is the catalog alone.
type PriceTable struct {
	// extra: model name prefix → dollars per million input tokens, the
	// other kinds at the model's own ratios (ratios); the longest prefix
	// wins, and an entry wins over the catalog.
	extra   map[string]float64
	catalog *Catalog
}

// Prices are the list prices ccfilter ships (the catalog of prices.json,
// whose Source and Generated say where from and when). A run that
// recorded its cost never uses them (the CLI's figure is exact, whatever
// the model); they price a killed run's calls only when the session has
// no recorded run of the same model to take the rate from, and the runs
// of CLIs that report no cost (Codex, Gemini): every such figure is
// marked estimated.
var Prices = PriceTable{}

// shippedCatalog is prices.json parsed, when first asked for: most runs
// price nothing (the CLI reported its cost), and parsing it at start-up
// was a third of every run's start (7.7 of 16 million instructions).
var shippedCatalog = sync.OnceValue(func() *Catalog {
	c, err := parseCatalog(pricesJSON)
	if err != nil {
		panic("spend: prices.json: " + err.Error()) // a build defect: TestShippedPricesParse
	}
	return c
})

// Catalog is the table's list prices (its source and date): the shipped
// catalog unless the table was given another.
func (p PriceTable) Catalog() *Catalog {
	if p.catalog == nil {
		return shippedCatalog()
	}
	return p.catalog
}

// extraRate is the dollars per weight unit of model (ratios count input
// tokens at 1) a --prices entry gives, and whether one does.
func (p PriceTable) extraRate(model string) (float64, bool) {
	best, price := "", 0.0
	for prefix, perMillion := range p.extra {
		if strings.HasPrefix(model, prefix) && len(prefix) > len(best) {
			best, price = prefix, perMillion
		}
	}
	return price / 1e6, best != ""
}

// ReadPrices returns Prices with the entries of a JSON file over them: an
// object of model name prefixes and dollars per million input tokens,
// {"claude-opus-4-5": 5, "my-proxy-model": 2.5}, the other kinds of
// token at the model's own ratios (ratios).
func ReadPrices(path string) (PriceTable, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return PriceTable{}, err
	}
	var extra map[string]float64
	if err := json.Unmarshal(b, &extra); err != nil {
		return PriceTable{}, fmt.Errorf("%s: want an object of model prefixes and dollars per million input tokens: %v", path, err)
	}
	t := PriceTable{extra: map[string]float64{}}
	for k, v := range extra {
		if v < 0 {
			return PriceTable{}, fmt.Errorf("%s: %s: a negative price", path, k)
		}
		t.extra[k] = v
	}
	return t, nil
}

// Estimate prices usage u of model at the table's rate: a run's cost so
// far, before its CLI says the figure (ccfilter --follow's status line);
// false when the table knows no such model.
func (p PriceTable) Estimate(model string, u stream.Usage) (float64, bool) {
	if rate, ok := p.extraRate(model); ok {
		return rate * p.ratios(model).Cost(u) * 1e6, true
	}
	if m, ok := p.Catalog().Lookup(model); ok {
		return m.Cost(u), true
	}
	return 0, false
}

// ratios are model's prices in input prices: its list prices (the
// catalog's) divided by its input price, so that the weight of a call
// (ratios.Cost × 1e6) is what it costs in input tokens. Each model's own:
// claude-opus-5-5's cache read is 0.05 of its input, not the 0.1 of older
// Claude models, and at fixed ratios a recorded run's cost was split 41%
// off the list prices between 60-long-session's main agent and its
// subagents. A model the catalog does not price (or prices no input of)
// is weighed at Claude's usual ratios (claudeRatios).
func (p PriceTable) ratios(model string) ModelPrice {
	m, ok := p.Catalog().Lookup(model)
	if !ok || m.Input <= 0 {
		return claudeRatios
	}
	per := func(v *float64) *float64 {
		if v == nil {
			return nil // (billed as input: Cost says so)
		}
		return ptr(*v / m.Input)
	}
	return ModelPrice{Input: 1, Output: m.Output / m.Input, CacheRead: per(m.CacheRead), CacheWrite: per(m.CacheWrite)}
}
