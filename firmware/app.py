# The board's main loop body: scan -> debounce -> referee -> display -> LEDs, one step per scan.
#
# Hardware comes in already built (wiring.py on the Pico, hardware/fake.py in tests and simulators),
# so this file runs the same on a Pico, on a PC and in the browser simulator. Time is passed in.
import gc

from core.debounce import DeferPerSquare
from core.display import Display
from core.game import Game
from core.pipeline import feed_scan
from core.referee import SETUP, Referee
from core.signals import FAULT, PRIORITY

# A square that reads occupied where the game has no piece, and has not changed for this long while
# the board shows the error, is reported as a possible stuck switch (or a stray piece).
STUCK_MS = 8000
# When the game is saved. Each change of the game (a move, a takeback, a promotion chosen again by
# a tap) is a journal record, one page programmed on the flash (store.py, docs/figures.md). It is
# written in the first scan after the change in which no switch changes and no piece is in the air:
# the board has as many pieces as the game (the kings on the centre squares of a resignation
# count) or shows the move being made (a capture's victim is off the board). Right after the
# commit, not after a wait for the board to be still: the ply is on the flash before the next one
# is made, so a power cut costs at most the one ply the pieces show (docs/power-up.md; the
# exception, a move the opponent's lift made final, is in docs/saved-game.md), and a promotion is
# saved as made and again at each tap. Never with a piece in the air: the CPU stalls while the
# flash programs (and, now and then, erases: littlefs compacting the journal's directory, or the
# whole game written again at a new game or a long journal), and a lift in that time is seen only
# after it; a player holding a piece up is about to put it down, and the save waits for that. The
# scan after the commit, not the commit's own: the move's LEDs come first.
# After a move the game knows only whether the side to move has a move (core/game.py); the list
# of legal moves, which the next lift needs, is built ahead in the still scans that follow, this
# many pieces a scan: about 0.5 ms each on the Pico, where the whole list at once is 15-25 ms, so
# no scan period is lost to it. A lift before it is done builds the rest then.
LEGAL_PIECES_PER_STEP = 3
# A feature that ran out of memory and stopped (the engine here; the radio's link, the network and the
# clock display at loop.py's edge) is shown this long on the four corner squares, as a fault, beside
# its message on the console: the game on the board is untouched, so the sign keeps out of its way.
NOTICE_MS = 3000
CORNERS = b"\x00\x07\x38\x3f"  # a1, h1, a8, h8
# A collection of the board's heap takes tens of ms on the RP2040 (docs/figures.md); one that an
# allocation sets off in the step of a lift would hold that lift's LEDs back as long. So the board
# collects itself once it has been still this long, after COLLECT_EVENTS of the referee's events (a
# move leaves well under a kilobyte of garbage: the heap never fills with it in between) or after
# COLLECT_MS with any. Asking the heap how full it is would cost a walk of its table, several ms.
QUIET_COLLECT_MS = 1000
COLLECT_EVENTS = 32
COLLECT_MS = 60000
# Beside Lichess over Wi-Fi the engine is refused up front unless this much is free as it is asked
# for: its code and smallest arrays (about 35 KB), what an online game takes from start-up to its
# tightest moment (a TLS handshake beside the game's objects: about 24 KB on the Pico W's model,
# 2026-12-04) and the budget's 16 KB, with about 20 KB to spare for what the model cannot see. A Pico W
# online has about 52 KB: there the engine would end in a MemoryError mid-game; a Pico 2 W has hundreds.
ENGINE_BESIDE_ONLINE = 96 * 1024
ENGINE_REFUSED = "not enough memory for the engine beside Lichess over Wi-Fi: two players (a Pico 2 W has room for both)"
# The engine's modules: dropped again when it stops for want of memory.
ENGINE_MODULES = ("engine.opponent", "engine.search", "engine.native", "engine.movegen", "engine.see", "engine.tables", "engine")


