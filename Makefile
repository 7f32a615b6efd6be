# make demo  — install dependencies, build, compile examples/agent.toml, run a command under it.
# make check — install dependencies, build, run every test through ctest.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all deps build demo check bench clean

all: build

deps:
	./scripts/install-deps

build: deps
	cmake -S . -B $(BUILD) -G Ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	./scripts/demo $(BUILD)

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	./bench/startup.sh $(BUILD)

clean:
	rm -rf $(BUILD)
