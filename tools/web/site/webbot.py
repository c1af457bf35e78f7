"""A student's bot in the browser edition's computer seat (a page served by `python -m tools.web serve --player cmd:COMMAND`): the App's bot object whose start() has page.mjs post the position to the server, which runs the bot (tools/web/relay.py), and whose step() returns -1 until the answer is there; a bot that breaks the protocol is told in the narration and the built-in computer plays its seat for the rest of that game, as tools/cmdbot.py does in the terminal."""
# MicroPython subset only (it runs in the page's webassembly port). The frame loop never waits here: js.wtsBot.ask()
# starts a fetch and returns, js.wtsBot.poll() returns "" until its answer has arrived.
import js
import json

import narrate
from engine import WHITE, parse_square, square_name
from firmware.modes import vs_computer

NOTE_STDERR = 8  # lines of the bot's stderr the narration shows under the message (the end of a traceback)
_CHARS = ".BWe"


def request_line(game, color):
    """The protocol's request for `color` to move in `game` (docs/classroom.md "Write your own bot"): the board only."""
    rows = []
    for r in range(9):
        rows.append("".join(_CHARS[game.cell(r * 9 + c)] for c in range(9)))
    eggs = [square_name(game.egg(k)) for k in range(game.egg_count)]
    return json.dumps({"board": rows, "eggs": eggs, "you": "white" if color == WHITE else "black"})


class Broke:
    """The bot broke the protocol (or the server could not ask it): `why` in the page's language, its `stderr`.
    (Returned, not raised: MicroPython's Exception has no __init__ for a subclass to call.)"""

    def __init__(self, why, stderr):
        self.why = why
        self.stderr = stderr


def why_of(err):
    """An error object of the endpoint (or of page.mjs) -> why, in the narration's language: a tools/botproc.py
    reason in narrate.py's words; else the text it carries (page.mjs's, already in the page's language)."""
    reason, values = err.get("reason"), err.get("values")
    key = "bot.why." + str(reason)
    if key in narrate.table() and isinstance(values, dict):
        try:
            return narrate.word(key, **values)
        except Exception:  # values that do not fit the words: the server's English below
            pass
    return str(err.get("why") or reason)


class WebSeat:
    """The page's bot seat: the bot's `name` (from site.json), `mode_now()` (the App's mode number), `tell(lines)`
    (the narration panel). Each game has its number (`game`): the server ends the last game's process when a
    request of the next comes (a file fixed meanwhile is what plays). It plays white, pad B's seat, in the games
    against the computer; when it breaks the protocol, the built-in computer of the mode's level finishes that
    game."""

    def __init__(self, name, mode_now, tell):
        self.name = name
        self.mode_now = mode_now
        self.tell = tell
        self.game = 0
        self.broken = False  # broke in this game: the built-in computer plays on
        self.failures = 0
        self.ticket = -1  # page.mjs's number for the request waiting for an answer

    def bots(self):
        """The `bots` class for firmware.app.App (it makes one per computer seat and level)."""
        seat = self

        class SeatBot(WebBot):
            pass

        SeatBot.seat = seat
        return SeatBot

    def new_game(self):
        self.game += 1
        self.broken = False

    def plays(self, color):
        return color == WHITE and not self.broken and vs_computer(self.mode_now())

    def ask(self, game, color):
        self.ticket = js.wtsBot.ask(self.game, request_line(game, color))

    def answer(self, game):
        """The cell the bot answered, -1 while there is none yet, or a Broke when it broke the protocol."""
        text = js.wtsBot.poll(self.ticket)
        if not text:
            return -1
        self.ticket = -1
        try:
            got = json.loads(text)
        except ValueError:
            got = {}
        if not isinstance(got, dict):
            got = {}
        cell = got.get("cell")
        if isinstance(cell, str):
            try:
                i = parse_square(cell)
            except ValueError:
                i = -1
            if i >= 0 and game.legal(i):
                return i
            return Broke(narrate.word("bot.why.taken", cell=cell[:8]), "")  # the server checks this: never expected
        err = got.get("error")
        if not isinstance(err, dict):
            err = {"why": text[:200]}
        stderr = err.get("stderr")
        return Broke(why_of(err), stderr if isinstance(stderr, str) else "")

    def broke(self, err, game, level):
        """The bot broke the protocol on `game`'s next turn: say so in the narration; the computer plays on."""
        self.broken = True
        self.failures += 1
        w = narrate.word
        lines = [w("bot.broke", name=self.name, turn=game.turns + 1, why=err.why),
                 w("bot.fallback", level=w("level." + level), name=self.name)]
        if err.stderr:
            lines.append(w("bot.stderr", name=self.name))
            for line in err.stderr.split("\n")[-NOTE_STDERR:]:
                lines.append("| " + line)
        self.tell(lines)


class WebBot:
    """The App's bot object for the page's WebSeat (made by WebSeat.bots(); `level`: the built-in computer that
    plays wherever the student's bot does not, and stands in for it after a break). reseed/start/step as
    engine.bot.Bot and tools/cmdbot.py's CommandBot: start() sends the request, step() polls for the answer."""

    seat = None  # the WebSeat (set on the subclass WebSeat.bots() makes)

    def __init__(self, level):
        from engine.bot import Bot

        self.level = level
        self.inner = Bot(level)
        self.game = None
        self.mine = False  # this move is the student's bot's
        self.cell = -1

    def reseed(self, seed):
        self.inner.reseed(seed)
        self.seat.new_game()  # the App reseeds at every new game: a broken bot gets its next chance

    def start(self, game, color):
        self.game = game
        self.cell = -1
        self.mine = self.seat.plays(color)
        if self.mine:
            self.seat.ask(game, color)
            return
        self.inner.start(game, color)

    def step(self, units):
        if self.cell >= 0:
            return self.cell
        if not self.mine:
            return self.inner.step(units)
        got = self.seat.answer(self.game)
        if isinstance(got, Broke):
            self.mine = False
            self.seat.broke(got, self.game, self.level)
            self.inner.start(self.game, WHITE)
            return -1
        self.cell = got
        return got
