"""`python -m tools.tournament --watch`: games shown turn by turn as plain text (the board with coordinates and the simulator's narration, tools/sim/narrate.py, in English or Dutch), played live or replayed from a results file's recorded moves, paced by Enter on a terminal or by --delay."""
import sys
import time

from engine import EV_EGG, EV_PLACE, Game, ONGOING, parse_square
from tools.sim import narrate
from tools.tournament.show import failure_lines, game_eggs, game_rows, position_lines

word = narrate.word


class Stop(Exception):
    """The watcher typed q: no more turns, no more games."""


class Pacer:
    """Waits between turns: `delay` seconds, or (delay None) for Enter when `inp` is a terminal; without a
    terminal and without a delay it never waits, so a pipe or a test gets the whole game at once."""

    def __init__(self, delay=None, inp=None):
        self.inp = sys.stdin if inp is None else inp
        self.delay = delay
        try:
            tty = self.inp.isatty()
        except (AttributeError, ValueError):
            tty = False
        self.enter = delay is None and tty

    def wait(self):
        if self.enter:
            line = self.inp.readline()
            if not line or line.strip().lower().startswith("q"):
                raise Stop()
        elif self.delay:
            time.sleep(self.delay)


class Teller:
    """Prints one game's turns: after each turn its number, what happened and the board."""

    def __init__(self, out, pacer):
        self.out = out
        self.pacer = pacer
        self.narrator = narrate.Narrator()
        self.narrator.see(Game())  # the empty board: the first turn played is told

    def print(self, *lines):
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()

    def turn(self, g):
        told = self.narrator.see(g)
        placed = set()
        for op, a, b in narrate.entries(g):
            if op == EV_PLACE:
                placed.update((a, b))
            elif op == EV_EGG:
                placed.add(a)
        self.print("", word("watch.turn", n=g.turns))
        self.print(*["  " + text for _, text in told])
        self.print(*position_lines(game_rows(g), game_eggs(g), placed))
        if g.result == ONGOING:
            self.pacer.wait()


def header(rec, black, white, replayed=None):
    lines = [word("watch.game", pairing="%s-%s" % (rec[0], rec[1]), i=rec[2], seed=rec[3], black=black, white=white)]
    if replayed:
        lines.append(word("watch.replayed", file=replayed))
    return lines


def replay(moves, on_turn):
    """Play recorded moves ("e5d4 c3c3 ...") on a fresh Game, calling on_turn(game) after each; the final Game."""
    g = Game()
    for m in moves.split():
        g.play(parse_square(m[:2]), parse_square(m[2:]))
        on_turn(g)
    return g


def ending(rec, g, max_turns):
    """The lines after a game: its result, or the report of the player that broke the protocol."""
    if rec.get("forfeit") and rec.get("failure"):
        f = rec["failure"]
        return ["", word("watch.forfeit", name=f["player"], colour=word(f["colour"]))] + failure_lines(rec)
    if g.result == ONGOING:
        return ["", word("watch.unfinished", n=max_turns)]
    return ["", word("watch.result", result=narrate.result_line(g))]


def watch(jobs, run_game, recorded, store, results_path, max_turns, delay=None, out=None, inp=None):
    """Show each job's game (tools.tournament run_one arguments) turn by turn: replayed from `recorded`
    ({(a, b, i, seed): record}, records with their moves) when it is there, else played live by
    run_game(job, on_turn) and added to `store` (a ResultsFile, or None). Returns the records shown."""
    out = sys.stdout if out is None else out
    pacer = Pacer(delay, inp)
    shown = []
    tell = Teller(out, pacer)
    tell.print(word("watch.legend") + ("; " + word("watch.enter") if pacer.enter else ""))
    try:
        for job in jobs:
            a, b, i = job[0], job[1], job[2]
            black, white = (a, b) if i % 2 == 0 else (b, a)
            rec = recorded.get(tuple(job[:4]))
            tell = Teller(out, pacer)
            if rec is not None and "moves" in rec:
                tell.print("", *header(job, black, white, results_path))
                g = replay(rec["moves"], tell.turn)
            else:
                tell.print("", *header(job, black, white))
                last = []
                rec = run_game(job, lambda g: (last.__setitem__(slice(None), [g]), tell.turn(g)))
                if store is not None and tuple(job[:4]) not in recorded:
                    store.add(rec)
                g = last[0] if last else Game()
            tell.print(*ending(rec, g, max_turns))
            shown.append(rec)
    except Stop:
        pass
    return shown
