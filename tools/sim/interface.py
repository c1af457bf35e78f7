"""SimDevice, the one interface of every simulated device (the firmware in this process, in a MicroPython guest, on the emulated Pico, on a CircuitPython board's fakes): what the terminal UI, tools.render and the tests may use, and nothing else."""
from firmware.display import color_offsets, strip_map
from tools.sim.fakehw import keep_last

NPIX = 83  # strip pixels the simulator reads: 81 cells + status A + status B


def decode(cfg, raw):
    """Wire bytes of one frame -> list of 83 (r, g, b) in strip order."""
    ri, gi, bi = color_offsets(getattr(cfg, "COLOR_ORDER", "GRB"))
    return [(raw[i + ri], raw[i + gi], raw[i + bi]) for i in range(0, NPIX * 3, 3)]


def pad_number(pad):
    """"A"/"a"/0 -> 0, "B"/"b"/1 -> 1; anything else is a ValueError."""
    if pad in (0, "A", "a"):
        return 0
    if pad in (1, "B", "b"):
        return 1
    raise ValueError("pad must be 'A' or 'B' (or 0/1), not %r" % (pad,))


class SimDevice:
    """One simulated device. Every kind subclasses this and offers all of it:

    Identity
      `board` the board file's name, `cfg` its config module, `runtime` the kind's name
      ("cpython", "micropython", "rp2040"; a test fake names itself), `seed` the seed of the
      computer players (the one drawn when none was given, so a game can be replayed).
    Frames (what the LEDs show, after gamma, brightness and the power cap)
      `last_pixels` the 83 (r, g, b) of the last frame in strip order (all dark before the
      first), `t` its device time in ms, `frames` [(t, pixels)] the latest FRAMES_KEPT when kept
      (`keep_frames`), `on_frame(t, pixels)` called for each; `cell_pixels(pixels=None)` reorders a frame to
      the 81 cells in board order (row * 9 + col, black's view), then status A, status B.
    Words (tools/sim/narrate.py)
      `said` [(t, kind, sentence)] the latest SAID_KEPT, `on_say(t, kind, sentence)` called for each; `mode_now`
      the firmware's current mode name (it follows the menu; the start mode where the
      runtime tells no words).
    What the runtime can report (None when it cannot say)
      `pad_b_turned()` pad B's grid turned 180° (the seating setting), `tally(mode=None)`
      [black wins, white wins, draws] kept for a mode (default the current one), `game()`
      the firmware's live engine Game.
    The menu
      `menu_labels()` [(key, label)]: what each key does in the firmware's menu.
    Keys (pad: "A"/"B" or 0/1; key: one of 0-9 * #)
      `press(pad, key)`, `release(pad, key)`, `tap(pad, key)`, `move(pad, cell)` (cell 0..80
      or "e5": that pad's keys from its seat, then #).
    Time and scripts
      `advance(ms)` runs the device that long; `sync()` runs until both players are asked
      for their next move (returns the ms waited); `run(actions)` plays
      tools/sim/keyscript.py's parsed actions, `run_script(text)` parses then plays.
    Reading back and closing
      `board_rows()` (9 rows of RULES.md text), `result_name()`, `report()` (the headless
      output: the rows, then `result: NAME`), `close()` (idempotent).

    A kind implements the hooks that raise NotImplementedError here (`_press`, `_release`,
    `_tap`, `_move` with pad 0/1 and cell 0..80, `_advance`, `sync`, `run`, `board_rows`,
    `result_name`, `close`) and, when it can, `pad_b_turned`, `tally` and `game`; it hands
    every strip write to `_frame(t, wire_bytes)` and every sentence to `_say(t, kind, text)`.

    A device runs for as long as it is used (the terminal, an attract-mode soak): what it keeps is
    bounded (tools/sim/fakehw.py keep_last), what it streams (on_frame, on_say) is not.
    """

    SAID_KEPT = 1000     # sentences: a few dozen games back, far more than a screen shows
    FRAMES_KEPT = 3000   # decoded frames (the pixels' colours shared between frames, so each costs one list)
    COLOURS_KEPT = 4096  # distinct colours shared before the table starts again (pulses fade through many)

    def __init__(self, cfg, board, mode, runtime, seed, keep_frames=True, on_frame=None, on_say=None):
        self.cfg = cfg
        self.board = board
        self.runtime = runtime
        self.seed = seed
        self.mode_now = mode
        self.said = []
        self.on_say = on_say
        self.keep_frames = keep_frames
        self.frames = []
        self._colours = {}
        self.on_frame = on_frame
        self.last_pixels = [(0, 0, 0)] * NPIX
        self.t = 0
        self._map = strip_map(
            getattr(cfg, "MATRIX_LAYOUT", "serpentine"),
            getattr(cfg, "MATRIX_ORIGIN", "top-left"),
            getattr(cfg, "MATRIX_ROTATION", 0),
            getattr(cfg, "STATUS_LEDS", (81, 82)),
        )

    # ---- what comes out of the kind: frames and words
    def _frame(self, t, raw):
        """One strip write (wire bytes in the board's colour order) at device time t ms."""
        px = decode(self.cfg, raw)
        self.t = t
        self.last_pixels = px
        if self.keep_frames:
            seen = self._colours
            if len(seen) >= self.COLOURS_KEPT:
                seen.clear()
            keep_last(self.frames, (t, [seen.setdefault(c, c) for c in px]), self.FRAMES_KEPT)
        if self.on_frame is not None:
            self.on_frame(t, px)

    def _say(self, t, kind, text):
        """One narrated sentence at device time t ms (kind "mode": the firmware changed mode, text its name)."""
        if kind == "mode":
            self.mode_now = text
        keep_last(self.said, (t, kind, text), self.SAID_KEPT)
        if self.on_say is not None:
            self.on_say(t, kind, text)

    # ---- frames
    def cell_pixels(self, pixels=None):
        """Strip-order pixels -> 83 (r, g, b): the 81 cells in board order (row*9+col, black's view), then status A, status B."""
        if pixels is None:
            pixels = self.last_pixels
        m = self._map
        return [tuple(pixels[m[i]]) for i in range(NPIX)]

    # ---- what the runtime can report
    def pad_b_turned(self):
        """Whether pad B's grid is turned 180° now (the menu's seating setting); None when the runtime cannot say."""
        return None

    def tally(self, mode=None):
        """[black wins, white wins, draws] kept for a mode (default: the current one), or None (not kept, or a
        runtime that cannot say)."""
        return None

    def game(self):
        """The firmware's live engine Game, or None (it lives in a guest or a chip)."""
        return None

    def menu_labels(self):
        """[(key, label)] of the firmware's menu in the simulator's language (tools/sim/narrate.py menu_items(): the
        words for what firmware/menu.py does, which every runtime runs)."""
        from tools.sim.narrate import menu_items

        return menu_items()

    # ---- keys
    def press(self, pad, key):
        self._press(pad_number(pad), key)

    def release(self, pad, key):
        self._release(pad_number(pad), key)

    def tap(self, pad, key):
        """Press, hold, release and pause as a deliberate finger does (tools/sim/keyscript.py's timing)."""
        self._tap(pad_number(pad), key)

    def move(self, pad, cell):
        """Type the keys for `cell` (index or 'e5') on that pad, as seen from its seat, then #."""
        if isinstance(cell, str):
            from engine import parse_square

            cell = parse_square(cell)
        self._move(pad_number(pad), cell)

    def _press(self, pad, key):
        raise NotImplementedError

    def _release(self, pad, key):
        raise NotImplementedError

    def _tap(self, pad, key):
        raise NotImplementedError

    def _move(self, pad, cell):
        raise NotImplementedError

    # ---- time and scripts
    def advance(self, ms):
        """Run the device `ms` milliseconds of its own time."""
        self._advance(int(ms))

    def _advance(self, ms):
        raise NotImplementedError

    def sync(self):
        raise NotImplementedError

    def run(self, actions):
        raise NotImplementedError

    def run_script(self, text):
        """Parse a key script (tools/sim/keyscript.py: every error before anything runs), then play it."""
        from tools.sim.keyscript import parse_script

        self.run(parse_script(text))

    # ---- reading back
    def board_rows(self):
        raise NotImplementedError

    def result_name(self):
        raise NotImplementedError

    def report(self):
        """The headless simulator's output: 9 board rows, then `result: NAME`."""
        return "\n".join(self.board_rows()) + "\nresult: " + self.result_name()

    def close(self):
        raise NotImplementedError
