"""Outside players for tournaments: any command that speaks the botserver JSON-lines protocol (docs/classroom.md, "Write your own bot"), run by tools/botproc.py (bytes with a size limit and a deadline, stderr kept bounded, its own process group), one process per game."""
from tools.botproc import (  # noqa: F401  (re-exported: the tournament's tests and tools use them from here)
    BotError, BotProcess, REPLY_TIMEOUT, MAX_REPLY, cell_of, end_group, request,
)

PlayerError = BotError  # an outside player broke the protocol: it loses that game (str: "player NAME: why")


class CommandPlayer:
    """Runs `command` once per game (started on the first move, ended by close()); one request line per move.

    choose() raises PlayerError (tools.botproc.BotError) with the request it was asked and the end of its
    stderr when the bot breaks the protocol: the tournament's report shows both."""

    def __init__(self, name, command, seed=0, timeout=None):
        self.name = name
        self.command = command
        self.bot = BotProcess(command, name, timeout)
        self.argv = self.bot.argv
        self.timeout = self.bot.timeout

    def choose(self, game, color):
        bot = self.bot
        bot.send(request(game, color))
        got = cell_of(bot.reply(), game)
        if isinstance(got, tuple):
            raise bot.broke(got[0], **got[1])
        return got

    def close(self):
        self.bot.close()
