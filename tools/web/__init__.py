"""Browser edition (issue 15): build() writes a static site that runs the device firmware in the official MicroPython webassembly port; serve() serves it on 127.0.0.1."""
import base64
import hashlib
import json
import shutil
from pathlib import Path

from tools import ROOT

SITE_SRC = ROOT / "tools" / "web" / "site"
PORT_DIR = ROOT / "tools" / "node" / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
PORT_FILES = ("micropython.mjs", "micropython.wasm")  # all the page needs of the npm package (pinned by package-lock.json)
PORT_VERSION = "1.27.0"
# .mpy version the port loads (its sys.implementation._mpy; a test asks the port itself). Bytecode only, no -march:
# the device files are compiled as tools.deploy compiles them for a board (measured: firmware import 326 -> 135 ms).
PORT_MPY = (6, 3)
PAGE_FILES = ("index.html", "style.css", "page.mjs", "sw.js")
DEFAULT_OUT = ROOT / "build" / "web"
NPIX = 83
# Start size of the guest heap: a Pico has ~190 KB free; the port grows the heap when it must (DEVELOPERS.md).
HEAPSIZE = 256 * 1024


class WebBuildError(RuntimeError):
    """The site cannot be built (the npm package is missing, a bad board name)."""


def device_files(board="pico", compiled=True):
    """{guest path: bytes}: what a device gets from tools.deploy (engine/ and firmware/ under lib/, the board file as
    board_config), compiled to .mpy as deploy does (compiled=False: the .py sources), plus the browser hardware layer
    and tools/sim/narrate.py (as the top-level `narrate`) as source."""
    import tempfile

    from tools import deploy

    _board_cfg(board)  # an unknown name is refused here, naming the valid ones
    out = {}
    if compiled:
        exe, _ = deploy.mpy_cross_for(*PORT_MPY)
        with tempfile.TemporaryDirectory() as tmp:
            for dest, data in deploy.compile_all(board, exe, None, tmp).items():
                if dest.endswith(".mpy"):
                    out[dest] = data
    else:
        for dev, src in deploy.source_files().items():
            out[dev[:-len(".mpy")] + ".py"] = Path(src).read_bytes()
        out["board_config.py"] = deploy.board_file(board).read_bytes()
    out["webhw.py"] = (SITE_SRC / "webhw.py").read_bytes()
    out["lib/narrate.py"] = (ROOT / "tools" / "sim" / "narrate.py").read_bytes()
    return out


def keymap():
    """The terminal simulator's two keyboard halves (tools/sim/terminal.py): [{keyboard char: pad key}, {…}]."""
    from tools.sim import terminal

    return [dict(terminal.PAD_A_KEYS), dict(terminal.PAD_B_KEYS)]


def screen_facts(board="pico"):
    """How strip values look on screen, from tools/sim/screen.py (one home for the terminal, the pictures and the page)."""
    from tools.sim import screen, terminal

    cfg = _board_cfg(board)
    gamma, exp = screen.board_gamma(cfg), screen.board_exposure(cfg)
    lut = [screen.perceived((v, 0, 0), gamma, exp)[0] for v in range(256)]
    return {"lut": lut, "unlit": list(terminal.UNLIT), "floor": 72}


def _board_cfg(board):
    """The board file as a module (contract 7: boards.load finds boards from the files in boards/)."""
    import boards

    try:
        return boards.load(board)
    except ValueError as e:
        raise WebBuildError(str(e))


def _mode_names():
    from firmware.modes import MODE_NAMES

    return MODE_NAMES


def _menu_items():
    """[(key, label)] of the device's menu, as the terminal simulator lists them (firmware/menu.py LABELS when it has them)."""
    from tools.sim import terminal

    return terminal.menu_items()


def _computer_modes():
    """Modes in which pad B is the computer's seat (firmware.modes.BOT_LEVELS)."""
    from firmware.modes import BOT_LEVELS

    return BOT_LEVELS


def mode_titles():
    """Mode name -> title line, from tools/sim/narrate.py (the terminal simulator's words)."""
    from firmware.modes import MODE_NAMES
    from tools.sim import narrate

    out = {m: narrate.mode_title(m) for m in MODE_NAMES}
    out["crashed"] = "the firmware stopped (see the browser console)"
    return out


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def build(out=DEFAULT_OUT, board="pico", log=print, compiled=True):
    """Write the whole static site to `out` (emptied first); returns the list of files written (relative paths).
    compiled=False ships the device files as .py source (tracebacks show the source lines)."""
    out = Path(out)
    for f in PORT_FILES:
        if not (PORT_DIR / f).is_file():
            raise WebBuildError("the MicroPython webassembly port is not installed (%s missing): run ./wts setup" % (PORT_DIR / f))
    from tools import deploy

    try:
        files = device_files(board, compiled)
    except deploy.DeployError as e:
        raise WebBuildError(str(e))
    if out.exists():
        if not (out / "site.json").is_file() and any(out.iterdir()):
            raise WebBuildError("%s is not empty and is not a site built here: refusing to overwrite it" % out)
        shutil.rmtree(out)
    out.mkdir(parents=True)
    written = []

    def put(rel, data):
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        written.append(rel)

    for f in PAGE_FILES:
        put(f, (SITE_SRC / f).read_bytes())
    for f in PORT_FILES:
        put(f, (PORT_DIR / f).read_bytes())
    site = {
        "board": board,
        "port": {"package": "@micropython/micropython-webassembly-pyscript", "version": PORT_VERSION,
                 "sha256": {f: sha256(PORT_DIR / f) for f in PORT_FILES}},
        "heapsize": HEAPSIZE,
        "npix": NPIX,
        "files": sorted(files),
        # The device files travel inside site.json (base64): one request instead of ~30 (measured: -150 ms to the first frame).
        "device": {rel: base64.b64encode(data).decode("ascii") for rel, data in sorted(files.items())},
        "pageFiles": list(PAGE_FILES) + list(PORT_FILES),
        "keymap": keymap(),
        "screen": screen_facts(board),
        "modeTitles": mode_titles(),
        "modes": list(_mode_names()),
        "computerModes": list(_computer_modes()),
        "menu": [list(item) for item in _menu_items()],
    }
    put("site.json", (json.dumps(site, indent=1, sort_keys=True) + "\n").encode())
    log("built the browser edition for board %s in %s (%d files; the %d device files are inside site.json)"
        % (board, out, len(written), len(files)))
    return written


# ---------------------------------------------------------------- serving
MIME = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json",
        ".py": "text/plain; charset=utf-8", ".html": "text/html; charset=utf-8", ".css": "text/css"}


def make_server(directory, port=0, quiet=True):
    """An HTTP server for `directory` on 127.0.0.1 (port 0: any free one); call serve_forever() or use serve_in_thread()."""
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **MIME)

        def end_headers(self):
            # Always fresh while developing: a stale cached page.mjs next to a new webhw.py would be confusing.
            self.send_header("Cache-Control", "no-cache")
            super().end_headers()

        def log_message(self, fmt, *args):
            if not quiet:
                super().log_message(fmt, *args)

    return http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=str(directory)))


def serve_in_thread(directory, port=0):
    """(server, url): the site served from a daemon thread; server.shutdown() stops it."""
    import threading

    srv = make_server(directory, port)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d/" % srv.server_address[1]
