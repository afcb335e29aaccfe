package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/preset"
	"github.com/ccfilter/ccfilter/pkg/redact"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// jsonInner is s as it is written inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// redactDecoys are what runs are made of that looks like a secret to a
// careless rule, and every rule's decoys (a test key, a published
// example, code that reads a secret): they must come out as they went in.
var redactDecoys = append([]string{
	"msg_01XFDUDYJgAACzvnptvVoYEL", "toolu_01A09q90qw90lq917835lq9", "3f2c9a1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"the password you chose must be long", "apiKeySource ANTHROPIC_API_KEY", "/home/user/.config/token.txt",
}, ruleDecoys()...)

func ruleDecoys() []string {
	var all []string
	for _, r := range redact.Rules {
		all = append(all, r.Decoys...)
	}
	return all
}

// plantedRun is a real capture with every rule's example planted in a
// tool result, its tool_use_result copy and the assistant's text, and the
// decoys beside them.
func plantedRun(t *testing.T) (path string, secrets []string) {
	var all []string
	for _, r := range redact.Rules {
		all = append(all, r.Example)
	}
	planted := jsonInner(strings.Join(all, "\n") + "\n" + strings.Join(redactDecoys, "\n"))
	path = derived(t, "02-write-read.jsonl",
		"hello probe", planted, "hello probe", planted,
		"I'll write the file first.", planted)
	for _, r := range redact.Rules {
		secrets = append(secrets, r.SecretPart())
	}
	return path, secrets
}

// redactedRun runs ccfilter with args and checks that none of secrets is
// in its output, as it is or as a JSON string writes it.
func redactedRun(t *testing.T, args []string, secrets []string) runResult {
	t.Helper()
	res := runIn(t, args, "")
	for _, s := range secrets {
		assert.NotContains(t, res.Stdout, s, "%v", args)
		assert.NotContains(t, res.Stdout, jsonInner(s), "%v", args)
	}
	return res
}

// TestRedactPlantedSecrets proves that with --redact no planted secret
// appears in any format of the all, text and tools presets (markdown by
// default), that the decoys do, that JSON output stays valid, and that
// stderr says how many were replaced; and that without it an NDJSON
// pipeline gets the bytes unchanged.
func TestRedactPlantedSecrets(t *testing.T) {
	path, secrets := plantedRun(t)
	for _, p := range []string{"all", "text", "tools"} {
		for _, f := range render.Formats {
			args := []string{p, "-F", string(f), path}
			if f != render.Markdown {
				args = append(args, "--redact")
			}
			res := redactedRun(t, args, secrets)
			if p == "all" && (f == render.NDJSON || f == render.JSON) {
				for _, d := range redactDecoys {
					assert.Contains(t, res.Stdout, jsonInner(d), "%v: the decoy survives", args)
				}
				assert.Contains(t, res.Stderr, "ccfilter: redacted ", "%v", args)
				assert.Contains(t, res.Stdout, "[REDACTED:github-token#1]", "%v", args)
			}
			if f == render.NDJSON {
				for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
					require.True(t, json.Valid([]byte(l)), "%v: %s", args, l)
				}
			}
		}
	}
	plain := runIn(t, []string{"all", "-F", "ndjson", path}, "")
	assert.Contains(t, plain.Stdout, jsonInner(secrets[0]), "ndjson is not redacted by default")
	assert.NotContains(t, plain.Stderr, "redacted")
	md := runIn(t, []string{"all", "-F", "markdown", path}, "")
	said := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(md.Stderr), "ccfilter: redacted "), "\n")
	assert.Contains(t, md.Stdout, "| Redacted | "+said+" in this report |", "the report's summary says what stderr says")
	off := runIn(t, []string{"all", "-F", "markdown", "--no-redact", path}, "")
	assert.NotContains(t, off.Stdout, "| Redacted |")
	assert.Contains(t, off.Stdout, secrets[0], "--no-redact turns markdown's default off")
}

