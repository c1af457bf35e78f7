"""Emulated-RP2040 figures for tools.bench: the deployed firmware on the emulated Pico, timed by its own clock (200 MHz, as main.py sets it), beside the wasm-fuel estimates, and the measured fuel-per-µs ratio; the computer's search on core 1 beside the sliced path (LED frames read from the data pin); then the same game frozen into the firmware (tools.firmware) beside it."""
import os
import shutil
import tempfile
from pathlib import Path

SAMPLE = 24          # bot positions per level (spread evenly over the shared random games' positions)
CHUNK = 10           # shared random games per guest call (keeps each script small for the Pico's heap)
TARGETS = {"turn_mean_us": 2000, "frame_us": 5000, "hard_worst_us": 1000000, "boot_ms": 2000, "peak_kb": 100,
           # while the computer thinks (issue 29): the longest tick, and the longest gap between two LED
           # frames on the data pin (the decoded WS2812 stream, not the app's own count)
           "think_tick_us": 20000, "think_gap_us": 25000}
# The frozen firmware's aims (issue 28): what freezing the bytecode into flash is for.
FROZEN_TARGETS = {"boot_ms": 350, "heap_kb": 32}
STACK_GUARD = 512    # bytes short of a thread's stack end where MicroPython's rp2 port raises RuntimeError
HARD_MOVES = ("e5", "d4", "f6", "c3", "g7", "b2")   # pad A's moves in the games against hard (stock and frozen)

# Engine turns on the device: ticks_us (the RP2040 timer, emulated µs) around every play().
_TURNS = """
import json, time
from engine import Game
G = %r
us = time.ticks_us
out = []
for moves in G:
    g = Game()
    for b, w in moves:
        t = us()
        g.play(b, w)
        out.append(time.ticks_diff(us(), t))
print('@J', json.dumps(out))
"""

# Bot moves on the device (core 0, choose()), one level per call, same positions and colours as
# tools/bench/bot.py's fuel run. A position is the turns that lead to it from a new game (replayed: the
# device holds only the modules the game imports, engine.notation is not among them).
_BOT = """
import gc, json, time
from engine import Game
from engine.bot import Bot
P = %r
g = Game()
b = Bot(%r, 1)
out = []
for turns, c in P:
    g.reset()
    for x, y in turns:
        g.play(x, y)
    gc.collect()
    t = time.ticks_us()
    b.choose(g, c)
    out.append(time.ticks_diff(time.ticks_us(), t))
print('@J', json.dumps(out))
"""
# The same moves on core 1 as the app makes them (firmware.thinker: bot.start() on core 0, post, poll the
# answer): the cell against choose() on core 0 with the same seed, the bytes allocated from the post to the
# answer (both cores; collected before), and the time. With `deep`, hard's deeper answer after it, as the app
# runs it (engine/bot/deepen.py: the Deepen posted as the next job): from the post to the deeper cell is the
# time a person must take for it, the deepening being cut off at the reveal. In a function: a new global
# would grow a dict.
_CORE1 = """
import gc, json, time, _thread
from engine import Game
from engine.bot import Bot, SLICE_UNITS, board
from engine.bot.deepen import Deepen
from firmware.thinker import Thinker
def main(P, deep):
    t = Thinker(_thread)
    g = Game()
    s = board()
    b = Bot("hard", 1)
    d = Deepen(b)
    out = []
    def job(x):
        while not t.idle():
            pass
        gc.collect()
        a = gc.mem_alloc()
        t0 = time.ticks_us()
        j = t.post(x, SLICE_UNITS)
        r = t.answer(j)
        while r < 0:
            r = t.answer(j)
        us = time.ticks_diff(time.ticks_us(), t0)
        return [r, gc.mem_alloc() - a, us]
    for k in range(len(P)):
        turns, c = P[k]
        g.reset()
        for x, y in turns:
            g.play(x, y)
        b.reseed(k)
        direct = b.choose(g, c)
        b.reseed(k)
        s.copy_from(g)
        b.start(s, c)
        m = [direct] + job(b)
        if deep:
            d.begin(g, c)
            m += job(d) + [d.children]
        out.append(m)
    return out
print('@J', json.dumps(main(%r, %r)))
"""
DEEP_EVERY = 4  # the deeper answer is timed in every 4th position of the sample (some 6 s of Pico time each)


