"""Measurements inside the real firmware on the emulated Pico (timed with the guest's own clock = emulated time): the app driven by pin-level keys, turns, bot moves, heap."""
import json

from tools.rp2040 import Rp2040Error

# The app as main.py builds it, from a fresh interpreter (raw-REPL soft reset:
# nothing imported yet, so "boot" counts the .mpy code and the App state), with
# the computer's search on core 1 as main.py starts it (THREADS) or forced into
# the ticks (the sliced path). Wrappers on tick/update/render/np.write and on
# the app's _start_bot/_think/_deepen time them with ticks_us (the RP2040 timer:
# emulated microseconds); a move runs from the tick that starts it to the one
# that takes its cell, whichever core searched; on the sliced path the ticks
# that search deeper (App._deepen) count as thinking too, each run of them a span. Each move's span is also kept
# in the timer's own µs (= emulated ns / 1000), so the host can lay the WS2812
# frames the data pin carried over it. With HEAP the heap is sampled after
# gc.collect() at every tick and, at most every 20 ms, after a slice (sliced
# path). The host types moves when told a turn is open ("@T turns"). With DEEP (hard) the person waits for hard's
# deeper answer: "@T turns cell" once it is ready, the cell the first free one of a fixed list, and each
# turn's ready time counted from the turn's opening (negative: before it, while the last turn animated).
_DRIVER = r"""
import gc, time
gc.collect()
_base = gc.mem_alloc()
import machine, neopixel
import board_config as cfg
from firmware.hw import build
from firmware.app import App, S_TURN
# As main.py builds it, with a fixed seed instead of os.urandom so that runs repeat.
hw = build(cfg, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=lambda: %(seed)d)
if %(threads)r:
    from firmware.thinker import start as _start_thinker
    hw.thinker, _path = _start_thinker()
else:
    _path = "sliced: forced (the driver made no thinker)"
app = App(hw, cfg, mode=%(mode)r, store_dir=None)
if not %(deepen)r:
    app.deep = None   # hard's first answers only (before its first move is done: nothing begun)
gc.collect()
R = {"boot": gc.mem_alloc() - _base, "peak": 0, "ticks": 0, "tick_max": 0, "think_tick_max": 0,
     "moves": [], "upd": [], "wr": [], "scan_gap_max": 0, "path": _path, "spans": [], "steps": 0, "cells": [],
     "resolves": [], "deep_ready": []}
HEAP = %(heap)r
DEEP = %(deep)r
_pref = %(pref)r
dw = [0, 0, 0, 0]   # (DEEP) when the turn opened (ms), 1 once its "@T" is printed, when the deeper answer was ready
# (ms), 1 while it is (from a look after each tick: the tick's granularity)
TURNS = %(turns)d
LIMIT_MS = %(limit_ms)d
us = time.ticks_us
df = time.ticks_diff
_tick = app.tick
_upd = app.update
_ren = app.render
_wr = hw.np.write
_sb = app._start_bot
_th = app._think
_dp = getattr(app, "_deepen", None)   # (getattr: the driver also measures firmware from before it)
_rv = app._reveal
st = [0, -1, 0, 0, -1, 0, -1, 0, 0]   # thinking flag, turns last reported, last heap sample ms, upd start, move start, tick start,
# and the deeper search in the ticks (sliced path): when its run of ticks began (-1: none), its last slice's end, a slice this tick
def sample():
    gc.collect()
    a = gc.mem_alloc() - _base
    if a > R["peak"]:
        R["peak"] = a
def tick():
    t = us()
    if R["ticks"]:
        g = df(t, st[5])   # from the last tick's start: how far apart the pads are scanned
        if g > R["scan_gap_max"]:
            R["scan_gap_max"] = g
    st[5] = t
    st[0] = 0   # set by _think() when the computer thinks inside this tick (or _deepen(), searching deeper)
    st[8] = 0
    d = _tick()
    if st[6] >= 0 and not st[8]:   # the deeper search's ticks are over (the reveal, or its answer is ready): one span
        R["spans"].append((df(st[6], _sync[0]), df(st[7], _sync[0])))
        st[6] = -1
    t = df(us(), t)
    R["ticks"] += 1
    if t > R["tick_max"]:
        R["tick_max"] = t
    if st[0] and t > R["think_tick_max"]:
        R["think_tick_max"] = t
    if HEAP:
        sample()
    g = app.game
    if app.state == S_TURN and g.turns != st[1]:
        st[1] = g.turns
        if DEEP:
            dw[0] = time.ticks_ms()
            dw[1] = 0
        elif _pref:
            print("@T", g.turns, [c for c in _pref if g.legal(c)][0])
        else:
            print("@T", g.turns)
    if DEEP:
        if app.ponder < 0:   # (none begun since the reveal: done() still tells of the last turn's)
            dw[3] = 0
        elif not dw[3] and app.deep.done():
            dw[3] = 1
            dw[2] = time.ticks_ms()
        if not dw[1] and dw[3] and app.state == S_TURN and app.thinking < 0:
            dw[1] = 1
            R["deep_ready"].append(df(dw[2], dw[0]))
            print("@T", g.turns, [c for c in _pref if g.legal(c)][0])
    return d
def update(now):
    st[3] = us()
    _upd(now)
def render(now):
    _ren(now)
    if not HEAP and not st[0]:   # a frame whose update let the computer think is the bot's figure, not the frame's
        R["upd"].append(df(us(), st[3]))
def write():
    t = us()
    _wr()
    if not HEAP:
        R["wr"].append(df(us(), t))
def heap_due():
    if HEAP:
        n = time.ticks_ms()
        if df(n, st[2]) >= 20:
            st[2] = n
            sample()
def start_bot(seat):
    t = st[5]   # the move starts with the tick that starts it
    _sb(seat)
    if app.thinking >= 0:
        st[4] = t
def deepen():
    st[0] = 1
    st[8] = 1
    if st[6] < 0:
        st[6] = st[5]   # (from the tick's start, as a move's span)
    _dp()
    st[7] = us()
def reveal(now):
    n = app.game.turns
    _rv(now)
    if app.game.turns != n:   # the turn resolved: this frame is not written (by design), the host skips its gap
        R["resolves"].append(df(us(), _sync[0]))
def think():
    st[0] = 1
    seat = app.thinking
    t = st[4]
    _th()   # (taking the cell, it starts the next computer seat's move: start_bot sets st[4] again)
    if app.thinking != seat:
        R["cells"].append(app.entries[seat].move)
    if app.thinking != seat and t >= 0:   # (the first move starts in App(), before these wrappers: not timed)
        e = us()
        R["moves"].append(df(e, t))
        R["spans"].append((df(t, _sync[0]), df(e, _sync[0])))
    if app.thinking < 0:
        st[4] = -1
    heap_due()
app.tick = tick
app.update = update
app.render = render
app._start_bot = start_bot
app._think = think
app._reveal = reveal
if _dp is not None:
    app._deepen = deepen
hw.np.write = write
# A guard in emulated time: a run that stops making turns (a key the app never took) ends
# here with its state, instead of waiting for the 5-minute idle return to attract mode.
_t0 = time.ticks_ms()
def finished():
    return app.game.turns >= TURNS or app.game.result != 0
# The timer's raw 64-bit µs beside ticks_us, once: the host turns each span into emulated ns.
_sync = (us(), machine.mem32[0x40054024], machine.mem32[0x40054028])
R["sync"] = (_sync[1] & 0xFFFFFFFF) * 4294967296 + (_sync[2] & 0xFFFFFFFF)
app.run(lambda: finished() or df(time.ticks_ms(), _t0) > LIMIT_MS)
if not finished():
    R["stuck"] = {"ms": df(time.ticks_ms(), _t0), "mode": app.mode, "state": app.state, "turns": app.game.turns,
                  "thinking": app.thinking, "ring": len(app.ring), "lost": app.ring.lost, "downs": app.ring.downs,
                  "entries": [(x.digits, x.locked) for x in app.entries]}
for k in ("upd", "wr"):
    v = R[k]
    R[k] = [len(v), sum(v), max(v) if v else 0]
_t = getattr(hw, "thinker", None)   # (getattr: the driver also measures firmware from before it)
if _t is not None:
    R["steps"] = _t.steps
    if getattr(_t, "failed", None):   # its search failed on core 1: the app went on in its ticks
        R["path"] = "sliced after core 1 failed: %%s" %% _t.failed
print("@R", R)
"""


