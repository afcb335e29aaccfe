package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// oneJSONDocument reports whether s is exactly one JSON document.
func oneJSONDocument(s string) error {
	dec := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more than one document")
	}
	return nil
}

// TestFormatsAreWhatTheyPromise proves, on every capture (a sample with
// -short), that --format json is one JSON document for every preset,
// pretty or compact ([] when a preset selects nothing), as a real JSON
// parser reads it; that every preset that prints csv prints a table that
// reads back with one width; and that the pairs a preset does not print
// are refused with exit 2 and a message naming what works.
func TestFormatsAreWhatTheyPromise(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	if testing.Short() {
		files = sampleCaptures(files)
	}
	empty := 0
	for _, f := range files {
		for _, p := range preset.Builtin().List() {
			for _, args := range [][]string{{"--format", "json"}, {"--format", "json", "-c"}} {
				got := runIn(t, append([]string{p.Name, f}, args...), "")
				if p.Name == "final" && got.Code != 0 {
					continue // no answer: stdout is empty, stderr says why
				}
				assert.NoError(t, oneJSONDocument(got.Stdout), "%s %v on %s:\n%.300s", p.Name, args, filepath.Base(f), got.Stdout)
				if got.Stdout == "[]\n" {
					empty++
				}
			}
			got := runIn(t, []string{p.Name, "--format", "csv", f}, "")
			if !p.Prints(render.CSV) {
				assert.Equal(t, exitUsage, got.Code, p.Name)
				var prints []string
				for _, pf := range p.Formats {
					prints = append(prints, string(pf))
				}
				assert.Contains(t, got.Stderr, "the "+p.Name+" preset does not print csv (it prints "+strings.Join(prints, ", ")+"); csv is printed by all, tools,")
				assert.Empty(t, got.Stdout)
				continue
			}
			r := csv.NewReader(strings.NewReader(got.Stdout))
			rows, err := r.ReadAll()
			assert.NoError(t, err, "%s csv on %s", p.Name, filepath.Base(f))
			assert.NotEmpty(t, rows, "%s csv on %s: a header at least", p.Name, filepath.Base(f))
		}
	}
	assert.Positive(t, empty, "some preset selects nothing somewhere, and says [] for it")
	// An expression's outputs stay jq's: documents one after the other.
	var out bytes.Buffer
	code := run([]string{"--format", "json", "-c", ".type", "../../testdata/events/01-plain-text.jsonl"}, strings.NewReader(""), &out, io.Discard, nil)
	assert.Equal(t, 0, code)
	assert.Equal(t, "\"system\"\n\"assistant\"\n\"result\"\n", out.String())
}
