"""`python -m tools.sim.soak`: a long simulator run (attract or demo games, no keys) printing, every so many games, the process's memory, the length of every record the simulator keeps and how long the terminal takes to draw one screen."""
import argparse
import os
import statistics
import sys
import time

KINDS = ("cpython", "micropython")   # the emulated Pico runs at wall-clock pace: a soak of it would take hours


def rss_mb(pid=None):
    """Resident memory of a process (default: this one) in MB, from /proc (Linux); None where there is no /proc."""
    try:
        with open("/proc/%s/status" % (pid or "self")) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def records(dev):
    """{name: length} of every list the simulated device keeps (the interface's `said` and `frames`, and for
    each kind what lies beneath: the virtual board's buzzer tones, shorts and pending key events, the virtual
    device's own frames; in a MicroPython guest the same, asked from the guest, and its heap in use)."""
    out = {"said": len(dev.said), "frames": len(dev.frames)}
    if dev.runtime == "cpython":
        vdev, board = dev.vdev, dev.vdev.board
        out.update(tones=len(board.tones), shorts=len(board.shorts), events=len(board.events),
                   vframes=len(vdev.frames))
        cp = getattr(vdev, "cp", None)
        if cp is not None:
            out["pwm"] = len(cp.pwm)
    elif dev.runtime == "micropython":
        got = dev.session.exec("import gc\ngc.collect()\nprint(len(dev.board.tones), len(dev.board.shorts), "
                               "len(dev.board.events), len(dev.frames), len(_fr), gc.mem_alloc())")
        names = ("tones", "shorts", "events", "vframes", "pending", "guest_heap_kb")
        vals = [int(x) for x in got.split()]
        vals[-1] = vals[-1] // 1024
        out.update(zip(names, vals))
    return out


def draw_ms(dev, draws, cols, rows):
    """Median wall ms of one terminal screen (tools/sim/terminal.py View.of + compose) of the device now."""
    from tools.sim import terminal

    times = []
    for _ in range(draws):
        t0 = time.perf_counter()
        terminal.compose(terminal.View.of(dev, "soak"), cols, rows)
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def soak(games=600, mode="attract", runtime="cpython", board="pico", seed=1, every=100, draws=20, cols=110, rows=40,
         keep_frames=False, step_ms=5000, out=sys.stdout):
    """Play `games` games of `mode` on one device, a row of figures at game 0 and every `every` games."""
    from tools.sim.device import Device

    done = [0]

    def on_say(t, kind, text):
        if kind == "result":
            done[0] += 1

    dev = Device(board=board, mode=mode, runtime=runtime, seed=seed, keep_frames=keep_frames, on_say=on_say)
    cols_shown = None
    try:
        nxt = 0
        while True:
            if done[0] >= nxt:
                row = {"games": done[0], "device_min": dev.t / 60000.0, "rss_mb": rss_mb()}
                if runtime == "micropython":
                    row["node_mb"] = rss_mb(dev.session._proc.pid)
                row.update(records(dev))
                row["draw_ms"] = draw_ms(dev, draws, cols, rows)
                if cols_shown is None:
                    cols_shown = list(row)
                    print("  ".join("%10s" % c for c in cols_shown), file=out)
                print("  ".join(_cell(row.get(c)) for c in cols_shown), file=out, flush=True)
                if done[0] >= games:
                    return row
                nxt = min(games, (done[0] // every + 1) * every)
            dev.advance(step_ms)
    finally:
        dev.close()


def _cell(v):
    if v is None:
        return "%10s" % "-"
    if isinstance(v, float):
        return "%10.1f" % v if abs(v) >= 10 else "%10.2f" % v
    return "%10d" % v


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m tools.sim.soak", description=__doc__.split(": ", 1)[1])
    p.add_argument("--games", type=int, default=600, help="games to play (default 600)")
    p.add_argument("--mode", choices=("attract", "demo"), default="attract", help="a mode that plays itself (default attract)")
    p.add_argument("--runtime", choices=KINDS, default="cpython", help="the simulator's runtime (default cpython)")
    p.add_argument("--board", default="pico", help="board file (default pico)")
    p.add_argument("--seed", type=int, default=1, help="seed of the computer players (default 1)")
    p.add_argument("--every", type=int, default=100, help="a row of figures every N games (default 100)")
    p.add_argument("--draws", type=int, default=20, help="screens drawn per row; their median time is shown (default 20)")
    p.add_argument("--keep-frames", action="store_true",
                   help="keep frames as Device() does by default (the terminal and --headless keep none)")
    a = p.parse_args(argv)
    for name in ("games", "every", "draws"):
        if getattr(a, name) < 1:
            p.error("--%s must be at least 1" % name)
    print("tools.sim.soak: %d %s games, runtime %s, board %s, seed %d, pid %d"
          % (a.games, a.mode, a.runtime, a.board, a.seed, os.getpid()), flush=True)
    try:
        soak(a.games, a.mode, a.runtime, a.board, a.seed, a.every, a.draws, keep_frames=a.keep_frames)
    except (RuntimeError, ValueError) as e:   # no Node for micropython, an unknown board, a seed out of range
        raise SystemExit("tools.sim.soak: %s" % (e,))
    return 0


if __name__ == "__main__":
    sys.exit(main())