HEAP_HOLD_MS = 200  # how long run_app holds each key (and waits after it) while sampling the heap


def run_app(pico, moves, mode="hard", heap=False, seed=1, timeout=900.0, hold_ms=None, limit_s=None, threads=True,
            deep=False, deepen=True, at_once=False):
    """Run the firmware's App (built as main.py builds it) in `mode` until len(moves) turns are played or the
    game ends; pad A types moves[k] (a cell index) when turn k opens (and pad B too in "2p": pairs).
    Returns the guest's figures: boot/peak heap (bytes above a fresh interpreter), tick_max,
    think_tick_max, moves (µs per bot move), upd/wr ([count, total µs, max µs]), all emulated;
    path (where the search ran: "core 1: ..." or "sliced: ..."), steps (step() calls on core 1), cells (each
    computer move, in order);
    spans ([(start, end)] emulated ns of each move, and of each run of ticks that searched deeper on the sliced
    path) and the LED frames the data pin carried:
    frame_gap_max (ns between two frames' starts, any time) and think_gap_max (the longest such gap
    that overlaps a move: the computer was thinking), from the decoded WS2812 stream.
    threads=False: no thinker, the search runs in the ticks (the sliced path, as on a port without _thread).
    deep=True (hard): pad A waits each turn for hard's deeper answer, then types the first free cell of `moves`
    (then of the board); deep_ready: each turn's ms from its opening to that answer (negative: ready before it).
    at_once=True: pad A types the first free cell of `moves` (then of the board) as soon as each turn opens.
    deepen=False: hard plays its first answers only (no deeper search: which answer a reveal meets then
    depends on the clock, the path's pace and the person's).
    hold_ms: how long each key is held, and the gap after it (default 80 ms, 200 with heap sampling).
    scan_gap_max: the longest time between two pad scans (µs)."""
    from firmware.entry import keys_for

    if hold_ms is None:
        # A key is seen after 2 agreeing scans, so a tap must outlast two scan gaps. Sampling the heap
        # (gc.collect) after every tick and inside the bot stretches a gap while hard thinks to ~50 ms
        # (scan_gap_max; without sampling ~18 ms): a human's 80 ms double tap "55" then lost its second
        # 5 now and then (the run waited for a move the app had refused as "5#").
        hold_ms = HEAP_HOLD_MS if heap else 80
    # limit_s: emulated seconds before the run counts as stuck (an Rp2040Error naming the app's state).
    # By default 60 a turn, which is ample (a hard move with heap sampling ~2 s, countdown + animation ~2 s).
    limit_ms = int(1000 * limit_s) if limit_s is not None else 60000 * len(moves)
    code = _DRIVER % {"mode": mode, "seed": seed, "heap": bool(heap), "turns": len(moves), "limit_ms": limit_ms,
                      "threads": bool(threads), "deep": bool(deep), "deepen": bool(deepen),
                      "pref": list(moves) + list(range(81)) if deep or at_once else []}
    first = pico.stats()["frames"]   # the seq the next frame gets
    result = {}
    buf = [b""]
    typed = set()
    keys_log = []

    def consume(data):
        buf[0] += data
        while b"\n" in buf[0]:
            line, _, buf[0] = buf[0].partition(b"\n")
            text = line.decode("utf-8", "replace").strip()
            if text.startswith("@T "):
                f = text.split()
                k = int(f[1])
                if k < len(moves) and k not in typed:
                    typed.add(k)
                    mv = int(f[2]) if len(f) > 2 else moves[k]
                    if mode == "2p":
                        end = max(pico.type_keys("A", keys_for(mv[0], False), hold_ms=hold_ms, gap_ms=hold_ms),
                                  pico.type_keys("B", keys_for(mv[1], True), hold_ms=hold_ms, gap_ms=hold_ms))
                    else:
                        end = pico.type_keys("A", keys_for(mv, False), hold_ms=hold_ms, gap_ms=hold_ms)
                    keys_log.append((k, end))
            elif text.startswith("@R "):
                import ast
                result.update(ast.literal_eval(text[3:]))

    exec_fresh(pico, code, timeout, consume)
    if not result:
        raise Rp2040Error("the app run printed no result")
    if "stuck" in result:
        raise Rp2040Error("the app stopped making turns: %r; longest scan gap %d us; moves typed (turn, emulated ns "
                          "their taps end): %r; last contact changes: %r"
                          % (result["stuck"], result["scan_gap_max"], keys_log, pico.switches()[-8:]))
    base = result.pop("sync")
    result["spans"] = [((base + a) * 1000, (base + b) * 1000) for a, b in result["spans"]]
    result["resolves"] = [(base + r) * 1000 for r in result.get("resolves", ())]
    # (frames from before the run: the last of main.py's app, then the REPL's soft reset, whose host round
    # trips take no emulated time worth measuring)
    result.update(frame_gaps([f for f in pico.frames(first) if f.t0_ns >= base * 1000], result["spans"],
                             result["resolves"]))
    return result


