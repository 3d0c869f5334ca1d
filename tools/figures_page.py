"""docs/figures.md read as data: for each key `make bench` prints, the figures the page records.

tools/bench.py prints them under its own run, so a run that moves a figure shows beside the page's;
host_tests/test_readme.py reads the page through this module, so the page stays readable by both.
A table takes part when it has a `source` column naming bench keys in backticks.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "figures.md")
COLUMNS = ("CPython", "MicroPython unix", "Pico")
# The first measured value in a cell: "168,000 nodes/s (native code)" -> "168,000 nodes/s".
VALUE = re.compile(r"\d[\d,]*(?:\.\d+)?(?: / \d[\d,]*(?:\.\d+)?)? ?(?:nodes/s|ms|us|KB|bytes|x)\b|\d[\d,]*(?:\.\d+)?")


def rows(path=PAGE):
    """(header, cells) of every table row that names a source: cells maps header -> text."""
    out = []
    header = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("|"):
                header = None
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif not line.startswith("|--") and "source" in header:
                out.append((header, dict(zip(header, cells))))
    return out


def keys(cells):
    """The bench keys a row's source names."""
    return re.findall(r"`([a-z][\w%]*)`", cells.get("source", ""))


def recorded(path=PAGE):
    """{key: {column: first value in the cell, "Pico measured": date and build}} for each key."""
    out = {}
    for _, cells in rows(path):
        for key in keys(cells):
            if key in out:
                continue  # a key two rows share (engine_ram): the first row's figures
            entry = {}
            for column in COLUMNS:
                found = VALUE.search(cells.get(column, ""))
                entry[column] = found.group(0) if found else ""
            entry["Pico measured"] = cells.get("Pico measured", "")
            out[key] = entry
    return out
