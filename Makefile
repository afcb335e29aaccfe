# ccfilter — see README.md.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
GO ?= go

.PHONY: build install test test-short lint fuzz bench bench-go bench-compare update-golden expectations cross clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ccfilter ./cmd/ccfilter

install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/ccfilter

# The README's test command: vet, the layering check, then every test with
# the race detector, and jsonx once more built without its vector kernel
# (-tags purego: the path of every other architecture).
test: lint
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -tags purego ./internal/jsonx

test-short:
	$(GO) test -short ./...

# go vet, plus the architecture rule: cobra and pflag live only in the
# command layer.
lint:
	$(GO) vet ./...
	@bad=$$($(GO) list -f '{{.ImportPath}}: {{join .Deps " "}}' ./pkg/... ./internal/... | grep -E 'spf13/(cobra|pflag)' || true); \
	if [ -n "$$bad" ]; then echo "library packages must not import cobra/pflag:"; echo "$$bad"; exit 1; fi

fuzz:
	$(GO) test ./pkg/stream -run '^$$' -fuzz FuzzDecoder -fuzztime 60s
	$(GO) test ./internal/jsonx -run '^$$' -fuzz FuzzValidateDecode -fuzztime 60s
	$(GO) test ./internal/jsonx -run '^$$' -fuzz FuzzBlockScanner -fuzztime 60s

# The Go benchmarks (the reader and classifier at each Check level, the
# tracker, the tree, each renderer: ns/event and allocs/event besides ns/op
# and B/op; CCFILTER_BENCH_FILE=FILE runs pkg/stream's on FILE), then the
# side-by-side table of scripts/bench-compare.sh (ccfilter, jq and gojq on a
# generated 1 GiB file, and the RSS flatness check against a 100 MiB one;
# QUICK=1: 100 MiB against 20 MiB; BENCH_FILE=FILE: that file). One after
# the other, also under make -j, so that neither disturbs the other's timings.
BENCH_FILE ?=
bench:
	@$(MAKE) --no-print-directory bench-go
	@$(MAKE) --no-print-directory bench-compare

bench-go:
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-compare:
	bash scripts/bench-compare.sh $(BENCH_FILE)

update-golden:
	$(GO) test ./pkg/render -update
	$(GO) test ./cmd/ccfilter -update

# Recompute the jq oracle of pkg/stream's capture tests.
expectations:
	for f in testdata/events/*.jsonl; do \
		jq -n -f testdata/expect/expect.jq $$f > testdata/expect/$$(basename $$f .jsonl).json || exit 1; \
	done

cross:
	GOOS=linux GOARCH=arm64 $(GO) build -o /dev/null ./cmd/ccfilter
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
