package redact

import (
	"bytes"
	"encoding/base64"
	"math"
	"unsafe"
)

// A Rule finds one kind of secret. Rules are found by their triggers: two
// bytes every secret of the kind holds at a fixed place (of a prefix, of
// the word that says a name holds a secret), rare in what runs are made
// of, or one byte ('@'). The scanner (find) looks every pair of bytes up
// in one table, and checks a rule only where one of its triggers is: at a
// trigger starting at b[i], match returns where the secret starts and
// ends, or ok=false.
type Rule struct {
	// ID names the kind in the marker: [REDACTED:ID#n].
	ID string
	// Description says what the rule finds, for docs/redaction.md.
	Description string
	// Example is a made-up secret the rule must find (tested), written
	// in pieces in the source so that secret scanners do not flag it.
	Example string
	// Secret is the part of Example that must not survive ("": all of
	// it); the rest (a header, a name) stays.
	Secret string
	// Decoys are texts near the rule's shape that are not secrets (a
	// test key, a placeholder, code that reads a secret): no rule may
	// change them (tested, and planted beside the examples in a real
	// run).
	Decoys []string
	// byContext: the rule knows a secret by what stands around it (a
	// header, a name, a URL), not by its shape; a secret it finds that
	// has the shape of another kind is marked as that kind, so that one
	// token has one marker wherever it is (kindOf).
	byContext bool
	triggers  []string
	match     func(b []byte, i int) (start, end int, ok bool)
}

// pairs lists a rule's triggers.
func pairs(t ...string) []string { return t }

// secretWordTriggers find the words that say a name holds a secret, as
// written in lower case, upper case and camelCase: tOKen, seCRet,
// CRedential, paSSWord, passWD, api_kEY, apiKEY, DB_pASs (and MYSQL_PWD
// by its WD).
var secretWordTriggers = pairs("ok", "OK", "cr", "CR", "sw", "SW", "wd", "WD", "ey", "EY", "AS")

// azuriteKey is the storage key Microsoft publishes for its local
// emulator (Azurite, devstoreaccount1): in every docker-compose file and
// no one's secret, as AWS's ...EXAMPLE keys.
const azuriteKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/" + "K1SZFPTOtr/KBHBeksoGMGw=="

