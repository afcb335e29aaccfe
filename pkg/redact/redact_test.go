package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryRuleFindsItsExample proves each rule of the table finds its
// example, alone, in prose, and inside a JSON string (the JSON stays valid
// and holds the marker instead), and that the example is gone.
func TestEveryRuleFindsItsExample(t *testing.T) {
	for _, rule := range Rules {
		t.Run(rule.ID+" "+rule.triggers[0], func(t *testing.T) {
			r := New(nil)
			out := r.String("see " + rule.Example + " here")
			assert.Contains(t, out, "[REDACTED:"+rule.ID+"#1]")
			secret := rule.SecretPart()
			assert.NotContains(t, out, secret)
			b, err := json.Marshal(map[string]string{"text": "x " + rule.Example + "\nnext"})
			require.NoError(t, err)
			red := r.String(string(b))
			var v map[string]string
			require.NoError(t, json.Unmarshal([]byte(red), &v), red)
			assert.NotContains(t, v["text"], secret)
			assert.Contains(t, v["text"], "[REDACTED:"+rule.ID)
		})
	}
}

// TestNoRuleChangesADecoy proves every rule has decoys, texts near its
// shape that are not secrets (a test key, a published example, code that
// reads a secret), and that no rule of the table changes one: alone, in
// prose, or inside a JSON string.
func TestNoRuleChangesADecoy(t *testing.T) {
	for _, rule := range Rules {
		t.Run(rule.ID, func(t *testing.T) {
			require.NotEmpty(t, rule.Decoys, "a rule has a decoy")
			for _, d := range rule.Decoys {
				b, err := json.Marshal(map[string]string{"text": "x " + d + "\nnext"})
				require.NoError(t, err)
				for _, in := range []string{d, "see " + d + " here", string(b)} {
					r := New(nil)
					assert.Equal(t, in, r.String(in))
					assert.Zero(t, r.Count(), in)
				}
			}
		})
	}
}

// TestAssignedForms proves an assignment to a name that says secret is
// found in the forms runs hold it: an env dump, YAML, JSON (also escaped
// inside a JSON string), camelCase, DB_PASS and *_PWD, a PHP or Ruby
// hash's =>; that the whole value goes, \ and ! included (a JSON string
// writes the backslash \\); and that names that say what a secret is,
// and placeholders, are not.
func TestAssignedForms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"DB_PASSWORD=Tr0ub4dor&3xyz", "DB_PASSWORD=[REDACTED:assigned-secret#1]"},
		{`"client_secret": "9f8e7D6c5B4a3"`, `"client_secret": "[REDACTED:assigned-secret#1]"`},
		{`{\"apiKey\":\"q8Zr2LmX0pWv7T\"}`, `{\"apiKey\":\"[REDACTED:assigned-secret#1]\"}`},
		{"github_token: Gx7pQ2rT9sLm4K", "github_token: [REDACTED:assigned-secret#1]"},
		{"SLACK_TOKEN='aB3dE6gH9jKl'", "SLACK_TOKEN='[REDACTED:assigned-secret#1]'"},
		{"export DB_PASS=Xk9pL2mQ7vR4", "export DB_PASS=[REDACTED:assigned-secret#1]"},
		{"MYSQL_PWD=Xk9pL2mQ7vR4 mysql -u root", "MYSQL_PWD=[REDACTED:assigned-secret#1] mysql -u root"},
		{`DB_PASSWD="s3cr3t!Pa\ss"`, `DB_PASSWD="[REDACTED:assigned-secret#1]"`},
		{`{"password":"s3cr3t!Pa\\ss"}`, `{"password":"[REDACTED:assigned-secret#1]"}`},
		{`PASSWORD=hunter2!x\y z`, `PASSWORD=[REDACTED:assigned-secret#1] z`},
		{"'password' => 'Xk9pL2mQ7vR4',", "'password' => '[REDACTED:assigned-secret#1]',"},
		{`config.password = "Xk9pL2mQ7vR4"`, `config.password = "[REDACTED:assigned-secret#1]"`},
		{`:password => "Xk9pL2mQ7vR4"`, `:password => "[REDACTED:assigned-secret#1]"`},
		{`  password: "Xk9pL2mQ7vR4"`, `  password: "[REDACTED:assigned-secret#1]"`},
		{`password = "MySecretPassword"`, `password = "[REDACTED:assigned-secret#1]"`},
		{`"output_tokens": 1234567890`, `"output_tokens": 1234567890`},
		{"API_KEY=$ANTHROPIC_API_KEY", "API_KEY=$ANTHROPIC_API_KEY"},
		{"password: your-password-here", "password: your-password-here"},
		{"token_type: Bearer", "token_type: Bearer"},
	} {
		assert.Equal(t, c.want, New(nil).String(c.in), c.in)
	}
}

