"""Outside players for tournaments: any command that speaks the botserver JSON-lines protocol (docs/classroom.md, "Write your own bot"), trusted for nothing: read as bytes with a size limit and a deadline, run in a process group of its own that ends with all its children."""
import json
import os
import selectors
import shlex
import signal
import subprocess
import time

from engine import BLACK, parse_square, square_name
from engine.notation import board_rows, egg_names

REPLY_TIMEOUT = 30.0  # seconds a bot may think about one move
MAX_REPLY = 4096  # bytes in one reply line (a real one is "e5"): more is a broken bot, never kept
_GRACE = 2.0  # seconds a bot gets to exit by itself once its stdin is closed


class PlayerError(RuntimeError):
    """An outside player broke the protocol (bad reply, illegal cell, crashed, too slow): it loses that game."""


def request(game, color):
    """The protocol's request line for `color` to move in `game` (no newline)."""
    return json.dumps({"board": board_rows(game), "eggs": egg_names(game),
                       "you": "black" if color == BLACK else "white"})


class CommandPlayer:
    """Runs `command` once per game (started on the first move, ended by close()); one request line per move.

    The reply is read straight from the pipe: whatever arrives counts against MAX_REPLY, and the line must be
    complete within `timeout` seconds of the request (a reply without its newline, or an endless one, loses).
    The command is the leader of a new session (its own process group): close() ends the whole group, so
    a bot's children and grandchildren go with it (one that starts a session of its own escapes this)."""

    def __init__(self, name, command, seed=0, timeout=None):
        self.name = name
        self.command = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("player %s: empty command" % name)
        self.timeout = REPLY_TIMEOUT if timeout is None else timeout
        self.proc = None
        self.pending = b""  # bytes after a reply's newline (a bot that answers ahead): the next reply's start

    def _start(self):
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, bufsize=0, start_new_session=True)
        except OSError as exc:
            raise PlayerError("player %s: cannot run %r: %s" % (self.name, self.command, exc)) from None
        self.pending = b""

    def choose(self, game, color):
        if self.proc is None:
            self._start()
        line = request(game, color)
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise PlayerError("player %s: exited before the move (code %s)" % (self.name, self.proc.poll())) from None
        raw = self._read_line()
        try:
            reply = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise PlayerError("player %s answered %r: not UTF-8 text" % (self.name, raw[:40])) from None
        if reply.startswith("error:"):
            raise PlayerError("player %s answered %r" % (self.name, reply[:200]))
        try:
            cell = parse_square(reply)
        except ValueError:
            raise PlayerError("player %s answered %r, not a cell name like e5" % (self.name, reply[:40])) from None
        if not game.legal(cell):
            raise PlayerError("player %s chose %s, which is not empty" % (self.name, square_name(cell)))
        return cell

    def _read_line(self):
        """One reply line (bytes, without the newline), read with os.read as the bytes arrive."""
        buf = self.pending
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        try:
            while b"\n" not in buf:
                if len(buf) > MAX_REPLY:
                    raise PlayerError("player %s: a reply longer than %d bytes" % (self.name, MAX_REPLY))
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise PlayerError("player %s: no answer within %.0f s" % (self.name, self.timeout))
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise PlayerError("player %s: exited without answering (code %s)" % (self.name, self._code()))
                buf += chunk
        finally:
            sel.close()
        line, _, self.pending = buf.partition(b"\n")
        if len(line) > MAX_REPLY:
            raise PlayerError("player %s: a reply longer than %d bytes" % (self.name, MAX_REPLY))
        return line

    def _code(self):
        try:
            return self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def close(self):
        p = self.proc
        self.proc = None
        if p is not None:
            end_group(p)


def end_group(proc, grace=_GRACE):
    """End an outside bot and everything it started: close its stdin (the protocol's "no more requests"), give
    it `grace` seconds, then SIGTERM, and at last SIGKILL its process group, which outlives the leader while
    any child is left in it. The leader is reaped only after that: until then its pid, and so the group id,
    cannot be given to an unrelated process."""
    try:
        proc.stdin.close()
    except OSError:
        pass
    if not _exited(proc, grace):
        _signal_group(proc.pid, signal.SIGTERM)
        _exited(proc, grace)
    _signal_group(proc.pid, signal.SIGKILL)  # the leader's children too, even when it left by itself
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def _exited(proc, seconds):
    # Waits up to `seconds` for the leader to exit, without reaping it (WNOWAIT).
    deadline = time.monotonic() + seconds
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                return True
        except ChildProcessError:
            return True  # reaped already
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