def frame_gaps(frames, spans, resolves=()):
    """{"frame_gap_max", "think_gap_max", "frames"}: the longest time between the starts of two consecutive
    frames on the data pin (ns), overall and among the gaps that overlap one of `spans` ([(start, end)] ns)
    but hold none of `resolves` (ns: a turn resolved, and its frame is not written by design: on the sliced
    path the deeper search's ticks run up to that frame)."""
    out = {"frame_gap_max": 0, "think_gap_max": 0, "frames": len(frames)}
    for a, b in zip(frames, frames[1:]):
        g = b.t0_ns - a.t0_ns
        if g > out["frame_gap_max"]:
            out["frame_gap_max"] = g
        if (g > out["think_gap_max"] and any(a.t0_ns < e and b.t0_ns > s for s, e in spans)
                and not any(a.t0_ns < r < b.t0_ns for r in resolves)):
            out["think_gap_max"] = g
    return out


def exec_fresh(pico, code, timeout=900.0, consumer=None):
    """exec `code` in a fresh interpreter (raw-REPL soft reset) through mpremote's transport; its output (also fed to
    `consumer` as it arrives). A silent REPL or a guest exception is one Rp2040Error line."""
    from mpremote.transport import TransportError

    t = pico.serial()
    try:
        try:
            t.enter_raw_repl(soft_reset=True, timeout_overall=60)
            out, err = t.exec_raw(code, timeout=timeout, data_consumer=consumer)
        except TransportError as e:
            raise Rp2040Error("the emulated Pico's REPL did not answer: %s" % e) from None
        if err:
            raise Rp2040Error("guest error: " + err.decode("utf-8", "replace").strip().splitlines()[-1])
    finally:
        try:
            t.exit_raw_repl()
        except Exception:
            pass
        t.close()
    return out


def guest_json(pico, code, timeout=900.0):
    """exec `code` from a fresh interpreter (raw-REPL soft reset); it must print one line '@J <json>'."""
    out = exec_fresh(pico, code, timeout)
    for line in out.decode("utf-8", "replace").splitlines():
        if line.startswith("@J "):
            return json.loads(line[3:])
    raise Rp2040Error("the guest printed no @J line: " + out.decode("utf-8", "replace")[-300:])
