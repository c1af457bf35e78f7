"""The RP2040's second core on the emulated Pico: MicroPython's _thread really runs on core 1 (its own CPUID, in parallel, through GC, flash writes and soft resets), and the computer's search runs there in the real firmware: a game against hard read back from the LEDs, the same moves as the sliced path, no stale answer after a mode change; the bot's hot loops run there as machine code (viper), with the host's moves."""
import shutil

import pytest

from engine import Game, WHITE, parse_square
from engine.bot import Bot
from engine.notation import board_rows
from tools.rp2040 import Pico
from tools.rp2040.probe import exec_fresh, guest_json, run_app
from firmware_helpers import level_moves

pytestmark = pytest.mark.usefixtures("needs_uf2")


@pytest.fixture(scope="module")
def pico(rp2_image, tmp_path_factory):
    img = tmp_path_factory.mktemp("rp2040-cores") / "flash.img"
    shutil.copy(rp2_image, img)
    with Pico(flash=img) as p:
        p.wait_frames(1)
        yield p


# Everything in functions: without a GIL, a new global made on one core while the other looks one up can
# make the lookup fail (a dict growing under it), on a real Pico too.
_PARALLEL = """
import _thread, time, machine, gc, json
def main():
    r = {}
    lk = _thread.allocate_lock()
    lk.acquire()
    def work(n):
        s = 0
        for i in range(n):
            s += i % 7
        return s
    def f():
        r["cpuid"] = machine.mem32[0xd0000000]
        r["t0"] = time.ticks_us()
        r["sum"] = work(20000)
        r["t1"] = time.ticks_us()
        lk.release()
    t0 = time.ticks_us()
    _thread.start_new_thread(f, ())
    r["main_sum"] = work(20000)
    t1 = time.ticks_us()
    lk.acquire()
    r["main_cpuid"] = machine.mem32[0xd0000000]
    # core 1's run overlapped core 0's: it started before core 0 finished, and finished after core 0 started
    r["overlap"] = time.ticks_diff(t1, r["t0"]) > 0 and time.ticks_diff(r["t1"], t0) > 0
    # GC on core 0 while core 1 allocates
    def g():
        x = []
        for i in range(300):
            x.append(str(i) * 3)
            if len(x) > 20:
                x = []
        r["g"] = len(x)
        lk.release()
    _thread.start_new_thread(g, ())
    for i in range(30):
        gc.collect()
        y = [bytearray(100) for _ in range(10)]
    lk.acquire()
    # a flash write on core 0 (core 1 locked out meanwhile) while core 1 computes
    def h():
        r["h"] = work(30000)
        lk.release()
    _thread.start_new_thread(h, ())
    with open("/cores.txt", "w") as fh:
        fh.write("x" * 5000)
    import os
    r["file"] = os.stat("/cores.txt")[6]
    os.remove("/cores.txt")
    lk.acquire()
    # leave core 1 busy forever: the next soft reset must stop it
    def forever():
        n = 0
        while True:
            n += 1
    _thread.start_new_thread(forever, ())
    return r
print("@J", json.dumps(main()))
"""

_AFTER_RESET = """
import _thread, time, json
def main():
    r = [0]
    def f():
        r[0] = 7
    _thread.start_new_thread(f, ())
    time.sleep_ms(20)
    return r[0]
print("@J", json.dumps(main()))
"""


def test_thread_runs_on_core_1_in_parallel_through_gc_flash_writes_and_a_soft_reset(pico):
    before = pico.stats()["core1"]["instructions"]
    r = guest_json(pico, _PARALLEL)
    want = sum(i % 7 for i in range(20000))
    assert r["cpuid"] == 1 and r["main_cpuid"] == 0
    assert r["sum"] == r["main_sum"] == want
    assert r["overlap"], r
    assert r["g"] >= 0 and r["h"] == sum(i % 7 for i in range(30000)) and r["file"] == 5000
    st = pico.stats()["core1"]
    assert st["instructions"] - before > 1000000 and st["running"]
    # The soft reset before the next script reset the busy core 1; a thread starts again.
    assert guest_json(pico, _AFTER_RESET) == 7
    assert pico.stats()["conflicts"] == 0


