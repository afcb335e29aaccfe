package stream

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHandBackUsage reads the last lines of an Agent tool result (60-long's
// foreground subagent).
func TestHandBackUsage(t *testing.T) {
	text := "[Subagent hand-back] … The report follows:\n  No files were modified.\nagentId: a231b5428b0a39600 (use SendMessage with to: 'a231b5428b0a39600', summary: '<5-10 word recap>' to continue this agent)\n<usage>subagent_tokens: 76775\ntool_uses: 17\nduration_ms: 1922</usage>"
	id, u, ok := handBackUsage(text)
	assert.True(t, ok)
	assert.Equal(t, "a231b5428b0a39600", id)
	assert.Equal(t, TaskUsage{76775, 17, 1922}, u)
	for _, s := range []string{"", "Async agent launched successfully.\nagentId: a1 (…)", "a report that quotes <usage>subagent_tokens: 1</usage> mid-way."} {
		_, _, ok := handBackUsage(s)
		assert.False(t, ok, s)
	}
}
