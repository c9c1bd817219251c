# ndrmilter: see README.md. Every target runs from a clean clone.
GO      ?= go
BIN     ?= ./ndrmilter
SHARED  ?= ../shared
STATICCHECK_VERSION ?= v0.8.2

.PHONY: build test deps deps-test run lint bench fuzz score e2e clean

build:
	$(GO) build -o $(BIN) ./cmd/ndrmilter

# deps installs the real servers every test drives, when they are missing:
# Redis, and for the end-to-end tests Postfix, the SASL tools and
# Pigeonhole's sieve-test. It needs root and Debian's apt-get; it does
# nothing when everything is there.
deps:
	./scripts/deps all

# deps-test is the part of deps that "make test" needs: Redis only.
deps-test:
	./scripts/deps test

# test runs the tests as any user, with Redis the only server they need.
test: deps-test
	$(GO) test ./...

# run starts the milter on the embedded (bbolt) ledger in ./data.
run: build
	$(BIN) serve --listen inet:127.0.0.1:8891 --data ./data --domain example.org

lint:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./dsn

score: build
	$(SHARED)/tools/corpus-score --bin $(BIN) --misses 40

# e2e runs the end-to-end tests: private Postfix instances (as root) with
# ndrmilter as their milter, and milters sharing Redis. Each Postfix test has
# an instance of its own; they run four at a time.
e2e: deps build
	NDRMILTER_BIN=$(abspath $(BIN)) $(GO) test -tags e2e -count 1 -p 1 -parallel 4 -v ./internal/postfixtest ./cmd/ndrmilter

clean:
	rm -f $(BIN)