// TestRedactDefaultSaidOnce proves --help, README and docs/redaction.md
// say in the same words which formats are redacted by default, that the
// words are what the code does (each format's default run of a real
// capture with secrets planted, 02-write-read), and that --help's intro
// names every format.
func TestRedactDefaultSaidOnce(t *testing.T) {
	help := runIn(t, []string{"--help"}, "").Stdout
	said := redactDefault()
	assert.Contains(t, help, "[REDACTED:kind#n]; "+said+"; see docs/redaction.md")
	for _, doc := range []string{"../../README.md", "../../docs/redaction.md"} {
		b, err := os.ReadFile(doc)
		require.NoError(t, err)
		assert.Contains(t, strings.Join(strings.Fields(string(b)), " "), said, doc)
	}
	path, secrets := plantedRun(t)
	var redacted []string
	for _, f := range render.Formats {
		res := runIn(t, []string{"all", "-F", string(f), path}, "")
		if !strings.Contains(res.Stdout, secrets[0]) {
			redacted = append(redacted, string(f))
		}
	}
	require.NotEmpty(t, redacted)
	last := len(redacted) - 1
	assert.True(t, strings.HasPrefix(said, "on by default for "+strings.Join(redacted[:last], ", ")+" and "+redacted[last]+" ("), "%q, and the code redacts %v", said, redacted)
	intro := strings.ToLower(strings.Join(strings.Fields(help[:strings.Index(help, "\n\n")]), " "))
	for _, f := range render.Formats {
		assert.Contains(t, intro, string(f), "--help's intro names every format")
	}
}

// TestRedactRealCapturesUnchanged proves --redact changes no byte of a
// real run's output, which holds no secret, in the formats people and
// pipelines read, and says nothing on stderr: every capture and every
// transcript (its subagents joined).
func TestRedactRealCapturesUnchanged(t *testing.T) {
	runs, _ := filepath.Glob("../../testdata/events/*.jsonl")
	transcripts, _ := filepath.Glob("../../testdata/transcripts/*/home/.claude/projects/*/*.jsonl")
	runs = append(runs, transcripts...)
	require.Greater(t, len(runs), 50)
	if testing.Short() {
		// A quarter of them (the race detector runs -short): every
		// run in the full run (make test-all).
		var some []string
		for i, p := range runs {
			if i%4 == 0 {
				some = append(some, p)
			}
		}
		runs = some
	}
	for _, path := range runs {
		for _, f := range []string{"ndjson", "markdown", "text"} {
			with := runIn(t, []string{"all", "-F", f, "--redact", path}, "")
			without := runIn(t, []string{"all", "-F", f, "--no-redact", path}, "")
			assert.Equal(t, without.Stdout, with.Stdout, "%s %s", path, f)
			assert.NotContains(t, with.Stderr, "redacted", "%s %s", path, f)
		}
	}
}

