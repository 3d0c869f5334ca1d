# What the optional OLED shows (docs/clock.md): both players' times, black's on the upper half and
# white's on the lower, as a player sitting at white's side reads them; a bar beside the side whose
# time runs; FLAG for a fallen flag; PAUSE under nobody's bar while the clock is paused. When a CPP
# app keeps the clock (its `time W B`), the app's times. Drawn through hardware/ssd1306.py.
#
# Cheap in the scan loop: step() redraws only when the referee's version changes or when the
# running time next changes what it shows (a second, or a tenth under ten seconds), and then only
# the half that changed; otherwise it sends at most one piece of a changed picture.
from micropython import const

from core.clock import short_text

_HALF = const(32)
_BAR_W = const(4)
_MASK = const(0x3FFFFFFF)  # time.ticks_ms wraps at 2**30 (as core/clock.py)


class ClockFace:
    """oled: a hardware/ssd1306.py Ssd1306 (init() done); referee: the App's; app_time(): (white
    ms, black ms) of an app that keeps the clock, or None."""

    def __init__(self, oled, referee, app_time=None):
        self.oled = oled
        self.referee = referee
        self.app_time = app_time or (lambda: None)
        self._version = -1
        self._drawn_at = 0  # when the picture was last worked out ...
        self._wait = 0  # ... and how long after that the running time changes what it shows
        self._shown = ["", ""]  # the text on each half: black (upper), white (lower)
        self._bar = -1  # the half with the bar, -1 none

    def step(self, now):
        ref = self.referee
        if ref.version != self._version or ((now - self._drawn_at) & _MASK) >= self._wait:
            self._version = ref.version
            self._redraw(now)
        self.oled.step()

    def _redraw(self, now):
        ref = self.referee
        c = ref.clock
        app = self.app_time()
        self._drawn_at = now
        self._wait = 1000
        if app is not None:
            texts = (short_text(app[1]), short_text(app[0]))
            bar = -1
        elif c is None:
            texts = ("", "")
            bar = -1
        else:
            w, b = c.times(now)
            texts = [short_text(b), short_text(w)]
            if c.fallen >= 0:
                texts[0 if c.fallen == 1 else 1] = "FLAG"
            bar = -1
            if c.running:
                bar = 0 if c.side == 1 else 1
                left = b if c.side == 1 else w
                # The next moment the running face changes: whole seconds are shown rounded up,
                # tenths below ten seconds.
                self._wait = (left - 1) % 1000 + 1 if left > 10000 else left % 100 + 1
            elif c.started and not ref.game.is_over():
                texts[0] = texts[0] + " P"  # paused: a P after black's time
        for half in (0, 1):
            if texts[half] != self._shown[half] or (bar == half) != (self._bar == half):
                self._draw_half(half, texts[half], bar == half)
                self._shown[half] = texts[half]
        self._bar = bar

    def _draw_half(self, half, text, bar):
        oled = self.oled
        y = half * _HALF
        oled.fill_rect(0, y, 128, _HALF, False)
        if bar:
            oled.fill_rect(0, y + 4, _BAR_W, _HALF - 8, True)
        scale = 3 if len(text) <= 5 else 2
        width = len(text) * 6 * scale - scale
        x = _BAR_W + (128 - _BAR_W - width) // 2
        oled.text(x, y + (_HALF - 7 * scale) // 2, text, scale)
