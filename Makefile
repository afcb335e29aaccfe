# ccfilter — see README.md.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
GO ?= go

.PHONY: update-prices build install test test-all test-browser test-otel test-prometheus jaeger prometheus lint fuzz bench bench-go bench-table bench-compare update-golden expectations cross clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ccfilter ./cmd/ccfilter

install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/ccfilter

# The README's test command (CI runs it first): go vet, the layering check,
# every test in -short mode (the differential sweeps over the captures take
# a sample of them), and jsonx once more built without its vector kernel
# (-tags purego: the path of every other architecture). No race detector
# here: it makes the command's tests 4x slower and belongs in test-all.
# About 20 s on 2 quiet cores once the modules are downloaded and built (the
# first run fetches them through the Go module proxy: go mod download),
# under a minute beside two CPU-bound processes. -timeout: a hang fails the run
# with a stack dump instead of stalling CI.
TEST_TIMEOUT ?= 4m
test: lint
	$(GO) test -short -count=1 -timeout $(TEST_TIMEOUT) ./...
	$(GO) test -short -count=1 -timeout $(TEST_TIMEOUT) -tags purego ./internal/jsonx

# Every test at full size (the sweeps over every capture, two million events
# through the tracker, the memory test at 300,000 lines), then the race
# detector over the packages that start goroutines or use them (the
# read-ahead, the reader that uses it, the followed file and its watch, the
# status line, the loop that shares a tree's work among the CPUs and its
# users, the listing and the account, the command: its signal handler, the
# pipe, interrupt and follow tests), in -short mode so the inputs suit
# -race. The race run
# passes over the command's three differential sweeps (every preset in
# every format over the captures, compared two ways): they ran in full just
# before, their code is the single-goroutine loop every other test of the
# command runs under the detector too, and under it they took 143 of its
# 207 s (the Codex and Gemini fast paths' sweeps likewise). It passes over
# the two peak-memory tests too: under the detector a process holds its
# shadow memory, several times its heap, and they measure the command;
# and the Gemini reader's count of allocations a line, which the
# detector's instrumentation raises.
# CI runs it after make test. About 3 minutes on 2 quiet cores.
RACE_PKGS := ./internal/readahead ./pkg/stream ./pkg/follow ./internal/statusline ./internal/cores ./pkg/input ./pkg/spend ./cmd/ccfilter
RACE_SKIP := ^(TestOutputDoesNotDependOnHowBytesArrive|TestNeedsChangeNothing|TestFastPathMatchesFullCheck|TestCodexFastPathMatchesFullTranslation|TestGeminiFastPathMatchesFullTranslation|TestOneLongLinePeakIsThreeTimesItsSizeInEveryFormat|TestRealCapturesPeakUnder48MiB|TestGeminiReaderAllocationsPerLine)$$
TEST_ALL_TIMEOUT ?= 10m
test-all: lint
	$(GO) test -count=1 -timeout $(TEST_ALL_TIMEOUT) ./...
	$(GO) test -short -count=1 -timeout $(TEST_ALL_TIMEOUT) -race -skip '$(RACE_SKIP)' $(RACE_PKGS)
	$(GO) test -count=1 -timeout $(TEST_ALL_TIMEOUT) -tags purego ./internal/jsonx
	@$(MAKE) --no-print-directory test-browser

# The HTML report in a real browser: headless Chromium (Debian's chromium
# package, installed here when missing: apt-get, as root or through sudo)
# opens the page of every capture and of four transcripts (no console
# message, no request, every tool call and the final answer on the page),
# and a page of hostile content (nothing runs, nothing is fetched). About
# 40 s. -update also rewrites the README's screenshots (docs/html-*.png):
#   go test -tags browser -run TestBrowserScreenshots ./cmd/ccfilter -update
BROWSER_TIMEOUT ?= 8m
test-browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
		echo "installing chromium (apt-get)"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
	$(GO) test -tags browser -count=1 -timeout $(BROWSER_TIMEOUT) -run '^TestBrowser' ./cmd/ccfilter

# Traces into a real backend: Jaeger v2 (built on the OpenTelemetry
# Collector) receives real runs sent with --otlp-endpoint, and its query
# API must show every span with its parent, tokens, error status and join
# keys, a run sent twice as one trace, a run under a TRACEPARENT in the
# parent's trace (TestJaeger*, -tags jaeger). Jaeger is a Go program,
# built from tools/jaeger, a module of its own (go get -tool
# github.com/jaegertracing/jaeger/cmd/jaeger@v1.75.0), so its dependencies
# stay out of ccfilter's go.mod; the binary is kept in tools/jaeger/bin,
# and rebuilt only when that module changes. The build is not optimised
# (-N -l; no symbols): 6m50s of CPU instead of 9m36s here, and the test
# does not need a fast Jaeger; the test itself takes a few seconds. CI
# runs it last (.ci/run; its limit is 90 minutes): a fresh machine
# downloads Jaeger's modules and builds it (see docs/otel.md for the
# figures), a machine that built it once finds it in Go's build cache.
JAEGER := $(CURDIR)/tools/jaeger/bin/jaeger
OTEL_TIMEOUT ?= 5m
test-otel: $(JAEGER)
	CCFILTER_JAEGER=$(JAEGER) $(GO) test -tags jaeger -count=1 -timeout $(OTEL_TIMEOUT) -run '^TestJaeger' ./cmd/ccfilter

