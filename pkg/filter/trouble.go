// Package filter decides which parts of a stream ccfilter prints, below
// the presets (package preset): gojq expressions run per event, the
// --agent and --where conditions that narrow a preset, and the rule for
// what signals trouble.
package filter

import "github.com/ccfilter/ccfilter/pkg/stream"

// IsTrouble reports whether an event signals trouble, by the one rule
// of it (stream.TroubleOf): what the errors preset lists and the run's
// account counts.
func IsTrouble(e *stream.Event) bool { return stream.TroubleOf(e) != "" }

// Stopped says whether an event tells of an answer the API stopped
// (stream.Stopped): "refusal", "max_tokens" or "".
func Stopped(e *stream.Event) string { return stream.Stopped(e) }