// TestOneTokenOneMarker proves a token found by what stands around it (a
// header, a name, a URL, the environment) is marked as the kind its shape
// says, as it is alone: one token, one marker.
func TestOneTokenOneMarker(t *testing.T) {
	gh := "gh" + "p_" + rep("aB3dE6gH9j", 3) + "KlMnOp"
	jwt := Rules[slices.IndexFunc(Rules, func(r Rule) bool { return r.ID == "jwt" })].Example
	for _, c := range []struct {
		environ    []string
		in, marker string
	}{
		{nil, gh, "[REDACTED:github-token#1]"},
		{nil, "GITHUB_TOKEN=" + gh, "GITHUB_TOKEN=[REDACTED:github-token#1]"},
		{nil, `curl -H "Authorization: token ` + gh + `"`, `curl -H "Authorization: token [REDACTED:github-token#1]"`},
		{nil, "Authorization: Bearer " + gh, "Authorization: Bearer [REDACTED:github-token#1]"},
		{nil, "https://x-access-token:" + gh + "@github.com/o/r", "https://x-access-token:[REDACTED:github-token#1]@github.com/o/r"},
		{[]string{"GH_TOKEN=" + gh}, "echo " + gh, "echo [REDACTED:github-token#1]"},
		{nil, "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED:jwt#1]"},
		{nil, `"id_token": "` + jwt + `"`, `"id_token": "[REDACTED:jwt#1]"`},
	} {
		assert.Equal(t, c.marker, New(c.environ).String(c.in), c.in)
	}
}

// TestVectorBucketsHoldEveryTrigger proves every two-byte trigger of the
// table is in a group of the vector scan (one missing would still be
// found, in the last group, but let more pairs through).
func TestVectorBucketsHoldEveryTrigger(t *testing.T) {
	in := map[string]bool{}
	for _, g := range vectorBuckets {
		for _, tr := range g {
			in[tr] = true
		}
	}
	for _, r := range Rules {
		for _, tr := range r.triggers {
			if len(tr) == 2 {
				assert.True(t, in[tr], "%s: trigger %q", r.ID, tr)
			}
		}
	}
	assert.True(t, in[escapeTrigger], "the \\u of an escape")
}

// TestDocsListEveryRule proves docs/redaction.md lists every rule of the
// table, with its description.
func TestDocsListEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "redaction.md"))
	require.NoError(t, err)
	for _, r := range Rules {
		row := "| `" + r.ID + "` | " + strings.ReplaceAll(strings.ReplaceAll(r.Description, `"`, `\"`), "*", `\*`) + " |"
		assert.Contains(t, string(doc), row, r.ID)
	}
}

// TestSecretNameSameAsReadingTheNameFirst holds secretName, which passes
// over a name on its last letter before reading it back to its start, to
// the order it had before (the name read whole first, secretNameRef): the
// same answer at every '=' and ':' of the captures, of the real long
// session, and of the rules' examples and decoys.
func TestSecretNameSameAsReadingTheNameFirst(t *testing.T) {
	said := 0
	texts := realTexts(t)
	for _, b := range texts {
		for i, c := range b {
			if c == '=' || c == ':' {
				want := secretNameRef(b, i)
				require.Equal(t, want, secretName(b, i), "%q", b[max(0, i-40):i+1])
				if want {
					said++
				}
			}
		}
	}
	assert.Positive(t, said, "names that say secret were among them")
}

// realTexts are the captures, the real long session, and the rules'
// examples and decoys.
func realTexts(t *testing.T) [][]byte {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	var texts [][]byte
	for _, f := range append(files, "../../testdata/real/60-long-session.jsonl") {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		texts = append(texts, b)
	}
	for _, r := range Rules {
		texts = append(texts, []byte(r.Example))
		for _, d := range r.Decoys {
			texts = append(texts, []byte(d))
		}
	}
	return texts
}