def host_moves(seed, human, n):
    """The computer's first n moves in the game against hard (white), replayed in CPython with the app's seed."""
    bot = Bot("hard")
    bot.reseed(seed)
    g = Game()
    out = []
    for k in range(n):
        c = bot.choose(g, WHITE)
        out.append(c)
        if k + 1 < n:
            g.play(human[k], c)
    return out


def test_a_game_against_hard_on_core_1_matches_the_sliced_path_and_the_leds(pico):
    # Hard's first answers (deepen=False): whether the deeper one is ready at a reveal depends on each path's
    # pace (at 200 MHz core 1 had it in time here, and the game went another way); its own test is below.
    human = [parse_square(m) for m in ("a1", "i9", "a9", "i1")]
    r = run_app(pico, human, mode="hard", seed=3, deepen=False)
    assert r["path"].startswith("core 1"), r["path"]
    assert r["steps"] > 10                       # the search ran in many step() calls on core 1
    last = pico.frames()[-1]
    want = host_moves(3, human, len(human))
    assert r["cells"] == want
    # The last frame is the last turn's countdown: the board after the turns before it.
    g = Game()
    for k in range(len(human) - 1):
        g.play(human[k], want[k])
    assert pico.board_rows(last) == ["".join(".BWe"[g.cell(r9 * 9 + c)] for c in range(9)) for r9 in range(9)]
    s = run_app(pico, human, mode="hard", seed=3, threads=False, deepen=False)
    assert s["path"].startswith("sliced") and s["steps"] == 0
    assert s["cells"] == r["cells"]


def deep_game(seed, pref):
    """Hard's game on the host against a person who plays the first free cell of `pref` (then of the board) each
    turn while hard plays its deeper answers (Bot + Deepen): (the Game after the last turn's opening, hard's
    first answers, its deeper answers); the last turn is not played (the Pico's last frame is its countdown)."""
    from engine.bot import SLICE_UNITS
    from engine.bot.deepen import Deepen

    ref = Bot("hard")
    ref.reseed(seed)
    d = Deepen(ref)
    g = Game()
    own, deeper = [], []
    for k in range(len(pref)):
        own.append(ref.choose(g, WHITE))
        d.begin(g, WHITE)
        c = d.step(SLICE_UNITS)
        while c < 0:
            c = d.step(SLICE_UNITS)
        deeper.append(c)
        if k + 1 < len(pref):
            g.play([m for m in pref + list(range(81)) if g.legal(m)][0], c)
    return g, own, deeper


def test_a_person_who_locks_at_once_on_the_pico_faces_hards_deeper_answer_as_on_the_host(pico):
    # Pad A types its move as each turn opens, quicker than a person (25 ms taps); the reveal comes when the
    # countdown ends or, against hard, when its deeper answer is ready (at most firmware.app's _WAIT_MS later),
    # so the board is Bot + Deepen's game on the host. At 200 MHz these turns' deeper answers were ready by the
    # countdown's end (the wait itself is test_thinker.py's): on a Pico a person of any speed faces the `deep`
    # player of docs/strength.md whenever the deeper answer comes within the wait (the rp2040 bench's turns).
    pref = [parse_square(m) for m in ("e5", "d4", "f6", "c3")]
    r = run_app(pico, pref, mode="hard", seed=5, at_once=True, hold_ms=25)  # 3 quick taps a move
    assert r["path"].startswith("core 1"), r["path"]
    g, own, deeper = deep_game(5, pref)
    assert r["cells"] == own and deeper != own   # (else this game would not tell the answers apart)
    assert pico.board_rows(pico.frames()[-1]) == board_rows(g)


def test_a_person_who_waits_on_the_pico_faces_hards_deeper_answer_as_on_the_host(pico):
    # Pad A waits each turn until hard's deeper answer is ready (it begins at the reveal, while the last turn
    # animates), then types the first free cell of `pref`: the reveal plays that answer, as Bot + Deepen do
    # on the host, and the LEDs show the board they reach.
    pref = [parse_square(m) for m in ("e5", "d4", "f6", "c3")]
    r = run_app(pico, pref, mode="hard", seed=5, deep=True)
    assert r["path"].startswith("core 1"), r["path"]
    g, own, deeper = deep_game(5, pref)
    assert r["cells"] == own and deeper != own   # (else this game would not tell the answers apart)
    assert len(r["deep_ready"]) == len(pref)
    # The last frame is the last turn's countdown: the board after the turns before it.
    assert pico.board_rows(pico.frames()[-1]) == board_rows(g)


