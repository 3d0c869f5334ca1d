# The simulators' board: the unmodified firmware App wired to the fake reed matrix and LED strips.
#
# The browser page (tools/sim/sim.js, on MicroPython's WebAssembly build) and the terminal simulator
# (tools/sim_terminal.py, on CPython) both drive this module; it plays the part firmware/main.py
# plays on the Pico: build the hardware objects, hand them to App, call App.step() once per scan
# period. Here the hardware is hardware/fake.py's: a VirtualReedMatrix read by the real scanner
# (hardware/matrix.py), a FakeNeoPixel behind the real WS2812B driver, and a FakeMax7219 on a
# FakeSPI behind the real MAX7219 driver, both fed every frame so the page can show either.
#
# What the firmware learns of the board is only what the reed switches say: the simulators know
# which piece is which (to draw them), but lift()/place()/knock()/lay_out() take squares and
# occupancy, never pieces. The other ways in are the ones the PC has on a real board (load a
# position, set the mode), which go to the referee as the USB link's commands would.
#
# Runs unchanged on CPython (with tools/shims and firmware/ on sys.path) and MicroPython.
import json

import config
from app import App
from core import messages, signals
from core.game import Game
from core.position import WHITE, Position, move_promotion, move_uci, square_name
from core.referee import CASUAL, OVER, PLAY, SETUP, event_text
from hardware.fake import FakeMax7219, FakeNeoPixel, FakePin, FakeSPI, RamFiles, VirtualReedMatrix
from hardware.leds import CHARS, COLOURS, MONO_BLINK, RGB_BLINK, RGB_PULSE
from hardware.matrix import MatrixScanner
from hardware.max7219 import Max7219Leds
from hardware.ws2812 import Ws2812Leds

# The virtual strip runs at full brightness so the screen shows the colours of the signal table
# (hardware/leds.py); a real board's default brightness (48) only dims the same colours.
SIM_BRIGHTNESS = 255
# Reed contacts bounce 0.5-2 ms when a magnet arrives (docs/spec.md section 3): every placement bounces this long.
PLACE_BOUNCE_MS = 2
# Lines of the event log kept for the page (older ones are dropped).
LOG_LIMIT = 200

_HEX = "0123456789abcdef"
# What a person reads of a game's mode in its PGN Event tag.
_EVENTS = {"strict": "Strict game (touch-move)", "casual": "Casual game"}
_PHASES = {PLAY: "play", SETUP: "setup", OVER: "over"}
_MODES = {"strict": "strict mode: touch-move, no takebacks", "casual": "casual mode: takebacks, no touch-move"}


class BothLeds:
    """The LED interface of App, fanned out to the WS2812B and the MAX7219 drivers."""

    def __init__(self, rgb, mono):
        self.rgb = rgb
        self.mono = mono

    def show(self, frame, now_ms):
        a = self.rgb.show(frame, now_ms)
        b = self.mono.show(frame, now_ms)
        return a or b


