package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ccfilter/ccfilter/pkg/redact"
	"github.com/ccfilter/ccfilter/pkg/render"
)

// jsonInner is s as it is written inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// redactDecoys are what runs are made of that looks like a secret to a
// careless rule: they must come out as they went in.
var redactDecoys = []string{
	"msg_01XFDUDYJgAACzvnptvVoYEL", "toolu_01A09q90qw90lq917835lq9", "3f2c9a1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"AKIAIOSFODNN7EXAMPLE", "the password you chose must be long", "Basic Authentication",
	"apiKeySource ANTHROPIC_API_KEY", "/home/user/.config/token.txt",
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
			res := runIn(t, args, "")
			for _, s := range secrets {
				assert.NotContains(t, res.Stdout, s, "%v", args)
				assert.NotContains(t, res.Stdout, jsonInner(s), "%v", args)
			}
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
	off := runIn(t, []string{"all", "-F", "markdown", "--no-redact", path}, "")
	assert.Contains(t, off.Stdout, secrets[0], "--no-redact turns markdown's default off")
}

// TestRedactRealCapturesUnchanged proves --redact changes no byte of a
// real capture's output, which holds no secret, in the formats people and
// pipelines read, and says nothing on stderr.
func TestRedactRealCapturesUnchanged(t *testing.T) {
	for _, name := range []string{"05-subagents-async.jsonl", "16-hooks.jsonl", "25-tool-errors.jsonl", "20-unicode-ansi.jsonl"} {
		for _, f := range []string{"ndjson", "markdown", "text"} {
			path := derived(t, name)
			with := runIn(t, []string{"all", "-F", f, "--redact", path}, "")
			without := runIn(t, []string{"all", "-F", f, "--no-redact", path}, "")
			assert.Equal(t, without.Stdout, with.Stdout, "%s %s", name, f)
			assert.NotContains(t, with.Stderr, "redacted", "%s %s", name, f)
		}
	}
}
