"""The model's stand-ins for a chip's native code, from the emulated Pico: both boot the same
firmware and load the engine, and the difference at each point is what the model must hold.

    .venv/bin/python tools/memory/calibrate.py        (needs PICO_UF2 and PICO_BOOTROM: docs/emulated-pico.md)

Prints the chip's bytes in use (gc.mem_alloc() after a collection) and run-time qstrs at the REPL,
once the board is ready (wiring.boot(), as main.py runs it, without the network) and once the engine
is loaded (`engine black 2` on the USB link), the model's at the same points, and the values of
tools/memory/chips.py's CHIP_BARE, QSTR_BARE, QSTR_RATIO and STANDINS that make them agree. Copy them there,
with the date. Without the chip's two files it says so and exits 3.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "emu"))

import chips  # noqa: E402
import report  # noqa: E402

NOT_MEASURED = 3

# On the chip, in the raw REPL, with main.py kept off the flash so that nothing else is loaded.
SNIPPET = r"""
import gc, micropython
def point(name):
    gc.collect()
    print("point", name, gc.mem_alloc())
    micropython.qstr_info()
point("bare")
import wiring
board = wiring.boot(online=False)
point("ready")
board.link.feed("engine black 2\n")
point("engine")
"""


def chip_points():
    import chip
    import image

    problem = chip.inputs_problem()
    if problem:
        print("calibrate: not measured: " + problem, file=sys.stderr)
        raise SystemExit(NOT_MEASURED)
    image.prepare_firmware()
    files = image.firmware_files()
    del files["main.py"]  # the snippet boots the board itself
    path = os.path.join(ROOT, "build", "emu", "calibrate-fs.bin")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(image.build(files))
    with chip.Chip() as pico:
        pico.boot(fs=path, wait=None)
        result = pico.exec(SNIPPET, limit_ms=120000)
    if result["err"]:
        raise SystemExit("calibrate: the chip said: " + result["err"])
    points = {}
    name = None
    for line in result["out"].replace("\r\n", "\n").splitlines():
        if line.startswith("point "):
            _, name, alloc = line.split()
            points[name] = {"alloc": int(alloc)}
        elif line.startswith("qstr pool:") and name:
            points[name]["qstrs"] = int(line.split("n_qstr=")[1].split(",")[0])
    return points


def model_points():
    report.prepare()
    saved = dict(chips.STANDINS)
    chips.STANDINS.update({"boot_native": 0, "engine_native": 0})
    try:
        steps, end = report.run_model("pico", "calibration", {"level": 2}, ("harness_only",))
        harness = next(s for s in steps if s["label"] == "harness")
        extra = harness["alloc"] - end.get("initial", 0)
        steps, end = report.run_model("pico", "calibration", {"level": 2}, ("engine_loaded",), extra)
    finally:
        chips.STANDINS.update(saved)
    if end.get("error") or "not enough memory" in end.get("console", ""):
        raise SystemExit("calibrate: the model failed: %s" % (end.get("error") or end["console"]))
    harness = next(s for s in steps if s["label"] == "harness")
    figures = {f[0]: f for f in report.chip_figures("pico", steps, end)}
    raw = {s["label"]: s for s in steps}
    return {
        "ready": {"used": figures["ready"][1], "qstrs": raw["ready"]["qstrs"] - harness["qstrs"]},
        "engine": {"used": figures["engine loaded"][1], "qstrs": raw["engine loaded"]["qstrs"] - harness["qstrs"]},
    }


def main():
    chip = chip_points()
    model = model_points()
    print("chip:  bare %(alloc)d B" % chip["bare"], "(%d qstrs)" % chip["bare"]["qstrs"])
    for name in ("ready", "engine"):
        print("chip:  %-6s %7d B, %d run-time qstrs" % (name, chip[name]["alloc"], chip[name]["qstrs"]))
        print("model: %-6s %7d B, %d firmware qstrs (no native stand-ins)" % (name, model[name]["used"], model[name]["qstrs"]))
    firmware_q = chip["ready"]["qstrs"] - chip["bare"]["qstrs"]
    ratio = firmware_q / model["ready"]["qstrs"]
    boot_native = chip["ready"]["alloc"] - model["ready"]["used"]
    engine_native = (chip["engine"]["alloc"] - chip["ready"]["alloc"]) - (model["engine"]["used"] - model["ready"]["used"])
    predicted = chips.QSTR_BARE + int(model["engine"]["qstrs"] * ratio)
    print("CHIP_BARE = %d" % chip["bare"]["alloc"])
    print("QSTR_BARE = %d" % chip["bare"]["qstrs"])
    print("QSTR_RATIO = %d / %d   (the engine's point: %d qstrs predicted, %d on the chip)" % (
        firmware_q, model["ready"]["qstrs"], predicted, chip["engine"]["qstrs"]))
    print('STANDINS["boot_native"] = %d' % boot_native)
    print('STANDINS["engine_native"] = %d' % engine_native)
    if (firmware_q, model["ready"]["qstrs"]) != (round(chips.QSTR_RATIO * model["ready"]["qstrs"]), model["ready"]["qstrs"]) \
            or chip["bare"]["alloc"] != chips.CHIP_BARE or chip["bare"]["qstrs"] != chips.QSTR_BARE:
        print("calibrate: CHIP_BARE, QSTR_BARE or QSTR_RATIO differ from chips.py: set them, then run this again")

if __name__ == "__main__":
    main()
