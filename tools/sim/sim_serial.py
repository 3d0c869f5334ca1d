"""The simulated board's USB port: the firmware's own Link on a pseudo-terminal, linked at a path.

`python3 tools/sim_terminal.py --serial LINK` uses this (docs/spec.md section 8): the board simulator keeps
taking lift/place commands on standard input while any PC program (the companion, a terminal
program, pyserial) opens LINK as it would open a Pico's /dev/ttyACM0. What goes over it is what a
real board speaks: the bytes reach firmware/link.py's Link.feed, its lines come back, and
Link.poll runs after every App.step, as firmware/main.py wires it on the Pico.

The clock follows the wall clock here (a PC program expects answers in real time), but never
goes back: a simulator command that let time pass (the settle after a move) moves it ahead.

`unplug` closes the pseudo-terminal and removes the link (the board keeps its power and its game,
as a board on a charger whose USB cable is pulled); `plug` opens a new one at the same path (a
different /dev/pts/N, as a replugged Pico may get another ttyACM). Nothing the board sends while
unplugged reaches anyone.
"""
import errno
import os
import time
import tty

from link.link import Link

# Lines the board sends while nobody reads them pile up in the pseudo-terminal (4 kB on Linux);
# past that they are dropped, as MicroPython's USB serial drops output with no host attached.
READ_CHUNK = 256


class SerialPort:
    """The Link of one simulated board, speaking through a pseudo-terminal linked at `path`."""

    def __init__(self, sim, path, say=None):
        self.sim = sim
        self.path = os.path.abspath(path)
        self.say = say or (lambda text: None)
        self.master = None
        self.slave = None
        self.link = Link(sim.app, self._write, self._write_bytes, dgt=True)  # a serial port: DGT hosts too
        # As main.py wires it: the App's console messages go out as `msg` lines too (and still to
        # the simulator's log), and the link is polled after every scan.
        console = sim.app.console

        def both(text):
            console(text)
            self.link.info(text)

        sim.app.console = both
        step = sim.step

        def step_and_poll(now):
            step(now)
            self.link.poll(sim.now)

        sim.step = step_and_poll  # BoardSim.wait and advance scan through self.step
        self._t0 = time.monotonic()
        self._offset = sim.now
        self.plug()

    # ------------------------------------------------------------------ the cable

    def plug(self):
        if self.master is not None:
            return False
        self.master, self.slave = os.openpty()
        # Raw: no echo, no newline translation, no line editing - the port carries bytes as USB does.
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        # The simulator keeps the slave side open itself, so the master never sees a hang-up
        # between two programs opening LINK.
        name = os.ttyname(self.slave)
        if os.path.islink(self.path) or os.path.exists(self.path):
            os.unlink(self.path)
        os.symlink(name, self.path)
        self.say("usb: board on %s (-> %s)" % (self.path, name))
        return True

    def unplug(self):
        if self.master is None:
            return False
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self.master = self.slave = None
        if os.path.islink(self.path):
            os.unlink(self.path)
        self.say("usb: unplugged")
        return True

    def close(self):
        self.unplug()

    # ------------------------------------------------------------------ bytes

    def _write(self, text):
        self._write_bytes(text.encode("ascii", "replace"))

    def _write_bytes(self, data):
        # ChessLink's answers carry odd parity in bit 7 when the client's bytes do: raw bytes.
        if self.master is None:
            return
        try:
            os.write(self.master, bytes(data))
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EIO):
                raise

    def fileno(self):
        return self.master

    def read(self):
        """Feed the Link what the PC sent (call when select says the master is readable)."""
        if self.master is None:
            return
        try:
            data = os.read(self.master, READ_CHUNK)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EIO):
                return
            raise
        if data:
            self.link.feed(data)

    # ------------------------------------------------------------------ time

    def now_ms(self):
        """The board's clock: the wall clock since start, never behind what the simulator ran."""
        real = int((time.monotonic() - self._t0) * 1000)
        if self.sim.now > real + self._offset:
            self._offset = self.sim.now - real
        return real + self._offset

    def run_clock(self):
        """Scan every period up to now (the wall clock)."""
        self.sim.wait(self.now_ms() - self.sim.now)


def serve(term, port, stdin, interactive):
    """The simulator's loop with a serial port: the board scans in real time while commands come
    on stdin and bytes on the port. Returns True when every command succeeded."""
    import select

    ok = True
    prompt = interactive
    fd = stdin.fileno()
    pending = b""  # read from stdin with os.read: a buffered readline would hide lines from select
    eof = False
    while not term.done:
        if prompt:
            term.out.write("> ")
            term.out.flush()
            prompt = False
        if b"\n" not in pending:
            if eof:
                break  # end of the script: the board goes on only while someone types
            fds = [fd]
            if port.fileno() is not None:
                fds.append(port.fileno())
            ready, _, _ = select.select(fds, [], [], term.sim.period / 1000.0)
            port.run_clock()
            if port.fileno() is not None and port.fileno() in ready:
                port.read()
                term.report(show=False)
                term.out.flush()
            if fd in ready:
                data = os.read(fd, 4096)
                if data:
                    pending += data
                else:
                    eof = True
                    pending += b"\n" if pending else b""
            continue
        raw, pending = pending.split(b"\n", 1)
        text = raw.decode("utf-8", "replace").rstrip("\r")
        port.run_clock()
        if not interactive and text.strip() and not text.lstrip().startswith("#"):
            term.say("> " + text)
        verb = text.split()[0].lower() if text.split() else ""
        if verb == "unplug":
            port.unplug()
        elif verb == "plug":
            port.plug()
        elif not term.line(text):
            ok = False
        term.out.flush()
        prompt = interactive
    port.close()
    return ok