class BoardSim:
    """One simulated board. Time is in ms and only moves forward through step()/advance()."""

    def __init__(self, fen=None, mode=None, overrides=None, flash=False):
        """flash: keep the saved game on a flash in RAM, as the Pico does, for power_cycle() (the
        store's code is loaded only then: MicroPython's 320 kB test heap has no room for it beside
        the rest)."""
        o = {"brightness": SIM_BRIGHTNESS}
        if mode is not None:
            o["mode"] = mode
        if overrides:
            for k in overrides:
                o[k] = overrides[k]
        self.settings = config.Settings().updated(o)
        self.period = self.settings.scan_period_ms
        # The reed matrix and the real scanner reading it through its row and column wires.
        self.vm = VirtualReedMatrix()
        self.scanner = MatrixScanner(self.vm.rows, read_columns=self.vm.read_columns, sleep_us=self.vm.sleep_us)
        # WS2812B strip in the configured chain order; MAX7219 on an SPI bus with its LOAD pin.
        self.chain = config.chain_squares(self.settings.led_chain)
        self.led_of_square = bytearray(64)
        for n in range(64):
            self.led_of_square[self.chain[n]] = n
        self.np = FakeNeoPixel()
        self.rgb = Ws2812Leds(self.np, chain=self.chain, brightness=self.settings.brightness,
                              current_cap_ma=self.settings.current_cap_ma,
                              channel_ma=self.settings.led_channel_ma)
        self.cs = FakePin("cs", FakePin.OUT, value=1)
        self.chip = FakeMax7219(self.cs)
        self.mono = Max7219Leds(FakeSPI(self.chip), self.cs, brightness=self.settings.brightness)
        self.log = []
        self.said = []  # each log line in a player's words, for the page ("": said by the line after it)
        self.log_count = 0  # lines ever logged, so a reader can ask for the new ones
        # The saved game, on a flash in RAM: kept across power_cycle() as the Pico's flash is.
        self.store = None
        if flash:
            from store import GameStore

            self.store = GameStore("game.sav", RamFiles())
        self.app = self._app()
        self.now = 0
        # The pieces stand on the board before the power comes on.
        self.lay_out(self._occupancy(Game(fen) if fen else Game()))
        self.vm.now_ms = 0
        self.app.start(0)
        if fen:
            self.app.referee.new_game(fen, 0)
            self.app.redraw()
            if self.store is not None:
                self.app.save_due = True
                self.app.save()  # the flash holds this game from the start
            self.app.step(0)
        self._seen = None  # (referee version, events logged, strip writes, MAX7219 latches) last reported
        self._san = []
        self._san_moves = -1
        self._san_last = 0

    def _app(self):
        app = App(self.settings, self.scanner, BothLeds(self.rgb, self.mono), self.store, self._console)
        app.listeners.append(self._event)
        return app

    def power_cycle(self):
        """The power goes and comes back: the pieces stay where they stand, the board starts again
        from its saved game (saved in the scan after each move, app.py), as a Pico does;
        a move the save did not reach is read from the pieces (docs/power-up.md)."""
        if self.store is None:
            raise ValueError("this board has no flash to keep its game: BoardSim(flash=True)")
        self._log("power off and on", "power off and on: the board starts again from its saved game")
        self.app = self._app()
        self.vm.now_ms = self.now
        self.app.start(self.now)

    # ------------------------------------------------------------------ the physical board

    def lift(self, sq):
        """A magnet leaves square sq (a piece picked up, or knocked off the board)."""
        self.vm.lift(sq)

    def place(self, sq):
        """A magnet arrives on square sq; the contact bounces for PLACE_BOUNCE_MS."""
        self.vm.now_ms = self.now
        self.vm.place(sq, PLACE_BOUNCE_MS)

    def knock(self, squares):
        """Pieces knocked over together (a sleeve sweeping over them): their switches all open
        before the next scan. One square alone is, for the switches, a lift like any other."""
        for sq in squares:
            self.lift(sq)

    def lay_out(self, occupied):
        """Put pieces on every square of `occupied` (64 values or a 64-character '0'/'1' string)
        and take them off every other: a person setting up a position by hand."""
        if type(occupied) is str:
            occupied = [c == "1" for c in occupied]
        self.vm.set_occupancy(occupied)

    def occupancy(self):
        """'0'/'1' x 64 (index 0 = a1): what the reed switches say now."""
        return "".join("1" if self.vm.occupied(sq) else "0" for sq in range(64))

    # ------------------------------------------------------------------ time

    def step(self, now):
        """One scan period at `now` ms (not earlier than the last)."""
        if now < self.now:
            now = self.now
        self.now = now
        self.vm.now_ms = now
        self.app.step(now)

    def advance(self, until, actions=()):
        """Scan every period up to `until` ms; actions are (t_ms, occupied 0/1, square) applied
        in order, each before the first scan at or after its time. Returns the state JSON when
        something a viewer sees changed, else ""."""
        i = 0
        n = len(actions)
        period = self.period
        while self.now + period <= until:
            t = self.now + period
            while i < n and actions[i][0] <= t:
                self.now = max(self.now, actions[i][0])
                self._apply(actions[i])
                i += 1
            self.step(t)
        while i < n:  # due after the last scan of this batch: apply now, scanned next batch
            self._apply(actions[i])
            i += 1
        return self.changes()

    def _apply(self, action):
        if action[1]:
            self.place(action[2])
        else:
            self.lift(action[2])

    def wait(self, ms):
        """Let ms milliseconds pass, scanning every period."""
        end = self.now + ms
        while self.now + self.period <= end:
            self.step(self.now + self.period)

    # ------------------------------------------------------------------ the PC's commands

    def set_fen(self, fen):
        """Load a position into the game (as the PC would) and set its pieces up on the board.
        Returns "" or the reason the FEN was refused."""
        try:
            game = Game(fen)
        except ValueError as e:
            return "bad FEN: %s" % e
        self.app.referee.load_game(game, self.now)
        self.app.redraw()
        if self.store is not None:
            self.app.save_due = True  # saved as the USB link saves a game the PC loads
        self.lay_out(self._occupancy(game))
        self._log("position " + game.fen(), "position set up: " + game.fen())
        return ""

    def set_mode(self, mode):
        """strict or casual; returns "" or the reason it was refused."""
        try:
            self.app.referee.set_mode(mode)
        except ValueError as e:
            return str(e)
        self.app.redraw()
        self._log("mode " + mode, _MODES.get(mode, mode))
        return ""

    def log_line(self, line, said=None):
        """A line for the event log (sim_controls.py's changes), and its words for the page."""
        self._log(line, line if said is None else said)

    # The page's controls for what a player sets up on the board (tools/sim/sim_controls.py, loaded
    # when first used): each returns "" or the reason it could not.

    def set_clock(self, control):
        """A time control before the first move (core/clock.py's notation; "none": no clock)."""
        from sim_controls import set_clock

        return set_clock(self, control)

    def clock_action(self, word):
        """start, pause or resume the clock, as the players do."""
        from sim_controls import clock_action

        return clock_action(self, word)

    def set_engine(self, side, level):
        """The board's own engine plays side ("white", "black", "none") at level 1-8."""
        from sim_controls import set_engine

        return set_engine(self, side, level)

    def pgn(self, date=None):
        """The game's PGN; date "YYYY.MM.DD" (the page passes the browser's: MicroPython's
        WebAssembly build has no calendar), else today's where the runtime has a clock."""
        ref = self.app.referee
        if date is None:
            date = _today()
        tags = {"Event": _EVENTS[ref.mode], "Site": "Board simulator", "Date": date}
        if ref.clock is None:
            return ref.game.pgn(tags)
        from core.clock import pgn  # with TimeControl and [%clk] after each move

        return pgn(ref.game, ref.clock, tags)

    def position_at(self, ply):
        """The piece placement (FEN's first field) after `ply` moves of the game (0: its start),
        for looking back at the game and for a takeback; "" when there is no such ply."""
        g = self.app.referee.game
        if ply < 0 or ply > len(g.moves):
            return ""
        p = Position(g.start_fen)
        for i in range(ply):
            p.make(g.moves[i])
        return p.fen().split()[0]

    # ------------------------------------------------------------------ what a viewer sees

    def _occupancy(self, game):
        buf = bytearray(64)
        game.position.occupancy_into(buf)
        return buf

    def _console(self, text):
        said = text
        if text.startswith("the board plays ") and len(text) in (20, 21):
            # The board's engine shows its move: said as a player writes it, the squares after.
            uci = text[16:]
            said = "the board plays %s (%s)" % (messages.move_san(self.app.referee.game.position, uci), uci)
        self._log("console: " + text, said)

    def _event(self, ev):
        line = event_text(ev)
        position = self.app.referee.game.position
        plain = messages.explain(line, position)
        self._log(line, plain or _words(ev, position, line))
        if plain:
            self._log("msg " + plain, "")  # the plain words, as the USB link's `msg TEXT` lines

    def _log(self, line, said):
        self.log.append(line)
        self.said.append(said)
        self.log_count += 1
        if len(self.log) > LOG_LIMIT:
            self.log.pop(0)
            self.said.pop(0)

    def pixels(self):
        """The WS2812B strip as 64 'rrggbb' hex colours in square order (a1 first)."""
        out = []
        np = self.np
        led = self.led_of_square
        for sq in range(64):
            r, g, b = np.pixel(led[sq])
            out.append(_HEX[r >> 4] + _HEX[r & 15] + _HEX[g >> 4] + _HEX[g & 15] + _HEX[b >> 4] + _HEX[b & 15])
        return "".join(out)

    def mono_lit(self):
        """The MAX7219's LEDs as '0'/'1' x 64 in square order (digit r = rank r+1, bit f = file a+f)."""
        rows = self.chip.lit()
        return "".join("1" if (rows[sq >> 3] >> (sq & 7)) & 1 else "0" for sq in range(64))

    def frame_chars(self):
        """The frame the LEDs show (the display policy's, or a PC program's while it drives
        them): one character per square (hardware/leds.py CHARS)."""
        return "".join(CHARS[c] for c in self.app.shown_frame())

    def san_moves(self):
        g = self.app.referee.game
        # A promotion choice changes the last move without changing the count.
        if self._san_moves != len(g.moves) or self._san_last != g.last_move():
            self._san = g.san_moves()
            self._san_moves = len(g.moves)
            self._san_last = g.last_move()
        return self._san

    def game_state(self):
        """What the firmware thinks of the game, as a dict of plain values."""
        ref = self.app.referee
        g = ref.game
        pos = g.position
        white = pos.side == 0
        promo = None
        if ref.promotion_square >= 0 and g.moves:
            promo = [ref.promotion_square, " pnbrqk"[move_promotion(g.last_move())]]
        error = None
        if ref.error is not None:
            error = [ref.error[0]] + [square_name(s) for s in ref.error[1]]
        phase = _PHASES.get(ref.phase, "?")
        if g.is_over():
            status = "%s %s" % (g.result, g.reason)
        elif phase == "setup":
            status = "set up the position: the LEDs show where pieces go"
        else:
            status = ("White" if white else "Black") + " to move"
            if g.check:
                status += ", check"
            if ref.remote:
                # The board's engine's move (or a hint) is lit blue: say it in words too, or a
                # visitor who does not read the LEDs waits for the board to move by itself.
                from core.notation import san

                uci = move_uci(ref.remote)
                try:
                    shown = "%s (%s)" % (san(pos, pos.parse_uci(uci)), uci)
                except ValueError:  # a PC's move that is not legal here: shown as sent
                    shown = uci
                if ref.remote_required:
                    status += "; the board plays %s: make its move on the board" % shown
                else:
                    status += "; hint: %s" % shown
        if error:
            plain = messages.explain("error " + " ".join(error), pos)
            status += "; " + (plain or "error: " + " ".join(error))
        if g.claims and not g.is_over():
            status += "; draw claimable: " + ", ".join(g.claims)
        start = g.start_fen.split()
        clock = None
        if ref.clock is not None:
            from sim_controls import clock_state

            clock = clock_state(self)
        # The board's own engine: [side it plays, level], or None. The kings' gesture and a saved
        # game choose it too, not only the page's controls, which follow it.
        opponent = self.app.opponent
        engine = None
        if opponent is not None and opponent.colour is not None:
            engine = ["white" if opponent.colour == WHITE else "black", opponent.level]
        return {
            "clock": clock,
            "engine": engine,
            "fen": g.fen(),
            "start_move": int(start[5]) if len(start) > 5 else 1,
            "start_black": len(start) > 1 and start[1] == "b",
            "san": self.san_moves(),
            "uci": g.uci_moves(),
            "turn": "w" if white else "b",
            "mode": ref.mode,
            "phase": phase,
            "result": g.result,
            "reason": g.reason,
            "check": g.check,
            "claims": list(g.claims),
            "error": error,
            "promotion": promo,
            # A move the board shows and will commit once it has been still for the commit delay.
            "pending": move_uci(ref.pending) if ref.pending and ref.pending_kind in ("move", "castle") else None,
            "takeback": ref.mode == CASUAL and len(g.moves) > 0,
            "status": status,
        }

    def state(self, since=0):
        """Everything the page draws, as a dict: LEDs, game, log lines numbered since `since`."""
        first = self.log_count - len(self.log)
        new = self.log[max(0, since - first):]
        said = self.said[max(0, since - first):]
        return {
            "now": self.now,
            "pixels": self.pixels(),
            "mono": self.mono_lit(),
            "frame": self.frame_chars(),
            "occupancy": self.occupancy(),
            "game": self.game_state(),
            "log": new,
            "said": said,
            "log_count": self.log_count,
        }

    def changes(self):
        """The state as JSON when anything visible changed since the last call, else ""."""
        key = (self.app.referee.version, self.log_count, self.np.writes, self.chip.latches)
        if key == self._seen:
            return ""
        since = self._seen[1] if self._seen else 0
        self._seen = key
        return json.dumps(self.state(since))

    def state_json(self):
        """The full state as JSON, whatever changed (and the log from the start)."""
        self._seen = None
        return self.changes()