jaeger: $(JAEGER)

# Metrics into a real Prometheus: usage --format otlp sent with
# --otlp-endpoint to Prometheus's OTLP receiver (--web.enable-otlp-receiver)
# twice, and PromQL's sums by model and by machine must equal usage --by
# model and --by machine (TestPrometheus*, -tags prometheus). Prometheus is
# a Go program built as Jaeger is: tools/prometheus, a module of its own
# (go get -tool github.com/prometheus/prometheus/cmd/prometheus@v0.316.0),
# its binary kept in tools/prometheus/bin, rebuilt only when that module
# changes, not optimised (-N -l; no symbols). See docs/otel.md for how long
# a fresh machine takes.
PROMETHEUS := $(CURDIR)/tools/prometheus/bin/prometheus
test-prometheus: $(PROMETHEUS)
	CCFILTER_PROMETHEUS=$(PROMETHEUS) $(GO) test -tags prometheus -count=1 -timeout $(OTEL_TIMEOUT) -run '^TestPrometheus' ./cmd/ccfilter

prometheus: $(PROMETHEUS)

$(PROMETHEUS): tools/prometheus/go.mod tools/prometheus/go.sum
	@mkdir -p tools/prometheus/bin
	cd tools/prometheus && flock bin/.lock sh -c '[ bin/prometheus -nt go.sum ] || { echo "building prometheus (tools/prometheus; minutes the first time)"; $(GO) build -gcflags="all=-N -l" -ldflags="-s -w" -o bin/prometheus github.com/prometheus/prometheus/cmd/prometheus; }'

# Under a lock: a build already under way is waited for, not started
# again.
$(JAEGER): tools/jaeger/go.mod tools/jaeger/go.sum
	@mkdir -p tools/jaeger/bin
	cd tools/jaeger && flock bin/.lock sh -c '[ bin/jaeger -nt go.sum ] || { echo "building jaeger (tools/jaeger; minutes the first time)"; $(GO) build -gcflags="all=-N -l" -ldflags="-s -w" -o bin/jaeger github.com/jaegertracing/jaeger/cmd/jaeger; }'

# go vet, plus the architecture rules: cobra and pflag live only in the
# command layer, and imports go one way (docs/architecture.md): stream
# imports no other pkg/, filter and render not preset or input.
# The tests behind build tags (test-browser, test-otel) are vetted here
# too, so a name two test files declare breaks make test, not CI's last step.
#
# The weight of the command (issue 42): no RPC framework or SDK, at most
# 250 packages, a binary of at most 19,500,000 bytes from a plain go build.
# (It was 280 and 21,000,000 to 21,700,000 while the spans were
# OpenTelemetry proto messages; since issue 41 encodes them itself, the
# command links none of those packages: 244 packages, 19.24 MB, with
# `ccfilter archive`'s zstd encoder, the shipped list prices and the Codex
# and Gemini input kinds in it. The limits keep that gain. Issue 43's
# second round wrote the Codex and Gemini readers' events by hand, their
# member writer inlined at each key: pkg/input went from 219 to 278 KB,
# the binary from 19.41 to 19.54 MB, for 12-28% fewer instructions a line;
# the limit moved to 19,700,000 for it, no package was added. Issue 41's
# tools -F csv moved a message's usage and a call's block heads onto the
# read-ahead's framer, handed on as offsets: 10.5 KB, the binary
# 19,693,644 -> 19,704,153 bytes; with the same stop's tree changes (the
# listing on every core, a row set's encoders, the Gemini sniff moved)
# 19,714,507: the limit 19,730,000; no package added. The sixth stop's
# passing over of long lines by their ends, the indented row set and the
# account's scans on every core: 20 KB with -trimpath, 19,704,131 ->
# 19,724,036 bytes (19,745,078 built in /work/main: the size moves with
# the path it is built in); the limit 19,760,000; no package added.)
MAX_PACKAGES ?= 250
MAX_BINARY_BYTES ?= 19760000
lint:
	$(GO) vet ./...
	$(GO) vet -tags browser,jaeger,prometheus,profile ./cmd/ccfilter
	@deps=$$($(GO) list -deps ./cmd/ccfilter); \
	heavy=$$(echo "$$deps" | grep -E '^(google.golang.org/grpc|google.golang.org/genproto|github.com/grpc-ecosystem|go.opentelemetry.io/otel)' || true); \
	if [ -n "$$heavy" ]; then echo "cmd/ccfilter must not depend on:"; echo "$$heavy"; exit 1; fi; \
	n=$$(echo "$$deps" | wc -l); if [ $$n -gt $(MAX_PACKAGES) ]; then echo "cmd/ccfilter has $$n packages (at most $(MAX_PACKAGES))"; exit 1; fi
	@bin=$$(mktemp); $(GO) build -o $$bin ./cmd/ccfilter; size=$$(wc -c < $$bin); rm -f $$bin; \
	if [ $$size -gt $(MAX_BINARY_BYTES) ]; then echo "the binary is $$size bytes (at most $(MAX_BINARY_BYTES))"; exit 1; fi
	@bad=$$($(GO) list -f '{{.ImportPath}}: {{join .Deps " "}}' ./pkg/... ./internal/... | grep -E 'spf13/(cobra|pflag)' || true); \
	if [ -n "$$bad" ]; then echo "library packages must not import cobra/pflag:"; echo "$$bad"; exit 1; fi
	@bad=$$( { $(GO) list -f '{{range .Imports}}{{$$.ImportPath}} imports {{.}}{{"\n"}}{{end}}' ./pkg/stream | grep -E 'imports .*ccfilter/pkg/'; \
	  $(GO) list -f '{{range .Imports}}{{$$.ImportPath}} imports {{.}}{{"\n"}}{{end}}' ./pkg/filter ./pkg/render | grep -E 'imports .*ccfilter/pkg/(preset|input)'; } || true); \
	if [ -n "$$bad" ]; then echo "a library imports a layer above it:"; echo "$$bad"; exit 1; fi