class App:
    """One chessboard: a matrix scanner, LEDs, optionally a store for the game, wired to the core.

    What it is built from (wiring.py on the Pico, hardware/fake.py in tests and simulators):
    matrix.scan() -> bytearray(64) of 0/1; matrix.fault() -> bool (optional); matrix.scan_ranks()
      -> bytearray(8) of rank bytes (optional: the same reading, cheaper for the debouncer).
    leds.show(frame, now_ms).
    store: note(event) and update(game, mode), save(game, mode), resume() -> (game, mode, notes) or
      None (firmware/store.py).
    console(text): where messages for a person go (the USB serial console on the Pico).
    clock(): microseconds, wrapping at 2**30 (time.ticks_us), for the engine's thinking slices.

    Six slots let other parts plug in without App knowing them. Each is called from step(), in
    the scan loop, so none may wait for anything:
    listeners: callables(event), each told of every referee event in order, in the first step()
      after it happened: a tuple whose first item names it ("move", "undo", "promote", "new", "end",
      "error", "claim"; core/referee.py's event_text prints them as lines). The USB link
      (link/link.py), the engine and the simulators (tools/sim/board_sim.py) append theirs.
    opponent: None, or the board's engine (engine/opponent.py), made on first use by engine():
      step(now) thinks one slice at most; paint(frame) draws its signals over the frame after the
      display's; on_event(ev) is one of the listeners; holds(referee), the referee's gesture
      hook, says the two-kings gesture is under way (no error for a king on a choice square);
      resume(store) takes back its side and level with a saved game.
    selftest: None, or a bring-up test (selftest.py puts it there): while its step(now) returns
      True it owns the matrix and the LEDs and the game is not scanned; when it returns False the
      slot empties and the LEDs guide the pieces back to the game.
    host_frame: None, or a frame (the signals of core/signals.py, one a square) a PC program
      drives (ChessLink's L command): shown instead of the board's own frame until the program
      sets it back to None and calls redraw(); the referee and display keep working underneath.
    ble: None, or the Bluetooth LE link (link/ble.py) while a Pico W's radio is on: wiring.py wires
      it from board.json and calls its poll(now) each scan; the USB `ble` command (link/ble_command.py)
      starts, stops or changes it. App itself never calls it.
    online: None, or the board's own Lichess game over Wi-Fi (online/central.py) on a Pico W:
      wiring.py sets it and loop.py calls its poll(now) every ONLINE_POLL_MS; it plays Lichess's game on
      the referee and listens to its events (the network itself runs on the second core,
      online/board_api.py); stop() ends it.
    unsent: () or the from and to squares of the player's move the network has not delivered yet
      (online/central.py sets it, then calls redraw()): shown in core/signals.py's UNSENT."""

    def __init__(self, settings, matrix, leds, store=None, console=None, clock=None):
        self.settings = settings
        self.matrix = matrix
        self.leds = leds
        self.store = store
        self.console = console or (lambda text: None)
        self.debouncer = DeferPerSquare(settings.debounce_ms)
        self._scan = getattr(matrix, "scan_ranks", None) or matrix.scan
        self.referee = Referee(Game())
        self.referee.configure(settings)
        self.display = Display()
        self.frame = self.display.frame
        # The plug-in slots: their contract is in this class's docstring.
        self.host_frame = None
        self.listeners = []
        self.online = None
        self._engine_refused = False  # ENGINE_REFUSED said
        self.unsent = ()
        # engine/opponent.py is loaded the first time it is wanted: a board used by two players
        # keeps the RAM its code takes.
        self.opponent = None
        self._clock = clock
        self.faults = []  # squares the hardware checks flag
        self._version = -1
        self._changed_at = [0] * 64  # when each square last changed, for the stuck-switch check
        self._stuck_checked = 0
        self.matrix_fault_seen = False  # the scanner's fault() at the last scan that changed anything
        self.save_due = False  # the game changed since the last save (see "When the game is saved")
        self.steps = 0
        self.now = 0  # the time of the last step: a save records the clock as it stands then
        if store is not None and hasattr(store, "clock_line"):
            store.clock_line = self.clock_line
        self.selftest = None
        self.ble = None
        self.notice_until = -1  # a stopped feature's sign is shown until then (NOTICE_MS)
        self._events = 0  # the referee's events since the board last collected its heap
        self._collected_at = 0
        self._engine_listener = None

    def start(self, now):
        """Power-up: read the board, resume the saved game or start one, light the LEDs."""
        raw = self.matrix.scan()
        self.debouncer.reset(raw, now)
        ref = self.referee
        ref.start(raw, now)
        game = None
        if self.store is not None:
            try:
                saved = self.store.resume()
            except ValueError as e:
                self.console("saved game unreadable, starting a new game: %s" % e)
                saved = None
            if saved is not None:
                game, mode, notes = saved
                for note in notes:
                    self.console(note)
                ref.set_mode(mode)
                self.console("resuming the saved game after %d moves" % game.ply())
        if game is not None:
            ref.resume_game(game, now)  # a move the save did not reach is read from the pieces
        else:
            ref.load_game(Game(), now)
        clock = getattr(self.store, "clock", None) if game is not None else None
        if clock is not None:
            self.resume_clock(clock)  # before the first tick: a move read from the pieces presses it
        elif game is not None:
            ref.lay_clock_aside()  # a game saved without a clock has none; the next new game has board.json's
        saved = getattr(self.store, "opponent", None) if game is not None else None
        if saved or (game is None and self.settings.opponent != "none") or self.opponent is not None:
            opponent = self.engine()
            if opponent is not None:
                opponent.resume(self.store if game is not None else None)
        if ref.phase == SETUP:
            self.console("set up the position: the LEDs show where pieces must go")
        self._check_matrix(now)
        self._show(now)

    def step(self, now):
        """One scan period: read the switches, feed the core, save, tell listeners, redraw."""
        if self.selftest is not None:
            if self.selftest.step(now):
                return 0
            self.selftest = None  # the game resumes: the LEDs guide the pieces back to it
        ref = self.referee
        self.now = now
        raw = self._scan()
        n = feed_scan(self.debouncer, ref, raw, now)
        still = not n and self.debouncer.unsettled == 0
        if n:
            state = self.debouncer.changed
            for i in range(n):
                self._changed_at[state[i]] = now
        if ref.out:
            still = False
            self._dispatch()
        game = ref.game
        settled = still and (ref.pending_kind is not None or len(ref.emptied) <= len(ref.filled))
        if self.save_due and settled:
            self.save()  # no piece in the air (see "When the game is saved")
        elif still and not game.legal_ready:
            game.prepare_legal(LEGAL_PIECES_PER_STEP)
        elif settled and self._events and now - ref.last_change >= QUIET_COLLECT_MS and (
            self._events >= COLLECT_EVENTS or now - self._collected_at >= COLLECT_MS
        ):
            gc.collect()  # see QUIET_COLLECT_MS
            self._events = 0
            self._collected_at = now
        if n:
            self._check_matrix(now)
        if (ref.error is not None or self.faults) and now - self._stuck_checked >= 1000:
            self._stuck_checked = now
            self._check_stuck(now)
        if self.opponent is not None or n and self._kings_up() and self.engine() is not None:
            # One thinking slice at most: the scan loop never waits for it (the two-kings gesture
            # at the start position brings the engine in). Out of memory, it stops; the game goes on.
            try:
                self.opponent.step(now)
            except MemoryError:
                self.drop_engine(now)
        if self.notice_until >= 0 and now >= self.notice_until:
            self.notice_until = -1
            self._version = -1
        if ref.version != self._version:
            self._render()
        self.leds.show(self.frame if self.host_frame is None else self.host_frame, now)  # _show, inline
        self.steps += 1
        return n

    def clock_line(self):
        """The clock as the store saves it (firmware/store.py), or None without one."""
        if self.referee.clock is None:
            return None
        from core.clock import saved_line

        return saved_line(self.referee, self.now)

    def resume_clock(self, saved):
        """The saved clock of a resumed game, paused until a move or the players start it."""
        from core.clock import resume_saved

        self.console(resume_saved(self.referee, saved, self.now))

    def engine_refusal(self):
        """Why the engine cannot be had now (a sentence), or None: refused up front beside online
        play when the heap could not hold both through a game."""
        if self.online is None:
            return None
        from memory import free

        return ENGINE_REFUSED if free() < ENGINE_BESIDE_ONLINE else None

    def engine(self):
        """The board's own engine (engine/opponent.py), made the first time it is wanted; None when
        the heap has no room for its code (the board plays on without it)."""
        if self.opponent is None:
            from memory import forget, free

            if self.engine_refusal() is not None:
                if not self._engine_refused:
                    self._engine_refused = True
                    self.console(ENGINE_REFUSED)  # once: the kings' gesture asks again at each event
                return None
            free()  # collected first: its code and arrays go low in a heap in one piece
            try:
                from engine.opponent import Opponent

                self.opponent = Opponent(self, self.settings, self._clock)
            except MemoryError:
                self.opponent = None
                try:
                    free()
                    forget(ENGINE_MODULES)  # what loaded before the heap ran out goes again
                    free()
                    self.console("not enough memory for the engine")
                except MemoryError:
                    pass
                return None
            # One bound method, kept: MicroPython's bound methods compare by identity, so
            # drop_engine() finds this one in the list only so.
            self._engine_listener = self.opponent.on_event
            self.listeners.append(self._engine_listener)
            self.referee.gesture = self.opponent.holds
        return self.opponent

    def drop_engine(self, now):
        """The engine ran out of memory while it played: it stops, its code and arrays go back to
        the heap, and the game goes on between two players (so the saved game says)."""
        opponent, self.opponent = self.opponent, None
        ref = self.referee
        ref.gesture = None
        if self._engine_listener in self.listeners:
            self.listeners.remove(self._engine_listener)
        self._engine_listener = None
        if ref.remote:
            ref.show_remote(0)  # its move, lit: no longer asked for
            ref.remote_required = False
        opponent = None
        try:
            from memory import forget, free

            free()  # the engine's arrays back first: forgetting its modules needs a little
            forget(ENGINE_MODULES)
            free()
        except MemoryError:
            pass
        if self.store is not None and hasattr(self.store, "opponent"):
            self.store.opponent = None
            self.save_due = True
        self.feature_stopped("the engine stopped: not enough memory; two players now", now)

    def catch_up(self, now):
        """After a step cut short by a MemoryError: the referee is told of every square whose
        debounced reading it has not heard of (lifts first), so the hands' changes are not lost."""
        ref = self.referee
        state = self.debouncer.state
        occ = ref.occ
        for sq in range(64):
            if occ[sq] and not state[sq]:
                ref.lift(sq, now)
        for sq in range(64):
            if state[sq] and not occ[sq]:
                ref.place(sq, now)

    def feature_stopped(self, text, now):
        """A feature stopped for want of memory: the console says which, the corners show it."""
        self.notice(text, now)

    def notice(self, text, now):
        """Something beside the game needs the players' eyes (a feature stopped, a broadcast
        behind): the console says it, the corners show the fault sign for NOTICE_MS."""
        self.notice_until = now + NOTICE_MS
        self._version = -1
        self.console(text)

    def _kings_up(self):
        """Are both kings off the board at the start position, before the first move (the engine's
        gesture; later in a game it is the engine's only once the engine is there)?"""
        ref = self.referee
        return ref.game.ply() == 0 and not ref.occ[4] and not ref.occ[60] and ref.base[4] and ref.base[60]

    def matrix_fault(self):
        fault = getattr(self.matrix, "fault", None)
        return fault() if fault else False

    def _dispatch(self):
        ref = self.referee
        events = ref.out
        self._events += len(events)
        for ev in events:
            if ev[0] in ("read", "choose"):
                self._say(ev)  # power-up only: for the person, on the console (held until a PC speaks)
                continue
            if ev[0] in ("move", "undo", "promote", "new", "end") and self.store is not None:
                self.store.note(ev)
                self.save_due = True
            for listener in self.listeners:
                listener(ev)  # the USB link streams errors too: no second copy on the console
        while events:
            events.pop()

    def _say(self, ev):
        """A power-up event in plain words (core/messages.py, loaded only then); the event's own
        line (`read e2e4`) when the heap has no room for that code."""
        from core.referee import event_text

        line = event_text(ev)
        try:
            from core.messages import explain

            line = explain(line, self.referee.game.position) or line
        except MemoryError:
            pass
        self.console(line)

    def save(self):
        """Save the game now if it changed since the last save (also before a shutdown)."""
        if not self.save_due or self.store is None:
            return
        self.save_due = False
        ref = self.referee
        try:
            self.store.update(ref.game, ref.mode)
        except (OSError, MemoryError) as e:  # the scan loop goes on; the next save writes it whole
            self.console("could not save the game: %s" % e)

    def shown_frame(self):
        """The frame the LEDs show now: a PC program's (ChessLink's L) while it drives them, else
        the board's own."""
        return self.frame if self.host_frame is None else self.host_frame

    def _show(self, now):
        if self.referee.version != self._version:
            self._render()
        self.leds.show(self.frame if self.host_frame is None else self.host_frame, now)

    def _render(self):
        ref = self.referee
        self._version = ref.version
        self.display.render(ref, self.faults, self.unsent)
        if self.opponent is not None:
            self.opponent.paint(self.frame)
        if self.notice_until >= 0:
            frame = self.frame
            for sq in CORNERS:
                if PRIORITY[frame[sq]] < PRIORITY[FAULT]:
                    frame[sq] = FAULT

    def redraw(self):
        """Something outside the referee changed (a PC move to show, a fault): redraw next step."""
        self._version = -1

    def _check_matrix(self, now):
        """Say once when the scanner reads what no set of pieces can make (a shorted or dead
        column, a row stuck low), and again only after it has cleared (faults.py says it)."""
        fault = self.matrix_fault()
        if fault and not self.matrix_fault_seen or self.matrix_fault_seen and not fault:
            from faults import matrix_fault_changed

            matrix_fault_changed(self, fault)
        self.matrix_fault_seen = fault

    def _check_stuck(self, now):
        """Squares that have read wrong, unchanged, for STUCK_MS while the board shows an error
        (faults.py): reported once and shown as FAULT until they read right."""
        from faults import check_stuck

        check_stuck(self, now, STUCK_MS)
