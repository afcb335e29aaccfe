package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/ccfilter/ccfilter/pkg/preset"
)

// A planted secret: a line "probeN: …" that holds it where runs hold
// secrets, in the ways each format escapes otherwise (quotes, a JSON
// string's escaped keys, a backslash, markup next to it), and the kind it
// is marked as. Each is written in pieces, so that secret scanners do not
// flag the source.
type plantedSecret struct {
	secret, line, kind string
}

// envSecretValue is held by a variable of the test's environment whose
// name says secret; it has a backslash, which a JSON string escapes.
var envSecretValue = `Qm4\zR8tY2w` + `X6vB1pLk9`

var plantedSecrets = []plantedSecret{
	{"eyAbC" + "dEf123dEf123dEf123dEf123", `curl -H "Authorization: Bearer eyAbC` + `dEf123dEf123dEf123dEf123" https://api.example.com`, "bearer-token"},
	{"Zq8vL2" + "mN7xR4pW9k", `echo '{"api_key": "Zq8vL2` + `mN7xR4pW9k"}' > cfg.json`, "assigned-secret"},
	{`Tr0ub\4` + `dor&3xyzQ`, `export DB_PASSWORD="Tr0ub\4` + `dor&3xyzQ"`, "assigned-secret"},
	{"gh" + "p_aB3dE6gH9jaB3dE6gH9jaB3dE6gH9jKlMnOp", `echo "<b>gh` + `p_aB3dE6gH9jaB3dE6gH9jaB3dE6gH9jKlMnOp</b>"`, "github-token"},
	{"sk-ant-" + "api03-" + strings.Repeat("AbCd1234", 11) + "-xyzAA", "echo sk-ant-" + "api03-" + strings.Repeat("AbCd1234", 11) + "-xyzAA</details>", "anthropic-key"},
	{"Xk9pL2" + "mQ7vR4", `API_TOKEN="Xk9pL2` + `mQ7vR4"`, "assigned-secret"},
	{envSecretValue, "echo " + envSecretValue, "env-secret"},
}

// plantedLines are the probes, one a line: "probe1: curl …".
func plantedLines() string {
	var b strings.Builder
	for i, p := range plantedSecrets {
		b.WriteString("probe" + string(rune('1'+i)) + ": " + p.line + "\n")
	}
	return b.String()
}

// structuralSecret is the value of a tool input's own key "api_key" (an
// object member of the event, not text), known to be a secret by its key.
var structuralSecret = "Wv3nK8" + "sJ2qT6yH"

// commandSecret ends a command, unquoted: in an HTML page, markup follows
// it at once.
var commandSecret = "Hq7mX2" + "pV9cL4tR"

// plantedStream is the real capture 03-bash-fail with the probes planted
// in its Bash call's description, the call's output and the assistant's
// closing text, and its command replaced by one that ends with a secret.
func plantedStream(t *testing.T) string {
	probes := plantedLines()
	return derived(t, "03-bash-fail.jsonl",
		`"command":"ls /nonexistent-dir-for-probe; echo to-stderr >&2; exit 3"`, `"command":"export API_KEY=`+commandSecret+`"`,
		`"description":"List a directory that does not exist"`, `"description":"`+jsonInner(probes)+`"`,
		`"content":"Exit code 3\n`, `"content":"Exit code 3\n`+jsonInner(probes),
		`"text":"The command failed with exit code 3: the directory does not exist."`, `"text":"`+jsonInner(probes+"The command failed.")+`"`)
}

// plantedTranscript is the real session 25-tool-errors with the probes
// planted in a tool's output, the assistant's closing text and a "note"
// added to a tool's input, and a secret as the value of an "api_key" key
// added to that input.
func plantedTranscript(t *testing.T) string {
	path := copySession(t, "25-tool-errors")
	probes := jsonInner(plantedLines())
	plantIn(t, path, `"text":"All three tool calls failed, as expected.`, `"text":"`+probes+`All three tool calls failed, as expected.`)
	plantIn(t, path, `File does not exist. Note: your current working directory is /home/user/project.`, probes+`File does not exist.`)
	plantIn(t, path, `{"path_typo":"/etc/hostname"}`, `{"path_typo":"/etc/hostname","api_key":"`+structuralSecret+`","note":"`+probes+`"}`)
	return path
}

