"""The browser edition's seat for a student's bot (`python -m tools.web serve --player cmd:COMMAND`): the server runs the command, one process per page session, behind a small JSON endpoint of the page's own server (POST bot, bot/end, bot/close); the protocol, its limits and the process groups are tools/botproc.py's."""
import json
import re
import threading
import time
from urllib.parse import parse_qs, urlsplit

from engine import BLACK, ONGOING, WHITE, Game, square_name
from engine.notation import load
from tools.botproc import BotError, BotProcess, cell_of, request

MAX_BODY = 4096  # bytes in one request body (a real position is about 250)
MAX_SESSIONS = 8  # pages with a bot process of their own at once; one more ends the one unused the longest
IDLE = 900.0  # seconds a session may go unused before its process is ended (a page that closed without saying so)
SWEEP = 30.0  # seconds between looks for such sessions
POLL = 0.02  # seconds a waiting request sleeps between its looks at the bot, its session's lock let go
MAX_GAME = 10 ** 9  # a page's game number stays below this
_SESSION = re.compile(r"^[0-9a-f]{32}$")  # a page makes its session name from 16 random bytes
_COLORS = {"black": BLACK, "white": WHITE}
PATHS = ("/bot", "/bot/end", "/bot/close")


class Refused(Exception):
    """A request the endpoint does not carry out: HTTP `status`, `reason` (a word for programs), `why` (English)."""

    def __init__(self, status, reason, why):
        Exception.__init__(self, why)
        self.status = status
        self.reason = reason
        self.why = why

    def body(self):
        return {"error": {"reason": self.reason, "why": self.why}}


def position(body):
    """A request body (bytes: the protocol's JSON object {board, eggs, you}) -> (Game, colour); Refused(400) if it is
    not one, or not a position a bot can be asked about (a finished game, a full board)."""
    try:
        req = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise Refused(400, "bad_json", "the body is not JSON text: %s" % (e,)) from None
    if not isinstance(req, dict) or set(req) != {"board", "eggs", "you"}:
        raise Refused(400, "bad_request", 'expected a JSON object with exactly "board", "eggs" and "you"')
    if req["you"] not in _COLORS:
        raise Refused(400, "bad_request", '"you" must be "black" or "white"')
    eggs = req["eggs"]
    if not isinstance(eggs, list) or not all(isinstance(e, str) for e in eggs):
        raise Refused(400, "bad_request", '"eggs" must be a list of cell names like "c3"')
    game = Game()
    try:
        load(game, req["board"], eggs)
    except (ValueError, TypeError) as e:
        raise Refused(400, "bad_request", "not a position: %s" % (e,)) from None
    if game.result != ONGOING or game.empty == 0:
        raise Refused(400, "bad_request", "the game in this position is over")
    return game, _COLORS[req["you"]]


def error_of(err):
    """A BotError as the endpoint's error object: why (a tools/botproc.py reason, its values, and in English), the
    request line the bot was asked and the last lines of its stderr."""
    return {"error": {"reason": err.reason, "values": err.values, "why": err.why, "name": err.name,
                      "request": err.request, "stderr": err.stderr}}


class Session:
    """One page's bot: a BotProcess (started by a game's first request, ended by the next game), the page's game
    number, and the request being answered (one at a time)."""

    def __init__(self, command, name, timeout):
        self.lock = threading.Lock()
        self.proc = BotProcess(command, name, timeout)
        self.game = 0
        self.asking = None  # the request waiting for the bot (a token), or None
        self.used = time.monotonic()
        self.gone = False  # closed for good (the page closed, the server stops): it starts nothing any more

    def end(self, gone=False):
        # (holding self.lock) the process goes; a request waiting for it is answered "ended"
        self.asking = None
        self.gone = self.gone or gone
        self.proc.close(grace=0)  # an idle bot waits on stdin: nothing of it is lost

    def broke(self, err):
        # (holding self.lock) the bot broke the protocol: it is ended, the page gets why
        self.end()
        return 200, error_of(err)