# What the bot's hot loops run as on the deployed Pico (engine/bot/viper.py, or the bytecode where it is left out)
_EMITTER = "import json\nfrom engine.bot import evaluate\nprint('@J', json.dumps(evaluate.EMITTER))"


def deep_runs(pico, positions):
    """Hard's deeper answer on core 1 in `positions` ([(turns, side to move)]): {"moves": [(hard's cell, deeper
    cell, child searches, bytes allocated, µs)], "host": [(hard's cell, deeper cell)] by CPython, "stack"}."""
    from engine import Game
    from engine.bot import Bot, SLICE_UNITS
    from engine.bot.deepen import Deepen
    from tools.rp2040.probe import guest_json

    moves = [(m[1], m[4], m[7], m[5], m[6]) for m in guest_json(pico, _CORE1 % (positions, True))]
    stack = pico.stats()["core1"]["stack_used"]
    host = []
    b = Bot("hard", 1)
    d = Deepen(b)
    for k, (turns, c) in enumerate(positions):
        g = Game()
        for x, y in turns:
            g.play(x, y)
        b.reseed(k)
        cell = b.choose(g, c)
        d.begin(g, c)
        r = d.step(SLICE_UNITS)
        while r < 0:
            r = d.step(SLICE_UNITS)
        host.append((cell, r))
    return {"moves": moves, "host": host, "stack": stack}


# Besides the sample: hard's heaviest moves by wasm fuel over every position
# of the shared games (the 24-position sample can miss them).
HEAVIEST = 8
# Those moves again in other heap layouts: the guest first compiles this many throw-away names (new qstrs
# and heap blocks). A move's time depends on the layout (tools/bench/bot.py), so the stock and frozen
# firmware are compared over all of them, not in the one layout each happens to start in.
LAYOUTS = (0, 5, 17, 40)
_LAYOUT = "for _i in range(%d):\n    exec('q%%d_ = 0' %% _i, {})\n"


def heavy_runs(pico, heavy):
    """[[µs of each move] per layout in LAYOUTS] for hard's heaviest moves (`heavy`: [(turns, side to move)])."""
    from tools.rp2040.probe import guest_json

    return [guest_json(pico, _LAYOUT % n + _BOT % (heavy, "hard")) for n in LAYOUTS]


def core1_runs(pico, heavy):
    """Hard's heaviest moves on core 1: {"moves": [(cell on core 0, cell on core 1, bytes allocated, µs)],
    "stack": deepest bytes of core 1's stack in them (the emulator tracks its SP)}."""
    from tools.rp2040.probe import guest_json

    moves = guest_json(pico, _CORE1 % (heavy, False))
    return {"moves": [(m[0], m[1], m[2], m[3]) for m in moves], "stack": pico.stats()["core1"]["stack_used"]}


def position_turns():
    """tools.bench.bot.all_positions() as the turns that reach each position from a new game (same order)."""
    from engine import Game, ONGOING
    from tools.bench.engine import legal_turns

    out = []
    for moves in legal_turns():
        g = Game()
        out.append([])
        for i, (b, w) in enumerate(moves):
            g.play(b, w)
            if g.result != ONGOING:
                break
            out.append(moves[:i + 1])
    return out


def hard_game(pico, threads=True):
    """The game against hard, as main.py runs it (the search on core 1 where the firmware has it; threads=False:
    sliced into the ticks), and again sampling the heap: {"app": run_app's figures, "heap": ..., "stack": ...}."""
    from engine import parse_square
    from tools.rp2040.probe import run_app

    hard_moves = [parse_square(m) for m in HARD_MOVES]
    out = {"app": run_app(pico, hard_moves, mode="hard", threads=threads)}
    out["stack"] = pico.stats()["core1"]["stack_used"] if threads else 0
    out["heap"] = run_app(pico, hard_moves, mode="hard", heap=True, threads=threads)
    return out


def _ms(us):
    return "%.2f ms" % (us / 1000.0)


def _ok(v, target):
    return "ok" if v <= target else "OVER"


