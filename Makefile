# ketch — the two commands a newcomer needs are `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
# Tests run at once by ctest: one more than cores (much of the suite waits on sessions,
# rebalances and token lifetimes): 3 on 2 cores is ~20% faster than 2 (docs/performance.md,
# "make test's time").
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
LISTEN ?= 127.0.0.1:9092
DATA_DIR ?= ./data

.PHONY: all deps test-apt build broker run test test-deps unit bench bench-many bench-first-reads bench-share bench-connections bench-big-log bench-cold-reads bench-growth bench-registry bench-console bench-tenancy bench-cluster bench-minio conformance reference fuzz clean

all: build

# Debian packages: deps/apt.txt builds the broker; deps/apt-test.txt adds what tests need.
deps:
	@scripts/install-deps.sh deps/apt.txt

test-apt:
	@scripts/install-deps.sh deps/apt.txt deps/apt-test.txt

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

# Everything: the broker, its tools, the tests.
build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The broker binary alone: what `make run` needs.
broker: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target ketch

run: broker
	$(BUILD_DIR)/ketch --listen $(LISTEN) --data-dir $(DATA_DIR)

# Everything the client tests need (Python venv, npm, Go, Maven), pinned in committed files.
test-deps:
	@scripts/install-test-deps.sh

# Configured again after test-apt: a build dir first made by `make run`
# (no GoogleTest then) gains its tests. On a failure, why each test failed is printed last
# (CI keeps the tail of the output).
test: test-apt test-deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j $(JOBS)
	(cd $(BUILD_DIR) && ctest --output-on-failure -j $(TEST_JOBS) --timeout 900) \
		|| { scripts/ctest-failures.py $(BUILD_DIR); exit 1; }

unit: test-apt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j $(JOBS)
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L unit

bench: build
	bench/run.sh

# Many partitions (issue 24): 10,000 partitions against Kafka 4.3.1; 15-30 minutes on a
# loaded 2-core VM (Kafka's part is most of it). Knobs at the top of bench/many_partitions.sh.
bench-many: build
	bench/many_partitions.sh

# Partitions never written (issue 24): 10,000 partitions, 1,000 written; start-up and the first
# ListOffsets of all of them after a restart and a kill -9, ketch only (KETCH_BIN for another
# build); ~3 minutes. Knobs at the top of bench/first_reads.sh.
bench-first-reads: build
	bench/first_reads.sh

# Share groups (ShareFetch, 1 and 4 consumers) and EOS transactions (version 1 and 2) against the
# reference Kafka in the same run (issue 23); ~5 minutes. Knobs at the top of bench/share_eos.sh.
bench-share: build
	bench/share_eos.sh

# Many connections (issue 24): RSS per idle connection with 10,000 of them, then 1,000 of them
# active, and produce latency alone, among the idle and among the active ones; ketch only; ~1 min.
bench-connections: broker
	bench/idle_connections.py

# Big log and kill -9 (issue 24): BL_GIB GiB (default 4) in BL_PARTITIONS (200), kill -9 under
# load, time to the first answer and to every partition served, bytes read by recovery; ketch
# only; a few minutes. Knobs at the top of bench/big_log.sh.
bench-big-log: broker
	bench/big_log.sh

# Cold reads (issue 24): COLD_ARGS (default 10 GiB) read back from disk with its pages evicted
# against the disk's sequential read limit measured in the same run, and a tailing
# consumer's produce-to-consume p99 alone and during that catch-up; ketch only; ~6 minutes.
# Needs Go. Knobs: bench/cold_reads.py --help.
bench-cold-reads: broker
	python3 bench/cold_reads.py $(COLD_ARGS) --out bench/results/cold-reads-$$(date -u +%Y-%m-%dT%H%MZ).json

