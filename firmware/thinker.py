"""The computer's search on the RP2040's second core: one worker thread (MicroPython `_thread`), started once at boot and given one move at a time; where there is none, the app slices the search into its ticks."""
import sys

# Bytes of core 1's stack (taken from the heap once, at start): step() runs with the heap locked, so every
# Python frame of the search lives on this stack (MicroPython raises RuntimeError 512 bytes short of its end).
# `python -m tools.bench --only rp2040` prints the deepest the heaviest moves and a game reach, against this;
# each byte more is heap the frozen firmware's budget counts.
STACK = 4096

# The worker started this boot: core 1 runs one thread until a soft reset, so main.py run again at the REPL
# (after a Ctrl-C, without a soft reset) gets this one back instead of "OSError: core1 in use".
_started = None


class Thinker:
    """Core 0 (the app) and core 1 (the worker) share this object's attributes, small ints and references
    written in place (every attribute exists from __init__: no dict growth while the other core reads).

    Core 0: bot.start(...) while idle(), then post(bot) -> job number; each tick answer(job) -> the cell, or -1
    while the search runs; stop(clock) before anything a search may be using changes (the bots, their
    shared scratch, a new game): the answer of a stopped job is never given. When answer() raises, the app
    sets `failed` and searches in its ticks from then on (firmware.app: the move starts again there).
    Core 1: waits on a lock (asleep, no power, no heap), runs bot.step(units) until the cell is ready or
    the job is no longer wanted, and allocates nothing: step() locks the heap (per thread on MicroPython).
    """

    def __init__(self, thread, stack=STACK):
        self.units = 0  # work units per step() call (post() sets it): how soon a stopped search lets go
        self.bot = None  # the bot of the job posted last (core 0 writes, before job)
        self.job = 0  # the job posted last (core 0 writes)
        self.live = 0  # the job whose answer is still wanted; 0: none (core 0 writes)
        self.busy = 0  # 1 from post() until the worker has let go of that job (core 0 sets, core 1 clears)
        self.done = 0  # the job whose answer is in cell (core 1 writes, after cell)
        self.cell = -1
        self.error = None  # an exception the search raised in a wanted job (core 1 writes, before done)
        self.steps = 0  # step() calls made on core 1 (a test sees the search ran there)
        self.failed = None  # why core 0 stopped posting here (a search that failed on core 1), or None
        self._go = thread.allocate_lock()
        self._go.acquire()  # held while there is no job: the worker blocks on it
        thread.stack_size(stack)
        thread.start_new_thread(self._run, ())

    def idle(self):
        """True when the worker holds no job (the bots and their scratch are core 0's again)."""
        return not self.busy

    def post(self, bot, units):
        """Give the worker bot's move (bot.start() done, the worker idle), searched `units` at a time
        (engine.bot.SLICE_UNITS: a tick's share on the sliced path); returns the job's number. `bot` is
        anything whose step(units) returns -1 until its cell: an engine Bot, or a Deepen after begin()."""
        if self.busy:
            raise RuntimeError("the computer's search is still running on core 1")
        j = self.job + 1 if self.job < 0x3FFFFFFF else 1
        self.error = None
        self.units = units
        self.bot = bot
        self.job = j
        self.live = j
        self.busy = 1
        self._go.release()  # (the worker took the lock at its previous job: this lets it run once)
        return j

    def answer(self, job):
        """The cell chosen in `job`, or -1 while its search runs; its search's error is raised here."""
        if self.done != job:
            return -1
        e = self.error
        if e is not None:
            self.error = None
            raise RuntimeError("the computer's search failed on core 1: %r" % (e,))
        return self.cell

    def stop(self, clock, limit_ms=2000):
        """No answer is wanted any more: wait (at most one step() call) until the worker lets go."""
        self.live = 0
        if not self.busy:
            return
        t = clock.ticks_ms()
        while self.busy:
            if clock.ticks_diff(clock.ticks_ms(), t) > limit_ms:
                raise RuntimeError("the computer's search on core 1 did not stop within %d ms" % limit_ms)

    def _run(self):
        # Core 1, forever (a soft reset or machine.reset() ends it). No allocation on the way to a job's
        # answer: attribute reads and writes, method calls (no bound method is made for obj.m(...)).
        go = self._go
        while True:
            go.acquire()
            job = self.job
            bot = self.bot
            try:
                c = -1
                while c < 0 and self.live == job:
                    c = bot.step(self.units)
                    self.steps += 1
                if c >= 0 and self.live == job:
                    self.cell = c
                    self.done = job
            except Exception as e:  # a stopped job's error is nobody's business (its state was being let go)
                if self.live == job:
                    self.error = e
                    self.done = job
            self.busy = 0


def start():
    """The worker on core 1 where this firmware runs it, else None (the app then slices the search into
    its ticks), and why, as text (for the benchmark and the boot log)."""
    impl = sys.implementation
    machine = getattr(impl, "_machine", "")
    if impl.name != "micropython":
        return None, "sliced: not MicroPython (%s)" % impl.name
    if "RP2040" not in machine:
        # ESP32-S3 and the RP2350 have two cores and _thread too, but this has only been run on the RP2040
        # (the emulated Pico runs core 1): elsewhere the search stays in the ticks.
        return None, "sliced: %s (core 1 is only used on the RP2040)" % (machine or sys.platform)
    global _started
    if _started is not None:
        _started.live = 0  # the app that posted its jobs is gone: its search lets go at its next step()
        return _started, "core 1: the search runs in a thread on the RP2040's second core (started earlier this boot)"
    try:
        import _thread
    except ImportError:
        return None, "sliced: this firmware has no _thread"
    try:
        t = Thinker(_thread)
    except OSError as e:  # core 1 already runs a thread this module did not start (code at the REPL)
        return None, "sliced: core 1 is in use (%s)" % (e,)
    _started = t
    return t, "core 1: the search runs in a thread on the RP2040's second core"
