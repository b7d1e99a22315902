# Maru: `make run` starts it, `make test` runs every test. Both install what they need first.
# Builds go to a shared folder outside the checkout so that clones reuse them.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/maru/target
CORE := --no-default-features

.PHONY: run serve test test-core ui bench package
# The desktop window when there is a display, else the server for a browser.
run: ui
	scripts/run.sh

# The server only, for a browser or scripts: http://127.0.0.1:8765
serve: ui
	MARU_HEADLESS=1 scripts/run.sh

ui:
	scripts/deps.sh run
	npm ci --prefix ui --no-audit --no-fund
	npm run build --prefix ui

test:
	scripts/deps.sh test
	scripts/test.sh

# Installable packages (.deb, AppImage) in dist/.
package:
	scripts/package.sh

test-core:
	cargo test --workspace $(CORE)

bench:
	cargo bench -p maru $(CORE) --bench store
	cargo bench -p maru-tests --bench turn
	cargo bench -p maru-tests --bench kill_loop
	cargo bench -p maru-tests --bench idle
	cargo bench -p maru-tests --bench search
	cargo bench -p maru-tests --bench retrieval
	npm ci --prefix tests/mcp --no-audit --no-fund
	cargo bench -p maru-tests --bench tool_calls