_MODE_CHANGE = """
import gc, time, json, machine, neopixel
import board_config as cfg
from firmware.hw import build
from firmware.thinker import start
from firmware.app import App
from firmware.modes import M_MENU, M_HARD
from engine.bot import SLICE_UNITS
def main():
    hw = build(cfg, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=lambda: %(seed)d)
    hw.thinker = start()[0]
    app = App(hw, cfg, mode="hard")
    t = app.thinker
    out = {}
    def run_until(cond, limit_ms=20000):
        t0 = time.ticks_ms()
        while not cond():
            if time.ticks_diff(time.ticks_ms(), t0) > limit_ms:
                raise RuntimeError("gave up: state %%d thinking %%d job %%d" %% (app.state, app.thinking, app.job))
            time.sleep_ms(app.tick())
    run_until(lambda: app.thinking < 0)          # the computer's first move
    app.units = 1                                # its next search: one unit per step() call (slow)
    app.entries[0].lock_cell(%(human)d)          # the human's move
    run_until(lambda: app.game.turns == 1 and app.thinking == 1 and app.job != 0)
    run_until(lambda: t.steps > 20)
    out["busy"] = not t.idle()
    stale = app.job
    app.set_mode(M_MENU)
    out["idle_after"] = t.idle()
    out["after"] = (app.thinking, app.job, t.live)
    app.units = SLICE_UNITS
    app.set_mode(M_HARD)                         # a new game: the computer chooses for the empty board
    run_until(lambda: app.thinking < 0)
    out["stale_answer"] = t.answer(stale)
    out["cell"] = app.entries[1].move
    out["turns"] = app.game.turns
    return out
print("@J", json.dumps(main()))
"""


def test_a_mode_change_while_core_1_thinks_stops_it_and_leaves_no_stale_answer(pico):
    r = guest_json(pico, _MODE_CHANGE % {"seed": 5, "human": parse_square("e5")})
    assert r["busy"], "the search had finished before the mode changed: nothing was tested"
    assert r["idle_after"] and r["after"] == [-1, 0, 0]
    assert r["stale_answer"] == -1
    assert r["turns"] == 0 and r["cell"] == host_moves(5, [None], 1)[0]


_FAILING = """
import time, json, machine, neopixel
import board_config as cfg
from firmware.hw import build
from firmware.thinker import start
from firmware.app import App
class FailingBot:
    def __init__(self, level):
        self.n = 0
    def reseed(self, seed):
        pass
    def start(self, game, color):
        pass
    def step(self, units):
        self.n += 1
        if self.n > 3:
            raise IndexError("a bug in the search")
        return -1
def main():
    hw = build(cfg, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=lambda: 1)
    hw.thinker = start()[0]
    app = App(hw, cfg, mode="hard", bots=FailingBot)
    try:
        for _ in range(200):
            time.sleep_ms(app.tick())
    except Exception as e:
        return [repr(e), hw.thinker.failed, app.thinker is None]
    return None
print("@J", json.dumps(main()))
"""


def test_an_error_in_the_search_on_core_1_starts_the_move_again_on_core_0_where_a_bug_is_raised(pico):
    r = guest_json(pico, _FAILING)
    assert r is not None, "the app went on as if the search had not failed"
    err, failed, dropped = r
    assert "IndexError" in err and "a bug in the search" in err    # the search's own error, raised on core 0
    assert "failed on core 1" in failed and "IndexError" in failed and dropped


