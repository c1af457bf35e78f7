"""Buzzer sounds, non-blocking: short note sequences at 2-4 kHz through a machine.PWM-like object (freq, duty_u16), advanced by the app's tick."""
from engine._compat import const

# Sound numbers: index into SOUNDS and PRIORITY.
KEY = const(0)  # every key press on either pad, whatever key (secrecy: one and the same sound)
REFUSE = const(1)  # an entry refused (too few digits, occupied cell)
BEAT = const(2)  # a countdown beat; also the sample played when the volume changes
REVEAL = const(3)  # both moves revealed
CAPTURE = const(4)
HATCH = const(5)
WIN = const(6)
DRAW = const(7)
SUDDEN = const(8)  # sudden death announced

# Each sound is (hz, ms, hz, ms, ...); hz 0 is a rest. A passive piezo is loud
# only near its resonance (about 2.7-4 kHz), so every note lies in 2-4 kHz and
# sounds differ by rhythm and pitch direction: the refusal is low and doubled,
# the reveal rises, a capture falls, a hatch chirps, a win is a fanfare.
SOUNDS = (
    (3500, 15),  # KEY: one short tick
    (2000, 90, 0, 40, 2000, 90),  # REFUSE
    (3000, 30),  # BEAT
    (2500, 40, 3200, 40, 4000, 70),  # REVEAL
    (3800, 50, 3000, 50, 2200, 90),  # CAPTURE
    (3000, 25, 0, 25, 3600, 25, 0, 25, 4000, 45),  # HATCH
    (2600, 110, 0, 20, 3100, 110, 0, 20, 3900, 300),  # WIN
    (3000, 150, 0, 30, 2500, 200),  # DRAW
    (3600, 80, 2200, 80, 3600, 80, 2200, 80, 3600, 160),  # SUDDEN
)
# A sound does not cut off one of higher priority (a key click never ends a fanfare).
PRIORITY = bytes((0, 2, 1, 1, 2, 2, 3, 3, 3))

# duty_u16 per volume step: mute, quiet, normal, loud. A square wave's
# fundamental grows with sin(pi * duty): 2% is about -24 dB, 10% -10 dB, 50% full.
VOLUMES = (0, 1300, 6500, 32768)


class Sound:
    """Plays one sound at a time on `pwm` (None: no buzzer, everything is a no-op). tick(now) ends notes on time.

    Notes end on their own time grid (t_end += ms), so a late tick shortens
    the next note instead of stretching the whole sound. Hot path (tick with
    nothing playing): one attribute test; no allocation anywhere.
    """

    def __init__(self, pwm, clock, volume=2):
        self.pwm = pwm
        self.clock = clock
        self.volume = 0
        self.duty = 0
        self.seq = SOUNDS[0]
        self.i = 0  # index of the current note's hz in seq
        self.t_end = 0  # when the current note ends
        self.playing = -1  # sound number, -1 = silent
        self.set_volume(volume)
        if pwm is not None:
            pwm.duty_u16(0)

    def set_volume(self, v):
        """Volume step 0 (mute) .. len(VOLUMES) - 1; out of range is refused with a clear error."""
        if not 0 <= v < len(VOLUMES):
            raise ValueError("volume must be 0..%d, not %r" % (len(VOLUMES) - 1, v))
        self.volume = v
        self.duty = VOLUMES[v]

    def play(self, n, now):
        """Start sound n now, unless a sound of higher priority is still playing."""
        if self.pwm is None or self.duty == 0:
            return
        if self.playing >= 0 and PRIORITY[n] < PRIORITY[self.playing]:
            return
        self.playing = n
        self.seq = SOUNDS[n]
        self.i = 0
        self.t_end = now
        self._note()

    def _note(self):
        # Start note i at t_end (the previous note's end), or go silent after the last one.
        seq = self.seq
        i = self.i
        pwm = self.pwm
        if i >= len(seq):
            self.playing = -1
            pwm.duty_u16(0)
            return
        hz = seq[i]
        self.t_end = self.clock.ticks_add(self.t_end, seq[i + 1])
        if hz:
            pwm.freq(hz)
            pwm.duty_u16(self.duty)
        else:
            pwm.duty_u16(0)

    def tick(self, now):
        """Move on to the next note when the current one is over (several, after a very late tick)."""
        if self.playing < 0:
            return
        clock = self.clock
        while self.playing >= 0 and clock.ticks_diff(now, self.t_end) >= 0:
            self.i += 2
            self._note()

    def stop(self):
        """Silence now (mode change, way out of the launcher)."""
        self.playing = -1
        if self.pwm is not None:
            self.pwm.duty_u16(0)
