package main

import (
	"regexp"
	"testing"

	"github.com/fzipp/gocyclo"
	"github.com/stretchr/testify/assert"
)

// maxComplexity is the highest cyclomatic complexity (gocyclo's count) a
// function may have outside the JSON kernels: beyond it a function does
// too many things to be read, tested or changed safely.
const maxComplexity = 25

// TestNoComplexFunctions proves that no function of the module, tests
// included, is above maxComplexity, except in internal/jsonx, whose
// scanners are state machines written as one switch for speed
// (`gocyclo -over 25 .` prints the same list).
func TestNoComplexFunctions(t *testing.T) {
	stats := gocyclo.Analyze([]string{"../.."}, regexp.MustCompile(`internal/jsonx/`))
	assert.Greater(t, len(stats), 500, "the module's functions were found")
	for _, s := range stats {
		assert.LessOrEqual(t, s.Complexity, maxComplexity, "%s.%s at %s", s.PkgName, s.FuncName, s.Pos)
	}
}
