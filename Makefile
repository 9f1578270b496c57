# The course's two commands (see README.md):
#   make lab    set up .venv if needed (and compile the kernels once), then open the student edition
#               of the course (student/) in JupyterLab; make lab-teacher opens the reference copy
#   make test   set up .venv if needed, then run the unit/property tests and every notebook (nbval)
# Only python3 (3.11+) is needed on the PATH.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
PORT   ?= 8888
# Jupyter refuses to run as root unless told to (containers, CI machines).
ROOTOK := $(if $(filter 0,$(shell id -u)),--allow-root,)
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg
# pytest's exit code 5 means "no tests collected": treat it as a failure.
CHECK5 := rc=$$?; if [ $$rc -eq 5 ]; then echo "ERROR: pytest collected no tests"; exit 1; fi; exit $$rc

.PHONY: setup warm lab lab-teacher site test-site lesson-times test test-lib test-boundscheck test-notebooks notebook student assignments test-nbgrader bench refresh-notebooks browser-test chromium clean

# Re-installs only when the project's dependencies change.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required, found " + sys.version.split()[0])'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

# Every numba kernel the lessons use, compiled once into the on-disk cache (tools/warm_cache.py, a
# progress bar, a few minutes); again only when the library's sources change.
WARM_STAMP  := $(VENV)/.warm-stamp
LIB_SOURCES := $(shell find lessons_lib -name '*.py' 2>/dev/null)

$(WARM_STAMP): $(STAMP) $(LIB_SOURCES)
	$(BIN)/python tools/warm_cache.py
	touch $(WARM_STAMP)

warm: $(WARM_STAMP)

# The student edition in student/ (exercise stubs, each solution one click away): written once,
# never overwritten, so a student's work there is kept (delete a notebook to get a fresh copy).
lab: setup warm
	$(BIN)/python tools/make_student.py --out student --keep-existing
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) --notebook-dir=student $(ROOTOK)

# The teachers' reference copy, with every solution in place.
lab-teacher: setup warm
	$(BIN)/jupyter lab --ip=127.0.0.1 --port=$(PORT) --notebook-dir=notebooks $(ROOTOK)

# How long each lesson's Run All takes once the kernels are compiled (a benchmark, never a test).
lesson-times: setup warm
	$(BIN)/python -m benchmarks.lesson_times

# Everything: library tests, every notebook executed and compared with its stored outputs,
# and every student notebook (exercise stubs in place, check cells expected to raise).
test: setup student
	$(BIN)/python -m pytest tests lessons_lib --doctest-modules notebooks build/student $(NBVAL); $(CHECK5)

test-lib: setup
	$(BIN)/python -m pytest tests lessons_lib --doctest-modules; $(CHECK5)

test-notebooks: setup student
	$(BIN)/python -m pytest notebooks build/student $(NBVAL); $(CHECK5)

# One notebook: make notebook NB=notebooks/01_metric_spaces_and_n_squared.ipynb
notebook: setup
	$(BIN)/python -m pytest $(NB) $(NBVAL); $(CHECK5)

# The library tests once more with numba's bounds checking on (an out-of-range index raises
# IndexError instead of reading or writing past an array), compiled into their own cache.
# CI runs it after make test (about 5 minutes on two cores).
test-boundscheck: setup
	NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=build/numba-boundscheck $(BIN)/python -m pytest -q tests; $(CHECK5)

# Student versions of the notebooks in build/student/ (solutions replaced by stubs).
student: setup
	$(BIN)/python tools/make_student.py --out build/student

# nbgrader (an optional extra for teachers, see TEACHING.md): build/nbgrader is a standard nbgrader
# course directory, every lesson with exercises released by nbgrader's own generate_assignment.
NBGRADER_STAMP := $(VENV)/.nbgrader-stamp

$(NBGRADER_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,nbgrader]'
	touch $(NBGRADER_STAMP)

assignments: setup $(NBGRADER_STAMP)
	$(BIN)/python tools/nbgrader_kit.py course --out build/nbgrader

# nbgrader grades every lesson as TEACHING.md describes (about 8 minutes; CI runs it after make test).
test-nbgrader: setup $(NBGRADER_STAMP)
	$(BIN)/python -m pytest -q tests/nbgrader_autograde.py; $(CHECK5)

# Speed and memory: regenerates the stored results under data/results/ (about 40 minutes on two
# cores): the three benchmark suites (bench_article.csv, bench_scaled.csv, bench_dynamic.csv, every
# result checked, peers beside ours), lessons 02-03's grids and hashes (python -m lessons_lib.labs.grids
# --store), lesson 05's quadtree scaling, lessons 05-07's measurements
# (python -m lessons_lib.labs.quadtrees|loose --store), lesson 13's simulation files, lesson 15's
# partitioned join (partitioned_runs.csv, partitioned_tasks.csv), then prints the course's goals
# (benchmarks/, outside the package). Timing never fails the run; a wrong pair does. ARGS runs only
# what it says: make bench ARGS="--suite article" runs a suite (python -m lessons_lib.bench),
# make bench ARGS="--only quadtrees" some goals (python -m benchmarks).
BENCH_STAMP := $(VENV)/.bench-stamp

