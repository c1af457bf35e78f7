"""Key test mode: both pads drawn on the matrix and the key just pressed lit, so a maker checks the keypad wiring without a computer."""
from engine._compat import const
from firmware.display import GRID, BLUE, WARM, STATUS_A, STATUS_B
from firmware.keypad import DOWN, PAD_B
from firmware.modes import M_MENU, M_ATTRACT

EXIT_HOLD_MS = const(2000)  # hold * on either pad this long: back to the menu
IDLE_MS = const(60000)  # a minute without a key: back to attract mode (a dead * cannot trap anyone)

# Where a key sits on a phone-style pad, 4 columns, row-major: "1" top left,
# "#" bottom row third column, letters down a fourth column (4x4 pads).
_PLACE = "123A456B789C*0#D"



class KeyTest:
    """Pad A's keys are drawn as a 4x4 picture in the top-left corner (as black sees it); pad B's in the
    bottom-right corner turned 180 degrees (as white sees it from the opposite seat), or top-right when
    the players sit side by side. Every key glows faintly; a held key is lit in its pad's colour, the
    last key pressed stays half lit, and the pad's status LED lights while any of its keys is down.
    So a wrongly wired row or column shows up as the wrong key lighting, or none."""

    def __init__(self, pads):
        self.pads = pads
        self.cells = bytearray(32)  # pad * 16 + key index -> board cell of its picture
        self.held = bytearray(32)  # 1 while that key is down
        self.star = bytearray(2)  # key index of "*" on each pad (255: none)
        self.star_since = [0, 0]
        self.star_down = [False, False]
        self.last = [-1, -1]  # last key pressed on each pad
        self.t_key = 0
        self.dirty = True

    def start(self, now, rotated):
        """Begin (allocation-free after the first time): lay the two pictures out, nothing held."""
        for pad in range(2):
            keys = self.pads[pad].keys
            self.star[pad] = 255
            for k in range(len(keys)):
                p = _PLACE.find(keys[k])
                if p < 0:
                    p = k  # a custom key name: its place in the pad's own order
                r = p // 4
                c = p % 4
                if pad == 0:
                    cell = r * 9 + c
                elif rotated:
                    cell = 80 - (r * 9 + c)
                else:
                    cell = r * 9 + 5 + c
                self.cells[pad * 16 + k] = cell
                if keys[k] == "*":
                    self.star[pad] = k
            self.star_down[pad] = False
            self.last[pad] = -1
        for i in range(32):
            self.held[i] = 0
        self.t_key = now
        self.dirty = True

    def event(self, ev, now):
        """One event byte from the key ring (downs and ups alike)."""
        pad = 1 if ev & PAD_B else 0
        k = ev & 63
        if k >= 16:
            return
        down = 1 if ev & DOWN else 0
        self.held[pad * 16 + k] = down
        self.t_key = now
        if down:
            self.last[pad] = k
        if k == self.star[pad]:
            self.star_down[pad] = down == 1
            self.star_since[pad] = now
        self.dirty = True

    def update(self, now, clock):
        """The mode to go to: M_MENU after a long hold of *, M_ATTRACT after IDLE_MS without a key; else -1 (stay)."""
        for pad in range(2):
            if self.star_down[pad] and clock.ticks_diff(now, self.star_since[pad]) >= EXIT_HOLD_MS:
                return M_MENU
        if clock.ticks_diff(now, self.t_key) >= IDLE_MS:
            return M_ATTRACT
        return -1

    def render(self, dp):
        """Redraw the matrix and both status LEDs when a key changed (nothing moves otherwise)."""
        if not self.dirty:
            return
        self.dirty = False
        for i in range(81):
            dp.put(i, 0)
        for pad in range(2):
            own = (BLUE if pad == 0 else WARM) << 4
            n = len(self.pads[pad].keys)
            any_down = False
            for k in range(n):
                j = pad * 16 + k
                if self.held[j]:
                    any_down = True
                    c = own | 15
                elif k == self.last[pad]:
                    c = own | 5
                else:
                    c = GRID << 4 | 15
                dp.put(self.cells[j], c)
            dp.put(STATUS_A if pad == 0 else STATUS_B, own | (15 if any_down else 2))
