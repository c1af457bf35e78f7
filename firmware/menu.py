"""The menu: a key on pad A picks a mode or changes a setting (saved), and the matrix shows one option per 3x3 block (key k = block k)."""
from engine._compat import const
from firmware.display import GRID, BLUE, WARM, AMBER, FLASH, GREEN
from firmware.modes import M_ATTRACT, M_2P, M_EASY, M_MEDIUM, M_HARD, M_TUTORIAL, M_KEYTEST
from firmware.scene import LIGHT, tri
from firmware.settings import BRIGHTNESS_LEVELS, brightness_index
from firmware.sound import VOLUMES, BEAT

IDLE_MS = const(60000)  # a minute without a key: back to attract mode

# Keys 1-6 pick a mode.
_PICK = (M_2P, M_EASY, M_MEDIUM, M_HARD, M_TUTORIAL, M_ATTRACT)

# The device has no words: it draws one block per key (render()). What each key does in words, in English
# and Dutch, is the simulator's (tools/sim/narrate.py "menu.K"; its menu panels and the browser's list them).


def centre(k):
    """Board index of the centre cell of block k (1-9)."""
    return (((k - 1) // 3) * 3 + 1) * 9 + ((k - 1) % 3) * 3 + 1


class Menu:
    """Keys (pad A): 1 two players, 2-4 against the computer (easy, medium, hard), 5 tutorial, 6 attract,
    7/8 brightness down/up, 9 seating (pad B opposite or side by side), 0 volume (mute, 1, 2, 3, mute, ...),
    # key test, * leave. Status LED B shows the volume (off when muted).

    Its view of the app: the `disp` (brightness, the picture), pad B's entry `seat_b` (its `rotated`
    is the seating), the `sound` (volume, a sample) and `save_setting(name, value)`, the app's
    callback that keeps a setting (settings.json, or nothing without storage). A mode is not
    changed here: key() returns it, as firmware/keytest.py's update() does."""

    def __init__(self, disp, seat_b, sound, save_setting):
        self.disp = disp
        self.seat_b = seat_b
        self.sound = sound
        self.save_setting = save_setting
        self.drawn = False  # the picture is drawn (redrawn after a setting changed)

    def idle(self, now, clock, t_key):
        """True when no key came for IDLE_MS (the app goes back to attract mode)."""
        return clock.ticks_diff(now, t_key) >= IDLE_MS

    def key(self, ch, now):
        """Act on key `ch`: change a saved setting, or return the mode it picks (-1: none)."""
        if "1" <= ch <= "6":
            return _PICK[ord(ch) - ord("1")]
        if ch == "#":
            return M_KEYTEST
        if ch == "*":
            return M_ATTRACT
        if ch == "7" or ch == "8":
            dp = self.disp
            b = brightness_index(dp.brightness) + (1 if ch == "8" else -1)
            if 0 <= b < len(BRIGHTNESS_LEVELS):
                dp.set_brightness(BRIGHTNESS_LEVELS[b])
                self.save_setting("brightness", b)
                self.drawn = False
        elif ch == "9":
            e = self.seat_b
            e.rotated = not e.rotated
            self.save_setting("seating", 1 if e.rotated else 0)
            self.drawn = False
        elif ch == "0":
            snd = self.sound
            snd.set_volume((snd.volume + 1) % len(VOLUMES))
            self.save_setting("volume", snd.volume)
            snd.play(BEAT, now)  # a sample at the new volume (nothing when muted)
        return -1

    def render(self, now):
        # Block k shows option k: 1 two players (blue + white), 2-4 computer
        # easy/medium/hard (1-3 green dots), 5 tutorial (amber), 6 attract
        # (pulsing white), 7/8 brightness down/up (dots = level), 9 seating
        # (white dot low: pad B opposite and rotated; high: side by side).
        dp = self.disp  # (a cached bound method would allocate 16 bytes per call)
        if not self.drawn:
            self.drawn = True
            for i in range(81):
                dp.put(i, (GRID << 4 | 15) if LIGHT[i] else 0)
            dp.put(centre(1) - 1, BLUE << 4 | 15)
            dp.put(centre(1) + 1, WARM << 4 | 15)
            for k in range(3):
                c = centre(2 + k)
                for j in range(k + 1):
                    dp.put(c - 1 + j, GREEN << 4 | 15)
            dp.put(centre(5), AMBER << 4 | 15)
            dp.put(centre(7), FLASH << 4 | 3)
            b = brightness_index(dp.brightness)
            c = centre(8) - 10
            for j in range(6):
                dp.put(c + (j // 3) * 9 + j % 3, (FLASH << 4 | 15) if j <= b else 0)
            rot = self.seat_b.rotated
            dp.put(centre(9) + 9, (WARM << 4 | 15) if rot else 0)
            dp.put(centre(9) - 9, 0 if rot else (WARM << 4 | 15))
        dp.put(centre(6), FLASH << 4 | (4 + (tri(now, 1) >> 5)))