# Core 1's stack far too small for hard's search (2048 B: rp2's least; MicroPython raises RuntimeError 512 B
# before its end): its first move fails there and starts again in the ticks, which find the same cell.
_SMALL_STACK = """
import time, json, machine, neopixel, _thread
import board_config as cfg
from firmware.hw import build
from firmware.thinker import Thinker
from firmware.app import App
def main():
    # As main.py: the thread starts before the clock goes up (firmware/cpufreq.py: at 200 MHz, MicroPython's
    # 512 bytes for the recovery are lost to a race, and this overflow ran into the heap: "no attribute 'done'").
    hz = machine.freq()
    machine.freq(125000000)
    t = Thinker(_thread, stack=2048)
    machine.freq(hz)
    hw = build(cfg, machine.Pin, neopixel.NeoPixel, time, PWM=machine.PWM, entropy=lambda: %(seed)d)
    hw.thinker = t
    app = App(hw, cfg, mode="hard")
    t0 = time.ticks_ms()
    while app.thinking >= 0 and time.ticks_diff(time.ticks_ms(), t0) < 20000:
        time.sleep_ms(app.tick())
    return [app.entries[1].move, hw.thinker.failed, app.thinker is None, hw.thinker.steps, app.thinking]
print("@J", json.dumps(main()))
"""


def test_a_search_that_overflows_core_1s_stack_starts_again_in_the_ticks(pico):
    cell, failed, dropped, steps, thinking = guest_json(pico, _SMALL_STACK % {"seed": 5})
    assert thinking == -1 and dropped, (failed, steps)
    assert failed and "failed on core 1" in failed and "RuntimeError" in failed, failed
    assert cell == host_moves(5, [None], 1)[0]


def test_the_game_as_main_py_runs_it_searches_on_core_1(pico):
    out = exec_fresh(pico, "from firmware.thinker import start\nt, why = start()\nprint(why)").decode()
    assert out.startswith("core 1:"), out


def test_hards_deeper_answer_on_core_1_is_the_hosts_and_allocates_nothing(pico):
    # A position of the shared games where the deeper answer differs from hard's first (7 child searches).
    from firmware.thinker import STACK
    from tools.bench.rp2040 import STACK_GUARD, deep_runs, position_turns

    r = deep_runs(pico, [(position_turns()[700], 1)])
    (cell, deep, children, allocated, us), = r["moves"]
    assert [cell, deep] == list(r["host"][0]) and deep != cell
    assert children == 7 and allocated == 0 and us > 0
    assert r["stack"] < STACK - STACK_GUARD


def test_the_pico_runs_the_machine_code_and_plays_the_hosts_moves(pico):
    # Hard's first answers and deeper answers on the Pico (viper: the walk and fictitious play) against the
    # host's (bytecode), in three positions of the shared games: early, middle, late
    from tools.bench.rp2040 import deep_runs, position_turns
    from tools.rp2040.probe import guest_json

    assert guest_json(pico, "import json\nfrom engine.bot import evaluate, solve\nprint('@J', json.dumps("
                            "[evaluate.EMITTER, solve.fp_batch is evaluate._viper.fp_batch]))") == ["viper", True]
    turns = position_turns()
    r = deep_runs(pico, [(turns[k], 1 + k % 2) for k in (150, 500, 900)])
    assert [(m[0], m[1]) for m in r["moves"]] == [tuple(h) for h in r["host"]]
    assert all(m[3] == 0 for m in r["moves"])  # nothing allocated
    # every level's move (easy's Work has no threat table; medium reads none): the host's cells
    code, host = level_moves([(turns[k], 1 + k % 2) for k in (150, 500, 900)])
    assert guest_json(pico, code) == host


# The clamp test and the deeper answer's final solve, run by the same code on the Pico (machine code) and on the
# host (bytecode): every empty cell of three positions as the newcomer of either side, alone and beside a second
# newcomer; Deepen's whole solve (3000 iterations, its batches, the row it draws) on matrices with ties.
_CLAMPS_FP = """
from array import array
from engine import Game, PAD
from engine.bot import Bot, solve
from engine.bot.deepen import Deepen
def main(P, M):
    out = []
    b = Bot("hard", 1)
    g = Game()
    bd = b._w.bd
    for turns in P:
        g.reset()
        for x, y in turns:
            g.play(x, y)
        g.copy_padded(bd)
        bits = []
        for i in range(81):
            p = PAD[i]
            if bd[p]:
                continue
            for who in (1, 2):
                for q in (-1, PAD[(i * 7 + 3) % 81], PAD[(i + 10) % 81]):
                    if q != p and (q < 0 or not bd[q]):
                        bits.append(1 if solve._clamps(b, p, who, q) else 0)
        out.append(bits)
    d = Deepen(b)
    w = b._w
    for m, n, nc in M:
        d.m = array("i", m)
        d.rows = bytearray(range(40, 40 + n))
        d.n = n
        d.nc = nc
        d.root = g
        d.child.reseed(n * 100 + nc)
        d._begin_solve()
        while d._ph != 4:
            d._solve()
        out.append([d._res, d._fi, d._it] + [w.racc[k] for k in range(n)] + [w.cacc[k] for k in range(nc)]
                   + [w.rcnt[k] for k in range(n)])
    return out
"""


