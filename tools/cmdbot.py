"""A student's bot in the simulator's computer seat (`--player cmd:COMMAND`): Seat runs the command over the botserver protocol (tools/botproc.py) and hands firmware.app.App a `bots` class whose start() sends the request and step() polls for the answer, so the tick loop never waits; a bot that breaks the protocol is told on screen and the built-in computer plays its seat for the rest of that game."""
from engine import WHITE
from engine.bot import Bot
from tools.botproc import BotError, BotProcess, cell_of, name_of, parse_spec, request
from tools.sim import narrate
from tools.sim.fakehw import keep_last

NOTE_STDERR = 8  # lines of the bot's stderr the screen shows under the message (the end of a traceback)


def seat_for(spec, timeout=None, blocking=False):
    """The Seat of a --player value ("[NAME=]cmd:COMMAND"; ValueError if it is not one)."""
    name, command = parse_spec(spec)
    return Seat(command, name, timeout, blocking)


class Seat:
    """One outside bot for the App's computer seat, shared by every bot object the App makes (it makes new
    ones at each mode change): one BotProcess, started at the first request of each game.

    The bot plays white, the computer's seat (pad B) of the games against the computer; in demo and attract
    mode it plays white against the built-in computer. When it breaks the protocol (tools/botproc.py: a
    crash, a bad or illegal answer, no answer within `timeout` s) it is ended, `note` gets the lines the
    screen shows (why, the fallback, the end of its stderr), `failures` the BotError, and the built-in
    computer of the mode's level finishes that game for it. Every game starts the command afresh (so a
    fixed file is what plays the next game). The note stays until the bot has answered again.

    `blocking=True` (the headless runner, whose clock is not the wall's): step() waits for the answer.
    A web relay would use the same pieces: request() and cell_of() for the protocol, BotProcess for the
    program, BotError.say() and stderr for the words."""

    FAILURES_KEPT = 20

    def __init__(self, command, name=None, timeout=None, blocking=False):
        self.command = command
        self.name = name or name_of(command)
        self.proc = BotProcess(command, self.name, timeout)
        self.blocking = blocking
        self.broken = False  # broke in this game: the built-in computer plays on
        self.note = []  # the screen's lines about the bot (none while all is well)
        self.failures = []  # the latest FAILURES_KEPT BotErrors, oldest first (a long session stays bounded)

    def bots(self):
        """The `bots` class for firmware.app.App (a class: the App makes one per computer seat and level)."""
        seat = self

        class SeatBot(CommandBot):
            pass

        SeatBot.seat = seat
        return SeatBot

    def new_game(self):
        """A new game: the bot plays again, as a fresh process (a file fixed meanwhile is what runs)."""
        self.broken = False
        self.proc.close(grace=0)  # (an idle bot waits on stdin: nothing of it is lost)

    def ask(self, game, color):
        """Send the request for `color` in `game`. A request still unanswered (the mode changed while the bot
        thought) is dropped with the process: a fresh one gets this request."""
        if self.proc.deadline is not None:
            self.proc.close(grace=0)
        self.proc.send(request(game, color))

    def answer(self, game):
        """The cell the bot answered (0..80), or -1 while there is none yet (never waits unless blocking)."""
        raw = self.proc.reply(None if self.blocking else 0)
        if raw is None:
            return -1
        got = cell_of(raw, game)
        if isinstance(got, tuple):
            raise self.proc.broke(got[0], **got[1])
        self.note = []
        return got

    def broke(self, err, game, level):
        """The bot broke the protocol on `game`'s next turn: end it, say so, play on with the computer."""
        self.proc.close(grace=0)
        self.broken = True
        keep_last(self.failures, err, self.FAILURES_KEPT)
        w = narrate.word
        self.note = [w("bot.broke", name=self.name, turn=game.turns + 1, why=err.say()),
                     w("bot.fallback", level=narrate.word("level." + level), name=self.name)]
        if err.stderr:
            self.note.append(w("bot.stderr", name=self.name))
            self.note += ["| " + line for line in err.stderr.split("\n")[-NOTE_STDERR:]]

    def close(self):
        self.proc.close()


class CommandBot:
    """The App's bot object for a Seat (made by Seat.bots(); `level`: the built-in computer that stands in).
    reseed/start/step as engine.bot.Bot: start() sends the request, step() polls for the answer."""

    seat = None  # the Seat (set on the subclass Seat.bots() makes)

    def __init__(self, level):
        self.level = level
        self.inner = Bot(level)  # black in demo/attract mode, and white after a break
        self.game = None
        self.mine = False  # this move is the outside bot's
        self.cell = -1

    def reseed(self, seed):
        self.inner.reseed(seed)
        self.seat.new_game()  # the App reseeds at every new game: a broken bot gets its next chance

    def start(self, game, color):
        self.game = game
        self.cell = -1
        self.mine = color == WHITE and not self.seat.broken
        if self.mine:
            try:
                self.seat.ask(game, color)
                return
            except BotError as e:
                self._fall_back(e)
        self.inner.start(game, color)

    def step(self, units):
        if self.cell >= 0:
            return self.cell
        if not self.mine:
            return self.inner.step(units)
        try:
            self.cell = self.seat.answer(self.game)
        except BotError as e:
            self._fall_back(e)
            self.inner.start(self.game, WHITE)
            return -1
        return self.cell

    def _fall_back(self, err):
        self.mine = False
        self.seat.broke(err, self.game, self.level)