def measure():
    """Every figure as a dict (emulated µs/ms/bytes, fuel), from one deployed emulated Pico."""
    from tools.bench.bot import all_positions, fuel_per_move, sample_positions
    from tools.bench.engine import fuel_per_turn, legal_turns
    from tools.rp2040 import Pico, deployed_image
    from tools.rp2040.probe import guest_json, run_app
    from engine import parse_square

    res = {}
    games = legal_turns()
    positions, total = sample_positions(SAMPLE)
    res["positions"] = (len(positions), total)
    allp = all_positions()
    reach = position_turns()
    if len(reach) != len(allp):
        raise RuntimeError("position_turns() found %d positions, all_positions() %d" % (len(reach), len(allp)))
    step = len(allp) / len(positions)   # (sample_positions' spread, by index)
    sample = [(reach[int(k * step)], 1 + (k & 1)) for k in range(len(positions))]
    colours = [1 + (k & 1) for k in range(len(allp))]
    hf = fuel_per_move("hard", allp, colours)
    heavy = sorted(range(len(allp)), key=lambda i: -hf[i][0])[:HEAVIEST]
    res["heavy_fuel"] = [hf[i][0] for i in heavy]
    heavy_turns = [(reach[i], colours[i]) for i in heavy]
    tmp = Path(tempfile.mkdtemp(prefix="bench-rp2040-"))
    try:
        img = deployed_image(tmp / "deployed.img")
        with Pico(flash=img) as pico:
            # Power-up (the clock starts at 0) to the first WS2812 frame main.py writes.
            res["boot_ms"] = pico.wait_frames(1)[0].t0_ns / 1e6
            res["emitter"] = guest_json(pico, _EMITTER)
            res["cpu_hz"], res["vsel"] = (int(x) for x in pico.exec(
                "import machine\nprint(machine.freq(), machine.mem32[0x40064000] >> 4 & 15)").split())
            turns = []
            for i in range(0, len(games), CHUNK):
                turns += guest_json(pico, _TURNS % (games[i:i + CHUNK],))
            res["turns_us"] = turns
            res["bot_us"] = {lv: guest_json(pico, _BOT % (sample, lv)) for lv in ("easy", "medium", "hard")}
            res["heavy_layouts"] = heavy_runs(pico, heavy_turns)
            res["heavy_us"] = res["heavy_layouts"][0]
            res["core1"] = core1_runs(pico, heavy_turns)
            res["deep"] = deep_runs(pico, sample[::DEEP_EVERY])
            from tools.bench.firmware import _SCRIPT
            from tools.sim.keyscript import parse_script

            pairs = []
            acts = [a for a in parse_script(_SCRIPT) if a[0] == "move"]
            for i in range(0, len(acts) - 1, 2):
                pairs.append((acts[i][2], acts[i + 1][2]))
            res["app_2p"] = run_app(pico, pairs, mode="2p")
            h = hard_game(pico)
            res["app_hard"], res["heap_hard"], res["game_stack"] = h["app"], h["heap"], h["stack"]
            h = hard_game(pico, threads=False)
            res["sliced_hard"], res["sliced_heap"] = h["app"], h["heap"]
            res["deep_game"] = run_app(pico, [parse_square(m) for m in HARD_MOVES], mode="hard", deep=True)["deep_ready"]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    from tools.bench.bot import heap_held

    res["bot_heap"] = heap_held()   # (the stock firmware with the bot's .mpy files, on a Pico of its own)
    uf2, why = frozen_uf2()
    res["frozen"] = measure_frozen(uf2, heavy_turns) if uf2 else why
    fuel, _ = fuel_per_turn(games)
    res["turns_fuel"] = fuel
    # fuel_per_move gives each move's fuel, or (fuel, its largest slice) for the sliced bot
    res["bot_fuel"] = {lv: [f[0] if isinstance(f, (tuple, list)) else f for f in fuel_per_move(lv, positions)]
                       for lv in ("easy", "medium", "hard")}
    return res


BOT_HEAP_TARGET = 16 * 1024   # bytes held by the bot module and a hard Bot (tools/bench/bot.py's aim)


def bot_held(pico):
    """{step: bytes held after it} for tools/bench/bot.py's _HELD_STEPS, run in one fresh interpreter of `pico`
    (raw-REPL soft reset: a frozen main.py does not run) with whatever engine the firmware and filesystem give."""
    from tools.bench.bot import _HELD_STEPS
    from tools.rp2040.probe import exec_fresh

    exec_fresh(pico, "pass")
    out = {}
    for name, code in _HELD_STEPS:
        pico.exec(code)
        out[name] = int(pico.exec("gc.collect()\nprint(gc.mem_alloc())").split()[-1])
    return out


