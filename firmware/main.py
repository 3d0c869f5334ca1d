# MicroPython runs main.py at boot, compiled from source into the heap (a .py, never an .mpy), so it
# only hands over: wiring.py (loaded, used once, dropped) wires the board, loop.py scans it.
if __name__ == "__main__":
    import loop

    loop.main()
