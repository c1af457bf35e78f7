"""The deploy's check of the bot's machine code on the board it has just written: hard's move in a few positions, with its whole payoff matrix and strategy, computed on the board and by the host's bytecode; where they differ, the machine code comes off the board and the bytecode plays (the same moves, slower)."""
# Why: the machine code (engine/bot/viper.py) is compiled by mpy-cross for the board's own CPU, and only the
# RP2040's (armv6m) runs in the tests (the emulated Pico). An ESP32-S3 (xtensawin) or a Pico 2 (armv7emsp) runs
# code no test here has run; a code emitter that differs there (as x86-64's did: host_tests/test_unix_port.py)
# would change the moves silently. A matrix hash differs at any payoff, where the move alone often would not.
BOARD_PATH = "lib/engine/bot/viper.mpy"  # where tools.deploy puts the machine code (MACHINE_CODE)
SEED = 1
# Positions 322 (sudden death), 476 and 900 of the golden record (tools.botmoves; host_tests/test_mcheck.py
# checks they are those): rows from the top, egg names oldest first, the side to move.
POSITIONS = (
    (322, ["BBB.WW...", "WBBBWeeB.", ".BWBWWW..", "WB.WBWWB.", "B..WWBWBW", "..BBB.W.B", "BW..WBWB.", "BWWBBWB..",
           "WBWBB.BBW"], ["g2", "f2"], 2),
    (476, ["WB.B.WWeW", ".BB.B.WWB", ".WBWB.BWB", ".WeB..W..", "BW.BB.BB.", "BWB..WB..", "WBB.ee.WB", "W.....W..",
           "...WW.eB."], ["c4", "g9", "h1", "f7", "e7"], 2),
    (900, ["B...BWWW.", "BW...W..B", "...BW..WW", "BW.W.WWB.", "BW..W.WB.", "WWW..WB..", "...W..BBW", "...B.WBBB",
           "BW.W..W.B"], [], 2),
)

# Run on the board and on the host alike: MicroPython's and CPython's ints agree on every step of it.
CODE = """
from engine import Game
from engine.bot import Bot, evaluate, tables


def _mc(cells, eggs, color):
    g = Game()
    g.set_position(cells, eggs)
    tables._work = None  # fresh scratch memory, as tools.botmoves plays
    b = Bot("hard", %d)
    c = b.choose(g, color)
    w = b._w
    h = c
    for i in range(b._nr):
        for j in range(b._nc):
            h = (h * 31 + w.m[i * 10 + j]) & 0xFFFFFF
        h = (h * 31 + w.rcnt[i]) & 0xFFFFFF
    for j in range(b._nc):
        h = (h * 31 + w.cacc[j]) & 0xFFFFFF
    return [c, h]
""" % SEED


def _calls():
    # engine.notation stays on the host (a device holds only what it imports): cells and egg squares as numbers
    from engine.notation import parse_rows, parse_square

    return "[%s]" % ", ".join("_mc(%r, %r, %d)" % (list(parse_rows(rows)), [parse_square(e) for e in eggs], color)
                              for _, rows, eggs, color in POSITIONS)


def expected():
    """[[cell, matrix hash], ...] of the POSITIONS by the host's bytecode (CPython)."""
    ns = {}
    exec(CODE, ns)
    out = eval(_calls(), ns)
    import engine.bot.tables as tables

    tables._work = None  # no scratch memory of the check stays shared with the host's other bots
    return out


def on_board(dev):
    """(the board's emitter, its [[cell, matrix hash], ...] where that is "viper", else None) over `dev`
    (a tools.deploy.Device); DeployError if the board raises or stops answering."""
    emitter = dev.run("from engine.bot import evaluate\nprint(evaluate.EMITTER)").strip()
    if emitter != "viper":
        return emitter, None
    return emitter, dev.eval_code(CODE + "\nprint(repr(%s))" % _calls())


def _differs(got):
    """None when the board's answers are the host's, else why not."""
    want = expected()
    if not isinstance(got, list) or len(got) != len(want):
        bad = [p[0] for p in POSITIONS]  # an answer of another shape: nothing in it is to be trusted
    else:
        bad = [p[0] for p, a, b in zip(POSITIONS, got, want) if a != b]
    if not bad:
        return None
    return "hard's matrices differ from the host's in %d of %d positions (%s)" % (
        len(bad), len(POSITIONS), ", ".join(str(k) for k in bad))


def outcome(dev):
    """(the board's emitter or None, why its machine code is not to be trusted or None): the check, run."""
    try:
        emitter, got = on_board(dev)
    except Exception as e:  # noqa: BLE001 (anything the board raised or how it stopped answering: not trusted)
        return None, "the check failed on the board (%s)" % e
    return emitter, (_differs(got) if emitter == "viper" else None)


def check_frozen(dev, log):
    """The same check where the machine code is frozen into the firmware (this checkout's game: it cannot come off
    the board): "viper", "bytecode" or "differs: WHY", said in the log with what the maker can do instead."""
    emitter, why = outcome(dev)
    if why is None:
        if emitter != "viper":
            log("machine code: none runs in this firmware (%s): the bot plays its bytecode" % emitter)
            return "bytecode"
        log("machine code: the firmware's, frozen in: hard's matrices in %d positions came out as on the host"
            % len(POSITIONS))
        return "viper"
    log("WARNING: the machine code frozen into this firmware is not to be trusted: %s. Flash the official MicroPython "
        "UF2 for this board instead and deploy the game as files: deploy then checks the machine code and takes it "
        "off where it differs" % why)
    return "differs: " + why


def check(dev, log):
    """Run the check on the board; returns what the deploy summary records: "viper" (the machine code chose
    as the host in every position), "bytecode" (none runs there) or "removed: WHY" (it differed or failed, and
    BOARD_PATH was taken off the board). The device's own error (DeployError) only if the board cannot even be
    told to remove it."""
    emitter, why = outcome(dev)
    if why is None:
        if emitter != "viper":
            log("machine code: none runs on this board (%s): the bot plays its bytecode" % emitter)
            return "bytecode"
        log("machine code: hard's matrices in %d positions came out as on the host" % len(POSITIONS))
        return "viper"
    try:
        dev.remove(BOARD_PATH)
    except Exception as e:
        raise type(e)("the bot's machine code on this board is not to be trusted (%s), and removing it failed "
                      "(%s): remove it by hand with `mpremote fs rm :%s`" % (why, e, BOARD_PATH)) from None
    log("machine code: %s; removed %s: the bot plays its bytecode (the host's moves, slower)" % (why, BOARD_PATH))
    return "removed: " + why