// secretNameRef is secretName as it was before it read a name's last
// letter first.
func secretNameRef(b []byte, i int) bool {
	n := i
	for n > 0 && i-n < 6 && quoteOrSpace(b[n-1]) {
		n--
	}
	ns := n
	for ns > 0 && n-ns < 64 && nameChar[b[ns-1]] {
		ns--
	}
	if n-ns < 5 || n-ns >= 64 || has(b, ns-3, "://") {
		return false
	}
	switch b[n-1] | 0x20 {
	case 'n', 't', 'd', 'y', 'l':
	case 's':
		if b[n-2]|0x20 != 's' || b[n-3]|0x20 != 'a' {
			return false
		}
	default:
		return false
	}
	name := []byte(strings.ToLower(string(b[ns:n])))
	return (containsAny(name, secretWords) || endsAny(name, secretEnds)) && !endsAny(name, notSecretNames) && !containsAny(name, notSecretWords)
}

// containsAny reports whether s contains one of words (wordSet's
// reference: secretName searched a name so until issue 41).
func containsAny(s []byte, words []string) bool {
	for _, w := range words {
		if len(w) <= len(s) && bytes.Contains(s, unsafeBytes(w)) {
			return true
		}
	}
	return false
}

// TestWordSetSameAsContainsAny: the one-pass search finds a word in every
// name run (lowercased, as secretName reads it) of the captures exactly
// where bytes.Contains of each word did, for the secret words and the
// words of an example; and at a name's start, end, cut short, doubled.
func TestWordSetSameAsContainsAny(t *testing.T) {
	files, err := filepath.Glob("../../testdata/events/*.jsonl")
	require.NoError(t, err)
	names := [][]byte{nil, []byte("x"), []byte("tok"), []byte("token"), []byte("xtoken"), []byte("tokenx"),
		[]byte("api_ke"), []byte("auth_keyauth_key"), []byte("secre"), []byte("my_dummy_secret")}
	for _, f := range append(files, "../../testdata/real/60-long-session.jsonl") {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, run := range bytes.FieldsFunc(bytes.ToLower(b), func(r rune) bool { return r > 127 || !nameChar[byte(r)] }) {
			names = append(names, run)
		}
	}
	found := 0
	for _, name := range names {
		for _, c := range []struct {
			ws    *wordSet
			words []string
		}{{secretWordSet, secretWords}, {notSecretWordSet, notSecretWords}} {
			want := containsAny(name, c.words)
			require.Equal(t, want, c.ws.in(name), "%q", name)
			if want {
				found++
			}
		}
	}
	assert.Greater(t, found, 100, "words were found")
}

// TestAssignedAtSameAsBefore holds assignedAt, which now passes over a
// name on its last letter before it looks for an '=' or a ':' (issue 41),
// to the order it had (assignedAtRef): the same answer at every trigger
// of assigned-secret in the captures, the real long session, and the
// rules' examples and decoys.
func TestAssignedAtSameAsBefore(t *testing.T) {
	texts := realTexts(t)
	for _, r := range Rules {
		texts = append(texts, []byte("my_"+r.Example+"_TOKEN="+r.Example))
	}
	triggered := map[string]bool{}
	for _, tr := range secretWordTriggers {
		triggered[tr] = true
	}
	calls, found := 0, 0
	for _, b := range texts {
		for i := range len(b) - 1 {
			if !triggered[string(b[i:i+2])] {
				continue
			}
			calls++
			ws, we, wok := assignedAtRef(b, i)
			s, e, ok := assignedAt(b, i)
			require.Equal(t, [3]any{ws, we, wok}, [3]any{s, e, ok}, "%q", b[max(0, i-40):min(len(b), i+40)])
			if wok {
				found++
			}
		}
	}
	assert.Greater(t, calls, 10000)
	assert.Positive(t, found, "assignments of secrets were among them")
}

// assignedAtRef is assignedAt as it was before it read a name's last
// letter first, with the name read whole (secretNameRef).
func assignedAtRef(b []byte, i int) (int, int, bool) {
	n := i
	for n < len(b) && n-i < 64 && nameChar[b[n]] {
		n++
	}
	sep := n
	for sep < len(b) && sep-n < 6 && quoteOrSpace(b[sep]) {
		sep++
	}
	if sep >= len(b) || (b[sep] != '=' && b[sep] != ':') {
		return 0, 0, false
	}
	if !secretNameRef(b, sep) || (sep+1 < len(b) && b[sep] == ':' && b[sep+1] == ':') {
		return 0, 0, false
	}
	v, end, quoted, ok := assignedValue(b, sep)
	if !ok || !secretLike(b[v:end], quoted) {
		return 0, 0, false
	}
	return v, end, true
}
