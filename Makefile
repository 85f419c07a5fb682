# gamesolver: the two commands are `make run` and `make test`.
GO       ?= go
BIN      := bin/gamesolver
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
ADDR     ?= :8080
DATA_DIR ?= ./data
# Every test, fuzz seed corpora included; the timeout is a guard, not a goal.
TEST_FLAGS ?= -count=1 -timeout 20m
# Tables built once and shared by every test binary, and by later runs.
TEST_DATA_DIR ?= $(CURDIR)/data/test
BENCH      ?= .
BENCH_PKGS ?= ./...

.PHONY: run test race bench fuzz openapi lint build docker clean

## run: start the service on its embedded defaults (in-memory cache, data in ./data)
run: build
	./$(BIN) serve --addr $(ADDR) --data-dir $(DATA_DIR)

## test: every test, with a private redis-server for the integration tests; then the job
## queue and the cache once more under the race detector (about 1.5 min; it needs cgo, a
## C compiler: without one that run is skipped, and said so)
test:
	$(GO) run ./cmd/gamesolver teeko build --quiet --data-dir $(TEST_DATA_DIR)
	GAMESOLVER_TEST_DATA_DIR=$(TEST_DATA_DIR) .ci/with-redis $(GO) test $(TEST_FLAGS) ./...
	@if [ "$$($(GO) env CGO_ENABLED)" = 1 ]; then \
		echo "$(GO) test -race $(TEST_FLAGS) ./service/jobs/ ./service/cache/"; \
		.ci/with-redis $(GO) test -race $(TEST_FLAGS) ./service/jobs/ ./service/cache/; \
	else \
		echo "make test: no C compiler (cgo): the race detector's run of service/jobs and service/cache is skipped"; \
	fi

## race: the service's and the engines' concurrent code under the race detector (about
## 9 min for ./service/..., 14 for engine/polyomino, on two cores: make test runs only
## service/jobs and service/cache so; run it before merging concurrency changes)
race:
	$(GO) run ./cmd/gamesolver teeko build --quiet --data-dir $(TEST_DATA_DIR)
	GAMESOLVER_TEST_DATA_DIR=$(TEST_DATA_DIR) .ci/with-redis $(GO) test -race -count=1 -timeout 60m ./service/... ./engine/polyomino/ ./engine/capture/

## bench: every benchmark (see BENCHMARKS.md for the figures and their commands)
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -timeout 2h $(BENCH_PKGS)

## fuzz: every fuzz target in turn, FUZZTIME each (default 60s); make test runs their seed corpora
fuzz:
	GAMESOLVER_TEST_DATA_DIR=$(TEST_DATA_DIR) .ci/fuzz

## openapi: regenerate openapi/ from the swag annotations of package api
openapi:
	$(GO) test ./openapi -run TestDocumentIsFresh -count=1 -update

## lint: formatting, vet, staticcheck (unused code, suspicious constructs) and known vulnerabilities
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^openapi/')); if [ -n "$$out" ]; then echo "gofmt wants to change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	.ci/staticcheck
	.ci/vulncheck

## build: a static binary in bin/
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/gamesolver

## docker: the container image
docker:
	docker build --build-arg VERSION=$(VERSION) -t gamesolver:$(VERSION) -t gamesolver:latest .

clean:
	rm -rf bin