class Relay:
    """Every page session's bot for one `command` (the server's own --player: never anything from a page)."""

    def __init__(self, command, name, timeout=None):
        self.command = command
        self.name = name
        self.timeout = timeout
        self.lock = threading.Lock()  # guards `sessions` and `closed`
        self.sessions = {}
        self.closed = False
        self._stop = threading.Event()
        self._sweeper = None

    def info(self):
        """What the page learns about the bot (in its site.json): its name, never the command."""
        return {"name": self.name}

    def start(self):
        """Start the sweeper that ends the processes of sessions unused for IDLE seconds."""
        if self._sweeper is None:
            self._sweeper = threading.Thread(target=self._sweep_loop, daemon=True)
            self._sweeper.start()

    def _sweep_loop(self):
        while not self._stop.wait(SWEEP):
            self.sweep()

    def sweep(self, now=None):
        """End the sessions unused for IDLE seconds (none waiting for an answer)."""
        now = time.monotonic() if now is None else now
        with self.lock:
            old = [(k, s) for k, s in self.sessions.items() if s.asking is None and now - s.used > IDLE]
            for k, _ in old:
                del self.sessions[k]
        for _, s in old:
            with s.lock:
                s.end(gone=True)

    def _session(self, sid, create):
        with self.lock:
            if self.closed:
                raise Refused(503, "closed", "the server is stopping")
            s = self.sessions.get(sid)
            if s is not None or not create:
                return s
            evicted = None
            if len(self.sessions) >= MAX_SESSIONS:
                idle = [(s.used, k) for k, s in self.sessions.items() if s.asking is None]
                if not idle:
                    raise Refused(503, "full", "%d pages are waiting for their bots already" % MAX_SESSIONS)
                evicted = self.sessions.pop(min(idle)[1])
            s = self.sessions[sid] = Session(self.command, self.name, self.timeout)
        if evicted is not None:
            with evicted.lock:
                evicted.end(gone=True)
        return s

    def ask(self, sid, game, body):
        """The bot's answer to one position for page session `sid` in its game number `game`: (200, {"cell": "e5"}),
        (200, {"error": ...}) when the bot broke the protocol (it is ended; the next request starts it again), or
        Refused. A greater game number than the session's ends the last game's process first."""
        pos, color = position(body)
        line = request(pos, color)
        s = self._session(sid, True)
        token = object()
        with s.lock:
            if s.gone:  # closed between the look-up and now: a process started here would belong to no session
                raise Refused(409, "ended", "this page's session has ended")
            if game < s.game:
                raise Refused(409, "stale", "game %d is over: this page is at game %d" % (game, s.game))
            if game > s.game:
                s.end()
                s.game = game
            if s.asking is not None:
                raise Refused(409, "busy", "one request at a time: the last one is not answered yet")
            s.used = time.monotonic()
            s.asking = token
            try:
                s.proc.send(line)
            except BotError as e:
                return s.broke(e)
        while True:
            # The lock is held for one look that never blocks, and let go while this request sleeps: an end or
            # close of this session then waits at most POLL s. (Held through a blocking look and taken again at
            # once, it left them waiting behind it: Python's locks are not fair.)
            with s.lock:
                if s.asking is not token:
                    raise Refused(409, "ended", "the game ended before the bot answered")
                try:
                    raw = s.proc.reply(0)
                except BotError as e:
                    return s.broke(e)
                if raw is not None:
                    s.asking = None
                    s.used = time.monotonic()
                    got = cell_of(raw, pos)
                    if isinstance(got, tuple):
                        return s.broke(s.proc.broke(got[0], **got[1]))
                    return 200, {"cell": square_name(got)}
            time.sleep(POLL)

    def end(self, sid, game):
        """Game `game` of page session `sid` is over (a new game, another mode): its process ends; a later request
        for that game is refused as stale."""
        s = self._session(sid, False)
        if s is not None:
            with s.lock:
                if game >= s.game:
                    s.end()
                    s.game = game + 1
        return 200, {"ended": True}

    def close_session(self, sid):
        """The page closed: its session and process end."""
        with self.lock:
            s = self.sessions.pop(sid, None)
        if s is not None:
            with s.lock:
                s.end(gone=True)
        return 200, {"closed": True}

    def close(self):
        """The server stops: every session's process ends, and no new one starts."""
        self._stop.set()
        with self.lock:
            self.closed = True
            left = list(self.sessions.values())
            self.sessions.clear()
        for s in left:
            with s.lock:
                s.end(gone=True)

    def handle(self, path, query, body):
        """One POST to the endpoint (path, query string, body bytes) -> (HTTP status, JSON object)."""
        q = parse_qs(query, keep_blank_values=True)
        sid = q.get("session", [""])
        if len(sid) != 1 or not _SESSION.match(sid[0]):
            raise Refused(400, "bad_session", "session must be 32 lowercase hex digits")
        sid = sid[0]
        if path == "/bot/close":
            return self.close_session(sid)
        game = q.get("game", [""])
        if len(game) != 1 or not re.match(r"^[0-9]{1,9}$", game[0]):
            raise Refused(400, "bad_game", "game must be a whole number below %d" % MAX_GAME)
        game = int(game[0])
        if path == "/bot/end":
            return self.end(sid, game)
        return self.ask(sid, game, body)


def handler_class(base, relay):
    """`base` (the site's request handler) with the bot endpoint: POST bot, bot/end, bot/close, and a site.json
    that names the bot. Only from the server's own page: the Host must be the server's address and the Origin the
    page's (a page of another site cannot make the server run the bot, nor can a name that points at 127.0.0.1)."""

    class PlayerHandler(base):
        def _own(self):
            port = self.server.server_address[1]
            host = self.headers.get("Host", "")
            if host not in ("127.0.0.1:%d" % port, "localhost:%d" % port):
                return False
            return self.headers.get("Origin") == "http://" + host

        def _send_json(self, status, obj):
            data = (json.dumps(obj) + "\n").encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the page went away (a new game aborted this request): nobody to tell

        def do_GET(self):
            if urlsplit(self.path).path != "/site.json":
                return base.do_GET(self)
            # The built site.json, and the bot's name: this page has a bot seat (a copy of the folder has none).
            try:
                with open(self.directory + "/site.json", encoding="utf-8") as f:
                    site = json.load(f)
            except (OSError, ValueError):
                return base.do_GET(self)
            site["player"] = relay.info()
            self._send_json(200, site)

        def do_POST(self):
            parts = urlsplit(self.path)
            try:
                if parts.path not in PATHS:
                    raise Refused(404, "not_found", "no such endpoint: %s" % parts.path)
                if not self._own():
                    raise Refused(403, "forbidden", "only the page this server serves may ask for the bot")
                try:
                    n = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    n = -1
                if not 0 <= n <= MAX_BODY:
                    self.close_connection = True
                    raise Refused(413, "too_large", "a request body has at most %d bytes" % MAX_BODY)
                body = self.rfile.read(n) if n else b""
                if parts.path == "/bot" and self.headers.get("Content-Type", "").split(";")[0].strip() != "application/json":
                    raise Refused(415, "bad_type", "the body must be sent as application/json")
                status, obj = relay.handle(parts.path, parts.query, body)
            except Refused as e:
                status, obj = e.status, e.body()
            self._send_json(status, obj)

    return PlayerHandler