// Rules is the table of every rule, in the order docs/redaction.md lists
// them. A rule is one entry here, with its test example and its decoys.
var Rules = []Rule{
	{ID: "anthropic-key", Description: "Anthropic API key (sk-ant-api03-…)", Example: "sk-ant-" + "api03-" + rep("AbCd1234", 11) + "-xyzAA", triggers: pairs("k-"), match: sk("anthropic-key"),
		Decoys: []string{"keys look like sk-ant-" + "api03-AbCd…"}},
	{ID: "anthropic-admin-key", Description: "Anthropic Admin API key (sk-ant-admin01-…)", Example: "sk-ant-" + "admin01-" + rep("ZyXw9876", 11) + "-abcAA", triggers: pairs("k-"), match: sk("anthropic-admin-key"),
		Decoys: []string{"an admin key (sk-ant-" + "admin01-...) manages the organization"}},
	{ID: "claude-oauth-token", Description: "Claude Code OAuth access token (sk-ant-oat01-…)", Example: "sk-ant-" + "oat01-" + rep("Qwer5678", 11) + "-qweAA", triggers: pairs("k-"), match: sk("claude-oauth-token"),
		Decoys: []string{"CLAUDE_CODE_OAUTH_TOKEN=sk-ant-" + "oat01-xxxxxxxx"}},
	{ID: "claude-refresh-token", Description: "Claude Code OAuth refresh token (sk-ant-ort01-…)", Example: "sk-ant-" + "ort01-" + rep("Asdf4321", 11) + "-asdAA", triggers: pairs("k-"), match: sk("claude-refresh-token"),
		Decoys: []string{"refresh tokens start with sk-ant-" + "ort01-"}},
	{ID: "openrouter-key", Description: "OpenRouter API key (sk-or-v1- and 64 hex digits)", Example: "sk-or-" + "v1-" + rep("0123456789abcdef", 4), triggers: pairs("k-"), match: sk("openrouter-key"),
		Decoys: []string{"sk-or-" + "v1-" + rep("0123456789abcdef", 2)}},
	{ID: "openai-key", Description: "OpenAI API key (sk-proj-…, sk-svcacct-…, sk-admin-…, or sk- and 48 letters and digits)", Example: "sk-" + "proj-" + rep("Ab12Cd34Ef56", 12), triggers: pairs("k-"), match: sk("openai-key"),
		Decoys: []string{"disk-" + rep("Ab12Cd34Ef56", 4), "task-" + "proj-" + rep("ab12", 12)}},
	{ID: "github-token", Description: "GitHub token: ghp_, gho_, ghu_, ghs_ (also the newer longer ones), ghr_, and fine-grained github_pat_", Example: "gh" + "p_" + rep("aB3dE6gH9j", 3) + "KlMnOp", triggers: pairs("gh", "b_"), match: githubToken,
		Decoys: []string{"gh" + "p_" + "aB3dE6gH9j", "github_pat_" + "short"}},
	{ID: "gitlab-token", Description: "GitLab personal access token (glpat-…)", Example: "gl" + "pat-" + rep("xY7z", 5), triggers: pairs("lp"), match: prefixed("glpat-", 1, 20, 100, token),
		Decoys: []string{"gl" + "pat-" + "xY7z"}},
	{ID: "gitlab-deploy-token", Description: "GitLab deploy token (gldt-…)", Example: "gl" + "dt-" + rep("Qr5sT", 4), triggers: pairs("dt"), match: prefixed("gldt-", 2, 20, 100, token),
		Decoys: []string{"gl" + "dt-" + "Qr5sT", "gl" + "dt-<deploy-token>"}},
	{ID: "slack-token", Description: "Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-)", Example: "xo" + "xb-" + "1234567890-1234567890123-" + rep("aBcD", 6), triggers: pairs("xo"), match: at(4, slackToken),
		Decoys: []string{"xo" + "xb-123"}},
	{ID: "slack-webhook", Description: "Slack incoming-webhook URL (hooks.slack.com/services/T…/B…/…: its path)", Example: "https://hooks.slack.com/services/" + "T024BE7LD/B01ABCD2EFG/" + "aBcD1234eFgH5678iJkL9012", Secret: "T024BE7LD/B01ABCD2EFG/" + "aBcD1234eFgH5678iJkL9012", byContext: true, triggers: pairs("/T"), match: slackWebhook,
		// Slack's own documentation writes this one.
		Decoys: []string{"https://hooks.slack.com/services/" + "T00000000/B00000000/" + "XXXXXXXXXXXXXXXXXXXXXXXX"}},
	{ID: "aws-access-key-id", Description: "AWS access key id (AKIA, ASIA and the other 4-letter prefixes, 16 more)", Example: "AK" + "IA" + "Z7Q4XW2PLM3NB6VC", triggers: pairs("AK", "AS", "AG", "AI", "AR", "AN", "AB", "AC"), match: awsKeyID,
		Decoys: []string{"AKIA" + "IOSFODNN7EXAMPLE"}},
	{ID: "google-api-key", Description: "Google API key (AIza and 35 more)", Example: "AI" + "za" + "Sy" + rep("Ab1-Cd2_E", 3) + "f3G4h5", triggers: pairs("AI"), match: googleKey,
		Decoys: []string{"AI" + "za" + "SyAb1-Cd2_E"}},
	{ID: "azure-storage-key", Description: "Azure storage account key (AccountKey= and 88 base64 characters; not the emulator's published key)", Example: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + rep("Zk9xQ2mW", 10) + "L7pR4t==", Secret: rep("Zk9xQ2mW", 10) + "L7pR4t==", triggers: pairs("ey"), match: azureStorageKey,
		Decoys: []string{"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + azuriteKey + ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;", "AccountKey=<your-account-key>;"}},
	{ID: "azure-sas-signature", Description: "the signature of an Azure shared access signature (…&sig=, 44 base64 characters, URL-encoded)", Example: "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sp=r&se=2026-01-01T00%3A00%3A00Z&sig=" + "k3Jq9ZxW2mP7tL4v" + "R8nB1cY6hD5sF0gA%2BeU3iOx7Kq0%3D", Secret: "k3Jq9ZxW2mP7tL4vR8nB1cY6hD5sF0gA%2BeU3iOx7Kq0%3D", triggers: pairs("g="), match: sasSignature,
		Decoys: []string{"https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=" + "YOUR_SAS_SIGNATURE", "git config=main&sig=abc123"}},
	{ID: "stripe-key", Description: "Stripe live secret or restricted key (sk_live_, rk_live_; test keys, sk_test_, are left)", Example: "sk" + "_live_" + rep("4eC39HqLyjWDarjtT1zdp7dc", 1), triggers: pairs("k_"), match: at(1, stripeKey),
		// Stripe's documentation's test key: test keys move no money.
		Decoys: []string{"sk" + "_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "rk" + "_test_" + "51H8xYzAbCdEfGhIjKlMnOp"}},
	{ID: "npm-token", Description: "npm access token (npm_ and 36 more)", Example: "np" + "m_" + rep("Ab1Cd2Ef3G", 3) + "h4Ij5K", triggers: pairs("pm"), match: prefixed("npm_", 1, 36, 36, alnum),
		Decoys: []string{"npm_config_cache=/home/user/.npm"}},
	{ID: "pypi-token", Description: "PyPI API token (pypi-AgE…, 50 characters or more after pypi-)", Example: "py" + "pi-" + "AgEIcHlwaS5vcmcCJGE4ZjM5ZTg3LTk3ZDAtNGQ1Ny1i" + "MDRmLWI1NmY4ZTk4YjQ3YgACKlszLCJ1cGxvYWQiXQ", triggers: pairs("-A"), match: prefixed("pypi-AgE", 4, 47, 4096, token),
		// The prefix every PyPI token shares, as its documentation says.
		Decoys: []string{"tokens start with py" + "pi-AgEIcHlwaS5vcmc", "uv publish --index py" + "pi-Agent"}},
	{ID: "huggingface-token", Description: "Hugging Face token (hf_ and 34 letters)", Example: "h" + "f_" + rep("AbCdEfGhIjKlMnOpQ", 2), triggers: pairs("f_"), match: prefixed("hf_", 1, 30, 40, alnum),
		Decoys: []string{"from huggingface_hub import hf_hub_download"}},
	{ID: "telegram-bot-token", Description: "Telegram bot token (the bot's 8 to 10 digits, a colon and 35 more)", Example: "bot" + "5123456789:" + "AAH7xQ2mZk9LpW4vB1nR8tY5cD3sF6gJ0hE", triggers: pairs(":A"), match: telegramBotToken,
		// The Bot API documentation's example token.
		Decoys: []string{"123456" + ":ABC-DEF1234ghIkl-zyx57W2v1u123ew11", "at 20260101:A note"}},
	{ID: "sendgrid-key", Description: "SendGrid API key (SG. and two dot-separated parts)", Example: "S" + "G." + rep("aB3_cD4-eF", 2) + "gH" + "." + rep("iJ5kL6mN7o", 4) + "pQ8", triggers: pairs("G."), match: sendgridKey,
		Decoys: []string{"S" + "G.aB3_cD4-eF"}},
	{ID: "jwt", Description: "JSON Web Token (three base64url parts, the first two JSON objects)", Example: "ey" + "JhbGciOiJIUzI1NiJ9" + "." + "ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", triggers: pairs("yJ"), match: at(1, jwt),
		Decoys: []string{"a JWT's header reads ey" + "JhbGciOiJIUzI1NiJ9"}},
	{ID: "private-key", Description: "PEM private key block (-----BEGIN … PRIVATE KEY----- to its END line, also written with \\n escapes inside a JSON string, also cut short)", Secret: "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", Example: "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA " + "PRIVATE KEY-----", triggers: pairs("-B", "-E"), match: at(-4, pemBlock),
		Decoys: []string{"-----BEGIN " + "PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END " + "PUBLIC KEY-----"}},
	{ID: "bearer-token", Description: "the credential of an Authorization header: Bearer …", Example: "Authorization: Bearer " + "eyAbC" + rep("dEf123", 4), Secret: "eyAbC" + rep("dEf123", 4), byContext: true, triggers: pairs("Be"), match: bearer,
		Decoys: []string{"Authorization: Bearer $ANTHROPIC_API_KEY", "Authorization: Bearer <token>"}},
	{ID: "basic-auth", Description: "the credential of an Authorization header: Basic …", Example: "Authorization: Basic " + "dXNlcjpz" + "ZWNyZXQxMjM0NQ==", Secret: "dXNlcjpz" + "ZWNyZXQxMjM0NQ==", byContext: true, triggers: pairs("Ba"), match: basicAuth,
		Decoys: []string{"use Basic Authentication over TLS", "Authorization: Basic " + "aGVsbG8gd29ybGQ="}},
	{ID: "token-auth", Description: "the credential of an Authorization header: Token … (Django REST framework; GitHub's token …)", Example: `"Authorization": "Token ` + "9944b09199c62bcf" + "9418ad846dd0e4bbdfc6ee4b" + `"`, Secret: "9944b09199c62bcf" + "9418ad846dd0e4bbdfc6ee4b", byContext: true, triggers: pairs("ok"), match: tokenAuth,
		Decoys: []string{"Authorization: Token $API_TOKEN", "the Token authentication of DRF"}},
	{ID: "url-password", Description: "the password in a URL's user:password@ (also with no user: redis://:password@)", Example: "postgres://admin:" + "S3cr3tPassw0rd" + "@db.internal:5432/app redis://:" + "Xk9pL2mQ7vR4" + "@cache:6379/0", Secret: "Xk9pL2mQ7vR4", byContext: true, triggers: pairs("@"), match: urlPassword,
		Decoys: []string{"redis://:${REDIS_PASSWORD}@localhost:6379", "git clone ssh://git@github.com:22/org/repo"}},
	{ID: "assigned-secret", Description: "a value that looks like a secret (see below) assigned to a name that says secret (…_TOKEN=, …_SECRET:, \"password\": \"…\", API_KEY=, DB_PASS=, …_PWD=, 'password' => '…') in env dumps, .env files, YAML, JSON, PHP and Ruby", Example: "DB_PASSWORD=" + "Tr0ub4dor&3xyz", Secret: "Tr0ub4dor&3xyz", byContext: true, triggers: secretWordTriggers, match: assignedAt,
		// Code that reads a secret, as runs are full of (item 19 of
		// issue 39: these were mangled).
		Decoys: []string{
			"token = get_token(user)", `password = os.environ["X"]`, `token = os.environ["GITHUB_TOKEN"]`,
			"api_key = config.api_key", "secret = self._secret_value", "token = request.headers.get('X-Token')",
			"password = getpass.getpass()", "access_token = response.json()['access_token']",
			"auth_token = generate_token(user_id, expires=3600)", "const token = userToken;",
			"PASSWORD=correcthorse", "token_expiry: 2026-01-01T00:00:00Z", `"output_tokens": 1234567890`,
			"password: your-password-here", "DB_PASS=$DB_PASSWORD", "MYSQL_PWD=/home/user/.mysql/pass",
			`"secret": "a sentence that names no secret"`,
		}},
}

// SecretPart is the part of the example that must not survive redaction.
func (r Rule) SecretPart() string {
	if r.Secret != "" {
		return r.Secret
	}
	return r.Example
}

func rep(s string, n int) string { return string(bytes.Repeat([]byte(s), n)) }

// Character classes of secrets.
var (
	alnum     = class("A-Za-z0-9")
	upperNum  = class("A-Z0-9")
	token     = class("A-Za-z0-9_-")
	tokenDot  = class("A-Za-z0-9_.-")
	base64c   = class("A-Za-z0-9+/=")
	bearerSet = class("A-Za-z0-9._~+/=-")
	hexLower  = class("a-f0-9")
	identc    = class("A-Za-z0-9_")
	userc     = class("A-Za-z0-9._~%+-")
	passc     = class("A-Za-z0-9._~%+!$&'()*,;=-")
)

type charClass [256]bool

func class(spec string) *charClass {
	var c charClass
	for i := 0; i < len(spec); i++ {
		if i+2 < len(spec) && spec[i+1] == '-' {
			for b := spec[i]; b <= spec[i+2]; b++ {
				c[b] = true
			}
			i += 2
			continue
		}
		c[spec[i]] = true
	}
	return &c
}

// run is the end of the run of class c that starts at i (at most max long).
func run(b []byte, i int, c *charClass, max int) int {
	end := i
	for end < len(b) && end-i < max && c[b[end]] {
		end++
	}
	return end
}

// boundary reports whether b[i-1] (if any) is not a character of c: a
// secret starts at a word's start.
//
// Inside a JSON string, the \n, \t or \r before a secret is a boundary too.
func boundary(b []byte, i int, c *charClass) bool {
	if i == 0 || !c[b[i-1]] {
		return true
	}
	return i >= 2 && b[i-2] == '\\' && (b[i-1] == 'n' || b[i-1] == 't' || b[i-1] == 'r')
}

// has reports whether b holds lit at i.
func has(b []byte, i int, lit string) bool {
	return i >= 0 && i+len(lit) <= len(b) && string(b[i:i+len(lit)]) == lit
}

// tail returns the end of a run of c at i of at least min and at most max
// characters, which does not go on past max; ok=false otherwise.
func tail(b []byte, i, min, max int, c *charClass) (int, bool) {
	end := run(b, i, c, max+1)
	n := end - i
	return end, n >= min && n <= max
}

// prefixed finds a token of a fixed prefix and min to max characters of
// c after it, at a trigger off bytes into the prefix.
func prefixed(prefix string, off, min, max int, c *charClass) func([]byte, int) (int, int, bool) {
	return func(b []byte, i int) (int, int, bool) {
		s := i - off
		if !has(b, s, prefix) || !boundary(b, s, token) {
			return 0, 0, false
		}
		end, ok := tail(b, s+len(prefix), min, max, c)
		return s, end, ok
	}
}

// at calls match with i+k: at the byte of the secret's shape it reads
// from (the '_' of npm_), k bytes past its trigger's start.
func at(k int, match func([]byte, int) (int, int, bool)) func([]byte, int) (int, int, bool) {
	return func(b []byte, i int) (int, int, bool) {
		if i+k < 0 || i+k >= len(b) {
			return 0, 0, false
		}
		return match(b, i+k)
	}
}

// skKey: the sk- keys, at the '-' after "sk".
func skKey(b []byte, i int) (int, int, bool) {
	s := i - 2
	if !has(b, s, "sk-") || !boundary(b, s, token) {
		return 0, 0, false
	}
	j := i + 1
	switch {
	case has(b, j, "ant-"):
		end, ok := tail(b, j+4, 40, 300, token)
		return s, end, ok
	case has(b, j, "or-v1-"):
		end, ok := tail(b, j+6, 64, 64, hexLower)
		return s, end, ok
	case has(b, j, "proj-"), has(b, j, "svcacct-"), has(b, j, "admin-"):
		k := bytes.IndexByte(b[j:min(len(b), j+9)], '-')
		end, ok := tail(b, j+k+1, 40, 300, token)
		return s, end, ok
	}
	end, ok := tail(b, j, 48, 48, alnum)
	return s, end, ok
}

// sk is skKey for the keys of one kind.
func sk(id string) func([]byte, int) (int, int, bool) {
	return func(b []byte, i int) (int, int, bool) {
		s, end, ok := skKey(b, i+1)
		return s, end, ok && skKind(b, s) == id
	}
}

func skKind(b []byte, s int) string {
	switch {
	case has(b, s, "sk-ant-admin"):
		return "anthropic-admin-key"
	case has(b, s, "sk-ant-oat"):
		return "claude-oauth-token"
	case has(b, s, "sk-ant-ort"):
		return "claude-refresh-token"
	case has(b, s, "sk-ant-"):
		return "anthropic-key"
	case has(b, s, "sk-or-"):
		return "openrouter-key"
	}
	return "openai-key"
}

// githubToken: at the "gh" of ghp_ (gho_, ghu_, ghs_, ghr_), or at the
// "b_" of github_pat_.
func githubToken(b []byte, i int) (int, int, bool) {
	if b[i] == 'g' {
		if i+4 > len(b) || bytes.IndexByte([]byte("pousr"), b[i+2]) < 0 || b[i+3] != '_' || !boundary(b, i, token) {
			return 0, 0, false
		}
		end, ok := tail(b, i+4, 36, 255, identc)
		return i, end, ok
	}
	s := i - 5
	if !has(b, s, "github_pat_") || !boundary(b, s, token) {
		return 0, 0, false
	}
	end, ok := tail(b, s+11, 22, 255, identc)
	return s, end, ok
}

func slackToken(b []byte, i int) (int, int, bool) {
	s := i - 4
	if b[i] != '-' || !has(b, s, "xox") || bytes.IndexByte([]byte("bpares"), b[s+3]) < 0 || !boundary(b, s, token) {
		return 0, 0, false
	}
	end, ok := tail(b, i+1, 10, 255, token)
	return s, end, ok
}

// awsKeyID: at the 'A' of AKIA (ASIA, AGPA, AIDA, AROA, AIPA, ANPA, ANVA,
// ABIA, ACCA). Published examples (…EXAMPLE) are passed over: they are
// in every tutorial and are no one's key.
func awsKeyID(b []byte, i int) (int, int, bool) {
	if i+20 > len(b) || !boundary(b, i, alnum) {
		return 0, 0, false
	}
	switch string(b[i : i+4]) {
	case "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ABIA", "ACCA":
	default:
		return 0, 0, false
	}
	end, ok := tail(b, i+4, 16, 16, upperNum)
	if !ok || (end < len(b) && alnum[b[end]]) || bytes.HasSuffix(b[i:end], []byte("EXAMPLE")) {
		return 0, 0, false
	}
	return i, end, true
}

func googleKey(b []byte, i int) (int, int, bool) {
	if !has(b, i, "AIza") || !boundary(b, i, token) {
		return 0, 0, false
	}
	end, ok := tail(b, i+4, 35, 35, token)
	return i, end, ok
}

// slackWebhook: at the "/T" of hooks.slack.com/services/T…/B…/…, the
// path after /services/: the workspace, the channel and the secret (the
// URL is the credential: whoever has it can post).
func slackWebhook(b []byte, i int) (int, int, bool) {
	const host = "hooks.slack.com/services"
	if !has(b, i-len(host), host) {
		return 0, 0, false
	}
	s := i + 1
	team, ok := tail(b, s+1, 8, 12, upperNum)
	if !ok || !has(b, team, "/B") {
		return 0, 0, false
	}
	channel, ok := tail(b, team+2, 8, 12, upperNum)
	if !ok || !has(b, channel, "/") {
		return 0, 0, false
	}
	end, ok := tail(b, channel+1, 24, 24, alnum)
	if !ok || placeholder(b[channel+1:end]) {
		return 0, 0, false
	}
	return s, end, true
}

// azureStorageKey: at the "ey" of a connection string's AccountKey=, the
// 88 base64 characters of a storage account key (64 bytes).
func azureStorageKey(b []byte, i int) (int, int, bool) {
	if !has(b, i-8, "AccountKey=") {
		return 0, 0, false
	}
	s := i + 3
	end, ok := tail(b, s, 88, 88, base64c)
	if !ok || !has(b, end-2, "==") || string(b[s:end]) == azuriteKey {
		return 0, 0, false
	}
	return s, end, true
}

// sasChars are a URL-encoded base64 value's.
var sasChars = class("A-Za-z0-9%+/=")

// sasSignature: at the "g=" of a query's sig= (after ?, & or its escapes
// in JSON and HTML), the signature of an Azure shared access signature:
// the base64 of an HMAC-SHA256, 44 characters (43 without its '='),
// URL-encoded (%2B, %2F, %3D).
func sasSignature(b []byte, i int) (int, int, bool) {
	if !has(b, i-2, "sig=") {
		return 0, 0, false
	}
	if q := i - 3; !(q >= 0 && (b[q] == '&' || b[q] == '?') || has(b, q-5, "\\u0026") || has(b, q-4, "&amp;")) {
		return 0, 0, false
	}
	s := i + 2
	end := run(b, s, sasChars, 256)
	n := 0 // decoded characters
	for k := s; k < end; k++ {
		if b[k] == '%' {
			k += 2
		}
		n++
	}
	if n < 43 || n > 44 || !mixed(b[s:end]) || placeholder(b[s:end]) {
		return 0, 0, false
	}
	return s, end, true
}

// telegramBotToken: at the ':' of a bot token, the bot's id (8 to 10
// digits, also after the "bot" of an API URL) and 35 letters, digits, _
// and -.
func telegramBotToken(b []byte, i int) (int, int, bool) {
	s := i
	for s > 0 && i-s <= 10 && '0' <= b[s-1] && b[s-1] <= '9' {
		s--
	}
	if i-s < 8 || i-s > 10 || (s > 0 && (identc[b[s-1]] && !has(b, s-3, "bot"))) {
		return 0, 0, false
	}
	end, ok := tail(b, i+1, 35, 35, token)
	if !ok || !mixed(b[i+1:end]) {
		return 0, 0, false
	}
	return s, end, true
}

func stripeKey(b []byte, i int) (int, int, bool) {
	s := i - 2
	if s < 0 || (b[s] != 's' && b[s] != 'r') || b[s+1] != 'k' || !boundary(b, s, token) {
		return 0, 0, false
	}
	if !has(b, i, "_live_") {
		return 0, 0, false
	}
	end, ok := tail(b, i+6, 20, 247, alnum)
	return s, end, ok
}

func sendgridKey(b []byte, i int) (int, int, bool) {
	s := i - 1
	if !has(b, s, "SG.") || !boundary(b, s, tokenDot) {
		return 0, 0, false
	}
	m, ok := tail(b, i+2, 22, 22, token)
	if !ok || m >= len(b) || b[m] != '.' {
		return 0, 0, false
	}
	end, ok := tail(b, m+1, 43, 43, token)
	return s, end, ok
}

// jwt: at the 'J' of the header's "eyJ".
func jwt(b []byte, i int) (int, int, bool) {
	s := i - 2
	if !has(b, s, "eyJ") || !boundary(b, s, tokenDot) {
		return 0, 0, false
	}
	h := run(b, s, token, 4096)
	if h-s < 10 || h >= len(b) || b[h] != '.' || !has(b, h+1, "eyJ") {
		return 0, 0, false
	}
	p := run(b, h+1, token, 16384)
	if p >= len(b) || b[p] != '.' {
		return 0, 0, false
	}
	end := run(b, p+1, token, 4096)
	if end-p-1 < 16 {
		return 0, 0, false
	}
	return s, end, true
}

// PEM private keys. The body is base64 with line breaks, which a JSON
// string writes as \n and a view may prefix with its quote or gutter.
var pemBody = class("A-Za-z0-9+/= \t\r\n\\│>")

const (
	pemBegin  = "-----BEGIN "
	pemEnd    = "-----END "
	pemFooter = "PRIVATE KEY-----"
	// maxPEM bounds a block: an 8192-bit RSA key is about 6.5 KB.
	maxPEM = 16 << 10
)

// pemBlock: at the first '-' of "-----BEGIN … PRIVATE KEY-----", to the
// end of its END line; a block cut short (a view shows a few lines, a
// partial message a piece) to the end of its body. And at the first '-'
// of an END line whose BEGIN is not in b: from the start of the body
// before it.
func pemBlock(b []byte, i int) (int, int, bool) {
	if i > 0 && b[i-1] == '-' {
		return 0, 0, false
	}
	switch {
	case has(b, i, pemBegin):
		h := bytes.Index(b[i:min(len(b), i+64)], []byte(pemFooter))
		if h < 0 {
			return 0, 0, false
		}
		body := i + h + len(pemFooter)
		end := pemBodyEnd(b, body)
		if has(b, end, pemEnd) {
			if f := bytes.Index(b[end:min(len(b), end+64)], []byte(pemFooter)); f >= 0 {
				return i, end + f + len(pemFooter), true
			}
		}
		return i, end, true
	case has(b, i, pemEnd):
		f := bytes.Index(b[i:min(len(b), i+64)], []byte(pemFooter))
		if f < 0 {
			return 0, 0, false
		}
		s := i
		for s > 0 && i-s < maxPEM && pemBody[b[s-1]] {
			s--
		}
		return s, i + f + len(pemFooter), true
	}
	return 0, 0, false
}

// pemBodyEnd is the end of a private key's body from i: base64 lines,
// also each behind a diff's '-' (a '+' is base64 already).
func pemBodyEnd(b []byte, i int) int {
	end := i
	for end < len(b) && end-i < maxPEM {
		switch c := b[end]; {
		case pemBody[c]:
		case c == '-' && end > 0 && b[end-1] == '\n' && !has(b, end, "-----"):
		default:
			return end
		}
		end++
	}
	return end
}

// bearer: at the 'B' of "Bearer " followed by a credential of 16 or more.
func bearer(b []byte, i int) (int, int, bool) {
	if !has(b, i, "Bearer ") || !boundary(b, i, alnum) {
		return 0, 0, false
	}
	s := i + 7
	end, ok := tail(b, s, 16, 8192, bearerSet)
	if !ok || placeholder(b[s:end]) || !bytes.ContainsAny(b[s:end], "0123456789._~+/=-") {
		return 0, 0, false
	}
	return s, end, true
}

// basicAuth: at the 'B' of "Authorization: Basic " and a base64 user:password
// ("Basic Authentication" in prose, and a documented example in code
// without the header, are not credentials).
func basicAuth(b []byte, i int) (int, int, bool) {
	if !has(b, i, "Basic ") || !authHeader(b, i) {
		return 0, 0, false
	}
	s := i + 6
	end, ok := tail(b, s, 8, 1024, base64c)
	if !ok {
		return 0, 0, false
	}
	dec, err := base64.StdEncoding.DecodeString(string(b[s:end]))
	if err != nil || !bytes.ContainsRune(dec, ':') {
		return 0, 0, false
	}
	return s, end, true
}

// tokenAuth: at the "ok" of an Authorization header's "Token " (Django
// REST framework's; GitHub's API takes "token "), the credential. Unlike
// Bearer, the word is everywhere in prose: the header must be there.
func tokenAuth(b []byte, i int) (int, int, bool) {
	if i+4 >= len(b) || b[i+4] != ' ' { // (most "ok" are not of "Token ")
		return 0, 0, false
	}
	s := i - 1
	if !(has(b, s, "Token ") || has(b, s, "token ")) || !authHeader(b, s) {
		return 0, 0, false
	}
	v := s + 6
	end, ok := tail(b, v, 16, 8192, bearerSet)
	if !ok || placeholder(b[v:end]) {
		return 0, 0, false
	}
	return v, end, true
}

// authHeader reports whether an Authorization header's name ends just
// before s, as HTTP, curl -H, JSON (also escaped inside a JSON string, or
// a CSV cell, or HTML) and a dict of headers write it.
func authHeader(b []byte, s int) bool {
	k := s
	for k > 0 && s-k < 16 {
		switch c := b[k-1]; {
		case quoteOrSpace(c) || c == ':' || c == '=':
			k--
		case has(b, k-6, "&quot;"):
			k -= 6
		case has(b, k-5, "&#34;") || has(b, k-5, "&#39;"):
			k -= 5
		default:
			return k < s && has(b, k-12, "uthorization")
		}
	}
	return false
}

// urlPassword: at the '@' of scheme://user:password@host, the password.
func urlPassword(b []byte, i int) (int, int, bool) {
	s := i
	for s > 0 && i-s < 256 && passc[b[s-1]] && b[s-1] != ':' {
		s--
	}
	if s == 0 || b[s-1] != ':' || s == i {
		return 0, 0, false
	}
	u := s - 1
	for u > 0 && s-u < 256 && userc[b[u-1]] {
		u--
	}
	// (No user, redis://:password@, is Redis's and others' way.)
	if !has(b, u-3, "://") || i+1 >= len(b) || !alnum[b[i+1]] {
		return 0, 0, false
	}
	if placeholder(b[s:i]) {
		return 0, 0, false
	}
	return s, i, true
}

// secretWords are what a name that holds a secret says.
var secretWords = []string{"token", "secret", "password", "passwd", "api_key", "apikey", "api-key", "access_key", "private_key", "credential", "auth_key"}

// secretEnds end names that hold a secret by a short word, which inside
// a name would say other things (a bypass, a compass, a cwd).
var secretEnds = []string{"_pass", "_pwd"}

// notSecretNames end names that say what a secret is, not hold one.
var notSecretNames = []string{"tokens", "source", "_kind", "_type", "_count", "_file", "_path", "_url", "_name", "_id", "_env", "_length", "_len", "_limit", "_budget", "_dir", "_ttl", "_expiry", "_expires", "_at", "_in", "_field", "_header", "_policy", "_hint", "_prompt"}

// notSecretWords in a name or value mark a test or an example.
var notSecretWords = []string{"test", "example", "dummy", "fake", "sample", "mock", "placeholder", "changeme", "your", "xxxx", "redacted"}

var nameChar = class("A-Za-z0-9_.-")

// assignedAt: at a trigger inside a name, the assignment to it, if any.
func assignedAt(b []byte, i int) (int, int, bool) {
	// (The class and the bound held in locals: the loop runs over every
	// name and base64 run a trigger falls in, most of assigned-secret's
	// cost.)
	nc, n, end := nameChar, i, min(len(b), i+64)
	for n < end && nc[b[n]] {
		n++
	}
	if !nameEndMaySay(b, n) {
		return 0, 0, false // (what secretName would say at its end, first)
	}
	sep := n
	for sep < len(b) && sep-n < 6 && quoteOrSpace(b[sep]) {
		sep++
	}
	if sep >= len(b) || (b[sep] != '=' && b[sep] != ':') {
		return 0, 0, false
	}
	return assigned(b, sep)
}

// assigned: at the '=' or ':' of NAME=value, NAME: value, "name": "value",
// 'name' => 'value' (also with the quotes escaped, inside a JSON string),
// where NAME says secret and the value looks like one.
func assigned(b []byte, i int) (int, int, bool) {
	if !secretName(b, i) || (i+1 < len(b) && b[i] == ':' && b[i+1] == ':') { // (Go's and C++'s scopes)
		return 0, 0, false
	}
	v, end, quoted, ok := assignedValue(b, i)
	if !ok || !secretLike(b[v:end], quoted) {
		return 0, 0, false
	}
	return v, end, true
}

// quoteOrSpace are what may stand between a name, its '=' or ':' and its
// value: spaces and quotes, also escaped (inside a JSON string) and
// doubled (inside a CSV cell).
func quoteOrSpace(c byte) bool { return c == ' ' || c == '"' || c == '\'' || c == '\\' }

// nameEndMaySay reports whether a name that ends at b[n] may say secret
// by its last letter. Every secret word ends in one of these: most names
// are passed over on their last letter, before the name is read back to
// its start; of those in s, all but …pass (the many input_tokens and
// output_tokens are passed over here, and by assignedAt before it looks
// for an '=' or a ':'). (A name is 5 letters or more, checked after: a
// shorter n is no name anyway.)
func nameEndMaySay(b []byte, n int) bool {
	if n < 5 {
		return false
	}
	switch b[n-1] | 0x20 {
	case 'n', 't', 'd', 'y', 'l':
		return true
	case 's':
		return b[n-2]|0x20 == 's' && b[n-3]|0x20 == 'a'
	}
	return false
}

// secretName reports whether the name before the '=' or ':' at i says
// secret.
func secretName(b []byte, i int) bool {
	n := i
	for n > 0 && i-n < 6 && quoteOrSpace(b[n-1]) {
		n--
	}
	if !nameEndMaySay(b, n) {
		return false
	}
	ns := n
	for ns > 0 && n-ns < 64 && nameChar[b[ns-1]] {
		ns--
	}
	if n-ns < 5 || n-ns >= 64 || has(b, ns-3, "://") { // (a URL's user: url-password's)
		return false
	}
	var lower [64]byte
	name := lower[:n-ns]
	for k, c := range b[ns:n] {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		name[k] = c
	}
	return (secretWordSet.in(name) || endsAny(name, secretEnds)) && !endsAny(name, notSecretNames) && !notSecretWordSet.in(name)
}

// assignedValue returns where the value after the '=' or ':' (or '=>')
// at i starts and ends, and whether it is quoted. A quoted value runs to
// its quote and may hold any printable character but a space (a quoted
// text with spaces is prose, ok=false); an unquoted one ends at a space,
// a quote, or , ; } ] (the structure around it). Both go on past a
// backslash of the value (raw, or \\ inside a JSON string) and stop at
// the escapes that end a JSON string's value (\", \n).
func assignedValue(b []byte, i int) (v, end int, quoted, ok bool) {
	v = i + 1
	if b[i] == '=' && v < len(b) && b[v] == '>' { // a PHP or Ruby hash's =>
		v++
	}
	var q byte
	for v < len(b) && v-i < 8 && quoteOrSpace(b[v]) {
		if b[v] == '"' || b[v] == '\'' {
			q = b[v]
		}
		v++
	}
	for end = v; end < len(b) && end-v < 512; {
		k := valueCharLen(b[end:], q)
		if k <= 0 {
			return v, end, q != 0, k == 0 || q == 0
		}
		end += k
	}
	return v, min(end, len(b)), q != 0, true
}

// valueCharLen is the length of the character of a value quoted by q (0:
// unquoted) at the start of b, an escape of one counting as one; 0 where
// the value ends; -1 at a space, which ends an unquoted value and makes a
// quoted one prose.
func valueCharLen(b []byte, q byte) int {
	switch c := b[0]; {
	case c == '\\':
		return valueEscapeLen(b)
	case c == '&':
		// An HTML escape of a character of the value (&amp;) goes on;
		// one of a quote ends it, as the quote would.
		if k := htmlEscapeLen(b); k > 0 {
			return k
		}
		if has(b, 0, "&#34;") || has(b, 0, "&#39;") || has(b, 0, "&quot;") {
			return 0
		}
	case c == ' ':
		return -1
	case c < ' ' || c == 0x7f || c == q:
		return 0
	case q == 0 && (c == '"' || c == '\'' || c == ',' || c == ';' || c == '}' || c == ']'):
		return 0
	}
	return 1
}

// valueEscapeLen is the length of what a backslash at the start of b
// stands for inside a value: 2 for \\ (a JSON string's backslash), 6
// for a \u escape, 1 for a raw backslash; 0 for an escape that ends the
// value (\", \', \n, \t, \r: a JSON string's quote or line end).
func valueEscapeLen(b []byte) int {
	if len(b) < 2 {
		return 1
	}
	switch b[1] {
	case '\\':
		return 2
	case 'u':
		return min(6, len(b))
	case '"', '\'', 'n', 't', 'r':
		return 0
	}
	return 1
}

// htmlEscapeLen is the length of the HTML escape of a character a value
// may hold at the start of b (&amp;, &lt;, &gt;), or 0.
func htmlEscapeLen(b []byte) int {
	for _, e := range []string{"&amp;", "&lt;", "&gt;"} {
		if has(b, 0, e) {
			return len(e)
		}
	}
	return 0
}

// minEntropy is the Shannon entropy, in bits per character, a value must
// have to be taken for a secret for its name alone: a random token of 8
// characters has 3, a typed password 2.7 to 3.5; a date has 2.5, a
// repeated pattern less.
const minEntropy = 2.7

// secretLike reports whether a value assigned to a name that says secret
// looks like one: 8 characters or more of two kinds (symbols, \ and !
// included), of enough entropy, and not a placeholder, a variable's name,
// a path, an email or a URL; unquoted, not a name or an expression of a
// program either (get_token(user), os.environ["X"], config.api_key): the
// value is then code that reads the secret, not the secret.
func secretLike(v []byte, quoted bool) bool {
	if len(v) < 8 || len(v) >= 512 || placeholder(v) || upperSnake(v) || !mixed(v) || (!quoted && code(v)) {
		return false
	}
	return looksSecret(v)
}

// looksSecret reports whether a value has a secret's entropy and names
// no place: not a path, an email or a URL.
func looksSecret(v []byte) bool {
	return !namesAPlace(v) && entropy(v) >= minEntropy
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]int
	for _, c := range v {
		counts[c]++
	}
	n := float64(len(v))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// namesAPlace reports a path (/…, ~/…, ./…, C:\…), an email or a URL.
func namesAPlace(v []byte) bool {
	switch {
	case v[0] == '/' || v[0] == '~' || v[0] == '.',
		len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/'),
		bytes.Contains(v, []byte("://")):
		return true
	}
	at := bytes.IndexByte(v, '@')
	if at <= 0 || bytes.IndexByte(v[at+1:], '@') >= 0 {
		return false
	}
	domain := v[at+1:]
	for _, c := range domain {
		if !alnum[c] && c != '.' && c != '-' {
			return false
		}
	}
	return bytes.IndexByte(domain, '.') > 0
}

// code reports an unquoted value that reads as a program's: a call or an
// index (get_token(user), os.environ["X"]), or a name of words, dotted or
// not (user_token, config.api_key, self._secret): identifiers whose
// digits, if any, end them. A random token has a letter after a digit.
func code(v []byte) bool {
	words := true
	for k := 0; ; {
		if k >= len(v) || !(identStart[v[k]]) {
			return false
		}
		digit := false
		for ; k < len(v) && identPart[v[k]]; k++ {
			isDigit := '0' <= v[k] && v[k] <= '9'
			if digit && !isDigit {
				words = false
			}
			digit = isDigit
		}
		if k == len(v) {
			return words
		}
		switch v[k] {
		case '(', '[':
			return true
		case '.':
			k++
		default:
			return false
		}
	}
}

var (
	identStart = class("A-Za-z_$")
	identPart  = class("A-Za-z0-9_$")
)

// mixed reports a value with two kinds of characters among lower case,
// upper case, digits and symbols (a word, a number are not secrets).
func mixed(v []byte) bool {
	var k [4]bool
	for _, c := range v {
		switch {
		case 'a' <= c && c <= 'z':
			k[0] = true
		case 'A' <= c && c <= 'Z':
			k[1] = true
		case '0' <= c && c <= '9':
			k[2] = true
		default:
			k[3] = true
		}
	}
	n := 0
	for _, x := range k {
		if x {
			n++
		}
	}
	return n >= 2 && !(k[2] && !k[0] && !k[1])
}

// placeholder reports a value that stands for a secret rather than being
// one: a variable, a template, a mask, an example.
func placeholder(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '%', '*', '[', '(', '/', '.', '@':
		return true
	}
	var lower [512]byte
	l := lower[:min(len(v), len(lower))]
	for k := range l {
		c := v[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		l[k] = c
	}
	return notSecretWordSet.in(l)
}

// wordSet is a list of words indexed by their first byte, so that a
// name is searched for all of them in one pass over it: bytes.Contains
// once a word cost about 130 instructions each, 1,400 a name, on the
// names of every real run's usage ("cache_creation", "description"),
// which a trigger of assigned-secret ("cr") brings here (issue 41).
// TestSecretNameSameAsReadingTheNameFirst holds it to containsAny.
type wordSet [256][]string

func newWordSet(words []string) *wordSet {
	var ws wordSet
	for _, w := range words {
		ws[w[0]] = append(ws[w[0]], w)
	}
	return &ws
}

// in reports whether s contains one of the words.
func (ws *wordSet) in(s []byte) bool {
	for p, c := range s {
		for _, w := range ws[c] {
			if len(s)-p >= len(w) && string(s[p:p+len(w)]) == w {
				return true
			}
		}
	}
	return false
}

var secretWordSet, notSecretWordSet = newWordSet(secretWords), newWordSet(notSecretWords)

func endsAny(s []byte, words []string) bool {
	for _, w := range words {
		if bytes.HasSuffix(s, unsafeBytes(w)) {
			return true
		}
	}
	return false
}

// upperSnake reports a value that names a variable (ANTHROPIC_API_KEY):
// capitals, digits and underscores.
func upperSnake(v []byte) bool {
	for _, c := range v {
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// unsafeBytes is s as bytes without a copy, for reading only.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