def test_the_machine_code_clamp_test_and_deeper_solve_are_the_bytecodes(pico):
    import random

    from tools.bench.rp2040 import position_turns

    turns = position_turns()
    ps = [turns[k] for k in (300, 700, 1100)]
    rnd = random.Random(7)
    ms = []
    for n, nc in ((4, 10), (3, 6), (2, 1), (4, 7)):
        m = [0] * 40
        for i in range(n):
            for j in range(nc):
                m[i * 10 + j] = rnd.choice((rnd.randint(-30004, 30004), rnd.randint(-60, 60), rnd.randint(-3, 3), 0))
        ms.append((m, n, nc))
    assert guest_json(pico, "import json\nfrom engine.bot import evaluate, solve, deepen\n"
                            "v = evaluate._viper\nprint('@J', json.dumps([solve._clamps is v.clamps, "
                            "solve.fp_batch is v.fp_batch]))") == [True, True]
    scope = {}
    exec(_CLAMPS_FP, scope)  # the host: the bytecode of both
    want = scope["main"](ps, ms)
    assert all(sum(bits) for bits in want[:3])  # clamps among them
    got = guest_json(pico, _CLAMPS_FP + "import json\nprint('@J', json.dumps(main(%r, %r)))" % (ps, ms))
    assert got == want


# One cell's line changes and a quiet pair's value, run by the same code on the Pico (machine code) and on the
# host (bytecode), at hard (clamp threats scored) and medium (none): every empty cell of three positions as the
# opponent's reply (the reply search's scratch column) against each row, with the root's score and fours shifted
# so that the payoff clips at both ends and gives the double four's bonus either way; then every empty cell as
# either colour into a row's arrays (32-bit per-direction fours there, 16-bit in a column's). The values go into a
# digest (the Pico's heap holds no list of them all): h -> (31 h ^ x) mod 2 ** 24 is one-to-one in h, so a single
# value that differs (|x| < 2 ** 23) changes it.
_QUIET = """
from engine import Game, PAD
from engine.bot import Bot, evaluate
def main(P, levels):
    out = []
    g = Game()
    for level in levels:
        b = Bot(level, 1)
        w = b._w
        for k, turns in enumerate(P):
            g.reset()
            for x, y in turns:
                g.play(x, y)
            color = 1 + (k & 1)
            b.reseed(k)
            b.choose(g, color)
            j = min(b._nc, 9)
            bd = w.bd
            b0 = bytes(bd)
            t0 = b._total
            f0 = b._f4
            # pairs on a shared line, values, their digest, negative ones, clipped either way
            q = [0, 0, 0, 0, 0, 0]
            d = [0, 0, 0, 0, 0]  # line changes: count, digest, least, most, how many in -1023..-1
            for c in range(81):
                p = PAD[c]
                if bd[p]:
                    continue
                w.cols[j] = c
                evaluate.cell_delta(b, p, 3 - color, w.sc, w.s4c, w.dc, w.d4c, j)
                for x in [w.sc[j], w.s4c[j]] + [w.dc[4 * j + n] for n in range(4)] + [w.d4c[4 * j + n] for n in range(4)]:
                    d[0] += 1
                    d[1] = ((d[1] * 31) ^ (x & 0xFFFFFF)) & 0xFFFFFF
                    d[2] = min(d[2], x)
                    d[3] = max(d[3], x)
                    d[4] += 1 if -1024 < x < 0 else 0
                for i in range(b._nr):
                    r = PAD[w.rows[i]]
                    if r == p:
                        continue
                    a = min(r, p)
                    e = max(r, p)
                    dr = e // 11 - a // 11
                    dc = e % 11 - a % 11
                    if dr <= 4 and abs(dc) <= 4 and (dr == 0 or dc == 0 or dr == abs(dc)):
                        q[0] += 1
                    for t, f in ((0, 0), (-19000, 0), (19000, 0), (-26000, 2048), (26000, 2), (600, 2050),
                                 (-700, 3)):
                        b._total = t0 + t
                        b._f4 = f0 + f
                        v = evaluate.quiet(b, i, j)
                        q[1] += 1
                        q[2] = ((q[2] * 31) ^ (v & 0xFFFFFF)) & 0xFFFFFF
                        q[3] += 1 if v < 0 else 0
                        q[4] += 1 if v == 3333 else 0  # payoff(20000, 0)
                        q[5] += 1 if v == -3334 else 0  # payoff(-20000, 0)
                b._total = t0
                b._f4 = f0
            for c in range(81):
                p = PAD[c]
                if bd[p]:
                    continue
                for v in (1, 2):
                    evaluate.cell_delta(b, p, v, w.sr, w.s4r, w.dr, w.d4r, 1)
                    for x in [w.sr[1], w.s4r[1]] + [w.dr[4 + n] for n in range(4)] + [w.d4r[4 + n] for n in range(4)]:
                        d[0] += 1
                        d[1] = ((d[1] * 31) ^ (x & 0xFFFFFF)) & 0xFFFFFF
                        d[2] = min(d[2], x)
                        d[3] = max(d[3], x)
                        d[4] += 1 if -1024 < x < 0 else 0
            out.append([q, d, bytes(bd) == b0])  # and the board put back
    return out
"""


