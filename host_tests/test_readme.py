"""The README and docs/ say what the code does: their examples run, the paths they name exist, the
README stays a front door, the contract is cited by its path, and docs/figures.md names only figures
the benchmarks print, each Pico figure with its date and MicroPython build."""
import glob
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 250
# The page as tools/bench/bench.py reads it (loaded by path: tools/ stays off sys.path for the other tests).
_spec = importlib.util.spec_from_file_location("figures_page", os.path.join(ROOT, "tools", "bench", "figures_page.py"))
figures_page = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figures_page)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def documents():
    """README.md and every page of docs/, as paths from the repository's root."""
    return ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def pages():
    """Every page a reader follows: the README, docs/ and the builder's documents in hardware/."""
    return documents() + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "hardware", "*.md")))


def table_rows(text):
    return [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("|--")]


def test_led_table_is_the_drivers_table():
    leds = read("firmware/hardware/leds.py")
    drivers = leds[leds.index("| signal ") : leds.index("RGB colours are at full scale")]
    page = read("docs/leds.md")
    start = page.index("| signal ")
    shown = page[start : page.index("\n\n", start)] if "\n\n" in page[start:] else page[start:]
    assert table_rows(shown) == table_rows(drivers)


def test_every_table_has_its_header_row():
    # A Markdown table without its |---| row renders as a paragraph of pipes.
    headless = []
    for path in pages():
        lines = re.sub(r"```.*?```", "", read(path), flags=re.S).splitlines()
        for i, line in enumerate(lines):
            starts = line.startswith("|") and (i == 0 or not lines[i - 1].startswith("|"))
            if starts and not re.match(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$", lines[i + 1] if i + 1 < len(lines) else ""):
                headless.append("%s: %s" % (path, line[:60]))
    assert not headless, "tables without a header row:\n" + "\n".join(headless)


def test_replay_example_prints_what_the_docs_say():
    page = read("docs/testing.md")
    block = re.search(r"\$ printf '(.*?)' \| python3 tools/replay.py -\n(.*?)```", page, re.S)
    assert block, "docs/testing.md's replay example is missing"
    events = block.group(1).replace("\\n", "\n")
    want = block.group(2).strip().splitlines()
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "replay.py"), "-"], input=events, capture_output=True, text=True)
    assert r.stdout.strip().splitlines() == want


def test_set_up_commands_come_first():
    readme = read("README.md")
    first_block = readme[readme.index("```sh") : readme.index("```", readme.index("```sh") + 5)]
    assert "make sim" in first_block and "make test" in first_block


def test_readme_stays_short_and_leads_to_every_page():
    readme = read("README.md")
    lines = readme.count("\n")
    assert lines <= README_MAX_LINES, "README.md has %d lines: move the detail into docs/ (at most %d)" % (lines, README_MAX_LINES)
    assert re.findall(r"^## (.*)", readme, re.M)[0] == "Where things live", "the map comes right after the two commands"
    unlinked = [p for p in documents()[1:] if "(%s)" % p not in readme and "(%s#" % p not in readme]
    assert not unlinked, "README.md does not link %s" % unlinked


# Backticked paths that name files outside this repository, and why.
ELSEWHERE = {
    "mchess/magic-board.md": "python-mchess's protocol description (docs/usb-link.md links the repository)",
}
# Folders a clone does not have until a command makes them.
MADE = ("build/", ".venv/", "node_modules/")


def named_paths(path, text):
    """(name, resolved path) for each file or folder a page names: its relative links, and its
    backticked repository paths (a word with a slash, from the repository's root)."""
    here = os.path.dirname(os.path.join(ROOT, path))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        yield target, os.path.normpath(os.path.join(here, target.split("#")[0]))
    for word in re.findall(r"`([^`\s]+)`", text):
        if "/" not in word or word.startswith(("/", "~", "../", "@")) or word.startswith(MADE):
            continue
        if not re.match(r"[A-Za-z_.][\w.-]*(/[\w.*-]+)*/?$", word) or word in ELSEWHERE:
            continue
        yield word, os.path.join(ROOT, word)
    for word in re.findall(r"`(test_\w+\.py)`", text):
        found = glob.glob(os.path.join(ROOT, "host_tests", "**", word), recursive=True)
        yield word, found[0] if found else os.path.join(ROOT, "host_tests", word)


