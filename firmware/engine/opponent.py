# The board plays you: the engine as the opponent on the board itself, with the LEDs only.
#
# How a player uses it (docs/engine.md):
# - Choose: at the start position, before the first move, lift BOTH kings. Ranks 3 and 6 light up
#   (the square of the current choice brighter). Put one king on a lit square - rank 3 to play
#   white, rank 6 to play black, the file is the level (a = 1 ... h = 8); rank 4 or 5 = no engine,
#   two players - then both kings back home. Two kings off the board at once is never part of a
#   move, and the choice only counts once both are home again, so nothing here can be read as a move.
# - The board's move is lit (the remote-move signal, from and to) until the player makes it on the
#   board; the board accepts no other move: a wrong one is shown as an error and guided back.
# - A hint (casual mode): on the player's turn lift both kings and put them back; the engine's move
#   for the player is lit until a move is made. (App loads this module the first time the engine is
#   wanted - board.json, a saved game against it, the gesture at the start, the USB command - so in
#   a game between two players that never asked for it, lifting both kings is no hint.)
# - Takebacks (casual mode) work as in any game; after one the engine waits a few seconds before it
#   replies, so that the player can take back a second move (its own) first.
# - The side and level are kept with the saved game (store.py), so a power cut resumes the game
#   against the engine; board.json's "opponent" and "level" give the choice at power-up, and the
#   USB command `engine` reads and sets it.
#
# Thinking never holds up the scan loop: App.step calls step() once per scan, and step() runs the
# resumable search (engine/search.py) for one slice only: with a clock injected (wiring.py gives
# time.ticks_us), for about half a scan period; without one, a few positions. The search works on
# a Position of its own, so the referee's game is never touched while it thinks.
from micropython import const

from core import signals as S
from core.position import BLACK, Position, WHITE, move_promotion, move_uci
from core.results import only_kings_up
from core.referee import CASUAL, PLAY, START_OCCUPANCY

# Per level 1-8: the deepest iteration in plies (0: no limit) and the seconds to think (0: none).
# Level 1 searches one ply and the captures after it (it takes what hangs, sees nothing else),
# level 2 sees the reply, levels 3-8 go as deep as their time allows. Bytes: the board keeps this
# module in RAM from power-up, so its tables are as small as they can be.
LEVEL_DEPTH = b"\x01\x02\x00\x00\x00\x00\x00\x00"
LEVEL_SECONDS = b"\x00\x00\x01\x02\x05\x0a\x14\x3c"
LEVELS = const(8)
# After a takeback the engine waits this long before it answers: time to take back another move.
TAKEBACK_PAUSE_MS = const(3000)
# Without a clock, positions searched per scan (a few milliseconds on the Pico).
NODES_PER_STEP = const(4)

_IDLE = const(0)
_MOVE = const(1)  # thinking about the board's own move
_HINT = const(2)  # thinking about the player's move



def _colour_name(colour):
    return "white" if colour == WHITE else "black"