// splitIntoDeltas plants secret into the partial-message capture
// 07-partial-messages, cut across the deltas of each kind of block: the
// thinking's in three (the middle delta all secret), the text's in two,
// and the tool input's (partial_json) in two inside a string of it; each
// block's assistant event holds the joined text, as Claude Code writes it.
func splitIntoDeltas(t *testing.T, secret string) string {
	lines := strings.Split(strings.TrimSpace(capture(t, "07-partial-messages.jsonl")), "\n")
	evs := make([]map[string]any, len(lines))
	deltas := map[float64][]map[string]any{} // by block index
	var assistants []map[string]any
	first := true // the first model call's blocks
	for i, l := range lines {
		require.NoError(t, json.Unmarshal([]byte(l), &evs[i]))
		e, _ := evs[i]["event"].(map[string]any)
		if first && e != nil && e["type"] == "content_block_delta" {
			deltas[e["index"].(float64)] = append(deltas[e["index"].(float64)], e["delta"].(map[string]any))
		}
		if first && evs[i]["type"] == "assistant" {
			assistants = append(assistants, evs[i])
		}
		if e != nil && e["type"] == "message_stop" {
			first = false
		}
	}
	require.Len(t, assistants, 3)
	third := len(secret) / 3
	// The thinking: the secret's first third ends delta 0, delta 1 is its
	// middle third alone, delta 2 starts with the rest.
	th := deltas[0]
	th[0]["thinking"] = th[0]["thinking"].(string) + " " + secret[:third]
	th[1]["thinking"] = secret[third : 2*third]
	th[2]["thinking"] = secret[2*third:] + " " + th[2]["thinking"].(string)
	// The text: cut in two.
	tx := deltas[1]
	tx[0]["text"] = tx[0]["text"].(string) + " " + secret[:len(secret)/2]
	tx[1]["text"] = secret[len(secret)/2:] + " " + tx[1]["text"].(string)
	// The tool input: cut in two at the first cut inside a string.
	js := deltas[2]
	planted := false
	for k := 0; k+1 < len(js) && !planted; k++ {
		var before string
		for _, d := range js[:k+1] {
			before += d["partial_json"].(string)
		}
		var after string
		for _, d := range js[k+1:] {
			after += d["partial_json"].(string)
		}
		if !json.Valid([]byte(before + "X" + after)) {
			continue // not inside a string
		}
		js[k]["partial_json"] = js[k]["partial_json"].(string) + " " + secret[:len(secret)/2]
		js[k+1]["partial_json"] = secret[len(secret)/2:] + js[k+1]["partial_json"].(string)
		planted = true
	}
	require.True(t, planted, "a cut of the tool input inside a string")
	join := func(ds []map[string]any, key string) string {
		var s string
		for _, d := range ds {
			if v, ok := d[key].(string); ok { // (not the signature)
				s += v
			}
		}
		return s
	}
	block := func(a map[string]any) map[string]any {
		return a["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	}
	block(assistants[0])["thinking"] = join(th, "thinking")
	block(assistants[1])["text"] = join(tx, "text")
	var input any
	require.NoError(t, json.Unmarshal([]byte(join(js, "partial_json")), &input))
	block(assistants[2])["input"] = input
	var out strings.Builder
	for _, e := range evs {
		b, err := json.Marshal(e)
		require.NoError(t, err)
		out.Write(append(b, '\n'))
	}
	path := filepath.Join(t.TempDir(), "split.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(out.String()), 0o644))
	return path
}

// TestRedactSecretSplitAcrossDeltas proves a secret cut across the
// partial-message deltas of a thinking, a text and a tool input is found:
// neither it nor a piece of it is in any format's output with --redact;
// the deltas of each block still join into what its assistant event says
// (the marker, once, where the secret was); and the count is on stderr.
func TestRedactSecretSplitAcrossDeltas(t *testing.T) {
	secret := redact.Rules[6].Example // a GitHub token
	require.Equal(t, "github-token", redact.Rules[6].ID)
	path := splitIntoDeltas(t, secret)
	plain := runIn(t, []string{"all", "-F", "ndjson", path}, "")
	require.Contains(t, plain.Stdout, secret[:len(secret)/2], "the planted pieces are there without --redact")
	pieces := []string{secret, secret[:len(secret)/3], secret[len(secret)/3 : 2*len(secret)/3], secret[2*len(secret)/3:], secret[:len(secret)/2], secret[len(secret)/2:]}
	for _, f := range render.Formats {
		res := runIn(t, []string{"all", "-F", string(f), "--redact", path}, "")
		for _, p := range pieces {
			assert.NotContains(t, res.Stdout, p, "%s", f)
		}
		assert.Contains(t, res.Stderr, "ccfilter: redacted ", "%s", f)
	}
	res := runIn(t, []string{"all", "-F", "ndjson", "--redact", path}, "")
	joined := map[float64]string{}
	var said []string
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if len(said) == 3 {
			break // the first model call's blocks
		}
		var ev struct {
			Type  string
			Event struct {
				Type  string
				Index float64
				Delta map[string]any
			}
			Message struct{ Content []map[string]any }
		}
		require.NoError(t, json.Unmarshal([]byte(l), &ev), l)
		if ev.Event.Type == "content_block_delta" {
			for _, k := range []string{"text", "thinking", "partial_json"} {
				if s, ok := ev.Event.Delta[k].(string); ok {
					joined[ev.Event.Index] += s
				}
			}
		}
		if ev.Type == "assistant" {
			c := ev.Message.Content[0]
			switch c["type"] {
			case "thinking":
				said = append(said, c["thinking"].(string))
			case "text":
				said = append(said, c["text"].(string))
			case "tool_use":
				b, _ := json.Marshal(c["input"])
				said = append(said, string(b))
			}
		}
	}
	require.Len(t, said, 3)
	assert.Equal(t, said[0], joined[0], "the thinking's deltas join into its redacted text")
	assert.Equal(t, said[1], joined[1], "the text's deltas join into its redacted text")
	assert.JSONEq(t, said[2], joined[2], "the tool input's deltas join into its redacted input")
	for k := range 3 {
		assert.Equal(t, 1, strings.Count(joined[float64(k)], "[REDACTED:github-token#1]"), "block %d", k)
	}
}

// plantIn replaces the first old in the file with new.
func plantIn(t *testing.T, path, old, new string) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(b), old, path)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644))
}