def test_every_path_the_readme_and_docs_name_exists():
    missing = []
    for path in pages():
        for name, where in named_paths(path, read(path)):
            if not (glob.glob(where) if "*" in where else os.path.exists(where)):
                missing.append("%s: %s" % (path, name))
    assert not missing, "named but not in the repository:\n" + "\n".join(missing)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_to_a_section_finds_its_heading():
    broken = []
    for path in pages():
        here = os.path.dirname(os.path.join(ROOT, path))
        for target in re.findall(r"\]\(([^)\s]*#[^)\s]+)\)", read(path)):
            page, _, anchor = target.partition("#")
            if re.match(r"[a-z]+:", page):
                continue
            page = os.path.normpath(os.path.join(here, page)) if page else os.path.join(ROOT, path)
            with open(page, encoding="utf-8") as f:
                headings = {slug(h) for h in re.findall(r"^#+ (.*)$", f.read(), re.M)}
            if anchor not in headings:
                broken.append("%s: %s" % (path, target))
    assert not broken, "links to headings that are not there: %s" % broken


def spec_sections():
    return {int(n) for n in re.findall(r"^## (\d+)\. ", read("docs/spec.md"), re.M)}


OUTSIDE = "shared/" + "SPEC"  # the copy outside the repository (spelt so that this file is not one)