fuzz:
	$(GO) test ./pkg/stream -run '^$$' -fuzz FuzzDecoder -fuzztime 60s
	$(GO) test ./internal/jsonx -run '^$$' -fuzz FuzzValidateDecode -fuzztime 60s
	$(GO) test ./internal/jsonx -run '^$$' -fuzz FuzzBlockScanner -fuzztime 60s

# The Go benchmarks (the reader and classifier at each Check level, the
# tracker, each renderer: ns/event and allocs/event; BenchmarkTask: every
# task of issue 41's table as the whole command on 60-long-session, MB/s,
# so `go test -run '^$' -bench 'Task/final$' -cpuprofile cpu.prof
# ./cmd/ccfilter` is a profile; CCFILTER_BENCH_FILE=FILE runs pkg/stream's
# on FILE), then scripts/bench-table.sh: issue 41's table, every task
# against wc -l, jq, jaq and ccusage measured in the same run (medians of
# RUNS=5), the page cache dropped and the input read once before every
# series, each figure beside the issue's goal and against
# bench/baseline.tsv: a figure more than 10% worse is a REGRESSION and
# the target fails. BASELINE_UPDATE=1 rewrites the baseline: commit it
# only with a message that says why. 27 min with RUNS=3 on the busy
# machine of 2026-12-06, corpora included (docs/performance.md). make test runs neither: it compiles the
# benchmarks and runs the table's comparison test (internal/benchtable).
# bench-compare is the wider, older side by side (gojq, from a pipe, the
# partial, unanswered and generated corpora, RSS on 1 GiB): RUNS=1 SWEEP=0
# for a quick look. One after the other, also under make -j.
bench:
	@$(MAKE) --no-print-directory bench-go
	@$(MAKE) --no-print-directory bench-table

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-table:
	bash scripts/bench-table.sh

bench-compare:
	bash scripts/bench-compare.sh $(CORPORA)

# The list prices (pkg/spend/prices.json) from the npm package
# @pydantic/genai-prices (needs node and npm): commit the result in a
# commit that says which version.
update-prices:
	node scripts/update-prices.mjs $(PRICES_VERSION)

update-golden:
	$(GO) test ./pkg/render -update
	$(GO) test ./cmd/ccfilter -update

# Recompute the jq oracle of pkg/stream's capture tests.
expectations:
	for f in testdata/events/*.jsonl; do \
		jq -n -f testdata/expect/expect.jq $$f > testdata/expect/$$(basename $$f .jsonl).json || exit 1; \
	done

# Two builds cover the code that is not linux/amd64's: darwin/arm64 the
# portable kernels (scan_other.go, jsonx's purego path), kqueue and a
# unix that is not Linux (pipe_other.go); windows/amd64 the rest. (A
# linux/arm64 build was a third, compiling the same files again.)
cross:
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/ccfilter
	GOOS=windows GOARCH=amd64 $(GO) build -o /dev/null ./cmd/ccfilter

clean:
	rm -rf bin
	rm -rf man

# Man pages (man/ccfilter.1 and one per subcommand; `man -l man/ccfilter.1`),
# generated from the cobra command tree by TestManPages, so the generator
# (cobra/doc) is not linked into ccfilter. In a test binary main's import
# path is the package's, hence the long -X. SOURCE_DATE_EPOCH fixes the date.
.PHONY: man
man:
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) \
		$(GO) test -count=1 -ldflags "-X github.com/ccfilter/ccfilter/cmd/ccfilter.version=$(VERSION)" \
		-run '^TestManPages$$' ./cmd/ccfilter -update
