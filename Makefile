# make demo  — install dependencies, build, compile examples/agent.toml, run a command under it.
# make check — install dependencies, build, run every test through ctest.
# make check-sanitize — the same under ASan and UBSan (CI runs both).
# make install [PREFIX=/usr/local] [DESTDIR=] — the tools, their helper, man pages, completions
# make deb — build/tartaros_<version>_<arch>.deb (docs/install.md)
# make check-fuzz — every libFuzzer target for FUZZ_CI_SECONDS each (CI runs it last);
# make fuzz FUZZ_SECONDS=600 — the same, longer (tests/fuzz/README.md).
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

.PHONY: all deps build demo check check-sanitize fuzz-build check-fuzz fuzz bench format clean install deb

all: build

deps:
	./scripts/install-deps

build: deps
	cmake -S . -B $(BUILD) -G Ninja
	cmake --build $(BUILD) -j $(JOBS)

# Installs under $(DESTDIR)$(PREFIX): every destination is relative to the prefix given here,
# none is built into a binary (cmake/install.cmake).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# The Debian package, with CPack: the same layout under /usr, Depends from dpkg-shlibdeps.
deb: build
	cd $(BUILD) && cpack -G DEB

demo: build
	./scripts/demo $(BUILD)

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The same tests with the compiler, the reader, the proxy and the tests built with ASan and
# UBSan. tartaros-exec stays static musl (sanitizers apply to glibc targets only), so the
# integration tests that exercise it alone add nothing there and are left out:
# it.plan_damage (tartaros-exec on a plan cut at every byte), it.limits and it.lifecycle
# (cgroups, rlimits, timeouts, leftovers; the compiler runs once per case, as elsewhere);
# package.* (the package is made from the plain build; a sanitized one would ship the sanitizers).
SANITIZE_SKIPS = ^(it\.(plan_damage|limits\..*|lifecycle\..*)|package\..*)$$
check-sanitize: deps
	cmake -S . -B $(BUILD)-sanitize -G Ninja -DTARTAROS_SANITIZE=ON
	cmake --build $(BUILD)-sanitize -j $(JOBS)
	cd $(BUILD)-sanitize && ctest --output-on-failure -j $(JOBS) -E '$(SANITIZE_SKIPS)'

# The libFuzzer targets (tests/fuzz/): a clang build of their own under $(BUILD)/fuzz, made
# through the fuzz_targets target of the plain build, then each target run for a bounded time
# from its committed seeds, as many at once as CPUs (tests/fuzz/run_fuzzers.sh). What a run adds to a
# corpus and any crash stay under $(FUZZ_WORK).
FUZZ_CI_SECONDS ?= 20
FUZZ_SECONDS ?= 600
FUZZ_WORK ?= $(BUILD)/fuzz-work
fuzz-build: deps
	cmake -S . -B $(BUILD) -G Ninja
	cmake --build $(BUILD) --target fuzz_targets -j $(JOBS)

check-fuzz: fuzz-build
	./tests/fuzz/run_fuzzers.sh $(BUILD)/fuzz/tests/fuzz $(FUZZ_CI_SECONDS) $(FUZZ_WORK)

fuzz: fuzz-build
	./tests/fuzz/run_fuzzers.sh $(BUILD)/fuzz/tests/fuzz $(FUZZ_SECONDS) $(FUZZ_WORK) $(FUZZ_TARGETS)

# Every C and C++ source through the one formatter (.clang-format); tests/format_check.sh
# checks it.
format:
	find compiler enforcer front ir proxy shared tests bench \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -print0 | \
	    xargs -0 clang-format -i

bench: build
	./bench/startup.sh $(BUILD)
	./bench/syscalls.sh $(BUILD)
	./bench/plan_cache.sh $(BUILD)
	./bench/proxy.sh $(BUILD)
	./bench/broker.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize
