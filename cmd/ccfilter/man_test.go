package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/filter"
	"github.com/ccfilter/ccfilter/pkg/preset"
)

// The man pages are generated here, from the command tree --help is
// printed from, so that the generator (cobra/doc, go-md2man) is not linked
// into ccfilter itself. `make man` runs TestManPages with -update, which
// writes them into man/ (not committed); without -update they go to a
// temporary directory and are only checked.

// writeManPages writes ccfilter.1 and a page per subcommand into dir. The
// date in the header is SOURCE_DATE_EPOCH's when set (reproducible builds),
// else today's.
func writeManPages(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root := newRootCmd(&options{}, func(*options) error { return nil })
	// Execute adds these lazily; the pages should show them.
	root.InitDefaultVersionFlag()
	root.InitDefaultCompletionCmd()
	root.Long = manDescription()
	root.Example = strings.Join(examples(preset.Builtin()), "\n")
	root.DisableAutoGenTag = true
	return doc.GenManTree(root, &doc.GenManHeader{
		Section: "1",
		Source:  "ccfilter " + version,
		Manual:  "ccfilter manual",
	}, dir)
}

// manDescription is --help's long text as markdown (go-md2man's input),
// built from the same tables, with the presets, functions and exit codes
// as sections of their own.
func manDescription() string {
	var b strings.Builder
	b.WriteString(`**ccfilter** reads the event stream of **claude -p --output-format stream-json --verbose**
(or the JSON array of **--output-format json**), or the session transcripts
Claude Code keeps in ~/.claude/projects, from files or stdin, and prints
what you ask for: a preset, or any jq expression (gojq), as text, markdown,
NDJSON, CSV, JSON, HTML (one page) or OTLP (OpenTelemetry traces).

*FILTER* is a preset name or a jq expression run per event; none means **all**.
*FILE* is zero or more files (.gz and .zst are read transparently); none or **-**
reads stdin. A directory is every session (.jsonl) in it, oldest first; a
session's id (or a unique prefix) is its transcript. Each file is its own run,
output in argument order. A first argument that is a file and neither a preset
nor an expression is a *FILE*. **ccfilter sessions** lists the sessions.

# PRESETS
`)
	for _, p := range preset.Builtin().List() {
		fmt.Fprintf(&b, "**%s**\n: %s. **--where**: %s.\n\n", p.Name, manEscape(p.Summary), manEscape(whereDot(p)))
	}
	b.WriteString("# EXPRESSIONS\nAny *FILTER* that is not a preset is a jq expression (gojq) run on every event; . is the event. Besides jq's builtins it has:\n\n")
	for _, f := range filter.Funcs {
		fmt.Fprintf(&b, "**%s**\n: %s\n\n", f.Name, manEscape(f.Doc))
	}
	b.WriteString("**--where** *EXPR* narrows a preset instead: it keeps what *EXPR* is true for.\n\n# EXIT STATUS\n")
	for _, c := range exitCodes {
		fmt.Fprintf(&b, "**%d**\n: %s\n\n", c.code, manEscape(c.meaning))
	}
	b.WriteString("With several files the most serious code wins: 5, then 1, then 4.\n")
	return b.String()
}

// manEscape keeps markdown from reading emphasis or HTML into the tables'
// prose.
func manEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", `\<`).Replace(s)
}

// TestManPages generates the man pages and proves the root page documents
// every preset (its name, summary and example), every flag, every
// expression function and every exit code, and that each subcommand has a
// page. With -update they are written into man/ (what `make man` does).
func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if *update {
		dir = "../../man"
	}
	require.NoError(t, writeManPages(dir))
	b, err := os.ReadFile(filepath.Join(dir, "ccfilter.1"))
	require.NoError(t, err)
	page := string(b)
	section := func(name string) string {
		_, rest, ok := strings.Cut(page, "\n.SH "+name+"\n")
		require.True(t, ok, "no %s section", name)
		s, _, _ := strings.Cut(rest, "\n.SH ")
		return s
	}
	presets, example := section("PRESETS"), section("EXAMPLE")
	for _, p := range preset.Builtin().List() {
		assert.Contains(t, presets, `\fB`+p.Name+`\fP`+"\n"+p.Summary, "preset %s", p.Name)
		require.NotEmpty(t, p.Example, "preset %s has no example", p.Name)
		assert.Contains(t, example, "\n"+p.Example+"\n", "example of preset %s", p.Name)
	}
	exprs := section("EXPRESSIONS")
	for _, f := range filter.Funcs {
		assert.Contains(t, exprs, `\fB`+f.Name+`\fP`, "function %s", f.Name)
	}
	assert.Contains(t, exprs, `("<stdin>" or the file name)`, "escaped markdown is shown as written")
	codes := section("EXIT STATUS")
	for _, c := range exitCodes {
		assert.Contains(t, codes, fmt.Sprintf("\\fB%d\\fP\n", c.code), "exit code %d", c.code)
	}
	opts := section("OPTIONS")
	root := newRootCmd(&options{}, nil)
	root.Flags().VisitAll(func(f *pflag.Flag) {
		assert.Contains(t, opts, `\fB--`+f.Name+`\fP`, "flag --%s", f.Name)
	})
	assert.Contains(t, opts, `\fB--version\fP`)
	for _, sub := range []string{"presets", "completion", "completion-bash", "completion-zsh", "completion-fish", "completion-powershell"} {
		assert.FileExists(t, filepath.Join(dir, "ccfilter-"+sub+".1"))
	}
	assert.Contains(t, section("SEE ALSO"), `\fBccfilter-completion(1)\fP, \fBccfilter-presets(1)\fP`)
	assert.NotContains(t, page, "Auto generated", "no generator tag with a date in the page")
}

// TestHelpHasAnExamplePerPreset proves --help shows every preset's example
// (and names every preset).
func TestHelpHasAnExamplePerPreset(t *testing.T) {
	var out strings.Builder
	code := run([]string{"--help"}, strings.NewReader(""), &out, &out, nil)
	require.Equal(t, 0, code)
	help := out.String()
	for _, p := range preset.Builtin().List() {
		assert.Regexp(t, `(?m)^  `+p.Name+` +`+regexp.QuoteMeta(p.Summary)+`$`, help, "preset %s listed", p.Name)
		assert.Contains(t, help, "\n  "+p.Example+"\n", "example of preset %s", p.Name)
	}
}
