SHELL := /bin/bash
# ImagePipe: `make test` installs what is missing, builds with zero warnings and runs every test.
SWIFT ?= swift
BUILD_LOG := .build/build-log.txt

.PHONY: all deps build test demo clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@mkdir -p .build
	$(SWIFT) build 2>&1 | tee $(BUILD_LOG); test $${PIPESTATUS[0]} -eq 0
	@scripts/check-warnings.sh $(BUILD_LOG)

test: deps
	@mkdir -p .build
	$(SWIFT) build --build-tests 2>&1 | tee $(BUILD_LOG); test $${PIPESTATUS[0]} -eq 0
	@scripts/check-warnings.sh $(BUILD_LOG)
	@scripts/run-tests.sh

demo: deps
	$(SWIFT) build -c release --product imagepipe
	@scripts/demo.sh

clean:
	rm -rf .build
