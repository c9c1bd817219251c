# ndrmilter: see README.md. Every target runs from a clean clone.
GO      ?= go
BIN     ?= ./ndrmilter
SHARED  ?= ../shared
STATICCHECK_VERSION ?= v0.8.2
# The version and commit stamped in the binary (ndrmilter version).
VERSION ?= $(shell ./scripts/version)
COMMIT  ?= $(shell ./scripts/version --commit)

.PHONY: build generate test deps deps-test run lint bench bench-speed bench-import bench-record bench-memory bench-filter fuzz score e2e clean man deb

# build: a static binary with the version stamped from git.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/ndrmilter

# generate compiles rules/rules.yaml into rules/builtin_gen.go and
# catalog/messages/*.yaml into catalog/builtin_gen.go (the built-in rules and
# words are Go tables in the binary: no YAML is read at start) and
# regenerates the man pages. Run it after changing rules.yaml: a test fails
# while builtin_gen.go is stale.
generate:
	$(GO) generate ./rules ./catalog ./cmd/ndrmilter ./message

# man regenerates the man pages and shell completions in doc/ from the
# command definitions (a test fails when the committed ones are stale).
man:
	$(GO) generate ./cmd/ndrmilter

# deb builds dist/ndrmilter_VERSION_ARCH.deb (scripts/build-deb; nfpm from
# the Go module proxy). scripts/deb-check installs and purges it.
deb:
	GO=$(GO) VERSION=$(VERSION) COMMIT=$(COMMIT) ./scripts/build-deb

# deps installs the real servers every test drives, when they are missing:
# Redis, and for the end-to-end tests Postfix, the SASL tools,
# Pigeonhole's sieve-test and Chromium (the helpdesk page in a browser). It needs root and Debian's apt-get; it does
# nothing when everything is there.
deps:
	./scripts/deps all

# deps-test is the part of deps that "make test" needs: Redis and zsh.
deps-test:
	./scripts/deps test

# test runs the tests as any user, with Redis the only server they need.
test: deps-test
	$(GO) test ./...

# run starts the milter on the embedded (bbolt) ledger in ./data.
run: build
	$(BIN) serve --listen inet:127.0.0.1:9890 --data ./data --domain example.org

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# bench-speed measures, against references built and run in the same run
# (issue 14): the start-up of "ndrmilter code 5.1.1" against a Go
# hello-world, "ndrmilter explain --json" over the repository's bounce files
# against a program that only reads and MIME-walks them, and parse+classify
# in process on one core (msgs/s, MB/s, allocs/msg). Three runs;
# BENCHSPEED_FLAGS="-corpus DIR" measures explain over other files.
bench-speed:
	$(GO) run ./internal/cmd/benchspeed -runs 3 $(BENCHSPEED_FLAGS)

# bench-import times "ndrmilter ledger import" of a generated 80,000-message
# Postfix log against gzip -1 of the same file, three runs (issue 14).
bench-import:
	$(GO) run ./internal/cmd/benchimport -runs 3

# bench-record measures recording an outbound message on the embedded
# ledger at its default durability (fsynced before the message is
# acknowledged), 1 and 10 concurrent callers, three runs: mean latency per
# call and cost per record of Put (journalled: one fdatasync per group),
# against one bbolt transaction per record and the disk's own flush time
# measured in the same run (issue 14).
bench-record:
	$(GO) test -run '^$$' -bench BenchmarkRecord -benchtime 2000x -count 3 ./ledger

# bench-memory measures the memory a bounce in flight costs the milter
# (issue 14: at most 4x the message size plus 64 kB), for bounces of 5 kB,
# 50 kB and 1 MB sent through real milter sessions on loopback: bytes
# allocated per bounce, live heap per bounce with 50 held at once before
# their end of message, and the peak heap per bounce while those 50 end;
# each also as a ratio to the goal (".../goal"). Three runs.
bench-memory:
	$(GO) test -run '^$$' -bench BenchmarkBounceMemory -benchtime 50x -count 3 -v ./milter | grep -E '^(Benchmark|ok|FAIL)|per-bounce'

# bench-filter measures Postfix with ndrmilter filter after the queue
# (content_filter) against a no-op go-smtp proxy in the same run: messages
# per second, CPU per message, the ratio (scripts/bench-filter; as root).
bench-filter: deps
	./scripts/bench-filter

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./dsn

score: build
	$(SHARED)/tools/corpus-score --bin $(BIN) --misses 40

# e2e runs the end-to-end tests: private Postfix instances (as root) with
# ndrmilter as their milter, milters sharing Redis, and the helpdesk page in
# headless Chromium. Each Postfix test has an instance of its own; they run
# four at a time.
e2e: deps build
	NDRMILTER_BIN=$(abspath $(BIN)) $(GO) test -tags e2e -count 1 -p 1 -parallel 4 -v ./internal/postfixtest ./cmd/ndrmilter ./helpdesk

clean:
	rm -f $(BIN)
	rm -rf dist
