package redact

import (
	"bytes"
	"encoding/base64"
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
	Secret   string
	triggers []string
	match    func(b []byte, i int) (start, end int, ok bool)
}

// pairs lists a rule's triggers.
func pairs(t ...string) []string { return t }

// secretWordTriggers find the words that say a name holds a secret, as
// written in lower case, upper case and camelCase: tOKen, seCRet,
// CRedential, paSSWord, passWD, api_kEY, apiKEY.
var secretWordTriggers = pairs("ok", "OK", "cr", "CR", "sw", "SW", "wd", "WD", "ey", "EY")

// Rules is the table of every rule, in the order docs/redaction.md lists
// them. A rule is one entry here, with its test example.
var Rules = []Rule{
	{ID: "anthropic-key", Description: "Anthropic API key (sk-ant-api03-…)", Example: "sk-ant-" + "api03-" + rep("AbCd1234", 11) + "-xyzAA", triggers: pairs("k-"), match: sk("anthropic-key")},
	{ID: "anthropic-admin-key", Description: "Anthropic Admin API key (sk-ant-admin01-…)", Example: "sk-ant-" + "admin01-" + rep("ZyXw9876", 11) + "-abcAA", triggers: pairs("k-"), match: sk("anthropic-admin-key")},
	{ID: "claude-oauth-token", Description: "Claude Code OAuth access token (sk-ant-oat01-…)", Example: "sk-ant-" + "oat01-" + rep("Qwer5678", 11) + "-qweAA", triggers: pairs("k-"), match: sk("claude-oauth-token")},
	{ID: "claude-refresh-token", Description: "Claude Code OAuth refresh token (sk-ant-ort01-…)", Example: "sk-ant-" + "ort01-" + rep("Asdf4321", 11) + "-asdAA", triggers: pairs("k-"), match: sk("claude-refresh-token")},
	{ID: "openrouter-key", Description: "OpenRouter API key (sk-or-v1- and 64 hex digits)", Example: "sk-or-" + "v1-" + rep("0123456789abcdef", 4), triggers: pairs("k-"), match: sk("openrouter-key")},
	{ID: "openai-key", Description: "OpenAI API key (sk-proj-…, sk-svcacct-…, sk-admin-…, or sk- and 48 letters and digits)", Example: "sk-" + "proj-" + rep("Ab12Cd34Ef56", 12), triggers: pairs("k-"), match: sk("openai-key")},
	{ID: "github-token", Description: "GitHub token: ghp_, gho_, ghu_, ghs_ (also the newer longer ones), ghr_, and fine-grained github_pat_", Example: "gh" + "p_" + rep("aB3dE6gH9j", 3) + "KlMnOp", triggers: pairs("gh", "b_"), match: githubToken},
	{ID: "gitlab-token", Description: "GitLab personal access token (glpat-…)", Example: "gl" + "pat-" + rep("xY7z", 5), triggers: pairs("lp"), match: at(4, gitlabToken)},
	{ID: "slack-token", Description: "Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-, xoxe-)", Example: "xo" + "xb-" + "1234567890-1234567890123-" + rep("aBcD", 6), triggers: pairs("xo"), match: at(4, slackToken)},
	{ID: "aws-access-key-id", Description: "AWS access key id (AKIA, ASIA and the other 4-letter prefixes, 16 more)", Example: "AK" + "IA" + "Z7Q4XW2PLM3NB6VC", triggers: pairs("AK", "AS", "AG", "AI", "AR", "AN", "AB", "AC"), match: awsKeyID},
	{ID: "google-api-key", Description: "Google API key (AIza and 35 more)", Example: "AI" + "za" + "Sy" + rep("Ab1-Cd2_E", 3) + "f3G4h5", triggers: pairs("AI"), match: googleKey},
	{ID: "stripe-key", Description: "Stripe secret or restricted key (sk_live_, rk_live_, sk_test_, rk_test_)", Example: "sk" + "_live_" + rep("4eC39HqLyjWDarjtT1zdp7dc", 1), triggers: pairs("k_"), match: at(1, stripeKey)},
	{ID: "npm-token", Description: "npm access token (npm_ and 36 more)", Example: "np" + "m_" + rep("Ab1Cd2Ef3G", 3) + "h4Ij5K", triggers: pairs("pm"), match: at(2, npmToken)},
	{ID: "huggingface-token", Description: "Hugging Face token (hf_ and 34 letters)", Example: "h" + "f_" + rep("AbCdEfGhIjKlMnOpQ", 2), triggers: pairs("f_"), match: at(1, hfToken)},
	{ID: "sendgrid-key", Description: "SendGrid API key (SG. and two dot-separated parts)", Example: "S" + "G." + rep("aB3_cD4-eF", 2) + "gH" + "." + rep("iJ5kL6mN7o", 4) + "pQ8", triggers: pairs("G."), match: sendgridKey},
	{ID: "jwt", Description: "JSON Web Token (three base64url parts, the first two JSON objects)", Example: "ey" + "JhbGciOiJIUzI1NiJ9" + "." + "ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", triggers: pairs("yJ"), match: at(1, jwt)},
	{ID: "private-key", Description: "PEM private key block (-----BEGIN … PRIVATE KEY----- to its END line, also written with \\n escapes inside a JSON string, also cut short)", Secret: "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun", Example: "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA " + "PRIVATE KEY-----", triggers: pairs("-B", "-E"), match: at(-4, pemBlock)},
	{ID: "bearer-token", Description: "the credential of an Authorization header: Bearer …", Example: "Authorization: Bearer " + "eyAbC" + rep("dEf123", 4), Secret: "eyAbC" + rep("dEf123", 4), triggers: pairs("Be"), match: bearer},
	{ID: "basic-auth", Description: "the credential of an Authorization header: Basic …", Example: "Authorization: Basic " + "dXNlcjpz" + "ZWNyZXQxMjM0NQ==", Secret: "dXNlcjpz" + "ZWNyZXQxMjM0NQ==", triggers: pairs("Ba"), match: basicAuth},
	{ID: "url-password", Description: "the password in a URL's user:password@", Example: "postgres://admin:" + "S3cr3tPassw0rd" + "@db.internal:5432/app", Secret: "S3cr3tPassw0rd", triggers: pairs("@"), match: urlPassword},
	{ID: "assigned-secret", Description: "a value assigned to a name that says secret (…_TOKEN=, …_SECRET:, \"password\": \"…\", API_KEY=, …) in env dumps, .env files, YAML and JSON", Example: "DB_PASSWORD=" + "Tr0ub4dor&3xyz", Secret: "Tr0ub4dor&3xyz", triggers: secretWordTriggers, match: assignedAt},
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

func gitlabToken(b []byte, i int) (int, int, bool) {
	s := i - 5
	if !has(b, s, "glpat-") || !boundary(b, s, token) {
		return 0, 0, false
	}
	end, ok := tail(b, i+1, 20, 100, token)
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

func stripeKey(b []byte, i int) (int, int, bool) {
	s := i - 2
	if s < 0 || (b[s] != 's' && b[s] != 'r') || b[s+1] != 'k' || !boundary(b, s, token) {
		return 0, 0, false
	}
	if !has(b, i, "_live_") && !has(b, i, "_test_") {
		return 0, 0, false
	}
	end, ok := tail(b, i+6, 20, 247, alnum)
	return s, end, ok
}

func npmToken(b []byte, i int) (int, int, bool) {
	s := i - 3
	if !has(b, s, "npm_") || !boundary(b, s, token) {
		return 0, 0, false
	}
	end, ok := tail(b, i+1, 36, 36, alnum)
	return s, end, ok
}

func hfToken(b []byte, i int) (int, int, bool) {
	s := i - 2
	if !has(b, s, "hf_") || !boundary(b, s, token) {
		return 0, 0, false
	}
	end, ok := tail(b, i+1, 30, 40, alnum)
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
	if !has(b, i, "Basic ") || !(has(b, i-15, "uthorization: ") || has(b, i-14, "uthorization:")) {
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
	if u == s-1 || !has(b, u-3, "://") || i+1 >= len(b) || !alnum[b[i+1]] {
		return 0, 0, false
	}
	if placeholder(b[s:i]) {
		return 0, 0, false
	}
	return s, i, true
}

// secretWords are what a name that holds a secret says.
var secretWords = []string{"token", "secret", "password", "passwd", "api_key", "apikey", "api-key", "access_key", "private_key", "credential", "auth_key"}

// notSecretNames end names that say what a secret is, not hold one.
var notSecretNames = []string{"tokens", "source", "_kind", "_type", "_count", "_file", "_path", "_url", "_name", "_id", "_env", "_length", "_len", "_limit", "_budget", "_dir", "_ttl", "_expiry", "_expires", "_at", "_in", "_field", "_header", "_policy", "_hint", "_prompt"}

// notSecretWords in a name or value mark a test or an example.
var notSecretWords = []string{"test", "example", "dummy", "fake", "sample", "mock", "placeholder", "changeme", "your", "xxxx", "redacted"}

var nameChar = class("A-Za-z0-9_.-")

// assignedAt: at a trigger inside a name, the assignment to it, if any.
func assignedAt(b []byte, i int) (int, int, bool) {
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
	return assigned(b, sep)
}

// assigned: at the '=' or ':' of NAME=value, NAME: value, "name": "value"
// (also with the quotes escaped, inside a JSON string), where NAME says
// secret and the value looks like one.
func assigned(b []byte, i int) (int, int, bool) {
	if !secretName(b, i) || (i+1 < len(b) && b[i] == ':' && b[i+1] == ':') { // (Go's and C++'s scopes)
		return 0, 0, false
	}
	v, end := assignedValue(b, i)
	val := b[v:end]
	if len(val) < 8 || len(val) >= 512 || !mixed(val) || placeholder(val) || upperSnake(val) {
		return 0, 0, false
	}
	return v, end, true
}

// quoteOrSpace are what may stand between a name, its '=' or ':' and its
// value: spaces and quotes, also escaped (inside a JSON string) and
// doubled (inside a CSV cell).
func quoteOrSpace(c byte) bool { return c == ' ' || c == '"' || c == '\'' || c == '\\' }

// secretName reports whether the name before the '=' or ':' at i says
// secret.
func secretName(b []byte, i int) bool {
	n := i
	for n > 0 && i-n < 6 && quoteOrSpace(b[n-1]) {
		n--
	}
	ns := n
	for ns > 0 && n-ns < 64 && nameChar[b[ns-1]] {
		ns--
	}
	if n-ns < 5 || n-ns >= 64 {
		return false
	}
	// Every secret word ends in one of these: most names are passed over
	// on their last letter.
	switch b[n-1] | 0x20 {
	case 'n', 't', 'd', 'y', 'l':
	default:
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
	return containsAny(name, secretWords) && !endsAny(name, notSecretNames) && !containsAny(name, notSecretWords)
}

// assignedValue returns where the value after the '=' or ':' at i starts
// and ends.
func assignedValue(b []byte, i int) (int, int) {
	v := i + 1
	for v < len(b) && v-i < 7 && quoteOrSpace(b[v]) {
		v++
	}
	end := v
	for end < len(b) && end-v < 512 && valueChar(b[end]) {
		if b[end] == '&' {
			// An HTML escape of a character of the value (&amp;) goes
			// on; one of a quote ends it, as the quote would.
			if k := htmlEscapeLen(b[end:]); k > 0 {
				end += k
				continue
			}
			if has(b, end, "&#34;") || has(b, end, "&#39;") || has(b, end, "&quot;") {
				break
			}
		}
		if b[end] == '\\' {
			// A JSON escape of a character of the value (\u0026 for &)
			// goes on; one that ends it (\", \n) does not.
			if !has(b, end, "\\u") {
				break
			}
			end += 6
			continue
		}
		end++
	}
	return v, min(end, len(b))
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

func valueChar(c byte) bool {
	return c > ' ' && c != '"' && c != '\'' && c != ',' && c != '}' && c != ']' && c != ';'
}

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
	return containsAny(l, notSecretWords)
}

func containsAny(s []byte, words []string) bool {
	for _, w := range words {
		if len(w) <= len(s) && bytes.Contains(s, unsafeBytes(w)) {
			return true
		}
	}
	return false
}

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