def _words(ev, position, line):
    """An event the plain words (core/messages.py) leave to the move list, in a player's words for
    the page's log: the move's SAN and who made it, a takeback, the clocks after a move."""
    kind = ev[0]
    if kind == "move" or kind == "undo":
        san = messages.move_san(position, move_uci(ev[1]))
        if kind == "move":  # made: the other side is to move
            return "%s plays %s" % ("Black" if position.side == WHITE else "White", san)
        return "%s's %s taken back" % ("White" if position.side == WHITE else "Black", san)
    if kind == "clock":
        from core.clock import short_text

        return "clocks: White %s, Black %s" % (short_text(ev[1]), short_text(ev[2]))
    return line


def _today():
    try:
        import time

        t = time.localtime()
        if t[0] >= 2000:
            return "%04d.%02d.%02d" % (t[0], t[1], t[2])
    except (ImportError, AttributeError, OSError):
        pass
    return "????.??.??"


def signal_table_json():
    """The LED signals as JSON, in code order (hardware/leds.py): [{"char", "name", "rgb" (full-scale
    colour), "rgb_blink" and "mono" (16-slot patterns of 128 ms), "pulse" (0/1)}]. The words for
    each look are in hardware/leds.py's signal table, which the page reads itself (MicroPython
    keeps no docstrings, and the words would cost the board's heap)."""
    out = []
    for code in range(signals.COUNT):
        c = 3 * code
        rgb = "".join(_HEX[v >> 4] + _HEX[v & 15] for v in COLOURS[c:c + 3])
        out.append({"char": CHARS[code], "name": signals.name(code), "rgb": rgb, "rgb_blink": RGB_BLINK[code],
                    "pulse": RGB_PULSE[code], "mono": MONO_BLINK[code]})
    return json.dumps(out)


def signal_names(frame):
    """`e4:quiet d5:capture ...` for the lit squares of a display frame."""
    return " ".join(square_name(sq) + ":" + signals.name(frame[sq]) for sq in range(64) if frame[sq])