def test_the_contract_is_in_the_repository_and_cited_by_its_path():
    assert spec_sections() == set(range(1, 14))
    stale = []
    cited = set()
    for folder in ("firmware", "tools", "host_tests", "docs", "hardware"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, folder)):
            dirnames[:] = [d for d in dirnames if d not in ("node_modules", "__pycache__")]
            for name in filenames:
                if not name.endswith((".py", ".md", ".txt", ".js", ".mjs", ".html")):
                    continue
                full = os.path.join(dirpath, name)
                with open(full, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                where = os.path.relpath(full, ROOT)
                if re.search(r"\bSPEC(?: section)? \d", text) or OUTSIDE in text:
                    stale.append(where)
                cited.update((where, int(n)) for n in re.findall(r"docs/spec\.md section (\d+)", text))
    for name in ("README.md", "Makefile"):
        text = read(name)
        if re.search(r"\bSPEC(?: section)? \d", text) or OUTSIDE in text:
            stale.append(name)
    assert not stale, "cite the contract as docs/spec.md section N, not a file outside the repository: %s" % stale
    assert cited, "nothing cites docs/spec.md: the search for citations is broken"
    wrong = sorted("%s: section %d" % c for c in cited if c[1] not in spec_sections())
    assert not wrong, "docs/spec.md has no such section: %s" % wrong


def figure_rows():
    """The rows of docs/figures.md's tables that name a source, read as make bench reads them."""
    return figures_page.rows()


def printed_keys():
    """Regular expressions of every key the benchmarks print (a %s or %d in a key is any word)."""
    keys = set()
    sources = glob.glob(os.path.join(ROOT, "tools", "bench", "bench*.py")) + [os.path.join(ROOT, "tools", "bench", "engine_speed.py")]
    for path in sources:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        keys.update(re.findall(r'emit\(\s*"([a-z][\w%]*)"', text))
        keys.update(re.findall(r'print\(\s*"([a-z][\w%]*)[ :]', text))
        keys.update(re.findall(r'\(\s*"(alloc_[a-z_]+)",', text))
    return [re.compile(re.escape(k).replace("%s", r"\w+").replace("%d", r"\d+") + "$") for k in keys]


def test_every_figure_names_a_key_the_benchmarks_print():
    rows = figure_rows()
    assert len(rows) >= 20, "docs/figures.md's tables lost their source column"
    keys = printed_keys()
    unknown = []
    for _, cells in rows:
        for key in figures_page.keys(cells):
            if not any(k.match(key) for k in keys):
                unknown.append(key)
    assert not unknown, "docs/figures.md names figures no benchmark prints any more: %s" % unknown


def test_every_pico_figure_says_when_and_on_which_build_it_was_measured():
    undated = []
    for header, cells in figure_rows():
        if "Pico" not in header:
            continue
        value = cells["Pico"]
        if value and not value.startswith("("):
            if not re.match(r"\d{4}-\d\d-\d\d, v\d+\.\d+\.\d+$", cells.get("Pico measured", "")):
                undated.append(cells["figure"])
    assert not undated, "Pico figures without their date and MicroPython build: %s" % undated


def test_the_engine_bench_falls_back_on_the_recorded_chip_speed():
    # tools/bench/bench_engine.py plays its matches at the chip's speed, from the page's last measurement
    # when the emulated Pico cannot run: the two must be the same figure.
    recorded = [cells for _, cells in figure_rows() if "`thinking_nps`" in cells["source"]]
    assert len(recorded) == 1
    bench = read("tools/bench/bench_engine.py")
    constant = re.search(r"^EMULATED_PICO_NPS = (\d+)", bench, re.M)
    assert constant and int(recorded[0]["Pico"].replace(",", "")) == int(constant.group(1))
    when = re.search(r'^EMULATED_PICO_NPS_MEASURED = "(\d{4}-\d\d-\d\d), MicroPython RPI_PICO (v[\d.]+)', bench, re.M)
    assert when, "tools/bench/bench_engine.py no longer says when its recorded chip speed was measured"
    assert recorded[0]["Pico measured"] == "%s, %s" % when.groups()


def test_figures_live_on_the_figures_page_only():
    # The save, the engine's memory and lift -> LEDs were once told three ways each: now the
    # README, the other pages and the firmware's comments cite docs/figures.md instead.
    figures = read("docs/figures.md")
    measured = set()
    for _, cells in figure_rows():
        for column in ("CPython", "MicroPython unix", "Pico"):
            for value in re.findall(r"\d[\d,]*(?:\.\d+)? (?:ms|us|KB|nodes/s)", cells.get(column, "")):
                # A round number can be a setting (5 ms scans, 10 ms debounce): only distinctive ones.
                if "." in value or "," in value or len(value.split()[0]) >= 3:
                    measured.add(value)
    assert "192 ms" in measured and "20.3 KB" in measured and figures
    texts = [(p, read(p)) for p in documents() if p != "docs/figures.md"]
    for path in glob.glob(os.path.join(ROOT, "firmware", "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as f:
            texts.append((os.path.relpath(path, ROOT), f.read()))
    repeated = ["%s: %s" % (p, v) for p, text in texts for v in sorted(measured) if re.search(r"(?<![\d.,])" + re.escape(v), text)]
    assert not repeated, "figures repeated outside docs/figures.md (cite the page instead):\n" + "\n".join(repeated)


def test_make_bench_reads_the_figure_of_every_row():
    # tools/bench/bench.py prints the first value of each cell beside its own run: each cell that opens
    # with a figure must give that figure, whole (the number with its unit).
    recorded = figures_page.recorded()
    misread = []
    seen = set()
    for _, cells in figure_rows():
        if not figures_page.keys(cells) or figures_page.keys(cells)[0] in seen:
            continue  # a figure no benchmark prints (make flash-files), or the key's second row
        key = figures_page.keys(cells)[0]
        seen.add(key)
        for column in figures_page.COLUMNS:
            cell = cells.get(column, "")
            if cell[:1].isdigit():
                got = recorded[key][column]
                if not got or not cell.startswith(got) or cell[len(got) : len(got) + 1] not in ("", " ", ";", ","):
                    misread.append("%s %s: %r from %r" % (key, column, got, cell))
    assert not misread, "make bench misreads docs/figures.md:\n" + "\n".join(misread)