def frozen_uf2():
    """(the Pico UF2 with the game frozen in, None) — env WTS_FIRMWARE_UF2, else built by tools.firmware (cached
    by its inputs) — or (None, why not)."""
    env = os.environ.get("WTS_FIRMWARE_UF2")
    if env:
        return (Path(env).resolve(), None) if Path(env).is_file() else (None, "WTS_FIRMWARE_UF2=%s is no file" % env)
    from tools import firmware

    why = firmware.toolchain_problem()
    if why is None and not firmware.TARBALL.is_file() and not os.environ.get("WTS_MICROPYTHON"):
        why = "no MicroPython source (%s, or env WTS_MICROPYTHON)" % firmware.TARBALL
    if why:
        return None, why
    try:
        return firmware.build("pico").uf2.resolve(), None
    except firmware.FirmwareError as e:
        return None, str(e).splitlines()[0]


def measure_frozen(uf2, heavy):
    """The frozen firmware's figures: boot to the first frame (the first power-up formats the filesystem; later
    ones find it), the game against hard (move times, heap after start and at its peak), hard's heaviest moves
    (`heavy`: [(turns, side to move)]) on core 0 and on core 1, all from a blank filesystem: nothing but the UF2
    on the board."""
    from tools.rp2040 import Pico
    from tools.rp2040.probe import guest_json

    res = {"uf2": uf2.name, "uf2_bytes": uf2.stat().st_size}
    tmp = Path(tempfile.mkdtemp(prefix="bench-frozen-"))
    try:
        img = tmp / "flash.img"
        with Pico(uf2=uf2, flash=img) as pico:
            res["boot_first_ms"] = pico.wait_frames(1)[0].t0_ns / 1e6
        with Pico(flash=img) as pico:          # power off and on: the filesystem is there now
            res["boot_ms"] = pico.wait_frames(1)[0].t0_ns / 1e6
            res["emitter"] = guest_json(pico, _EMITTER)
            h = hard_game(pico)
            res["app_hard"], res["heap_hard"], res["game_stack"] = h["app"], h["heap"], h["stack"]
            res["heavy_layouts"] = heavy_runs(pico, heavy)
            res["core1"] = core1_runs(pico, heavy)
            h = hard_game(pico, threads=False)
            res["sliced_hard"], res["sliced_heap"] = h["app"], h["heap"]
            res["bot_heap"] = bot_held(pico)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return res


def figures():
    from tools.rp2040 import uf2_problem

    why = uf2_problem()
    if why is not None:
        return [("rp2040", "skipped: " + why)]
    return table(measure())


def frozen_table(r):
    """[(label, value text)]: the frozen firmware beside the stock one (r: measure()'s figures)."""
    f = r.get("frozen")
    if not isinstance(f, dict):
        return [("rp2040 frozen: the game frozen into the firmware", "skipped: %s" % f)]
    out = [("rp2040 frozen: %s" % f["uf2"], "%d bytes (UF2; half of it is the image written to flash)" % f["uf2_bytes"])]
    out.append(("rp2040 frozen: boot to first frame, stock + deploy / frozen (first power-up: %.0f ms)" % f["boot_first_ms"],
                "%.0f ms / %.0f ms emulated; target frozen <= %d ms: %s"
                % (r["boot_ms"], f["boot_ms"], FROZEN_TARGETS["boot_ms"], _ok(f["boot_ms"], FROZEN_TARGETS["boot_ms"]))))
    hs, hf = r["heap_hard"], f["heap_hard"]
    worst = max(hf["boot"], hf["peak"]) / 1024.0
    from firmware.thinker import STACK

    sl = f.get("sliced_heap")
    out.append(("rp2040 frozen: heap after start / peak vs hard, stock + deploy -> frozen (search on core 1)",
                "%.1f / %.1f KB -> %.1f / %.1f KB (core 1's stack, %d B, included%s); target <= %d KB: %s"
                % (hs["boot"] / 1024.0, hs["peak"] / 1024.0, hf["boot"] / 1024.0, hf["peak"] / 1024.0, STACK,
                   "; sliced path, frozen: %.1f / %.1f KB" % (sl["boot"] / 1024.0, sl["peak"] / 1024.0) if sl else "",
                   FROZEN_TARGETS["heap_kb"], _ok(worst, FROZEN_TARGETS["heap_kb"]))))
    out += thinking_rows("rp2040 frozen", f, sliced=f.get("sliced_hard"))
    row = bot_heap_row(r.get("bot_heap"), f.get("bot_heap"))
    if row:
        out.append(row)
    hs, fs = r["heavy_layouts"], f["heavy_layouts"]
    ts, tf = sum(map(sum, hs)), sum(map(sum, fs))
    out.append(("rp2040 frozen: hard's %d heaviest moves in %d heap layouts, total / worst, stock -> frozen"
                % (len(fs[0]), len(fs)),
                "%s / %s -> %s / %s emulated (%+.1f%%; per layout %s); frozen no slower: %s"
                % (_ms(ts), _ms(max(map(max, hs))), _ms(tf), _ms(max(map(max, fs))), 100.0 * (tf - ts) / ts,
                   " ".join("%+.1f%%" % (100.0 * (sum(b) - sum(a)) / sum(a)) for a, b in zip(hs, fs)),
                   "ok" if tf <= ts else "SLOWER")))
    cs, cf = r.get("core1"), f.get("core1")
    if cs and cf:
        a, b = [sum(m[3] for m in c["moves"]) for c in (cs, cf)]
        out.append(("rp2040 frozen: hard's %d heaviest moves on core 1 (as the game runs them), total / worst, "
                    "stock -> frozen" % len(cf["moves"]),
                    "%s / %s -> %s / %s emulated (%+.1f%%); frozen no slower: %s"
                    % (_ms(a), _ms(max(m[3] for m in cs["moves"])), _ms(b), _ms(max(m[3] for m in cf["moves"])),
                       100.0 * (b - a) / a, "ok" if b <= a else "SLOWER")))
    return out