# Growth curves (issue 24): throughput, p99 and RSS against partitions, connections, consumers
# in a group and record size, ketch beside Kafka 4.3.1; a PNG and JSON in bench/results/.
# ~25 minutes (GROWTH_ARGS=--quick: ~8). Needs Go and Java (make test-deps).
bench-growth: broker
	test -x $(BUILD_DIR)/bench-venv/bin/python || python3 -m venv $(BUILD_DIR)/bench-venv
	$(BUILD_DIR)/bench-venv/bin/python -m pip install -q --disable-pip-version-check -r bench/requirements.txt
	$(BUILD_DIR)/bench-venv/bin/python bench/growth.py $(GROWTH_ARGS)

# Schema registry (issue 20): registration/lookup p50/p99 and id lookups per second, with the
# load average and CPU steal of each step; ~2 minutes. Needs the test venv (make test-deps) and Go.
# Cluster mode beside single-node ketch (PostgreSQL and MinIO on loopback; BENCH_OBJECT_STORE=moto: moto):
# produce/consume MiB/s, produce-to-consume p50/p99, object-store PUTs and bytes per MiB, the store's raw PUT
# rate (bench/cluster_bench.py); ~5 minutes. Needs the test venv and Go.
bench-cluster: broker bench-minio
	.venv/bin/python bench/cluster_bench.py

# MinIO for bench-cluster, built from the version bench/minio/go.mod pins (its `tool` line; go.sum checks
# every module). The first build takes about 10 minutes on 2 cores; later ones reuse Go's build cache.
MINIO_BIN = $(BUILD_DIR)/bench/minio
bench-minio: $(MINIO_BIN)
$(MINIO_BIN): bench/minio/go.mod bench/minio/go.sum
	mkdir -p $(dir $@)
	cd bench/minio && go build -o $(abspath $@) github.com/minio/minio

bench-registry: broker
	.venv/bin/python bench/registry_bench.py --out bench/results/registry-$$(date -u +%Y-%m-%dT%H%MZ).json

# Console (issue 22): produce throughput and p99 with the console off / on and idle / watched
# (Traffic polled as the page does), then the message browser on a 10 GiB topic (needs ~11 GB
# free in $$TMPDIR; removed afterwards); ~10 minutes. Needs the test venv and Go.
bench-console: broker
	.venv/bin/python bench/console_bench.py --out bench/results/console-$$(date -u +%Y-%m-%dT%H%MZ).json

# Tenancy (issue 25): produce / consume throughput, produce-to-consume p50/p99 and broker CPU per MiB
# with --tenancy off and on in the same run (two SASL users: two tenants when on), the ratios on/off,
# then Metadata latency and the two tenants' throughput alone and beside 1,000 tenants x 10 topics, then one tenant's produce
# rate alone and beside a tenant throttled by its producer_byte_rate; ~6 minutes
# (TENANCY_ARGS=--tenants 0 --neighbour-rounds 0: the cost part only, ~2). Needs the test venv and Go.
bench-tenancy: broker
	.venv/bin/python bench/tenancy_bench.py $(TENANCY_ARGS) --out bench/results/tenancy-$$(date -u +%Y-%m-%dT%H%MZ).json

# Re-records conformance/recordings/*.json against a live Apache Kafka 4.3.1,
# and conformance/registry/recordings/*.json against Apicurio Registry 2.4.2
# (built from Maven Central by conformance/registry/apicurio.sh; needs Java and Maven),
# then runs the command line's client tests against Kafka (scripts/cli-reference.sh) and the
# outside suites (tests/outside: franz-go's and kafka-python's own integration tests) against
# Kafka, checking their allow-lists (scripts/outside-reference.sh), and the tests driving
# Kafka's own tools and Kafka Streams against Kafka (scripts/tools-reference.sh).
conformance: build
	conformance/record.sh
	conformance/registry/record.sh
	scripts/cli-reference.sh
	scripts/outside-reference.sh
	scripts/tools-reference.sh

reference:
	conformance/reference/kafka.sh start

fuzz:
	scripts/fuzz.sh

clean:
	rm -rf $(BUILD_DIR)
