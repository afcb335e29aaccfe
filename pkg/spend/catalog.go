package spend

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// prices.json is the list prices of Anthropic's, OpenAI's and Google's
// models, made by scripts/update-prices.mjs from the npm package
// @pydantic/genai-prices (its "source" and "generated" fields say which
// version and when). Regenerate it with that script, in a commit that
// says so; never edit it by hand.
//
//go:embed prices.json
var pricesJSON []byte

// ModelPrice is a model's list price in dollars per million tokens of
// each kind ccfilter counts. CacheRead and CacheWrite are nil where the
// provider publishes none: a cache read is then billed as input, and so
// is a cache write (OpenAI and Google charge none of their own).
// CacheWrite is the price of a write to the 5-minute cache (genai-prices'
// cache_write_mtok; it has no 1-hour price): see Cost for the 1-hour one.
type ModelPrice struct {
	Provider   string    `json:"provider"`
	ID         string    `json:"id"`
	Match      matchRule `json:"match"`
	Input      float64   `json:"input"`
	Output     float64   `json:"output"`
	CacheRead  *float64  `json:"cache_read"`
	CacheWrite *float64  `json:"cache_write"`
	match      func(string) bool
}

// cacheWrite1hTimesInput is the price of a write to the 1-hour cache, in
// input prices: Anthropic's rule ("1-hour cache writes: 2x base input
// tokens price", https://docs.anthropic.com/en/docs/about-claude/pricing),
// the same for every Claude model. genai-prices (prices.json) gives only
// the 5-minute price (1.25x), and Claude Code writes to the 1-hour cache
// (usage.cache_creation.ephemeral_1h_input_tokens): priced at 1.25x, a
// killed session's estimate came out 10-40% low.
const cacheWrite1hTimesInput = 2

// Cost is what usage u costs at p's prices, in dollars: the one place a
// usage is priced (a call's weight, which shares a recorded cost among
// calls, is Cost at its model's ratios: PriceTable.ratios).
func (p ModelPrice) Cost(u stream.Usage) float64 {
	or := func(v *float64) float64 {
		if v == nil {
			return p.Input
		}
		return *v
	}
	write5m := u.CacheCreationInputTokens - u.CacheWrite1hTokens
	return (float64(u.InputTokens)*p.Input + float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadInputTokens)*or(p.CacheRead) + float64(write5m)*or(p.CacheWrite) +
		float64(u.CacheWrite1hTokens)*cacheWrite1hTimesInput*p.Input) / 1e6
}

// Catalog is the published list prices: the model a name matches is the
// first in the file whose rule it matches (the providers' own order:
// Anthropic, OpenAI, Google; a Claude model served by Google's Vertex is
// priced as Anthropic's).
type Catalog struct {
	Source    string       `json:"source"`
	Generated string       `json:"generated"`
	Models    []ModelPrice `json:"models"`
	// found remembers Lookup's answers by model name: matching a name
	// tries the rules of every model in turn (lower-casing it for each),
	// and an account priced at every result of a corpus of many runs
	// asked the same few names thousands of times (a Gemini trace of 60
	// MB took a third longer). Bounded: past maxFound names, the rules
	// are tried again.
	found  sync.Map // string -> foundPrice
	nFound atomic.Int32
}

// foundPrice is a Lookup's answer, remembered.
type foundPrice struct {
	price ModelPrice
	ok    bool
}

// maxFound bounds the names Lookup remembers (a hostile input may name a
// million models).
const maxFound = 1024

// Lookup returns the price of model, false when no rule matches it. The
// model is the API's (stream.APIModel): "claude-opus-5-5[1m]", the name
// the user chose it by, is priced as claude-opus-5-5, as it is billed.
func (c *Catalog) Lookup(model string) (ModelPrice, bool) {
	model = stream.APIModel(model)
	if c == nil || model == "" {
		return ModelPrice{}, false
	}
	if f, ok := c.found.Load(model); ok {
		return f.(foundPrice).price, f.(foundPrice).ok
	}
	f := foundPrice{}
	for _, m := range c.Models {
		if m.match(model) {
			f = foundPrice{m, true}
			break
		}
	}
	if c.nFound.Load() < maxFound {
		if _, had := c.found.LoadOrStore(model, f); !had {
			c.nFound.Add(1)
		}
	}
	return f.price, f.ok
}

// parseCatalog reads a catalog and compiles its rules.
func parseCatalog(b []byte) (*Catalog, error) {
	var c Catalog
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	for i := range c.Models {
		f, err := c.Models[i].Match.compile()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.Models[i].ID, err)
		}
		c.Models[i].match = f
	}
	return &c, nil
}

// matchRule is genai-prices' rule of the model names a price applies to:
// one of equals, starts_with, ends_with, contains, regex (RE2), or a
// list under or/and, or a rule under not (the update script's form of a
// regex lookahead). Names compare case-insensitively, as genai-prices
// does.
type matchRule struct {
	Equals     *string     `json:"equals,omitempty"`
	StartsWith *string     `json:"starts_with,omitempty"`
	EndsWith   *string     `json:"ends_with,omitempty"`
	Contains   *string     `json:"contains,omitempty"`
	Regex      *string     `json:"regex,omitempty"`
	Or         []matchRule `json:"or,omitempty"`
	And        []matchRule `json:"and,omitempty"`
	Not        *matchRule  `json:"not,omitempty"`
}

func (r matchRule) compile() (func(string) bool, error) {
	lower := func(p *string) string { return strings.ToLower(*p) }
	switch {
	case r.Equals != nil:
		s := lower(r.Equals)
		return func(m string) bool { return strings.ToLower(m) == s }, nil
	case r.StartsWith != nil:
		s := lower(r.StartsWith)
		return func(m string) bool { return strings.HasPrefix(strings.ToLower(m), s) }, nil
	case r.EndsWith != nil:
		s := lower(r.EndsWith)
		return func(m string) bool { return strings.HasSuffix(strings.ToLower(m), s) }, nil
	case r.Contains != nil:
		s := lower(r.Contains)
		return func(m string) bool { return strings.Contains(strings.ToLower(m), s) }, nil
	case r.Regex != nil:
		re, err := regexp.Compile(*r.Regex)
		if err != nil {
			return nil, err
		}
		return re.MatchString, nil
	case r.Not != nil:
		f, err := r.Not.compile()
		if err != nil {
			return nil, err
		}
		return func(m string) bool { return !f(m) }, nil
	case r.Or != nil || r.And != nil:
		all := r.And != nil
		list := r.Or
		if all {
			list = r.And
		}
		fs := make([]func(string) bool, len(list))
		for i, sub := range list {
			f, err := sub.compile()
			if err != nil {
				return nil, err
			}
			fs[i] = f
		}
		return func(m string) bool {
			for _, f := range fs {
				if f(m) != all {
					return !all
				}
			}
			return all
		}, nil
	}
	return nil, fmt.Errorf("an empty match rule")
}
