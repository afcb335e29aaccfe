package spend

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/stream"
)

// TestShippedPricesParse proves prices.json, as scripts/update-prices.mjs
// wrote it, parses and compiles (every rule RE2), and says its source and
// date.
func TestShippedPricesParse(t *testing.T) {
	c, err := parseCatalog(pricesJSON)
	require.NoError(t, err)
	assert.Contains(t, c.Source, "@pydantic/genai-prices")
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, c.Generated)
	providers := map[string]int{}
	for _, m := range c.Models {
		providers[m.Provider]++
	}
	for _, p := range []string{"anthropic", "openai", "google"} {
		assert.Greater(t, providers[p], 10, p)
	}
}

// TestCatalogPricesTheModelsTheAgentsName proves the lookup on the model
// names the captures give: Claude Code's (claude-opus-5-5, and a dated
// variant the rule's regex takes), Gemini's (stats.models of
// ../shared/agents/gemini: gemini-3.8-flash, gemini-3.5-flash-lite), the
// OpenAI models Codex runs (a rollout's turn_context model), a TTS model
// kept apart from its base by a rule under "not" (the update script's
// form of a lookahead), case, and a name no rule knows.
func TestCatalogPricesTheModelsTheAgentsName(t *testing.T) {
	tests := []struct {
		model      string
		id         string
		in, out    float64
		unknownRow bool
	}{
		{model: "claude-opus-5-5", id: "claude-opus-5-5", in: 4, out: 20},
		{model: "claude-opus-5-5-20261101", id: "claude-opus-5-5", in: 4, out: 20},
		{model: "gemini-3.8-flash", id: "gemini-3.8-flash", in: 0.75, out: 3.75},
		{model: "gemini-2.5-pro", id: "gemini-2.5-pro", in: 1.25, out: 10},
		{model: "gemini-2.5-pro-tts", id: "gemini-2.5-pro-tts"},
		{model: "gpt-5", id: "gpt-5", in: 1.25, out: 10},
		{model: "GPT-5-codex", id: "gpt-5", in: 1.25, out: 10},
		{model: "my-proxy-model", unknownRow: true},
		{model: "", unknownRow: true},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			m, ok := Prices.Catalog().Lookup(tt.model)
			if tt.unknownRow {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.id, m.ID)
			if tt.in > 0 {
				assert.Equal(t, tt.in, m.Input)
				assert.Equal(t, tt.out, m.Output)
			}
		})
	}
}

// TestEstimateAppliesEachKindsPrice proves a call is priced per kind of
// token at the catalog's prices (gpt-5: $1.25 input, $0.125 cached, $10
// output per million; a cache write, which OpenAI does not price, as
// input), and that a --prices entry wins over the catalog at the model's
// own ratios (gpt-5's output 8 times its input, a read a tenth, a write as
// input; it was Claude's 5 and 1.25), a model the catalog does not price
// at Claude's usual ratios.
func TestEstimateAppliesEachKindsPrice(t *testing.T) {
	u := stream.Usage{InputTokens: 1_000_000, CacheReadInputTokens: 2_000_000, OutputTokens: 100_000, CacheCreationInputTokens: 1_000_000}
	cost, ok := Prices.Estimate("gpt-5", u)
	require.True(t, ok)
	assert.InDelta(t, 1.25+0.25+1.0+1.25, cost, 1e-9)
	_, ok = Prices.Estimate("my-proxy-model", u)
	assert.False(t, ok, "an unknown model is said, not priced at $0")
	over := PriceTable{extra: map[string]float64{"gpt-5": 2}}
	cost, ok = over.Estimate("gpt-5", u)
	require.True(t, ok)
	assert.InDelta(t, 2*(1+0.1*2+8*0.1+1*1), cost, 1e-9)
	over = PriceTable{extra: map[string]float64{"my-proxy-model": 2}}
	cost, ok = over.Estimate("my-proxy-model", u)
	require.True(t, ok)
	assert.InDelta(t, 2*(1+0.1*2+5*0.1+1.25*1), cost, 1e-9)
}

// TestPriceLookupReadsTheModelAsTheAPINamesIt proves a model named with
// Claude Code's 1M-context selector (the name the user chose it by) is
// priced as the API bills it: the calls of the real 60-long-session cost
// the same at list prices as claude-opus-5-5[1m] (in any case) as
// claude-opus-5-5, where before no price was known for the name; a
// --prices entry's prefix meets it too.
func TestPriceLookupReadsTheModelAsTheAPINamesIt(t *testing.T) {
	var u stream.Usage
	_, err := Scan(filepath.Join(transcripts, "60-long-session/home/.claude/projects/-home-user-project/6e7ff9fa-7236-4618-a5f9-c62fb06889c4.jsonl"),
		func(c Call) { u = u.Add(c.Usage) })
	require.NoError(t, err)
	over := PriceTable{extra: map[string]float64{"claude-opus-5-5": 5}}
	for _, table := range []PriceTable{Prices, over} {
		want, ok := table.Estimate("claude-opus-5-5", u)
		require.True(t, ok)
		for _, name := range []string{"claude-opus-5-5[1m]", "claude-opus-5-5[1M]"} {
			got, ok := table.Estimate(name, u)
			assert.True(t, ok, "%s is priced", name)
			assert.InDelta(t, want, got, 1e-12, name)
		}
	}
}

// TestLookupRemembersWhatTheRulesSay proves Catalog.Lookup's memory of
// names gives what trying the rules gives, for names priced, unpriced and
// spelled with the context selector, asked twice; and that past maxFound
// names it stops remembering but still answers.
func TestLookupRemembersWhatTheRulesSay(t *testing.T) {
	c, err := parseCatalog(pricesJSON)
	require.NoError(t, err)
	rules := func(model string) (ModelPrice, bool) {
		for _, m := range c.Models {
			if m.match(stream.APIModel(model)) {
				return m, true
			}
		}
		return ModelPrice{}, false
	}
	names := []string{"claude-opus-5-5", "claude-opus-5-5[1m]", "gpt-5", "gemini-3.8-flash", "claude-opus-9", "no-such-model"}
	for round := 0; round < 2; round++ {
		for _, n := range names {
			want, wantOK := rules(n)
			got, ok := c.Lookup(n)
			assert.Equal(t, wantOK, ok, "%s, round %d", n, round)
			assert.Equal(t, want.ID, got.ID, "%s, round %d", n, round)
		}
	}
	for i := range maxFound + 10 {
		_, ok := c.Lookup(fmt.Sprintf("model-%d", i))
		assert.False(t, ok)
	}
	assert.LessOrEqual(t, int(c.nFound.Load()), maxFound, "bounded")
	_, ok := c.Lookup("claude-opus-5-5")
	assert.True(t, ok, "still answers past the bound")
}
