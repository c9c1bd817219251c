# ndrmilter: see README.md. Every target runs from a clean clone.
GO      ?= go
BIN     ?= ./ndrmilter
SHARED  ?= ../shared
STATICCHECK_VERSION ?= v0.8.2

.PHONY: build test deps run lint bench bench-import fuzz score e2e clean

build:
	$(GO) build -o $(BIN) ./cmd/ndrmilter

# deps installs the real servers the tests drive (Postfix, Redis, SASL tools)
# when they are missing. It needs root and Debian's apt-get; it does nothing
# when everything is there.
deps:
	./scripts/deps

test: deps
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

# bench-import times "ndrmilter ledger import" of a generated 80,000-message
# Postfix log against gzip -1 of the same file, three runs (issue 14).
bench-import:
	$(GO) run ./internal/cmd/benchimport -runs 3

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./dsn

score: build
	$(SHARED)/tools/corpus-score --bin $(BIN) --misses 40

e2e: deps build
	$(GO) test -tags e2e -count 1 -run E2E -v ./cmd/ndrmilter

clean:
	rm -f $(BIN)
