package streamgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The corpus is a pool of realistic text lines (logs, source code, test runner
// output with ANSI colours, Unicode, JSON fragments) generated once from the
// seed. Large tool results are assembled from pre-escaped pool lines, which
// keeps generation at memcpy speed while the output still exercises every
// escape a JSON parser has to undo.

type poolLine struct {
	raw string // the line as the tool printed it (no trailing newline)
	esc string // raw escaped for use inside a JSON string
}

var words = strings.Fields(`the a an of to in for on with by from at as is are was be this that these
those it its we our you your they their file files function functions test tests build error errors
value values config configuration parser stream event events line lines output input result results
handler request response server client cache context token tokens module package import export type
types field fields struct interface method call calls return returns check checks update updates
write writes read reads path paths directory command commands flag flags option options default
missing invalid unexpected timeout retry retries buffer buffers memory allocation goroutine thread
lock mutex channel queue worker workers job jobs schema migration database query index table row
rows column columns commit branch merge diff patch review fix fixes refactor cleanup rename move
should could would now then also still only just because since while after before during between
fast slow large small first last next previous new old same different simple complex safe unsafe`)

var components = []string{"api", "worker-1", "worker-2", "worker-3", "scheduler", "db", "cache", "auth", "ingest", "http", "grpc", "metrics"}
var levels = []string{"INFO ", "INFO ", "INFO ", "DEBUG", "WARN ", "ERROR"}
var idents = []string{"parseEvent", "handleRequest", "flushBuffer", "readConfig", "newClient", "decodeLine", "writeResult", "applyPatch", "resolvePath", "startWorker", "closeStream", "validateInput", "loadIndex", "mergeUsage"}
var pkgs = []string{"stream", "render", "filter", "config", "usage", "cli", "jsonl", "server", "store", "queue"}

var projectFiles = []string{
	"/home/user/project/cmd/server/main.go",
	"/home/user/project/internal/stream/decoder.go",
	"/home/user/project/internal/stream/decoder_test.go",
	"/home/user/project/internal/render/markdown.go",
	"/home/user/project/pkg/api/handlers.go",
	"/home/user/project/pkg/api/routes.go",
	"/home/user/project/web/src/components/EventList.tsx",
	"/home/user/project/web/src/lib/format.ts",
	"/home/user/project/scripts/migrate.py",
	"/home/user/project/tests/test_ingest.py",
	"/home/user/project/logs/server.log",
	"/home/user/project/logs/worker.log",
	"/home/user/project/README.md",
	"/home/user/project/docs/architecture.md",
	"/home/user/project/Makefile",
	"/home/user/project/config/settings.yaml",
	"/home/user/project/data/fixtures/events.jsonl",
	"/home/user/project/internal/usage/aggregate.go",
	"/home/user/project/internal/usage/aggregate_test.go",
	"/home/user/project/web/src/i18n/messages.ja.json",
}

type bashCmd struct{ cmd, desc string }

var bashCmds = []bashCmd{
	{"go test ./... 2>&1 | tail -n 400", "Run the Go test suite"},
	{"go build ./... && go vet ./...", "Build and vet all packages"},
	{"cat logs/server.log", "Show the server log"},
	{"tail -n 2000 logs/worker.log", "Show the end of the worker log"},
	{`grep -rn "TODO\|FIXME" --include='*.go' .`, "Find TODO and FIXME markers"},
	{"git log --oneline -n 300", "Show recent commits"},
	{"git diff HEAD~3 -- internal/", "Diff the last three commits"},
	{"npm run build 2>&1", "Build the web frontend"},
	{"npx vitest run --reporter=verbose", "Run the frontend tests"},
	{"python3 -m pytest -x -q tests/", "Run the Python tests"},
	{"docker compose logs api --tail 5000", "Show the API container logs"},
	{"find . -name '*.go' -not -path './vendor/*' | xargs wc -l | sort -n", "Count lines of Go code"},
	{"make -j4 2>&1", "Build everything with make"},
	{`jq -c 'select(.level=="error")' data/fixtures/events.jsonl`, "Filter error events from the fixtures"},
	{"ls -la internal/ pkg/ cmd/", "List the source directories"},
}

var grepPatterns = []string{"func .*Decode", "TODO", "session_id", `err != nil`, "parent_tool_use_id", "usage\\.", "class \\w+Handler", "import .* from", "def test_", "tool_use_id"}

var subagentTypes = []string{"general-purpose", "general-purpose", "Explore"}

var prompts = []string{
	"Fix the failing tests in internal/stream and explain the root cause.",
	"Read the server log and tell me why requests time out after the deploy.",
	"Refactor the usage aggregation so that repeated message ids are counted once.",
	"Add a --format csv option to the export command, with tests.",
	"Find every place that parses timestamps and make them accept a trailing Z.",
	"Profile the decoder on the big fixture and make it faster; keep the output identical.",
	"Review the last three commits for bugs and missing error handling.",
	"Update the Japanese translations in web/src/i18n and check the build still passes.",
	"Explain how the scheduler decides when to retry a job.",
	"Write a migration that adds an index on events(session_id, ts).",
}

// buildPool creates n pool lines from r.
func buildPool(r *rand.Rand, n int) []poolLine {
	pool := make([]poolLine, n)
	var sb strings.Builder
	for i := range pool {
		sb.Reset()
		writePoolLine(&sb, r)
		raw := sb.String()
		pool[i] = poolLine{raw: raw, esc: string(appendEscaped(nil, raw))}
	}
	return pool
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func writeWords(sb *strings.Builder, r *rand.Rand, n int) {
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(pick(r, words))
	}
}

func writePoolLine(sb *strings.Builder, r *rand.Rand) {
	switch k := r.IntN(100); {
	case k < 28: // structured log line
		fmt.Fprintf(sb, "2026-12-02T%02d:%02d:%02d.%03dZ %s [%s] ", 8+r.IntN(12), r.IntN(60), r.IntN(60), r.IntN(1000), pick(r, levels), pick(r, components))
		writeWords(sb, r, 3+r.IntN(8))
		fmt.Fprintf(sb, " id=%08x dur=%dms status=%d", r.Uint32(), r.IntN(3000), pick(r, []int{200, 200, 200, 201, 204, 400, 404, 500, 503}))
	case k < 50:
		writeGoLine(sb, r)
	case k < 62:
		writeScriptLine(sb, r)
	case k < 76:
		writeRunnerLine(sb, r)
	case k < 86:
		writeUnicodeLine(sb, r)
	case k < 95: // JSON fragments
		fmt.Fprintf(sb, `{"level":"%s","msg":"%s %s","path":"/srv/%s/%s.json","n":%d,"ok":%v}`, strings.TrimSpace(strings.ToLower(pick(r, levels))), pick(r, words), pick(r, words), pick(r, pkgs), pick(r, words), r.IntN(100000), r.IntN(2) == 0)
	case k < 98:
		// empty line
	default:
		sb.WriteString("\r" + strings.Repeat("=", 10+r.IntN(60)))
	}
}

// writeGoLine writes a line of Go source.
func writeGoLine(sb *strings.Builder, r *rand.Rand) {
	ind := strings.Repeat("\t", r.IntN(4))
	switch r.IntN(6) {
	case 0:
		fmt.Fprintf(sb, "%sif err := %s(ctx, %q); err != nil {", ind, pick(r, idents), pick(r, words))
	case 1:
		fmt.Fprintf(sb, "%s\treturn fmt.Errorf(\"%s %%q: %%w\", path, err)", ind, pick(r, idents))
	case 2:
		fmt.Fprintf(sb, "%sfunc (d *%s) %s(b []byte) (int, error) {", ind, title(pick(r, pkgs)), pick(r, idents))
	case 3:
		fmt.Fprintf(sb, "%s// %s", ind, strings.TrimSpace(pick(r, words)+" "+pick(r, words)+" "+pick(r, words)))
	case 4:
		fmt.Fprintf(sb, "%sre := regexp.MustCompile(`^\\s*(\\w+)=\"([^\"]*)\"$`)", ind)
	default:
		fmt.Fprintf(sb, "%s}", ind)
	}
}

// writeScriptLine writes a line of TypeScript or Python.
func writeScriptLine(sb *strings.Builder, r *rand.Rand) {
	switch r.IntN(5) {
	case 0:
		fmt.Fprintf(sb, "  const %s = await fetch(`/api/v1/%s?id=${id}`, { method: \"POST\" });", pick(r, idents), pick(r, pkgs))
	case 1:
		fmt.Fprintf(sb, "    print(f\"{%s!r}: \\t{len(rows)} rows\")", pick(r, words))
	case 2:
		fmt.Fprintf(sb, "def test_%s_%s(tmp_path):", pick(r, words), pick(r, words))
	case 3:
		fmt.Fprintf(sb, "export function %s(input: string): Result<%s> {", pick(r, idents), title(pick(r, pkgs)))
	default:
		sb.WriteString(`    path = "C:\\Users\\dev\\AppData\\Local\\Temp\\out.json"`)
	}
}

// writeRunnerLine writes test runner or compiler output, with ANSI colours.
func writeRunnerLine(sb *strings.Builder, r *rand.Rand) {
	switch r.IntN(6) {
	case 0:
		fmt.Fprintf(sb, "\x1b[32m✓\x1b[0m %s \x1b[2m(%dms)\x1b[0m", strings.TrimSpace(pick(r, words)+" "+pick(r, words)+" "+pick(r, words)), r.IntN(900))
	case 1:
		fmt.Fprintf(sb, "\x1b[31m✗\x1b[0m \x1b[1m%s\x1b[0m expected %d, got %d", pick(r, idents), r.IntN(100), r.IntN(100))
	case 2:
		fmt.Fprintf(sb, "--- FAIL: Test%s (0.%02ds)", title(pick(r, idents)), r.IntN(100))
	case 3:
		fmt.Fprintf(sb, "ok  \tgithub.com/acme/app/internal/%s\t0.%03ds", pick(r, pkgs), r.IntN(1000))
	case 4:
		fmt.Fprintf(sb, "\x1b[1;33mwarning\x1b[0m: unused variable `%s` at src/%s.rs:%d:%d", pick(r, words), pick(r, pkgs), r.IntN(900), r.IntN(80))
	default:
		fmt.Fprintf(sb, "\x1b[36m[%s]\x1b[0m %d%% \x1b[7m%s\x1b[0m\x07", pick(r, components), r.IntN(101), strings.Repeat("█", r.IntN(20)))
	}
}

// writeUnicodeLine writes a line of non-ASCII text.
func writeUnicodeLine(sb *strings.Builder, r *rand.Rand) {
	switch r.IntN(6) {
	case 0:
		fmt.Fprintf(sb, "// コメント: %s を更新しました", pick(r, idents))
	case 1:
		fmt.Fprintf(sb, "  \"%s\": \"设置已保存，共 %d 项\",", pick(r, words), r.IntN(500))
	case 2:
		fmt.Fprintf(sb, "✅ %s — déjà vu, naïve café, Ünïcödé 🚀 %d", pick(r, idents), r.IntN(1000))
	case 3:
		fmt.Fprintf(sb, "한국어 메시지 %d: %s", r.IntN(100), pick(r, words))
	case 4:
		fmt.Fprintf(sb, "line\u2028separator and paragraph\u2029separator in %s", pick(r, words))
	default:
		fmt.Fprintf(sb, "→ %s ← ↑ ↓ ±%d° µs ≤ ≥ ≠ 😀🎉", pick(r, words), r.IntN(360))
	}
}

// writeSentences writes roughly n bytes of prose (assistant text, thinking,
// subagent reports), with a little Markdown.
func writeSentences(sb *strings.Builder, r *rand.Rand, n int) {
	start := sb.Len()
	for sb.Len()-start < n {
		switch r.IntN(14) {
		case 0:
			sb.WriteString("\n\n## ")
			writeWords(sb, r, 2+r.IntN(3))
			sb.WriteString("\n\n")
			continue
		case 1:
			sb.WriteString("\n- `")
			sb.WriteString(pick(r, projectFiles)[len("/home/user/project/"):])
			sb.WriteString("`: ")
		case 2:
			sb.WriteString(" The function `")
			sb.WriteString(pick(r, idents))
			sb.WriteString("()` ")
		case 3:
			sb.WriteString("\n\n```go\nif err != nil {\n\treturn fmt.Errorf(\"decode: %w\", err)\n}\n```\n\n")
			continue
		}
		w := pick(r, words)
		sb.WriteString(strings.ToUpper(w[:1]))
		sb.WriteString(w[1:])
		sb.WriteByte(' ')
		writeWords(sb, r, 4+r.IntN(14))
		sb.WriteString(pick(r, []string{". ", ". ", ". ", ", which is expected. ", " — see above. ", "! ", "? "}))
	}
}

func title(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
