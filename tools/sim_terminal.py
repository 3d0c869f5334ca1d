"""The board simulator for a terminal: type `lift e2` / `place e4`, see the board and its LEDs as text.

Usage (`make sim-terminal` runs it):
    python3 tools/sim_terminal.py [--fen FEN] [--mode strict|casual] [--settle MS] [--quiet] [< script]
    python3 tools/sim_terminal.py --serial LINK ...   (the board's USB link on a pseudo-terminal at LINK)

The unmodified firmware runs on CPython through tools/sim/board_sim.py, the same glue the browser page
uses: a virtual reed matrix read by the real scanner, the real debouncer, referee, display policy
and LED drivers. This tool keeps the pieces (to print them); the firmware only hears `lift SQ`
and `place SQ`. Commands, one per line; several on one line separated by `;` happen GAP ms apart
(a quick gesture: `lift d5; lift e4; place d5` is a capture by swapping):

    lift SQ            pick up the piece on SQ
    place SQ [PIECE]   put a piece down on SQ: the one named (K Q R B N P white,
                       k q r b n p black), else one from the hand (the side to
                       move's, a king first), else the last one taken off
    move SQ SQ         lift the first square, put it on the second (onto a
                       piece: it is pushed off as this one lands, a capture)
    tap SQ             lift and put back at once (the promotion piece: Q R B N)
    knock SQ [SQ...]   these pieces fall off the board together
    new                set up the start position by hand (a new game)
    fen FEN            load a position (as the PC would) and set its pieces up
    mode strict|casual switch the mode (as the PC would)
    clock CONTROL      a time control before the first move (5+3, 15+10,
                       90/40+30,30+30, 5d3 delay, 5b3 Bronstein, none);
    clock start|pause|resume           the players' buttons (docs/clock.md)
    engine white|black|none [LEVEL]    the board's own engine plays a side
    wait MS            let MS milliseconds pass
    power              switch the board off and on: the pieces stay, the game
                       comes back from its save (docs/power-up.md)
    show               print the board;  leds: each lit LED's colour and MAX7219
    pgn                print the game's PGN;  help;  quit

After each line the simulated clock runs on --settle ms (default 500, docs/spec.md section 3's commit bound),
then the board's events (as tools/replay.py prints them, each error, claim and end followed by a
`msg` line saying it in plain words) and, unless --quiet, the board are printed:
every square as two characters, its piece (`.` for empty) and its LED signal (hardware/leds.py:
o quiet, x capture, * lifted, + check, ! illegal, v place here, ^ remove, t touched, Q R B N the
promotion piece, # mated king, m mating piece, - last move ...).
Exit status: 0, or 1 when a command of a script (stdin not a terminal) failed.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (os.path.join(ROOT, "tools", "sim"), os.path.join(ROOT, "tools", "shims"), os.path.join(ROOT, "firmware")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import board_sim  # noqa: E402
from core.position import STARTING_FEN, square_name  # noqa: E402
from hardware import leds  # noqa: E402

GAP_MS = 30  # between the commands of one line: over the 10 ms debounce, well inside the 150 ms slide window
SETTLE_MS = 500
PIECES = "KQRBNPkqrbnp"
# Commands that touch the board: the clock runs on --settle ms after a line with one of them.
_ACTIONS = ("lift", "place", "move", "tap", "knock", "new", "fen", "mode", "power", "clock", "engine")


# The commands of the docstring above, and how a line runs them: what `help` prints (80 columns).
HELP = (
    __doc__[__doc__.index("    lift SQ"):__doc__.index("After each line")].rstrip()
    + "\n\nSeveral commands on one line, separated by ';', happen %d ms apart."
)


class CommandError(ValueError):
    pass


def parse_square(word):
    w = word.lower()
    if len(w) != 2 or w[0] not in "abcdefgh" or w[1] not in "12345678":
        raise CommandError("%r is not a square (a1 ... h8)" % word)
    return "abcdefgh".index(w[0]) + 8 * (int(w[1]) - 1)


def placement(fen):
    """64 characters, index 0 = a1, ' ' for empty, from a FEN's piece placement."""
    out = [" "] * 64
    rows = fen.split()[0].split("/")
    for r in range(min(8, len(rows))):
        f = 0
        for c in rows[r]:
            if c.isdigit():
                f += int(c)
            elif f < 8:
                out[8 * (7 - r) + f] = c
                f += 1
    return out