$(BENCH_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,peers]'
	touch $(BENCH_STAMP)

bench: setup $(BENCH_STAMP)
ifeq ($(strip $(ARGS)),)
	$(BIN)/python -m lessons_lib.bench --suite all
	$(BIN)/python -m benchmarks.goals_quadtrees data/results/quadtree_scaling.csv
	$(BIN)/python -m benchmarks --only quadtrees | tee data/results/bench_quadtrees.txt
	@echo "lessons 02-03: grid and spatial hash measurements (a few minutes)"
	$(BIN)/python -m lessons_lib.labs.grids --store
	@echo "lessons 05-07: quadtree and loose-structure measurements (about 25 minutes)"
	$(BIN)/python -m lessons_lib.labs.quadtrees --store
	$(BIN)/python -m lessons_lib.labs.loose --store
	@echo "lesson 13: simulation targets and stored results, sim_scenes.csv included (about 9 minutes) -> data/results/sim_targets.txt"
	$(BIN)/python -m benchmarks.goals_sim --store > data/results/sim_targets.txt
	@echo "lesson 13: Hilbert against random numbering of the agents (a few minutes)"
	$(BIN)/python -m lessons_lib.labs.sim_layout --store
	@echo "lesson 15: partitioned join on 1 and 2 workers, 10 million boxes out of core (about 3 minutes)"; $(BIN)/python -m lessons_lib.bench.partitioned
	@echo "speed on both cores: 100,000 sparse boxes against the libraries, whole frames up to 2,000,000 agents (about 5 minutes)"
	$(BIN)/python -m benchmarks.goals_speed --store
	@echo "the answer set's C beside ours on the same frames (skipped without ../shared/anchors; about 10 minutes)"
	$(BIN)/python -m benchmarks.anchor_c --sizes 20000,100000,500000 --save
	@echo "Box2D's dynamic tree beside ours on the same frames (skipped without ../shared/anchors; about 6 minutes)"
	$(BIN)/python -m benchmarks.anchor_box2d --sizes 20000,100000,500000 --save
	$(BIN)/python -m benchmarks --skip quadtrees --skip "lesson 13" --skip "speed:"
else
	$(BIN)/python -m $(if $(findstring --suite,$(ARGS)),lessons_lib.bench,benchmarks) $(ARGS)
endif

# Re-execute the lessons that plot stored results (after make bench), so their saved outputs match
# the new files and nbval passes: every notebook that calls load_results or reads data/results/.
RESULT_NOTEBOOKS = $(shell grep -l -e load_results -e 'data_path.\\"results' notebooks/*.ipynb)

refresh-notebooks: setup
	$(BIN)/python tools/execute_lessons.py $(RESULT_NOTEBOOKS)

# The course as a static web site from the executed notebooks (Jupyter Book, offline; nothing is
# executed): build/site/html/, ready to publish as it is. test-site opens every page in headless
# Chromium: every page and image loads, every internal link resolves, no error output.
SITE_STAMP := $(VENV)/.site-stamp

$(SITE_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,site,browser]'
	touch $(SITE_STAMP)

site: setup $(SITE_STAMP)
	$(BIN)/python tools/build_site.py --out build/site

test-site: site chromium
	$(BIN)/python tools/site_test.py --site build/site/html --chromium $(CHROMIUM)

# Every notebook run in JupyterLab in headless Chromium, as a student would (tools/browser_test.py):
# no cell errors, every widget renders, every Stepper's Next changes its picture, every Explorer
# (also in tools/explorer_demo.ipynb) answers real mouse clicks and drags correctly;
# screenshots in build/screenshots/. ARGS passes options, e.g. ARGS=--break-widgets.
BROWSER_STAMP := $(VENV)/.browser-stamp
CHROMIUM      := /usr/bin/chromium

$(BROWSER_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,browser]'
	touch $(BROWSER_STAMP)

browser-test: setup $(BROWSER_STAMP) chromium
	$(BIN)/python tools/browser_test.py --chromium $(CHROMIUM) $(ARGS)

# Debian's chromium (Playwright's own browser download does not work here).
chromium:
	@if [ -x $(CHROMIUM) ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "$(CHROMIUM) is missing: installing Debian's chromium package"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	else \
	  echo "ERROR: $(CHROMIUM) is missing. Install Debian's chromium package (as root: apt-get install chromium), then rerun make browser-test."; \
	  exit 1; \
	fi; \
	test -x $(CHROMIUM) || { echo "ERROR: installing chromium did not provide $(CHROMIUM)"; exit 1; }

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis build