class Opponent:
    """The board's own engine for one App: watches the board for its gesture and plays its side.

    clock(): a microsecond counter that wraps at 2**30 (time.ticks_us on the Pico), or None."""

    def __init__(self, app, settings, clock=None):
        self.app = app
        self.clock = clock
        # Half a scan period per step for the search: the other half stays for scanning and LEDs.
        self.slice_us = settings.scan_period_ms * 500
        self.colour = None if settings.opponent == "none" else WHITE if settings.opponent == "white" else BLACK
        self.level = settings.level
        # The search's arrays (about 19 KB) and its own copy of the game are made the first time
        # the engine is wanted (_ready): a board used by two players never pays for them.
        self.search = None
        self._pos = None
        self._task = _IDLE
        self._started = 0
        self._key = 0  # the game position the search is about (zkey, ply)
        self._ply = -1
        self._shown = 0  # a move lit by this engine (its own or a hint), for the position _key
        self._shown_key = -1
        self._promote_to = 0  # an under-promotion of the board's to set once the pawn is down ...
        self._promote_move = 0  # ... when this move has been made
        self._now = 0
        self._pause_from = -1  # a takeback happened: no reply before TAKEBACK_PAUSE_MS
        self._paused = False
        self._armed = False  # both kings were seen off the board together
        self._choice = -1  # where a king was put during the gesture
        self._seen = -1  # referee version last looked at
        self.thinking_steps = 0  # steps spent thinking (for the bench)
        self.longest_slice_us = 0

    # ------------------------------------------------------------------ settings

    def describe(self):
        state = "thinking" if self._task == _MOVE else "hint" if self._task == _HINT else "waiting"
        plays = "none" if self.colour is None else _colour_name(self.colour)
        return "engine plays=%s level=%d state=%s" % (plays, self.level, state)

    def set(self, colour, level):
        """The board plays `colour` (None: nobody) at `level` (1-8); kept with the saved game."""
        if level < 1 or level > LEVELS:
            raise ValueError("level must be 1 to %d" % LEVELS)
        self.colour = colour
        self.level = level
        self._cancel()
        refused = colour is not None and not self._ready()
        if refused:
            colour = None  # no room for its arrays: _ready() said so; two players, and saved so
        app = self.app
        ref = app.referee
        if self._shown and ref.remote == self._shown:
            ref.show_remote(0)  # a move lit under the old choice
            ref.remote_required = False
        self._shown = 0
        store = app.store
        if store is not None:
            store.opponent = None if colour is None else "%s %d" % (_colour_name(colour), level)
            try:
                store.save(app.referee.game, app.referee.mode)
            except OSError as e:
                app.console("could not save the game: %s" % e)
        if not refused:
            app.console(
                "two players, no engine" if colour is None else "the board plays %s at level %d" % (_colour_name(colour), level)
            )
        app.redraw()

    def resume(self, store):
        """At power-up, after the saved game was loaded (store: the GameStore that loaded it, or
        None when no saved game was resumed): the saved game's engine, if it had one, replaces
        board.json's choice; a saved game between two players stays one."""
        if store is not None:
            saved = store.opponent
            self.colour = None
            if saved:
                words = saved.split()
                self.colour = WHITE if words[0] == "white" else BLACK
                self.level = int(words[1])
        if self.colour is not None:
            self._ready()  # early, while the heap is still in one piece

    # ------------------------------------------------------------------ every scan

    def step(self, now):
        """One scan: follow the gesture, start or continue thinking, light the result."""
        app = self.app
        ref = app.referee
        self._now = now
        if ref.version != self._seen:
            self._seen = ref.version
            self._watch(ref)
        game = ref.game
        pos = game.position
        key = pos.zkey
        if self._shown and (key != self._shown_key or ref.remote != self._shown):
            # A move was made (or the board reloaded): what was lit is stale.
            if ref.remote == self._shown:
                ref.show_remote(0)
            ref.remote_required = False
            self._shown = 0
            app.redraw()
        if self._promote_to and game.ply() and (game.last_move() & 0x3FFF) == (self._promote_move & 0x3FFF):
            ref.choose_promotion(self._promote_to)  # the board's under-promotion, once the pawn is down
            self._promote_to = 0
            app.redraw()
        if self._pause_from >= 0 or self._paused:
            if self._paused:
                self._pause_from = now
                self._paused = False
            if now - self._pause_from < TAKEBACK_PAUSE_MS:
                return
            self._pause_from = -1
        if self._task != _IDLE and (key != self._key or game.ply() != self._ply or ref.phase != PLAY):
            self._cancel()  # the game changed under the search
        if self._task == _IDLE:
            if self.colour is None or pos.side != self.colour or not self._can_move(ref):
                return
            if not self._begin(_MOVE, now):
                return
        self.thinking_steps += 1
        s = self.search
        clock = self.clock
        if clock is None:
            s.run(NODES_PER_STEP)
        else:
            t0 = clock()
            s.run(1 << 29, clock, (t0 + self.slice_us) & 0x3FFFFFFF)  # until the slice ends
            spent = (clock() - t0) & 0x3FFFFFFF
            if spent > self.longest_slice_us:
                self.longest_slice_us = spent
        limit = LEVEL_SECONDS[self.level - 1] * 1000
        if not s.done and limit and now - self._started >= limit:
            s.stop()
        if s.done:
            self._show(ref)

    def _can_move(self, ref):
        # Not while the board reads a move the save did not reach (power-up, docs/power-up.md): when
        # it is the engine's side's, it is the engine's own move, already carried out on the board,
        # and a fresh choice (remote_required) would refuse it.
        return ref.phase == PLAY and not ref.game.is_over() and not ref.remote and not self._armed and ref.reading is None

    def _ready(self):
        """Make the engine's arrays if they are not there yet; False when the heap has no room."""
        if self.search is None:
            try:
                from engine.search import fitted

                self.search = fitted()
                self._pos = Position()
            except MemoryError:
                from memory import free

                self.search = self._pos = None
                free()  # the arrays half made go back to the heap
                self.app.console("not enough memory for the engine: two players")
                self.colour = None
                return False
        return True

    def _begin(self, task, now):
        if not self._ready():
            return False
        game = self.app.referee.game
        pos = self._pos
        pos.set_fen(game.start_fen)
        for m in game.moves:
            pos.make(m)  # the game's history too: the search must see repetitions
        depth = LEVEL_DEPTH[self.level - 1]
        self.search.start(pos, max_depth=depth or 32)
        self._task = task
        self._started = now
        self._key = game.position.zkey
        self._ply = game.ply()
        return True

    def _cancel(self):
        if self._task != _IDLE:
            self.search.stop()
            self._task = _IDLE

    def _show(self, ref):
        m = self.search.best_move
        task = self._task
        self._task = _IDLE
        if not m:
            return
        ref.show_remote(m)
        ref.remote_required = task == _MOVE
        self._shown = m
        self._shown_key = ref.game.position.zkey
        p = move_promotion(m)
        self._promote_to = p if task == _MOVE and p and p != ref.promotion else 0
        self._promote_move = m
        self.app.console("%s %s" % ("the board plays" if task == _MOVE else "hint:", move_uci(m)))
        self.app.redraw()

    def hint(self):
        """The engine's move for the player, on request; True if it is being worked out."""
        ref = self.app.referee
        if ref.mode != CASUAL or (self.colour is not None and ref.game.position.side == self.colour):
            return False
        if not self._can_move(ref) and not (ref.remote and ref.remote == self._shown):
            return False
        self._cancel()
        return self._begin(_HINT, self._now)

    def on_event(self, ev):
        """Told of every referee event (an App listener)."""
        kind = ev[0]
        if kind == "undo":
            self._paused = True  # the clock starts at the next step
            self._cancel()
        elif kind == "new":
            self._cancel()
            if self.search is not None:
                self.search.clear()

    # ------------------------------------------------------------------ the gesture

    def _watch(self, ref):
        """Follow the two-kings gesture (see the top of this file) from what the switches read."""
        emptied = ref.emptied
        filled = ref.filled
        if self._armed:
            if not emptied and not filled:
                # Both kings home again: the gesture is complete.
                self._armed = False
                choice = self._choice
                self._choice = -1
                if choice >= 0:
                    rank = choice >> 3
                    if rank == 2:
                        self.set(BLACK, (choice & 7) + 1)  # a king on rank 3: the player takes white
                    elif rank == 5:
                        self.set(WHITE, (choice & 7) + 1)
                    else:
                        self.set(None, self.level)
                elif not self.hint():
                    self.app.redraw()
            elif self.holds(ref):
                if filled and filled[0] != self._choice:
                    self._choice = filled[0]
                    self.app.redraw()
            else:
                self._armed = False  # something else moved: not the gesture after all
                self._choice = -1
                self.app.redraw()
            return
        pos = ref.game.position
        if (
            ref.phase == PLAY
            and len(emptied) == 2
            and not filled
            and not ref.occ[pos.king_square(WHITE)]
            and not ref.occ[pos.king_square(BLACK)]
        ):
            self._armed = True
            self._cancel()  # a hint or a new choice: whatever was being thought about waits
            self.app.redraw()

    def holds(self, ref):
        """The referee's gesture hook: is the board in the middle of the two-kings gesture? Then it
        shows no error for the king standing on a choice square."""
        if not self._armed or not only_kings_up(ref):
            return False
        filled = ref.filled
        if len(filled) > 1:
            return False
        if filled:
            return self._at_start(ref) and 16 <= filled[0] < 48
        return True

    def _at_start(self, ref):
        return ref.game.ply() == 0 and ref.base == START_OCCUPANCY

    def paint(self, frame):
        """Draw the gesture's menu over the frame: ranks 3 and 6 to choose from, the current choice
        brighter, the kings' squares once a choice is made."""
        if not self._armed:
            return
        ref = self.app.referee
        if not self._at_start(ref):
            return
        pri = S.PRIORITY
        if self.colour is None:
            current = -1
        else:
            current = (16 if self.colour == BLACK else 40) + self.level - 1
        for sq in range(16, 24):
            for s in (sq, sq + 24):
                sig = S.CAPTURE if s == current else S.QUIET
                if pri[sig] > pri[frame[s]]:
                    frame[s] = sig
        if self._choice >= 0:
            frame[self._choice] = S.LIFTED
            for k in (4, 60):
                if not ref.occ[k]:
                    frame[k] = S.PLACE_HERE