class Terminal:
    def __init__(self, fen=None, mode=None, settle=SETTLE_MS, gap=GAP_MS, quiet=False, out=None):
        self.sim = board_sim.BoardSim(fen=fen, mode=mode, flash=True)
        self.pieces = placement(fen or STARTING_FEN)
        self.hand = []  # pieces lifted, in order
        self.off = []  # pieces beside the board (captured, knocked off)
        self.settle = settle
        self.gap = gap
        self.quiet = quiet
        self.out = out or sys.stdout
        self.logged = self.sim.log_count
        self.done = False

    def say(self, text=""):
        self.out.write(text + "\n")

    # ------------------------------------------------------------------ the pieces

    def lift(self, sq):
        p = self.pieces[sq]
        if p == " ":
            raise CommandError("%s is empty" % square_name(sq))
        self.pieces[sq] = " "
        self.hand.append(p)
        self.sim.lift(sq)

    def place(self, sq, name=None):
        if self.pieces[sq] != " ":
            raise CommandError("%s is occupied: lift that piece first" % square_name(sq))
        piece = self._take(name)
        self.pieces[sq] = piece
        self.sim.place(sq)

    def _take(self, name):
        if name is not None:
            if name not in PIECES:
                raise CommandError("%r is not a piece (K Q R B N P white, k q r b n p black)" % name)
            for pile in (self.hand, self.off):
                for i in range(len(pile) - 1, -1, -1):
                    if pile[i] == name:
                        return pile.pop(i)
            raise CommandError("no %s in the hand or beside the board" % name)
        if self.hand:
            white = self.sim.app.referee.game.position.side == 0
            best = len(self.hand) - 1
            score = -1
            for i in range(len(self.hand)):
                p = self.hand[i]
                s = (2 if p.isupper() == white else 0) + (1 if p in "Kk" else 0)
                if s >= score:
                    best, score = i, s
            return self.hand.pop(best)
        if self.off:
            return self.off.pop()
        raise CommandError("no piece in the hand or beside the board")

    def knock(self, squares):
        for sq in squares:
            if self.pieces[sq] == " ":
                raise CommandError("%s is empty" % square_name(sq))
        if len(set(squares)) != len(squares):
            raise CommandError("a square twice")
        for sq in squares:
            self.off.append(self.pieces[sq])
            self.pieces[sq] = " "
        self.sim.knock(squares)

    def move(self, a, b):
        """Lift a and put it on b; onto a piece, that piece is pushed off as this one lands (a
        capture by swapping). Checked before anything moves, so a refused move changes nothing."""
        if self.pieces[a] == " ":
            raise CommandError("%s is empty" % square_name(a))
        if a == b:
            raise CommandError("from and to are one square (tap SQ lifts and puts back)")
        self.lift(a)
        piece = self.hand.pop()
        self.sim.wait(self.gap)
        if self.pieces[b] != " ":
            self.off.append(self.pieces[b])  # the victim, off the board
            self.pieces[b] = " "
            self.sim.lift(b)
            self.sim.wait(self.gap)
        self.pieces[b] = piece
        self.sim.place(b)

    def set_up(self, fen):
        self.pieces = placement(fen)
        self.hand = []
        self.off = []

    # ------------------------------------------------------------------ commands

    def line(self, text):
        """Run one input line; returns False when it failed."""
        commands = [c.strip() for c in text.split("#", 1)[0].split(";")]
        commands = [c for c in commands if c]
        if not commands:
            return True
        ok = True
        for i, command in enumerate(commands):
            if i:
                self.sim.wait(self.gap)
            try:
                self.command(command)
            except CommandError as e:
                self.say("error: %s" % e)
                ok = False
                break
            if self.done:
                return ok
        verbs = [c.split()[0].lower() for c in commands]
        if any(v in _ACTIONS for v in verbs):
            self.sim.wait(self.settle)
        self.report(show=any(v in _ACTIONS or v == "wait" for v in verbs))
        return ok

    def command(self, text):
        words = text.split()
        verb = words[0].lower()
        args = words[1:]

        def need(n, usage):
            if len(args) != n:
                raise CommandError("usage: " + usage)

        if verb == "lift":
            need(1, "lift SQ")
            self.lift(parse_square(args[0]))
        elif verb == "place":
            if len(args) not in (1, 2):
                raise CommandError("usage: place SQ [PIECE]")
            self.place(parse_square(args[0]), args[1] if len(args) == 2 else None)
        elif verb == "move":
            need(2, "move FROM TO")
            self.move(parse_square(args[0]), parse_square(args[1]))
        elif verb == "tap":
            need(1, "tap SQ")
            sq = parse_square(args[0])
            self.lift(sq)
            self.sim.wait(self.gap)
            self.place(sq, self.hand[-1])
        elif verb == "knock":
            if not args:
                raise CommandError("usage: knock SQ [SQ...]")
            self.knock([parse_square(a) for a in args])
        elif verb == "new":
            self.set_up(STARTING_FEN)
            self.sim.lay_out([p != " " for p in self.pieces])
        elif verb == "fen":
            if not args:
                raise CommandError("usage: fen FEN")
            fen = " ".join(args)
            err = self.sim.set_fen(fen)
            if err:
                raise CommandError(err)
            self.set_up(fen)
        elif verb == "mode":
            need(1, "mode strict|casual")
            err = self.sim.set_mode(args[0])
            if err:
                raise CommandError(err)
        elif verb == "clock":
            if not args:
                raise CommandError("usage: clock CONTROL|start|pause|resume")
            word = " ".join(args)
            if word in ("start", "pause", "resume"):
                err = self.sim.clock_action(word)
            else:
                err = self.sim.set_clock(word)
            if err:
                raise CommandError(err)
        elif verb == "engine":
            if len(args) not in (1, 2) or args[0] not in ("white", "black", "none"):
                raise CommandError("usage: engine white|black|none [LEVEL]")
            try:
                level = int(args[1]) if len(args) == 2 else 3
            except ValueError:
                raise CommandError("the level is a whole number, 1 to 8")
            err = self.sim.set_engine(args[0], level)
            if err:
                raise CommandError(err)
        elif verb == "wait":
            need(1, "wait MS")
            try:
                ms = int(args[0])
            except ValueError:
                raise CommandError("wait needs a whole number of milliseconds")
            if ms < 0:
                raise CommandError("time does not go back")
            self.sim.wait(ms)
        elif verb == "power":
            need(0, "power")
            self.sim.power_cycle()
        elif verb == "show":
            self.show()
        elif verb == "leds":
            self.show_leds()
        elif verb == "pgn":
            self.say(self.sim.pgn().rstrip("\n"))
        elif verb in ("help", "?"):
            self.say(HELP % self.gap)
        elif verb in ("quit", "exit"):
            self.done = True
        else:
            raise CommandError("unknown command %r (try help)" % verb)

    # ------------------------------------------------------------------ output

    def _new_log(self):
        sim = self.sim
        first = sim.log_count - len(sim.log)
        lines = sim.log[max(0, self.logged - first):]
        self.logged = sim.log_count
        return lines

    def report(self, show=True):
        for line in self._new_log():
            self.say(line)
            if line.startswith("move ") and self.hand:
                # The move is made: what is still in the hand was taken off the board.
                self.off.extend(self.hand)
                self.hand = []
        self._promotion()
        if show and not self.quiet:
            self.show()

    def _promotion(self):
        promo = self.sim.game_state()["promotion"]
        if promo:
            sq, letter = promo
            p = self.pieces[sq]
            if p != " ":
                self.pieces[sq] = letter.upper() if p.isupper() else letter

    def show(self):
        self._promotion()
        frame = self.sim.app.shown_frame()  # a PC program's LEDs while it drives them
        for text in leds.render_text(frame, "".join(self.pieces)):
            self.say(text)
        g = self.sim.game_state()
        moves = []
        n = g["start_move"]
        san = ([".."] if g["start_black"] else []) + g["san"]
        for i in range(0, len(san), 2):
            moves.append("%d. %s" % (n + i // 2, " ".join(san[i:i + 2])))
        self.say("status: %s | mode %s | t=%d ms" % (g["status"], g["mode"], self.sim.now))
        self.say("moves: " + (" ".join(moves) if moves else "-"))
        c = g["clock"]
        if c is not None:
            from core.clock import short_text

            faces = []
            for side, name in (("w", "white"), ("b", "black")):
                faces.append("%s %s%s" % (name, short_text(c[name]), " *" if c["running"] == side else ""))
            self.say("clock %s: %s | %s" % (c["control"], " - ".join(faces), c["state"]))
        app = self.app_time()
        if app is not None:  # a CPP app (`time W B`) or a DGT host (SetNRun) keeps the clock: what the display shows
            from core.clock import short_text

            self.say("clock app: white %s - black %s" % (short_text(app[0]), short_text(app[1])))
        lit = board_sim.signal_names(frame)
        self.say("leds: " + (lit or "all off"))
        if self.hand or self.off:
            self.say("in hand: %s | beside the board: %s" % ("".join(self.hand) or "-", "".join(self.off) or "-"))

    link = None  # the USB link's firmware Link, with --serial

    def app_time(self):
        """The times of the clock a PC program keeps (link/clock_command.py app_time), or None."""
        if self.link is None:
            return None
        from link.clock_command import app_time

        return app_time(self.link)

    def show_leds(self):
        px = self.sim.pixels()
        mono = self.sim.mono_lit()
        frame = self.sim.app.shown_frame()  # a PC program's LEDs while it drives them
        any_lit = False
        for sq in range(64):
            if frame[sq] or px[6 * sq:6 * sq + 6] != "000000" or mono[sq] == "1":
                any_lit = True
                self.say("%s %-14s ws2812b #%s  max7219 %s" % (
                    square_name(sq), board_sim.signals.name(frame[sq]), px[6 * sq:6 * sq + 6],
                    "on" if mono[sq] == "1" else "off"))
        if not any_lit:
            self.say("all LEDs off")
        self.say("(blinking signals show on or off by the moment: t=%d ms)" % self.sim.now)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Play the board in a terminal: the firmware hears only lift/place of squares.",
        epilog="Commands: lift SQ, place SQ [PIECE], move SQ SQ, tap SQ, knock SQ..., new, fen FEN, "
        "mode strict|casual, wait MS, show, leds, pgn, help, quit. Several on one line: separate with ';'.",
    )
    parser.add_argument("--fen", help="start from this position (its pieces are set up)")
    parser.add_argument("--mode", choices=("strict", "casual"), help="default: the firmware's (strict)")
    parser.add_argument("--settle", type=int, default=SETTLE_MS,
                        help="ms the clock runs on after each line (default %d)" % SETTLE_MS)
    parser.add_argument("--gap", type=int, default=GAP_MS,
                        help="ms between the commands of one line (default %d)" % GAP_MS)
    parser.add_argument("-q", "--quiet", action="store_true", help="print the board only on `show`")
    parser.add_argument("--serial", metavar="LINK",
                        help="put the board's USB link on a pseudo-terminal linked at LINK (docs/spec.md section 8): "
                        "the board runs in real time; `unplug` and `plug` pull and put back its cable")
    args = parser.parse_args(argv)
    interactive = sys.stdin.isatty()
    try:
        term = Terminal(args.fen, args.mode, args.settle, args.gap, args.quiet)
    except ValueError as e:
        sys.stderr.write("sim_terminal: %s\n" % e)
        return 2
    if interactive:
        try:
            import readline  # noqa: F401 - line editing and history when available
        except ImportError:
            pass
        term.say("Board simulator (the firmware on CPython). Type help for the commands, quit to leave.")
    if not args.quiet:
        term.show()
    if args.serial:
        import sim_serial

        port = sim_serial.SerialPort(term.sim, args.serial, term.say)
        term.link = port.link
        sys.stdout.flush()
        ok = sim_serial.serve(term, port, sys.stdin, interactive)
        return 0 if ok or interactive else 1
    failed = False
    while not term.done:
        try:
            text = input("> ") if interactive else sys.stdin.readline()
        except EOFError:
            break
        except KeyboardInterrupt:
            term.say("")
            break
        if not interactive:
            if not text:
                break
            text = text.rstrip("\n")
            if text.strip() and not text.lstrip().startswith("#"):
                term.say("> " + text)
        if not term.line(text):
            failed = True
    return 1 if failed and not interactive else 0


if __name__ == "__main__":
    sys.exit(main())