def thinking_rows(tag, r, sliced=None):
    """The rows of the game against hard while the computer thinks, for r (measure()'s or the frozen figures):
    where the search ran, the hard move in the game, the longest tick, the longest gap between two LED frames
    on the data pin and between two pad scans; with `sliced` (the same game, search in the ticks) beside it;
    then hard's heaviest moves on core 1 (allocation, the same cells as on core 0, the stack)."""
    from firmware.thinker import STACK

    h = r["app_hard"]
    runs = [("", h)] + ([(" | sliced", sliced)] if sliced else [])
    out = [("%s: where the computer (hard) searches, as main.py starts it" % tag, h["path"] +
            ("; %d step() calls on core 1 in the game" % h["steps"] if h["steps"] else ""))]

    def both(fmt, key):
        return " | ".join(fmt(a[key]) for _, a in runs)

    names = "core 1" + (" | sliced" if sliced else "")
    moves = [a["moves"] for _, a in runs]
    if all(moves):
        out.append(("%s: hard move in the game, mean / worst (%d moves), %s" % (tag, len(moves[0]), names),
                    " | ".join("%s / %s" % (_ms(sum(m) / len(m)), _ms(max(m))) for m in moves) +
                    " emulated (from the tick that starts it to the one that takes its cell); target worst <= 1 s: %s"
                    % _ok(max(moves[0]), TARGETS["hard_worst_us"])))
    out.append(("%s: longest tick while hard thinks, %s" % (tag, names),
                both(lambda v: _ms(v), "think_tick_max") + " emulated; target <= %d ms: %s"
                % (TARGETS["think_tick_us"] // 1000, _ok(h["think_tick_max"], TARGETS["think_tick_us"]))))
    out.append(("%s: longest gap between two LED frames on the data pin while hard thinks, %s" % (tag, names),
                both(lambda v: _ms(v / 1000.0), "think_gap_max") + " emulated (decoded WS2812 stream; any time in the "
                "game: %s, the frame a turn resolves on is skipped); target <= %d ms: %s"
                % (both(lambda v: _ms(v / 1000.0), "frame_gap_max"), TARGETS["think_gap_us"] // 1000,
                   _ok(h["think_gap_max"] / 1000.0, TARGETS["think_gap_us"]))))
    out.append(("%s: longest gap between two pad scans while hard thinks, %s" % (tag, names),
                both(lambda v: _ms(v), "scan_gap_max") + " emulated: a key is seen after 2 scans, so a tap (and the "
                "pause before the next) of %s or more always counts" % _ms(2 * h["scan_gap_max"])))
    c = r.get("core1")
    if c:
        mv = c["moves"]
        same = sum(1 for d, t, _, _ in mv if d == t)
        worst = max(t for _, _, _, t in mv)
        out.append(("%s: hard's %d heaviest moves on core 1 (post -> answer), worst / bytes allocated / cells as on "
                    "core 0" % (tag, len(mv)),
                    "%s emulated / %d B (most in one move) / %d of %d the same; target worst <= 1 s: %s, 0 B: %s"
                    % (_ms(worst), max(n for _, _, n, _ in mv), same, len(mv), _ok(worst, TARGETS["hard_worst_us"]),
                       "ok" if all(n == 0 for _, _, n, _ in mv) else "OVER")))
        dp = r.get("deep")
        ds = dp["stack"] if dp else 0
        deep = max(c["stack"], r.get("game_stack", 0), ds)
        room = STACK - STACK_GUARD
        out.append(("%s: deepest core-1 stack, hard's heaviest moves / the game%s (of firmware/thinker.py STACK)"
                    % (tag, " / the deeper answer" if dp else ""),
                    "%d B / %d B%s of %d B; MicroPython raises %d B before its end, so %d B to spare (%.0f%% of what "
                    "it may use); an overflow starts the move again in the ticks"
                    % (c["stack"], r.get("game_stack", 0), " / %d B" % ds if dp else "", STACK, STACK_GUARD,
                       room - deep, 100.0 * (room - deep) / room)))
    if r.get("emitter"):
        out.append(("%s: the bot's hot loops (the line walk, a cell's line changes, a quiet pair, a trial turn's "
                    "play, undo and rescoring, fictitious play, the clamp test) run as" % tag,
                    "%s (engine/bot/viper.py, deployed by tools.deploy or frozen in; bytecode on the webassembly port, CPython "
                    "and CircuitPython)" % r["emitter"]))
    dp = r.get("deep")
    if dp:
        mv = dp["moves"]
        us = [m[4] for m in mv]
        ch = [m[2] for m in mv]
        same = sum(1 for m, h in zip(mv, dp["host"]) if (m[0], m[1]) == tuple(h))
        out.append(("%s: hard's deeper answer on core 1 (post -> ready: how long the person must take for it), "
                    "mean / worst (%d positions)" % (tag, len(mv)),
                    "%s / %s emulated; %.1f child searches a move (most %d); %d B allocated (most in one); cells as "
                    "on the host: %d of %d; 0 B: %s"
                    % (_ms(sum(us) / len(us)), _ms(max(us)), sum(ch) / float(len(ch)), max(ch),
                       max(m[3] for m in mv), same, len(mv), "ok" if all(m[3] == 0 for m in mv) else "OVER")))
    dg = r.get("deep_game")
    if dg:
        from firmware.app import _COUNT_MS, _WAIT_MS

        lock = [max(0, v - _COUNT_MS) for v in dg]
        out.append(("%s: hard's deeper answer in the game on core 1 (pad A waits for it, %d turns): ready after the "
                    "turn opens, mean / worst; so a person who locks at once waits this long for it after the "
                    "countdown (one who locks this much later, none)" % (tag, len(dg)),
                    "%s / %s; %s / %s emulated (hard starts at the reveal, while the last turn animates; the "
                    "countdown takes %d ms after both lock, and the reveal waits up to %d ms more for the deeper "
                    "answer); within that wait in %d of %d turns: %s"
                    % (_ms(1000.0 * sum(dg) / len(dg)), _ms(1000.0 * max(dg)), _ms(1000.0 * sum(lock) / len(lock)),
                       _ms(1000.0 * max(lock)), _COUNT_MS, _WAIT_MS, sum(1 for v in lock if v <= _WAIT_MS), len(lock),
                       _ok(max(lock), _WAIT_MS))))
    return out


def bot_heap_row(stock, frozen):
    """The bot's heap held (module + first hard Bot: tools.bench.bot's steps), stock .mpy -> frozen, or None."""
    if not stock or not frozen:
        return None
    held = lambda h: h["hard"] - h["engine"]
    return ("rp2040 frozen: bot heap held, module + first hard Bot, stock .mpy -> frozen",
            "%.1f KB (module %.1f KB) -> %.1f KB (module %.1f KB); target <= %d KB: %s"
            % (held(stock) / 1024.0, (stock["module"] - stock["engine"]) / 1024.0, held(frozen) / 1024.0,
               (frozen["module"] - frozen["engine"]) / 1024.0, BOT_HEAP_TARGET // 1024,
               _ok(held(frozen), BOT_HEAP_TARGET)))


def table(r):
    """[(label, value text)] from measure()'s figures."""
    from tools.upy.fuel import FUEL_PER_US

    out = []
    tu, tf = r["turns_us"], r["turns_fuel"]
    n = len(tu)
    mean = sum(tu) / n
    out.append(("rp2040: engine turn, mean / worst (%d turns, shared random games)" % n,
                "%s / %s emulated; fuel estimate %s / %s; target mean <= 2 ms: %s"
                % (_ms(mean), _ms(max(tu)), _ms(sum(tf) / n / FUEL_PER_US), _ms(max(tf) / FUEL_PER_US),
                   _ok(mean, TARGETS["turn_mean_us"]))))
    a = r["app_2p"]
    cnt, tot, worst = a["upd"]
    wc, wt, ww = a["wr"]
    out.append(("rp2040: frame update + render, mean / worst (%d frames, 10-turn game)" % cnt,
                "%s / %s emulated; target <= 5 ms: %s" % (_ms(tot / cnt), _ms(worst), _ok(worst, TARGETS["frame_us"]))))
    out.append(("rp2040: frame bit-stream write (83 LEDs), mean / worst", "%s / %s emulated" % (_ms(wt / wc), _ms(ww))))
    npos, total = r["positions"]
    ratios = {"turns": sum(tf) / float(sum(tu))}
    for lv in ("easy", "medium", "hard"):
        us, fu = r["bot_us"][lv], r["bot_fuel"][lv]
        m = sum(us) / len(us)
        ratios[lv] = sum(fu) / float(sum(us))
        extra = "; target worst <= 1 s: %s" % _ok(max(us), TARGETS["hard_worst_us"]) if lv == "hard" else ""
        out.append(("rp2040: bot %s move, mean / worst (%d of %d positions)" % (lv, npos, total),
                    "%s / %s emulated; fuel estimate %s / %s%s"
                    % (_ms(m), _ms(max(us)), _ms(sum(fu) / len(fu) / FUEL_PER_US), _ms(max(fu) / FUEL_PER_US), extra)))
    hu, hfu = r["heavy_us"], r["heavy_fuel"]
    out.append(("rp2040: bot hard move, the %d heaviest of all %d positions by fuel, worst" % (len(hu), total),
                "%s emulated (fuel estimate of the heaviest %s); target <= 1 s: %s"
                % (_ms(max(hu)), _ms(max(hfu) / FUEL_PER_US), _ok(max(hu), TARGETS["hard_worst_us"]))))
    out.append(("rp2040: CPU clock in the game (main.py from boards/pico.py CPU_HZ: firmware/cpufreq.py)",
                "%d MHz, core voltage VSEL %d (12: 1.15 V, 11: 1.10 V)" % (r["cpu_hz"] // 1000000, r["vsel"])))
    out.append(("rp2040: boot to first frame (power-up to main.py's first LED write)",
                "%.0f ms emulated; target <= 2 s: %s" % (r["boot_ms"], _ok(r["boot_ms"], TARGETS["boot_ms"]))))
    out += thinking_rows("rp2040", r, sliced=r.get("sliced_hard"))
    hp, sp = r["heap_hard"], r["sliced_heap"]
    out.append(("rp2040: heap after boot / peak vs hard (gc.collect() samples), core 1 | sliced",
                "%.1f KB / %.1f KB | %.1f KB / %.1f KB (core 1's stack is on the heap); target peak <= 100 KB: %s"
                % (hp["boot"] / 1024.0, hp["peak"] / 1024.0, sp["boot"] / 1024.0, sp["peak"] / 1024.0,
                   _ok(hp["peak"] / 1024.0, TARGETS["peak_kb"]))))
    tot_fuel = sum(tf) + sum(sum(r["bot_fuel"][lv]) for lv in ("easy", "medium", "hard"))
    tot_us = sum(tu) + sum(sum(r["bot_us"][lv]) for lv in ("easy", "medium", "hard"))
    out.append(("rp2040: measured wasm fuel per emulated µs at %d MHz (tools/upy/fuel.py uses %d for 125 MHz)"
                % (r["cpu_hz"] // 1000000, FUEL_PER_US),
                "%.1f overall; turns %.1f, easy %.1f, medium %.1f, hard %.1f"
                % (tot_fuel / float(tot_us), ratios["turns"], ratios["easy"], ratios["medium"], ratios["hard"])))
    return out + frozen_table(r)


def main():
    for label, value in figures():
        print("%-64s %s" % (label, value))


if __name__ == "__main__":
    main()