def test_the_machine_code_quiet_pair_and_cell_delta_are_the_bytecodes(pico):
    from engine.bot.evaluate import payoff
    from tools.bench.rp2040 import position_turns

    assert guest_json(pico, "import json\nfrom engine.bot import evaluate as e, solve\nv = e._viper\nprint('@J', "
                            "json.dumps([e.quiet is v.quiet, solve.quiet is v.quiet, e.cell_delta is v.cell_delta, "
                            "solve.cell_delta is v.cell_delta]))") == [True] * 4
    if payoff(20000, 0) != 3333 or payoff(-20000, 0) != -3334:
        raise AssertionError("the script counts clipped payoffs by value: update it")
    turns = position_turns()
    ps = [turns[k] for k in (150, 500, 900)]
    scope = {}
    exec(_QUIET, scope)  # the host: the bytecode
    want = scope["main"](ps, ["hard", "medium"])
    for q, d, back in want:
        assert back and q[0] >= 20  # pairs on one line within a window: the walk's correction
        assert q[3] > q[1] // 4 and q[4] and q[5]  # negative ones (floor division rounds them down); clipped both ways
        assert d[2] < -400 and d[3] > 700 and d[4]
    assert min(d[2] for _, d, _ in want) < -10000  # a five's window among them
    got = guest_json(pico, _QUIET + "import json\nprint('@J', json.dumps(main(%r, %r)))"
                     % (ps, ["hard", "medium"]), timeout=3000)
    assert got == want


