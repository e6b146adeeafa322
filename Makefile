SHELL := /bin/bash
# ImagePipe: `make test` installs what is missing, builds with zero warnings and runs every test.
# Warnings are errors through each package's manifest (`treatAllWarnings(as: .error)`), so a build
# that succeeds has none.
SWIFT ?= swift
# The one build recipe: the library, the tool and every test target.
SWIFT_BUILD := $(SWIFT) build --build-tests

.PHONY: all deps build test test-example test-usage test-deb test-fleet docs format lint release deb demo fuzz fuzz-build clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT_BUILD)

# Every test target in one process, in parallel: suites that compute or block run on threads of
# their own (TestSupport's `.dedicatedThreads`), so the others' timeouts never wait for them.
test: build
	$(SWIFT) test --skip-build
	@scripts/public-api.sh --check
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory test-example
	@$(MAKE) --no-print-directory test-usage
	@$(MAKE) --no-print-directory docs
	@$(MAKE) --no-print-directory test-fleet
	@$(MAKE) --no-print-directory test-deb

# The example third-party plugin: its own package, depending on ImagePipe by path with its Service
# trait off, built and tested the way an outside author would (its .build stays inside
# Examples/PAMCoder, ignored by git); it must resolve none of the server stack.
EXAMPLE := Examples/PAMCoder
test-example:
	$(SWIFT_BUILD) --package-path $(EXAMPLE)
	$(SWIFT) test --skip-build --package-path $(EXAMPLE)
	@scripts/check-plugin-dependencies.sh $(EXAMPLE)

# The Swift blocks of the README and of every DocC article, compiled as written
# (scripts/readme-snippets.sh writes each into Examples/Usage/ReadmeSnippets), and the batch
# thumbnailer, run on the sample images: Examples/Usage built as a newcomer's package is, outside
# the repository through Getting started's dependency line (scripts/usage-outside-repo.sh).
test-usage:
	@scripts/readme-snippets.sh
	@scripts/usage-outside-repo.sh

# The fleet test (scripts/fleet-test.sh: nginx, three servers, Redis, faults under wrk load), short:
# three seconds of wrk a phase against the debug build `make test` made; IMAGEPIPE=PATH tests another.
test-fleet:
	@IMAGEPIPE=$(or $(IMAGEPIPE),.build/debug/imagepipe) DURATION=3 SOURCES=12 VARIANTS=100 scripts/fleet-test.sh

# swift-format with the repository's .swift-format: `make format` rewrites, `make lint` (part of
# `make test`) fails on anything it would change.
FORMAT_PATHS := Sources Tests Examples/PAMCoder/Sources Examples/PAMCoder/Tests Examples/Usage/Sources Fuzz/Sources Benchmarks/Sources
format:
	$(SWIFT) format format --in-place --parallel --recursive $(FORMAT_PATHS)
lint:
	$(SWIFT) format lint --strict --parallel --recursive $(FORMAT_PATHS)
	@echo "swift-format: no findings"

# DocC catalogues of every library product that has users (swift-docc-plugin, offline), warnings as
# errors; archives in .build/plugins/Swift-DocC/outputs.
docs:
	$(SWIFT) package generate-documentation --target PipelineCore --target ImagePipe --target ImagePipeTargets \
		--target LoaderFile --target LoaderHTTP --target CacheRedis --target ImageServer --target PipelineConformance \
		--warnings-as-errors

# The tool as it is shipped: release, the Swift runtime and Foundation linked in, so a command
# does not spend its first milliseconds binding symbols in a dozen shared libraries.
# The static Swift runtime asks the linker to export every symbol (about 29,000), a table the
# runtime's start-up searches linearly (dladdr) on every run; nothing needs them. CAVIFShim's
# dav1d_default_settings stays exported without it: libdav1d, which the program links, defines it
# too, so the linker exports the program's definition for libavif to find first.
RELEASE_LINK_FLAGS := -Xlinker --no-export-dynamic
# The toolchain's lld (scripts/release-toolset.json) instead of gold, for its packed relative
# relocations: the 137 MB position-independent program starts with 112,000 relocations to apply,
# 2.7 MB of them as RELA; packed they are 22 KB, about 1.1 ms less CPU per process (ASLR kept).
RELEASE_LINK_FLAGS += --toolset scripts/release-toolset.json -Xlinker -z -Xlinker pack-relative-relocs
# `imagepipe serve` runs `imagepipe-serve`, built beside it (the second build reuses the first's objects).
RELEASE_BUILD := $(SWIFT) build -c release --static-swift-stdlib $(RELEASE_LINK_FLAGS)
release:
	$(RELEASE_BUILD) --product imagepipe
	$(RELEASE_BUILD) --product imagepipe-serve

# `make deb`: imagepipe_<version>_amd64.deb in .build/deb, from the release build, or from the
# binary IMAGEPIPE=PATH names (nothing is built then). `make test-deb` (part of `make test`, as
# root) packages the debug build `make test` made, installs it with dpkg -i, serves from the
# installed files as the imagepipe user and purges it again: what it checks is the packaging, and
# the debug build's Swift runtime comes from the toolchain, so that package is for the test alone.
deb: deps
	@if [ -z "$(IMAGEPIPE)" ]; then $(MAKE) --no-print-directory release; fi
	@scripts/make-deb.sh $(or $(IMAGEPIPE),.build/release/imagepipe)
test-deb:
	@scripts/test-deb.sh $(or $(IMAGEPIPE),.build/debug/imagepipe)

demo: deps release
	@scripts/demo.sh

# libFuzzer targets (Fuzz/): their own package, built with ASan and coverage into .build-fuzz, then
# run one at a time for FUZZ_SECONDS each (`make fuzz FUZZ_SECONDS=600 FUZZ_TARGETS="png gif"`).
# Swift keeps only the last -sanitize= flag, so both sanitizers go in one. Swift on Linux has no
# -sanitize=undefined; the C shims get UBSan, which the ASan runtime carries.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= png jpeg webp gif avif heif tiff bmp jxl svg transform-spec data-url disk-cache-name
FUZZ_BUILD_FLAGS := -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
	-Xcc -fsanitize=fuzzer-no-link,address,undefined -Xcc -fno-sanitize-recover=undefined
fuzz-build: deps
	nice -n 19 $(SWIFT) build --package-path Fuzz --scratch-path .build-fuzz $(FUZZ_BUILD_FLAGS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh $(FUZZ_TARGETS)

clean:
	rm -rf .build .build-fuzz