// decodedStrings is every string of the JSON values of out (one a line,
// or one document), and of the JSON text a string holds, joined by
// newlines: what a reader of the output reads, whatever JSON escaped.
func decodedStrings(t *testing.T, out string) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			b.WriteString(v + "\n")
			var inner any
			if json.Unmarshal([]byte(v), &inner) == nil {
				walk(inner)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				walk(k)
				walk(e)
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			require.Equal(t, "EOF", err.Error(), "the output is JSON")
			break
		}
		walk(v)
	}
	return b.String()
}

// decodedCSV is every cell of a CSV output (and the strings of a cell that
// is JSON), a line each.
func decodedCSV(t *testing.T, out string) string {
	records, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	var b strings.Builder
	for _, r := range records {
		for _, cell := range r {
			b.WriteString(cell + "\n")
			if json.Valid([]byte(cell)) {
				b.WriteString(decodedStrings(t, cell))
			}
		}
	}
	return b.String()
}

var (
	markerRE = regexp.MustCompile(`\[REDACTED:[a-z-]+#[0-9?]+\]`)
	// A probe's marker: the first on its line, before the line is cut
	// short (…, or a newline written as \n in a line of its own).
	probeRE = regexp.MustCompile(`probe([0-9]): [^\n\\…]{0,60}?(\[REDACTED:[a-z-]+#[0-9?]+\])`)
	tagRE   = regexp.MustCompile(`<(/?[a-zA-Z][a-zA-Z0-9]*)(?:[^>]*?\bclass="([^"]*)")?[^>]*>`)
)

// redactionSeen is what a decoded output shows of the redaction: the
// markers in it, and the marker each probe's line holds.
type redactionSeen struct {
	markers []string
	probes  map[string]string
}

func seen(text string) redactionSeen {
	set := map[string]bool{}
	for _, m := range markerRE.FindAllString(text, -1) {
		set[m] = true
	}
	s := redactionSeen{probes: map[string]string{}}
	for m := range set {
		s.markers = append(s.markers, m)
	}
	sort.Strings(s.markers)
	for _, m := range probeRE.FindAllStringSubmatch(text, -1) {
		if _, ok := s.probes[m[1]]; !ok {
			s.probes[m[1]] = m[2]
		}
	}
	return s
}

// htmlTags is the sequence of an HTML page's tags (name and class), but
// for the facts row that says what was redacted.
func htmlTags(page string) []string {
	page = redactedFact.ReplaceAllString(page, "")
	var tags []string
	for _, m := range tagRE.FindAllStringSubmatch(page, -1) {
		tags = append(tags, m[1]+"."+m[2])
	}
	return tags
}

var redactedFact = regexp.MustCompile(`<dt>Redacted</dt><dd>[^<]*</dd>`)

