"""Stand-ins the deploy tests share: a socket played as a serial port, and a board's files behind deploy.Device's read-only calls."""
import json
import socket
import threading

from tools import deploy


class SocketPort:
    """A socket server on 127.0.0.1 that deploy opens as a serial port (`with Sub(...) as url`): every connection
    goes to handle(conn) on the server's thread, until the test's `with` ends; the connection is closed after."""

    def __init__(self):
        self.connections = 0
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(4)
        self.stop = threading.Event()
        self.th = threading.Thread(target=self._serve, daemon=True)

    def handle(self, conn):
        raise NotImplementedError

    def _serve(self):
        self.srv.settimeout(0.2)
        while not self.stop.is_set():
            try:
                c, _ = self.srv.accept()
            except OSError:
                continue
            self.connections += 1
            try:
                self.handle(c)
            finally:
                c.close()

    def __enter__(self):
        self.th.start()
        return "socket://127.0.0.1:%d" % self.srv.getsockname()[1]

    def __exit__(self, *exc):
        self.stop.set()
        self.th.join(5)
        self.srv.close()


class BoardFiles:
    """deploy.Device's read-only file calls over `self.files` ({path: bytes}), for fakes that keep a board's files."""

    def listing(self):
        return [(p, len(d)) for p, d in sorted(self.files.items())]

    def heads(self, paths, n=160):
        return {p: self.files[p][:n] if p in self.files else None for p in paths}

    def record(self):
        raw = self.files.get(deploy.MANIFEST_NAME)
        return json.loads(raw) if raw else None

    def hashes(self, paths):
        return {p: deploy.sha(self.files[p]) if p in self.files else None for p in paths}

    def free_space(self):
        return None, 1