# A trial turn's rescoring (every line through a cell it changed), run by the same code on the Pico (machine code)
# and on the host (bytecode): every pair of empty cells played in three positions at hard (clamp threats scored)
# and one at medium (none), each turn rescored twice, as it is and with the root's score and fours shifted so the
# payoff clips at both ends and gives the double four's bonus either way. The positions were picked for their
# turn records: eggs laid, captures, contested eggs that vanish, hatchlings, decided games. The values go into a
# digest, as in _QUIET.
_RESCORE = """
from engine import Game, PAD
from engine.bot import Bot, evaluate
SH = ((-19000, 0), (19000, 0), (-26000, 2048), (26000, 2), (600, 2050), (-700, 3))
def main(P):
    out = []
    g = Game()
    for level, k, turns in P:
        b = Bot(level, 1)
        w = b._w
        g.reset()
        for x, y in turns:
            g.play(x, y)
        b.reseed(k)
        b.choose(g, 1 + (k & 1))
        bd = w.bd
        b0 = bytes(bd)
        t0 = b._total
        f0 = b._f4
        # turns, the values' digest, negative ones, clipped up, clipped down, decided games; turns with an egg
        # laid, a capture, a vanish, a hatch
        e = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        cells = [c for c in range(81) if not bd[PAD[c]]]
        for r in cells:
            for c in cells:
                g.play(r, c)
                for t, f in ((0, 0), SH[e[0] % 6]):
                    b._total = t0 + t
                    b._f4 = f0 + f
                    v = evaluate.rescore(b, g)
                    e[1] = ((e[1] * 31) ^ (v & 0xFFFFFF)) & 0xFFFFFF
                    e[2] += 1 if v < 0 else 0
                    e[3] += 1 if v == 3333 else 0  # payoff(20000, 0)
                    e[4] += 1 if v == -3334 else 0  # payoff(-20000, 0)
                b._total = t0
                b._f4 = f0
                e[0] += 1
                e[5] += 1 if g.result else 0
                log = g.log
                has = 0
                for p in range(0, g.log_len, 3):
                    has |= 1 << log[p]
                e[6] += (has >> 2) & 1
                e[7] += (has >> 6) & 1
                e[8] += (has >> 7) & 1
                e[9] += (has >> 8) & 1
                g.undo()
        out.append([e, bytes(bd) == b0])  # and the board put back
    return out
"""


def test_the_machine_code_rescore_of_a_trial_turn_is_the_bytecodes(pico):
    from engine.bot.evaluate import payoff
    from tools.bench.rp2040 import position_turns

    assert guest_json(pico, "import json\nfrom engine.bot import evaluate as e, solve\nv = e._viper\nprint('@J', "
                            "json.dumps([e.rescore is v.rescore, solve.rescore is v.rescore]))") == [True] * 2
    if payoff(20000, 0) != 3333 or payoff(-20000, 0) != -3334:
        raise AssertionError("the script counts clipped payoffs by value: update it")
    turns = position_turns()
    ps = [("hard", k, turns[k]) for k in (133, 322, 476)] + [("medium", 322, turns[322])]
    scope = {}
    exec(_RESCORE, scope)  # the host: the bytecode
    want = scope["main"](ps)
    assert all(back for _, back in want)
    e = [sum(x) for x in zip(*[e for e, _ in want])]
    assert e[0] > 3000 and e[2] > 1000 and e[3] and e[4]  # negative values; clipped both ways
    assert e[5] > 100 and e[6] > 50 and e[7] > 1000 and e[8] > 50 and e[9] > 1000  # every kind of turn record
    got = guest_json(pico, _RESCORE + "import json\nprint('@J', json.dumps(main(%r)))" % (ps,), timeout=3000)
    assert got == want


