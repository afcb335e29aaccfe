package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryRuleFindsItsExample proves each rule of the table finds its
// example, alone, in prose, and inside a JSON string (the JSON stays valid
// and holds the marker instead), and that the example is gone.
func TestEveryRuleFindsItsExample(t *testing.T) {
	for _, rule := range Rules {
		t.Run(rule.ID+" "+rule.triggers[0], func(t *testing.T) {
			r := New(nil)
			out := r.String("see " + rule.Example + " here")
			assert.Contains(t, out, "[REDACTED:"+rule.ID+"#1]")
			secret := rule.SecretPart()
			assert.NotContains(t, out, secret)
			b, err := json.Marshal(map[string]string{"text": "x " + rule.Example + "\nnext"})
			require.NoError(t, err)
			red := r.String(string(b))
			var v map[string]string
			require.NoError(t, json.Unmarshal([]byte(red), &v), red)
			assert.NotContains(t, v["text"], secret)
			assert.Contains(t, v["text"], "[REDACTED:"+rule.ID)
		})
	}
}
