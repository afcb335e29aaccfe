package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccfilter/ccfilter/pkg/render"
)

// The first argument is a preset, an expression or a file. These read it
// as the user meant it when it is none of them as typed: a word one slip
// from a preset or a flag value is a typo (exit 2 with a suggestion, not a
// jq error), and something that looks like a path is a file, reported as
// missing if it is.

// bareWord matches what a preset or a flag value looks like.
var bareWord = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// looksLikePath reports whether arg reads as a path: it has a slash and is
// not a jq expression (the caller knows), or it ends in an extension of a
// stream file.
func looksLikePath(arg string) bool {
	if strings.Contains(arg, "/") {
		return true
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".jsonl", ".json", ".ndjson", ".gz", ".zst", ".log":
		return true
	}
	return false
}

// exists reports whether a file or directory is there.
func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// typo returns the usage error for a first argument that is a slip of a
// preset or a flag value, or nil. An argument that compiled is a jq
// expression; it is taken as a typo only when it is a bare word one edit
// from a preset (error for errors, type for types: jq builtins that print
// an error or a type name per event, which nobody means here).
func (o *options) typo(arg string, compiled bool) error {
	if !bareWord.MatchString(arg) {
		return nil
	}
	best, dist := "", 3
	for _, name := range o.presets.Names() {
		if d := editDistance(arg, name); d < dist && d > 0 {
			best, dist = fmt.Sprintf("%q", name), d
		}
	}
	if compiled {
		if dist != 1 {
			return nil
		}
		return &flagError{fmt.Errorf("unknown preset %q (did you mean %s? to run jq's %s, write (%s))", arg, best, arg, arg)}
	}
	for _, v := range flagValues() {
		if d := editDistance(strings.ToLower(arg), v.value); d < dist || d == 0 {
			best, dist = fmt.Sprintf("%q", v.flag), d
		}
	}
	if dist > 2 || dist > len(arg)/2 {
		return nil
	}
	return &flagError{fmt.Errorf("unknown preset %q (did you mean %s?)", arg, best)}
}

// flagValue is a word a user may give as FILTER meaning a flag.
type flagValue struct{ value, flag string }

// flagValues are the formats (but text, a preset too) and the words of
// --version and --help.
func flagValues() []flagValue {
	out := []flagValue{{"version", "--version"}, {"help", "--help"}, {"md", "--format markdown"}}
	for _, f := range render.Formats {
		if f != render.Text {
			out = append(out, flagValue{string(f), "--format " + string(f)})
		}
	}
	return out
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of two neighbours each cost one
// ("usgae" is one from "usage").
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
