"""Outside players for tournaments: any command that speaks the botserver JSON-lines protocol (docs/classroom.md, "Write your own bot")."""
import json
import shlex
import subprocess

from engine import BLACK, parse_square, square_name
from tools import stop_child
from engine.notation import board_rows, egg_names

REPLY_TIMEOUT = 30.0  # seconds a bot may think about one move


class PlayerError(RuntimeError):
    """An outside player broke the protocol (bad reply, illegal cell, crashed, too slow): it loses that game."""


def request(game, color):
    """The protocol's request line for `color` to move in `game` (no newline)."""
    return json.dumps({"board": board_rows(game), "eggs": egg_names(game),
                       "you": "black" if color == BLACK else "white"})


class CommandPlayer:
    """Runs `command` once per game (started on the first move, ended by close()); one request line per move."""

    def __init__(self, name, command, seed=0):
        self.name = name
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("player %s: empty command" % name)
        self.proc = None

    def _start(self):
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
        except OSError as exc:
            raise PlayerError("player %s: cannot run %r: %s" % (self.name, self.command, exc)) from None

    def choose(self, game, color):
        if self.proc is None:
            self._start()
        line = request(game, color)
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise PlayerError("player %s: exited before the move (code %s)" % (self.name, self.proc.poll())) from None
        reply = self._readline()
        if reply is None:
            raise PlayerError("player %s: no answer within %.0f s" % (self.name, REPLY_TIMEOUT))
        reply = reply.strip()
        if not reply:
            raise PlayerError("player %s: exited without answering (code %s)" % (self.name, self.proc.poll()))
        if reply.startswith("error:"):
            raise PlayerError("player %s answered %r" % (self.name, reply))
        try:
            cell = parse_square(reply)
        except ValueError:
            raise PlayerError("player %s answered %r, not a cell name like e5" % (self.name, reply)) from None
        if not game.legal(cell):
            raise PlayerError("player %s chose %s, which is not empty" % (self.name, square_name(cell)))
        return cell

    def _readline(self):
        import selectors

        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            if not sel.select(REPLY_TIMEOUT):
                return None
        finally:
            sel.close()
        return self.proc.stdout.readline()

    def close(self):
        p = self.proc
        self.proc = None
        if p is not None:
            stop_child(p)
