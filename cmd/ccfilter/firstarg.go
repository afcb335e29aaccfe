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
	if !compiled && o.presets.ForWord(arg) != "" {
		return nil // a word for a preset, not a slip: notAnything names it
	}
	// A preset, then a command, then a flag value: the nearer kind of
	// thing first, so "session" is the sessions command, not --version.
	lower := strings.ToLower(arg)
	best, dist := "", 3
	for _, name := range o.presets.Names() {
		if d := editDistance(lower, name); d < dist && (d > 0 || arg != name) {
			best, dist = fmt.Sprintf("%q", name), d
		}
	}
	if compiled {
		if dist != 1 {
			return nil
		}
		return &flagError{fmt.Errorf("unknown preset %q (did you mean %s? to run jq's %s, write (%s))", arg, best, arg, arg)}
	}
	for _, name := range commands {
		if d := editDistance(lower, name); d < dist {
			best, dist = fmt.Sprintf("the command 'ccfilter %s'", name), d
		}
	}
	if dist > 2 || dist > len(arg)/2 {
		// A flag value only when all but one letter is there: "cost" is
		// not --format csv.
		for _, v := range flagValues() {
			if d := editDistance(lower, v.value); d <= 1 && d < dist {
				best, dist = fmt.Sprintf("%q", v.flag), d
			}
		}
	}
	if dist > 2 || dist > len(arg)/2 {
		return nil
	}
	return &flagError{fmt.Errorf("unknown preset %q (did you mean %s?)", arg, best)}
}

// notAnything is the error for a bare word that is no preset, no file, no
// session and no typo of one: jq's exit code (an undefined function), in a
// sentence without jq's "function not defined: word/0", which says nothing
// to someone who did not mean jq. A word people use for a preset's output
// ("cost") names the preset.
func (o *options) notAnything(arg string) error {
	what := "a preset, a file or a jq expression"
	if shortSessionID.MatchString(arg) {
		what = "a preset, a file, a session's id under " + o.projectsDir() + " or a jq expression"
	}
	guess := ""
	if name := o.presets.ForWord(arg); name != "" {
		guess = fmt.Sprintf(" (did you mean %s?)", name)
	}
	return &exitError{code: exitCompile, msg: fmt.Sprintf("%q is not %s%s; presets: %s ('ccfilter presets' says what each prints)",
		arg, what, guess, strings.Join(o.presets.Names(), ", "))}
}

// commands are ccfilter's commands, which a first argument may misspell.
var commands = []string{"sessions", "presets"}

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
