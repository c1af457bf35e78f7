"""A pseudo-terminal (/dev/pts/N) in front of a TCP serial port, so that any serial program (mpremote repl, screen, picocom, tools.deploy) can open the emulated Pico as it opens /dev/ttyACM0."""
import errno
import os
import select
import socket
import threading
import time
import tty

POLL_S = 0.05    # how often the bridge looks for a program opening or closing the terminal


class PtyBridge:
    """/dev/pts/N <-> 127.0.0.1:port. The TCP connection is made while a program has the terminal open and
    dropped when it closes it, like a USB serial port: what the board prints meanwhile is lost, as on USB.
    After the board resets (the emulated USB port vanishes) it connects again; the program keeps its port.
    POSIX only (os.openpty)."""

    def __init__(self, port, host="127.0.0.1"):
        self.host, self.port = host, port
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        # Raw until a program sets its own modes: no echo of the board's output back into the board.
        tty.setraw(slave)
        os.close(slave)
        self.connections = 0
        self._stop = threading.Event()
        self._th = threading.Thread(target=self._run, name="pty " + self.path, daemon=True)
        self._th.start()

    def _client_present(self):
        p = select.poll()
        p.register(self.master, select.POLLIN | select.POLLHUP)
        for _, ev in p.poll(0):
            if ev & select.POLLHUP:
                return False
        return True

    def _connect(self):
        try:
            sock = socket.create_connection((self.host, self.port), timeout=2)
        except OSError:
            return None
        sock.settimeout(5)      # reads only after select says there is data; a send may wait a little
        self.connections += 1
        return sock

    def _run(self):
        sock = None
        while not self._stop.is_set():
            if sock is None:
                if not self._client_present():
                    time.sleep(POLL_S)
                    continue
                sock = self._connect()
                if sock is None:
                    time.sleep(POLL_S)
                    continue
            try:
                ready, _, _ = select.select([self.master, sock], [], [], POLL_S)
            except (OSError, ValueError):
                break
            if self.master in ready:
                try:
                    data = os.read(self.master, 4096)
                except OSError as e:
                    if e.errno != errno.EIO:
                        raise
                    data = b""          # the program closed the terminal
                if not data:
                    sock.close()
                    sock = None
                    time.sleep(POLL_S)
                    continue
                try:
                    sock.sendall(data)
                except OSError:
                    sock.close()
                    sock = None
                    continue
            if sock is not None and sock in ready:
                try:
                    data = sock.recv(65536)
                except OSError:
                    data = b""
                if not data:            # the board reset (its USB port vanished): connect again next round
                    sock.close()
                    sock = None
                    continue
                try:
                    os.write(self.master, data)
                except OSError:
                    pass
        if sock is not None:
            sock.close()

    def close(self):
        self._stop.set()
        self._th.join(5)
        try:
            os.close(self.master)
        except OSError:
            pass
