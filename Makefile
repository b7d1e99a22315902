# Maru: `make run` starts it, `make test` runs every test. Both install what they need first.
# Builds go to a shared folder outside the checkout so that clones reuse them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/maru/target
CORE := --no-default-features

.PHONY: run test test-core ui bench
run:
	scripts/deps.sh run
	$(MAKE) ui
	cargo run -p maru $(CORE) --release -- serve --ui-dir ui/dist

ui:
	npm ci --prefix ui --no-audit --no-fund
	npm run build --prefix ui

test:
	scripts/deps.sh test
	scripts/test.sh

test-core:
	cargo test --workspace $(CORE)

bench:
	cargo bench -p maru $(CORE) --bench store
	cargo bench -p maru-tests --bench turn
