package spend

import "strings"

// PriceTable prices a model's tokens for the runs that recorded no cost:
// dollars per million input tokens, by model name prefix (the longest that
// matches wins); the other kinds follow Claude's ratios (see weight).
type PriceTable map[string]float64

// Prices are Anthropic's list prices of the Claude models per million
// input tokens (anthropic.com/pricing, as this table's authors knew them
// when it was written; see docs/usage.md). A run that recorded its cost
// never uses them (the CLI's figure is exact, whatever the model); they
// price a killed run's calls only when the session has no recorded run
// of the same model to take the rate from.
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
