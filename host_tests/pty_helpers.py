"""A program run in a pseudo-terminal, as in a terminal window (for tests of interactive tools: mpremote repl, ./wts play's question)."""
import os
import select
import subprocess
import time


class Terminal:
    """Run `cmd` with a pseudo-terminal as its stdin, stdout and stderr; `expect` what it prints, `send` keys."""

    def __init__(self, cmd, cwd=None, env=None):
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                     start_new_session=True)
        os.close(slave)
        self.out = b""

    def _read(self, wait):
        r, _, _ = select.select([self.master], [], [], wait)
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:           # the program ended and closed the terminal
            return None
        if not data:
            return None
        self.out += data
        return True

    def expect(self, text, timeout=60):
        """Wait until `text` (bytes or str) has appeared in the output; AssertionError with the output if it does not."""
        want = text.encode() if isinstance(text, str) else text
        end = time.monotonic() + timeout
        while want not in self.out:
            left = end - time.monotonic()
            if left <= 0 or self._read(min(left, 0.5)) is None and want not in self.out:
                raise AssertionError("waited for %r; the terminal shows:\n%s" % (want, self.text()[-2000:]))
        return self.text()

    def send(self, text):
        os.write(self.master, text.encode() if isinstance(text, str) else text)

    def wait(self, timeout=60):
        """The exit code, once the program has ended (all its output read)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self._read(0.2) is None or self.proc.poll() is not None:
                while self._read(0.1):
                    pass
                return self.proc.wait(max(0.1, end - time.monotonic()))
        raise AssertionError("still running after %d s:\n%s" % (timeout, self.text()[-2000:]))

    def text(self):
        return self.out.decode("utf-8", "replace").replace("\r\n", "\n")

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()              # SIGTERM: a tool may clean up (tools.rp2040 removes its flash image)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        try:
            os.close(self.master)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