# A trial turn (play, then undo) as solve.pairs plays it, run on the Pico by Game's bytecode and by solve's trial turn
# (the machine code there) on two copies of each position: every pair of empty cells of three positions of the shared
# games (one in sudden death) and of four nearly full ones (all but one or two empty cells filled: the board fills,
# a draw, also in sudden death), the whole Game compared after each play and each undo: every buffer (board, egg
# ring, newcomers, ranks, winners' lists, turn record, undo state) and every count, sudden death's type too; the
# machine code runs with the heap locked. Then moves the rules refuse. On the host both are the bytecode: the same
# counts of turns and of kinds of turn, and no differences, are expected of the Pico.
_TRIAL = """
from engine import Game
from engine._compat import heap_lock, heap_unlock
from engine.bot import solve
F = ("_eh", "egg_count", "empty", "result", "sudden_death", "winning_black", "winning_white", "captures_black",
     "captures_white", "turns", "log_len", "_nranks", "_nwin")
B = ("_b", "_eggs", "_added", "_ranks", "_win", "_wnew", "log", "_u")
def differs(g, h):
    for a in F:
        x = getattr(g, a)
        y = getattr(h, a)
        if x != y or type(x) is not type(y):
            return a
    for a in B:
        if getattr(g, a) != getattr(h, a):
            return a
    return None
def main(P):
    out = []
    g = Game()
    h = Game()
    play = solve._play
    undo = solve._undo
    for turns, cells, eggs in P:
        g.reset()
        for x, y in turns:
            g.play(x, y)
        if cells:
            g.set_position(cells, eggs)
        h.copy_from(g)
        # turns, differences (the first: pair, after play or undo, field), decided games, draws, sudden death
        # after the turn, in it before; turns with an egg laid, a capture, an egg captured, a vanish, a hatch
        e = [0, 0, None, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        sd = 1 if g.sudden_death else 0
        free = [c for c in range(81) if not g.cell(c)]
        for r in free:
            for c in free:
                g.play(r, c)
                heap_lock()
                play(h, r, c)
                heap_unlock()
                d = differs(g, h)
                e[0] += 1
                e[3] += 1 if g.result else 0
                e[4] += 1 if g.result == 3 else 0
                e[5] += 1 if g.sudden_death else 0
                e[6] += sd
                log = g.log
                has = 0
                for p in range(0, g.log_len, 3):
                    has |= 1 << log[p]
                e[7] += (has >> 2) & 1
                e[8] += (has >> 6) & 1
                e[9] += 1 if g._nranks else 0
                e[10] += (has >> 7) & 1
                e[11] += (has >> 8) & 1
                g.undo()
                heap_lock()
                undo(h)
                heap_unlock()
                if d is None:
                    d = differs(g, h)
                    if d is not None:
                        d = "undo " + d
                else:
                    d = "play " + d
                if d is not None:
                    e[1] += 1
                    if e[2] is None:
                        e[2] = [r, c, d]
                    h.copy_from(g)
        out.append(e)
    # moves the rules refuse, and an undo with nothing to undo: left to Game, which raises
    h.reset()
    h.play(40, 41)
    refused = []
    for x, y in ((40, 0), (0, 41), (0, 81), (-1, 0)):
        try:
            play(h, x, y)
        except ValueError as err:
            refused.append(type(err).__name__)
    undo(h)
    try:
        undo(h)
    except ValueError as err:
        refused.append(str(err))
    return [out, refused, h.turns]
"""


def _nearly_full(turns, left, seed):
    # The position after `turns` with every empty cell but `left` of them (in a shuffled order) filled with a turtle
    # or an egg drawn at random, the new eggs newest: (cells, egg order) for Game.set_position. The seeds below were
    # picked for a pair that fills the board without a five (a draw).
    import random

    g = Game()
    for x, y in turns:
        g.play(x, y)
    free = [c for c in range(81) if not g.cell(c)]
    rnd = random.Random(seed)
    rnd.shuffle(free)
    cells = [g.cell(c) for c in range(81)]
    for c in free[left:]:
        cells[c] = rnd.choice((1, 2, 3))
    return cells, [g.egg(k) for k in range(g.egg_count)] + [c for c in free[left:] if cells[c] == 3]


def test_the_machine_code_trial_turn_leaves_the_game_as_game_play_and_undo(pico):
    from tools.bench.rp2040 import position_turns

    assert guest_json(pico, "import json\nfrom engine.bot import evaluate as e, solve\nv = e._viper\nprint('@J', "
                            "json.dumps([solve._play is v.play, solve._undo is v.undo]))") == [True] * 2
    turns = position_turns()
    ps = [(turns[k], None, None) for k in (133, 322, 476)]
    ps += [(turns[k], *_nearly_full(turns[k], left, seed)) for k, left, seed in ((322, 2, 37), (476, 2, 3), (900, 2, 6),
                                                                                (322, 1, 2))]
    scope = {}
    exec(_TRIAL, scope)  # the host: the bytecode both ways
    want = scope["main"](ps)
    assert want[1:] == [["IllegalMove"] * 4 + ["nothing to undo"], 0]
    assert not any(e[1] for e in want[0])
    e = [sum(x) for x in zip(*[e[:2] + e[3:] for e in want[0]])]
    # turns; decided games, draws, sudden death after a turn and before one; an egg laid, a capture, an egg
    # captured, a vanish, a hatch
    assert e[0] > 3000 and e[2] > 100 and e[3] >= 4 and e[4] > 300 and e[5] > 400
    assert e[6] > 100 and e[7] > 900 and e[8] > 300 and e[9] > 50 and e[10] > 800
    got = guest_json(pico, _TRIAL + "import json\nprint('@J', json.dumps(main(%r)))" % (ps,), timeout=3000)
    assert got == want
