"""One outside bot as a process speaking the botserver protocol (docs/classroom.md "Write your own bot"), trusted for nothing: the request line, the reply read as bytes with a size limit and a deadline (blocking or polled), its stderr kept bounded for the report, its process group ended with all its children. Used by the tournament (tools/tournament/outside.py), the simulator's computer seat (tools/cmdbot.py) and, later, a browser relay."""
import json
import os
import re
import selectors
import shlex
import signal
import subprocess
import time

from engine import BLACK, parse_square, square_name
from engine.notation import board_rows, egg_names
from tools.sim.narrate import EN, word

REPLY_TIMEOUT = 30.0  # seconds a bot may think about one move
MAX_REPLY = 4096  # bytes in one reply line (a real one is "e5"): more is a broken bot, never kept
STDERR_KEEP = 16384  # bytes of a bot's stderr kept, the newest (a traceback fits; a flood is read and dropped)
STDERR_LINES = 20  # lines of it a report shows, the last ones
STDERR_WIDTH = 240  # characters of one such line shown
_GRACE = 2.0  # seconds a bot gets to exit by itself once its stdin is closed
_DRAIN = 1.0  # seconds spent reading the rest of a bot's stderr once it has exited (a child may hold it open)

# Why a bot broke the protocol: a reason key, its words "bot.why.KEY" in tools/sim/narrate.py (English in
# str(error) and the tournament's tables; BotError.say() in the simulator's language).
REASONS = ("cannot_run", "exited_before", "exited", "timeout", "too_long", "not_utf8", "error_answer", "not_cell",
           "taken")


class BotError(RuntimeError):
    """A bot broke the protocol (bad reply, illegal cell, crashed, too slow). str(): "player NAME: why".

    `reason` (one of REASONS) and `values` say why in any language; `request` is the request line it was
    asked (or None), `stderr` the last of what it wrote on stderr (text, at most STDERR_LINES lines)."""

    def __init__(self, name, reason, request=None, stderr="", **values):
        self.name = name
        self.reason = reason
        self.values = values
        self.request = request
        self.stderr = stderr
        RuntimeError.__init__(self, "player %s: %s" % (name, EN["bot.why." + reason].format(**values)))

    @property
    def why(self):
        """Why, without the player's name, in English (the tournament's records)."""
        return EN["bot.why." + self.reason].format(**self.values)

    def say(self):
        """Why, without the player's name, in the simulator's current language (tools/sim/narrate.py)."""
        return word("bot.why." + self.reason, **self.values)


def request(game, color):
    """The protocol's request line for `color` to move in `game` (no newline)."""
    return json.dumps({"board": board_rows(game), "eggs": egg_names(game),
                       "you": "black" if color == BLACK else "white"})


def cell_of(reply, game):
    """The cell (0..80) a reply line (bytes, without its newline) names for `game`, or a (reason, values) pair
    saying why it is not a legal move there."""
    try:
        text = reply.decode("utf-8").strip()
    except UnicodeDecodeError:
        return "not_utf8", {"reply": repr(reply[:40])}
    if text.startswith("error:"):
        return "error_answer", {"reply": repr(text[:200])}
    try:
        cell = parse_square(text)
    except ValueError:
        return "not_cell", {"reply": repr(text[:40])}
    if not game.legal(cell):
        return "taken", {"cell": square_name(cell)}
    return cell


def printable(data):
    """Bytes a bot wrote -> text safe for any terminal: UTF-8 (bad bytes replaced), control characters
    other than newline and tab shown as '?', lines cut to STDERR_WIDTH characters."""
    text = data.decode("utf-8", "replace")
    text = "".join(c if c in "\n\t" or (c >= " " and c != "\x7f" and not "\x80" <= c <= "\x9f") else "?"
                   for c in text.replace("\r\n", "\n"))
    return "\n".join(line if len(line) <= STDERR_WIDTH else line[:STDERR_WIDTH] + "..."
                     for line in text.split("\n"))


def name_of(command):
    """A short name for a command, from its last word: 'python3 docs/examples/mybot.py' -> 'mybot'."""
    words = shlex.split(command)
    last = words[-1].replace("\\", "/").split("/")[-1] if words else ""
    name = re.sub(r"[^A-Za-z0-9_]", "_", re.sub(r"\.\w+$", "", last))
    return name if name[:1].isalpha() else "bot"


def parse_spec(spec):
    """'cmd:COMMAND' or 'NAME=cmd:COMMAND' -> (name, command); ValueError saying what is wrong."""
    name = None
    if not spec.startswith("cmd:") and "=" in spec:
        name, spec = spec.split("=", 1)
    if not spec.startswith("cmd:") or not spec[4:].strip():
        raise ValueError("bad --player %r: use cmd:COMMAND or NAME=cmd:COMMAND" % (spec,))
    command = spec[4:].strip()
    try:
        shlex.split(command)
    except ValueError as e:
        raise ValueError("bad --player %r: %s" % (spec, e)) from None
    if name is not None and not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", name):
        raise ValueError("bad player name %r: letters, digits and _, starting with a letter" % (name,))
    return name or name_of(command), command