// TestRedactTranscriptPlaces proves secrets are redacted where a session
// folder keeps them apart from its transcript: a subagent's file (its
// text and a tool result), and a tool output persisted in tool-results/
// that --full-output reads; and in a stream's thinking. Every format, with
// --redact; the markdown report by default.
func TestRedactTranscriptPlaces(t *testing.T) {
	transcript := copySession(t, "60-long-session")
	session := strings.TrimSuffix(transcript, ".jsonl")
	var secrets []string
	for _, r := range redact.Rules[:8] {
		secrets = append(secrets, r.SecretPart())
	}
	plantIn(t, filepath.Join(session, "subagents", "agent-a231b5428b0a39600.jsonl"),
		`"text":"## Bundled HTTP/2: where things live`, `"text":"`+jsonInner(secrets[0])+` ## Bundled HTTP/2: where things live`)
	plantIn(t, filepath.Join(session, "subagents", "agent-a231b5428b0a39600.jsonl"),
		`"type":"tool_result","content":"123\n`, `"type":"tool_result","content":"`+jsonInner(secrets[1])+`\n123\n`)
	plantIn(t, filepath.Join(session, "tool-results", "toolu_01Bkubf2VYjQfY1jziRqCAcF.txt"),
		"http/alpn_test.go:131:", secrets[2]+"\nhttp/alpn_test.go:131:")
	thinking := derived(t, "08-thinking.jsonl", `"thinking":"I need to count the files.`, `"thinking":"`+jsonInner(secrets[3])+` I need to count the files.`)
	for _, in := range []string{transcript, thinking} {
		plain := runIn(t, []string{"all", "-F", "markdown", "--no-redact", "--full-output", in}, "")
		found := 0
		for _, s := range secrets {
			if strings.Contains(plain.Stdout, s) {
				found++
			}
		}
		require.NotZero(t, found, "%s: the planted secrets are shown without redaction", in)
		for _, f := range render.Formats {
			args := []string{"all", "-F", string(f), "--full-output", in}
			if f != render.Markdown {
				args = append(args, "--redact")
			}
			res := redactedRun(t, args, secrets)
			if bare := runIn(t, []string{"all", "-F", string(f), "--full-output", "--no-redact", in}, ""); bare.Stdout != res.Stdout {
				assert.Contains(t, res.Stderr, "ccfilter: redacted ", "%v", args)
			}
		}
	}
}

// TestRedactEnvironmentPathsAndEmailsLeft proves, on the real capture
// 02-write-read with a path, an email and a GitHub token planted in the
// Write's content, that variables whose names sound secret but hold a
// path or an email (GOOGLE_APPLICATION_CREDENTIALS, GIT_AUTHOR_EMAIL)
// leave them as they are in a markdown report, and that the token GH_TOKEN
// holds is marked as the GitHub token it is, as it is where no variable
// holds it: one token, one marker.
func TestRedactEnvironmentPathsAndEmailsLeft(t *testing.T) {
	gh := redact.Rules[6].Example
	require.Equal(t, "github-token", redact.Rules[6].ID)
	adc, email := "/home/user/.config/gcloud/application_default_credentials.json", "jane.doe@example.org"
	path := derived(t, "02-write-read.jsonl", "hello probe", jsonInner("key at "+adc+" by "+email+" with "+gh))
	environ := []string{"NO_COLOR=1", "GOOGLE_APPLICATION_CREDENTIALS=" + adc, "GIT_AUTHOR_EMAIL=" + email, "GH_TOKEN=" + gh}
	var stdout, stderr bytes.Buffer
	code := runWith(&options{presets: preset.Builtin()}, []string{"all", "-F", "markdown", path}, strings.NewReader(""), &stdout, &stderr, environ)
	require.Equal(t, 0, code, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, adc)
	assert.Contains(t, out, email)
	assert.NotContains(t, out, gh)
	assert.Contains(t, out, "[REDACTED:github-token#1]")
	assert.NotContains(t, out, "env-secret")
	assert.Contains(t, stderr.String(), "redacted ")
}

