"""The two status LEDs (each player's entry, the game's phase, refusals, a thinking computer) and the score picture; they read what the app hands them, never change the game."""
from engine._compat import const
from engine import DRAW, EV_STEP
from firmware.display import BLUE, WARM, AMBER, RED, FLASH, GREEN
from firmware.entry import LOCKED, ENTERING
from firmware.scene import tri

# Mode and phase numbers, folded copies of firmware/modes.py's (a global lookup per
# use is a dict lookup on every frame here, `python -m tools.bench --only firmware`
# prints the frame's cost); host_tests/test_modes.py checks them.
_M_MENU = const(1)
_S_TURN = const(0)
_S_COUNT = const(1)
_S_ANIM = const(2)
_S_SUDDEN = const(3)
_S_OVER = const(4)
_S_SHOW = const(6)
_S_HOLD = const(7)

ERR_MS = const(600)  # the refusal blink, identical for every refused entry
COUNT_BEAT = const(300)  # countdown: 3 beats, then the reveal
COUNT_BLINK = const(250)  # sudden death: one blink per winning turtle, this far apart
SUDDEN_RED_MS = const(400)  # sudden death: red flashes first, then the counts


class Status:
    """Colour codes for status LED A (pad 0) and B (pad 1).

    Its view of the app, all objects that live as long as the app: the
    `clock`, both `entries` (Entry, one per pad), the `scene` (the turn
    animation: its step and op) and the `sound` (its volume, shown in the
    menu). What the app reassigns as it goes (mode, phase, when the phase
    began, the thinking seat, the Game) comes with each `code()` call.

    Secrecy: a code depends only on an entry's state (idle, entering,
    locked), the refusal blink, whether a computer is thinking and the game's
    phase, never on the digits typed. Its cost is part of every frame's
    (`python -m tools.bench --only firmware`).
    """

    def __init__(self, clock, entries, scene, sound):
        self.clock = clock
        self.entries = entries
        self.scene = scene
        self.sound = sound
        self.err_until = [0, 0]
        self.err_on = [False, False]

    def error(self, pad, now):
        """Start the refusal blink on that pad's LED."""
        self.err_until[pad] = self.clock.ticks_add(now, ERR_MS)
        self.err_on[pad] = True

    def code(self, now, pad, mode, st, el, thinking, game):
        """The code for pad's LED at `now`: `mode` and phase `st` (firmware/modes.py numbers), `el` the ms
        since that phase began, `thinking` the seat whose computer chooses (-1: none), `game` the live Game."""
        own = (BLUE if pad == 0 else WARM) << 4
        if self.err_on[pad]:
            clock = self.clock
            if clock.ticks_diff(self.err_until[pad], now) > 0:
                e = clock.ticks_diff(now, self.err_until[pad]) + ERR_MS
                return (RED << 4 | 15) if (e // 100) & 1 == 0 else 0
            self.err_on[pad] = False
        if mode == _M_MENU:
            if pad == 1:
                # The volume: green brighter per step, dim red when muted.
                v = self.sound.volume
                return (GREEN << 4 | v * 5) if v else (RED << 4 | 3)
            return GREEN << 4 | 8
        if st == _S_TURN:
            if thinking == pad:
                return own | (3 + ((now >> 6) & 3) * 4)  # thinking: a quick 4-step ramp (256 ms), unlike typing's breath
            s = self.entries[pad].state()
            if s == LOCKED:
                return own | 15
            if s == ENTERING:
                return own | (4 + (tri(now, 0) >> 5))  # breathing: typing in progress
            return own | 2
        if st == _S_COUNT:
            return (FLASH << 4 | 15) if el % COUNT_BEAT < 120 else own | 15
        if st == _S_ANIM:
            sc = self.scene
            if sc.step >= 2 and sc.op == EV_STEP:
                return GREEN << 4 | 15  # a chain reaction goes on to its next step
            return own | 2
        if st == _S_SUDDEN:
            if el < SUDDEN_RED_MS:
                return (RED << 4 | 15) if (el // 100) & 1 == 0 else 0
            # Then the counts: this LED blinks once per winning turtle of its player.
            n = game.winning_black if pad == 0 else game.winning_white
            k = el - SUDDEN_RED_MS
            if k // COUNT_BLINK < n and k % COUNT_BLINK < 150:
                return own | 15
            return own | 1
        if st == _S_OVER:
            r = game.result
            if r == DRAW:
                return AMBER << 4 | 8
            if r == pad + 1:
                return own | (4 + ((tri(now, 0) * 11) >> 8))
            return 0
        if st == _S_SHOW or st == _S_HOLD:
            return GREEN << 4 | 8
        return own | 2


def render_score(disp, tally):
    """The score picture for one mode: black's wins fill from the top-left, white's from the bottom-right, draws on the middle row.
    `tally` is [black wins, white wins, draws], or None (an unscored mode: a dark board)."""
    for i in range(81):
        disp.put(i, 0)
    if tally is None:
        return
    for i in range(min(tally[0], 36)):
        disp.put(i, BLUE << 4 | 15)
    for i in range(min(tally[1], 36)):
        disp.put(80 - i, WARM << 4 | 15)
    for i in range(min(tally[2], 9)):
        disp.put(36 + i, AMBER << 4 | 12)