class BotProcess:
    """`command` (a string, split as a shell would, or an argv list) run as a bot: started by the first
    send(); each send() writes one request line and starts its deadline; reply(wait) reads the reply line.

    The reply is read straight from the pipe: whatever arrives counts against MAX_REPLY, and the line must
    be complete within `timeout` seconds of the request (a reply without its newline, or an endless one,
    breaks the protocol). stderr is a pipe read whenever stdout is, so a bot that floods it never blocks
    on it for long, and only its newest STDERR_KEEP bytes are kept. The command leads a new session (its
    own process group): close() ends the whole group, so its children go with it (one that starts a
    session of its own escapes this). Every broken rule is a BotError carrying the request and stderr."""

    def __init__(self, command, name="bot", timeout=None):
        self.name = name
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("player %s: empty command" % name)
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout = REPLY_TIMEOUT if timeout is None else timeout
        self.proc = None
        self.sel = None
        self.out = b""  # bytes of stdout not yet taken as a reply (a bot that answers ahead: the next one's start)
        self.err = bytearray()  # the newest STDERR_KEEP bytes (at most twice that between trims)
        self.deadline = None  # when the reply to the last request is due (None: no request outstanding)
        self.last_request = None

    @property
    def running(self):
        return self.proc is not None

    def start(self):
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, bufsize=0, start_new_session=True)
        except OSError as exc:
            raise BotError(self.name, "cannot_run", command=repr(self.command), error=str(exc.strerror or exc)) from None
        self.out = b""
        self.err = bytearray()
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout.fileno(), selectors.EVENT_READ, "out")
        self.sel.register(self.proc.stderr.fileno(), selectors.EVENT_READ, "err")

    def send(self, line):
        """Write one request line (str, no newline), starting the bot first if it is not running."""
        if self.proc is None:
            self.start()
        self.last_request = line
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self.broke("exited_before", drain=True, code=self._code()) from None
        self.deadline = time.monotonic() + self.timeout

    def reply(self, wait=None):
        """The next reply line (bytes, without its newline). wait=None: block until it is there or the
        deadline has passed; wait=0: look once and return None when it is not complete yet (never blocks)."""
        if self.proc is None or self.deadline is None:
            raise ValueError("player %s: reply() before send()" % self.name)
        while b"\n" not in self.out:
            if len(self.out) > MAX_REPLY:
                raise self.broke("too_long", limit=MAX_REPLY)
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise self.broke("timeout", seconds="%g" % self.timeout)
            eof = self._pump(left if wait is None else min(left, wait))
            if eof and b"\n" not in self.out:
                raise self.broke("exited", drain=True, code=self._code())
            if wait is not None and b"\n" not in self.out:
                if len(self.out) > MAX_REPLY:
                    raise self.broke("too_long", limit=MAX_REPLY)
                return None
        line, _, self.out = self.out.partition(b"\n")
        if len(line) > MAX_REPLY:
            raise self.broke("too_long", limit=MAX_REPLY)
        self.deadline = None
        return line

    def _pump(self, timeout):
        """Read what stdout and stderr have, waiting up to `timeout` s for the first bytes; True at stdout's end."""
        eof = False
        for key, _ in self.sel.select(max(0.0, timeout)):
            chunk = os.read(key.fd, 65536)
            if key.data == "out":
                if not chunk:
                    eof = True
                self.out += chunk
            elif chunk:
                self._keep(chunk)
            else:
                self.sel.unregister(key.fd)  # stderr closed: nothing more to read there
        return eof

    def _keep(self, chunk):
        self.err += chunk
        if len(self.err) > 2 * STDERR_KEEP:
            del self.err[:-STDERR_KEEP]

    def drain_stderr(self, seconds=0.0):
        """Read what the bot has written on stderr so far (up to `seconds` more while it keeps its stderr
        open; 0: only what is there now, never blocking)."""
        if self.proc is None or self.sel is None:
            return
        fd = self.proc.stderr.fileno()
        end = time.monotonic() + seconds
        got = 0
        while any(k.fd == fd for k in self.sel.get_map().values()) and got < 64 * STDERR_KEEP:
            ready = [k for k, _ in self.sel.select(max(0.0, end - time.monotonic())) if k.fd == fd]
            if not ready:
                if time.monotonic() >= end:
                    return
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self.sel.unregister(fd)
                return
            got += len(chunk)
            self._keep(chunk)

    def stderr_tail(self, lines=STDERR_LINES):
        """The last `lines` lines the bot wrote on stderr, as printable text ("" if none)."""
        text = printable(bytes(self.err[-STDERR_KEEP:])).rstrip("\n")
        return "\n".join(text.split("\n")[-lines:]) if text.strip() else ""

    def broke(self, reason, drain=False, **values):
        """A BotError for `reason` (one of REASONS) with the last request and the end of stderr (read now;
        drain=True: also what the bot writes in the next second while it exits)."""
        self.drain_stderr(_DRAIN if drain else 0.0)
        return BotError(self.name, reason, request=self.last_request, stderr=self.stderr_tail(), **values)

    def _code(self, seconds=1.0):
        """The bot's exit code (negative: the signal that ended it), or None while it still runs after `seconds`.
        Read without reaping it (WNOWAIT): its pid, its process group's id, stays its own until close()."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return self.proc.returncode
            if info is not None:
                return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)

    def close(self, grace=_GRACE):
        """End the bot and everything it started (end_group, `grace` s to exit by itself); the next send()
        may start it again."""
        p = self.proc
        self.proc = None
        self.deadline = None
        if self.sel is not None:
            self.sel.close()
            self.sel = None
        if p is not None:
            end_group(p, grace)


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
    for f in (proc.stdout, proc.stderr):
        if f is not None:
            f.close()


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