// TestRedactSecretSplitAcrossGeminiPieces proves a secret cut across the
// pieces of a Gemini CLI answer (its "delta":true message lines, the real
// 01-plain-text capture's two with a GitHub token planted across them) is
// redacted in every format, and in the lines NDJSON prints of the input
// too: they carried both halves whole while every other format said the
// marker (a joined copy of the pieces gave the secret back), and stderr
// said the secret was redacted. The pieces still join into the answer
// with the marker once, and every other line is the input's own.
func TestRedactSecretSplitAcrossGeminiPieces(t *testing.T) {
	secret := redact.Rules[6].Example // a GitHub token
	require.Equal(t, "github-token", redact.Rules[6].ID)
	b, err := os.ReadFile(geminiData + "01-plain-text.jsonl")
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	lines[len(lines)-1] += "\n"
	first, second := `"content":"Hello! I am a scripted fake model. 2 + 2"`, `"content":" = 4."`
	require.Contains(t, lines[2], first)
	require.Contains(t, lines[3], second)
	half := len(secret) / 2
	lines[2] = strings.Replace(lines[2], first, `"content":"Hello! token `+secret[:half]+`"`, 1)
	lines[3] = strings.Replace(lines[3], second, `"content":"`+secret[half:]+` = 4."`, 1)
	path := filepath.Join(t.TempDir(), "gemini-split.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))

	for _, f := range render.Formats {
		res := runIn(t, []string{"all", "-F", string(f), "--redact", path}, "")
		for _, p := range []string{secret[:half], secret[half:]} {
			assert.NotContains(t, res.Stdout, p, "%s", f)
		}
		assert.Contains(t, res.Stderr, "ccfilter: redacted ", "%s", f)
	}
	res := runIn(t, []string{"-F", "ndjson", "--redact", path}, "")
	out := strings.SplitAfter(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	out[len(out)-1] += "\n"
	require.Len(t, out, len(lines), "a line for each line")
	var joined string
	for i, l := range out {
		var m struct {
			Content string
			Delta   bool
		}
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m.Delta {
			joined += m.Content
		} else {
			assert.Equal(t, lines[i], l, "line %d is the input's own", i+1)
		}
	}
	assert.Equal(t, "Hello! token [REDACTED:github-token#1] = 4.", joined, "the pieces join into the redacted answer")
}

// TestRedactCountIsTheInputsWhateverThePreset proves the count of secrets
// stderr gives is the input's, for every preset, on another agent CLI's
// stream too (the real Codex 03-shell-fail with a GitHub token and an AWS
// key planted in its command's output and an OpenAI key in its answer;
// the real Gemini 02-write-read with a token in a tool's output): a
// reader that makes only the events a preset reads (final's, usage's)
// redacted and counted the secrets of those alone, 2 or 3 of 5, where a
// Claude Code stream's count is the same for every preset.
func TestRedactCountIsTheInputsWhateverThePreset(t *testing.T) {
	gh, aws, oai := redact.Rules[6].Example, "AKIAIOSFODNN7EXAMPLF", "sk-proj-"+strings.Repeat("Ab3dE6gH9jKlMnOp", 3)
	for _, tc := range []struct {
		capture string
		plant   func(map[string]any)
	}{
		{"../../testdata/agents/codex/03-shell-fail.jsonl", func(o map[string]any) {
			it, _ := o["item"].(map[string]any)
			switch {
			case it == nil:
			case it["type"] == "command_execution" && o["type"] == "item.completed":
				it["aggregated_output"] = "GITHUB_TOKEN=" + gh + "\nAWS_ACCESS_KEY_ID=" + aws + "\n"
			case it["type"] == "agent_message":
				it["text"] = "Done: " + oai
			}
		}},
		{geminiData + "02-write-read.jsonl", func(o map[string]any) {
			if o["type"] == "tool_result" && o["output"] != nil {
				o["output"] = "token " + gh + " and " + aws
			}
		}},
	} {
		t.Run(filepath.Base(filepath.Dir(tc.capture)), func(t *testing.T) {
			b, err := os.ReadFile(tc.capture)
			require.NoError(t, err)
			var out strings.Builder
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var o map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &o))
				tc.plant(o)
				j, err := json.Marshal(o)
				require.NoError(t, err)
				out.Write(append(j, '\n'))
			}
			path := filepath.Join(t.TempDir(), "planted.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(out.String()), 0o644))
			said := map[string]string{}
			for _, preset := range []string{"all", "final", "usage", "tools", "errors", "text", "types"} {
				r := runIn(t, []string{preset, "--redact", path}, "")
				i := strings.Index(r.Stderr, "ccfilter: redacted ")
				require.GreaterOrEqual(t, i, 0, "%s: %s", preset, r.Stderr)
				said[preset] = strings.SplitN(r.Stderr[i:], "\n", 2)[0]
			}
			for preset, s := range said {
				assert.Equal(t, said["all"], s, "%s's count is all's", preset)
			}
		})
	}
}