// TestRedactionSameSecretsInEveryFormat proves redaction happens on the
// run's values, once, before any format lays them out: on a real capture
// (03-bash-fail) and a real session (25-tool-errors) with secrets planted
// in a tool's input, its output, the assistant's text, at the end of a
// command and as the value of a tool input's own "api_key" key (quoted,
// JSON-escaped keys, a backslash, next to <b>, </b> and </details>, a
// value of the environment), no secret survives in
// any format (text, markdown, html, ndjson, json, otlp; the tools preset's
// csv; what --otlp-endpoint sends to a receiver of the test's own), read
// as its reader reads it (HTML unescaped, JSON decoded, CSV parsed); every
// format shows the same markers, each probe's secret with the same marker;
// and the HTML page has the same tags as the --no-redact page but for the
// facts row that says what was redacted.
func TestRedactionSameSecretsInEveryFormat(t *testing.T) {
	environ := []string{"NO_COLOR=1", "MY_SERVICE_TOKEN=" + envSecretValue}
	run := func(args ...string) runResult {
		var stdout, stderr bytes.Buffer
		code := runWith(&options{presets: preset.Builtin()}, args, strings.NewReader(""), &stdout, &stderr, environ)
		return runResult{stdout.String(), stderr.String(), code}
	}
	var planted []string
	for _, p := range plantedSecrets {
		planted = append(planted, p.secret)
	}
	for name, path := range map[string]string{"03-bash-fail": plantedStream(t), "25-tool-errors": plantedTranscript(t)} {
		t.Run(name, func(t *testing.T) {
			secrets := append(slices.Clone(planted), commandSecret)
			if name == "25-tool-errors" {
				secrets = append(slices.Clone(planted), structuralSecret)
			}
			plain := run("all", "-F", "ndjson", path)
			for _, s := range secrets {
				require.Contains(t, decodedStrings(t, plain.Stdout), s, "planted, and there without --redact")
			}
			outputs := map[string]string{} // format → its output as its reader reads it
			for _, f := range []string{"text", "markdown", "html", "ndjson", "json", "otlp"} {
				res := run("all", "-F", f, "--redact", path)
				require.Contains(t, []int{0, 1}, res.Code, res.Stderr)
				assert.Contains(t, res.Stderr, "ccfilter: redacted ", f)
				switch f {
				case "html":
					outputs[f] = html.UnescapeString(res.Stdout)
				case "ndjson", "json", "otlp":
					outputs[f] = decodedStrings(t, res.Stdout)
				default:
					outputs[f] = res.Stdout
				}
			}
			outputs["tools csv"] = decodedCSV(t, run("tools", "-F", "csv", "--redact", path).Stdout)
			c := &collector{}
			srv := httptest.NewServer(c)
			defer srv.Close()
			sent := run("--otlp-endpoint", srv.URL, path)
			require.Equal(t, 0, sent.Code, sent.Stderr)
			b, err := protojson.Marshal(&tracepb.ScopeSpans{Spans: c.spans})
			require.NoError(t, err)
			outputs["--otlp-endpoint"] = decodedStrings(t, string(b))

			ref := seen(outputs["ndjson"])
			assert.Len(t, ref.probes, len(plantedSecrets), "every probe is marked in the events")
			for i, p := range plantedSecrets {
				assert.Contains(t, ref.probes[string(rune('1'+i))], "[REDACTED:"+p.kind+"#", "probe%d", i+1)
			}
			for f, out := range outputs {
				for _, s := range secrets {
					assert.NotContains(t, out, s, "%s: a secret survives", f)
				}
				got := seen(out)
				assert.Equal(t, ref.markers, got.markers, "%s: the same secrets are redacted, with the same markers", f)
				for probe, m := range got.probes {
					assert.Equal(t, ref.probes[probe], m, "%s: probe%s's secret has one marker in every format", f, probe)
				}
			}

			// Read from a pipe, where no read-ahead screens the lines
			// first, the same.
			content, err := os.ReadFile(path)
			require.NoError(t, err)
			for _, f := range []string{"ndjson", "html"} {
				var piped bytes.Buffer
				runWith(&options{presets: preset.Builtin()}, []string{"all", "-F", f, "--redact"}, bytes.NewReader(content), &piped, io.Discard, environ)
				assert.Equal(t, run("all", "-F", f, "--redact", path).Stdout, piped.String(), "%s: a pipe gives what the file gives", f)
			}

			red := run("all", "-F", "html", path)
			bare := run("all", "-F", "html", "--no-redact", path)
			require.Contains(t, bare.Stdout, "Tr0ub", "--no-redact shows the secrets")
			assert.Contains(t, red.Stdout, "Redacted")
			assert.Equal(t, htmlTags(bare.Stdout), htmlTags(red.Stdout), "the page's tags are the same with and without redaction, but for the facts row")
		})
	}
}

// TestRedactSplitSecretWhosePieceLooksLikeOne proves a secret cut across
// partial-message deltas is found whole even when its first piece alone
// has the shape of a secret (a long GitHub token, cut in two on the real
// capture 07-partial-messages: each half of 40 characters): no piece of
// it is left in any format. The deltas are redacted joined, not one by
// one before they are joined.
func TestRedactSplitSecretWhosePieceLooksLikeOne(t *testing.T) {
	secret := "gh" + "p_" + strings.Repeat("aB3dE6gH9j", 7) + "KlMnOp"
	path := splitIntoDeltas(t, secret)
	for _, f := range []string{"ndjson", "text", "markdown"} {
		res := runIn(t, []string{"all", "-F", f, "--redact", path}, "")
		for _, p := range []string{secret, secret[:len(secret)/2], secret[len(secret)/2:], secret[:len(secret)/3], secret[len(secret)/3 : 2*len(secret)/3], secret[2*len(secret)/3:]} {
			assert.NotContains(t, res.Stdout, p, "%s", f)
		}
		assert.Contains(t, res.Stdout, "[REDACTED:github-token#1]", "%s", f)
	}
}
