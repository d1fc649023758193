# ketch — the two commands a newcomer needs are `make run` and `make test`.
BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
LISTEN ?= 127.0.0.1:9092
DATA_DIR ?= ./data

.PHONY: all deps build run test test-deps unit bench conformance reference fuzz clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: CMakeLists.txt
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/ketch --listen $(LISTEN) --data-dir $(DATA_DIR)

# Everything the client tests need (Python venv, npm, Go, Maven), pinned in committed files.
test-deps:
	@scripts/install-test-deps.sh

test: build test-deps
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900

unit: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L unit

bench: build
	bench/run.sh

# Re-records conformance/recordings/*.json against a live Apache Kafka 4.3.1.
conformance: build
	conformance/record.sh

reference:
	conformance/reference/kafka.sh start

fuzz:
	scripts/fuzz.sh

clean:
	rm -rf $(BUILD_DIR)
