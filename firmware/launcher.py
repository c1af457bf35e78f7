"""Start-up and every way out: boot-time key holds (safe boot, key test), run the app under the watchdog, log a crash to flash and restart (setting suspect stored state aside after crashes in a row), and leave the LEDs dark, the buzzer silent and the watchdog stopped however the game ends."""
from firmware.app import App
from firmware.display import BLUE, RED
from firmware.modes import MODE_NAMES, SCORED
from firmware.settings import SAFE_BRIGHTNESS, SETTINGS_FILE, SCORES_FILE, setting_ok, settings_defaults
from firmware.storage import append_log, Store, _join

LOG_NAME = "error.log"
LOG_KEEP = 2048  # bytes of error.log kept (the newest): a few tracebacks, never a full flash
# The crash count starts again after this long without a crash, or after a game that players finished (attract
# and demo games play themselves: they say nothing about what a player's key does): a board that plays for
# minutes between two crashes is healthy, and restarting it is the right answer every time.
HEALTHY_MS = 120000
SET_ASIDE_AT = 3  # crashes in a row: the stored settings and scores they ran on are set aside
MAX_RESTARTS = 5  # crashes in a row: launch() returns "crashed" (main.py resets the chip, the Pi service exits 1)
PAUSE_MS = 1000  # before the first restart; doubled after each further crash in a row (less flash wear in a loop) ...
PAUSE_MAX_MS = 30000  # ... up to this
WATCHDOG_MS = 8000  # the hardware watchdog's timeout (firmware/watchdog.py): no feed for this long resets the chip
SAFE_KEY = "*"  # held on pad A at power-up: skip the game, keep the REPL free, dim from now on
KEYTEST_KEY = "#"  # held on pad A at power-up: start in key test mode (check the wiring)


def boot_key(hw):
    """Scan pad A for ~30 ms at power-up: SAFE_KEY or KEYTEST_KEY if one is held (debounced), else None."""
    from firmware.keypad import EventRing

    ring = EventRing()
    pad = hw.pads[0]
    for _ in range(6):
        pad.scan(ring)
        hw.clock.sleep_ms(5)
    if pad.held(SAFE_KEY):
        return SAFE_KEY
    if pad.held(KEYTEST_KEY):
        return KEYTEST_KEY
    return None


def format_exception(e):
    """Traceback text on MicroPython (sys.print_exception) and CPython (traceback)."""
    import sys

    try:
        import io

        buf = io.StringIO()
        sys.print_exception(e, buf)  # type: ignore[attr-defined]
        return buf.getvalue()  # type: ignore  # missing from the stubs, present on every port
    except AttributeError:
        import traceback  # type: ignore  # CPython only

        return "".join(traceback.format_exception(type(e), e, e.__traceback__))


def _status(hw, cfg, colour):
    # Both status LEDs in one palette colour, everything else off, at the lowest brightness.
    from firmware.display import Display, STATUS_A, STATUS_B

    d = Display(hw.np, cfg)
    d.set_brightness(SAFE_BRIGHTNESS)
    d.put(STATUS_A, colour << 4 | 15)
    d.put(STATUS_B, colour << 4 | 15)
    d.show()


def blank(hw):
    """Every LED dark, the buzzer silent. Retried if a second Ctrl-C (mpremote sends two) interrupts it."""
    for _ in range(5):
        try:
            buf = hw.np.buf
            for i in range(len(buf)):
                buf[i] = 0
            hw.np.write()
            if hw.buzzer is not None:
                hw.buzzer.duty_u16(0)
            return
        except KeyboardInterrupt:
            pass


def launch(cfg, hw, mode="attract", store_dir=None, max_restarts=MAX_RESTARTS, stop=None, watchdog=None, note=None):
    """Run the game until stop() (never, on a device). Returns "safe", "stopped" or "crashed" (max_restarts
    crashes in a row); a KeyboardInterrupt (Ctrl-C, a deploy) goes on up. Whichever way it leaves, the
    watchdog is stopped and the strip is blanked first, except after safe boot, whose two dim blue status
    LEDs say the game was skipped (the watchdog was never armed then).

    `watchdog` (firmware.watchdog.Watchdog, or None) has feed() and stop(): its first feed arms it, when the
    game loop starts; the loop feeds it every tick and the pause before a restart every second, so only a
    hang lets it reset the chip. `note` (e.g. "watchdog reset") goes into the crash log first."""
    held = boot_key(hw)
    if held == SAFE_KEY:
        # Skip the game so the REPL stays free, and make the next boot dim too.
        if store_dir is not None:
            st = Store(store_dir, SETTINGS_FILE, settings_defaults(cfg), setting_ok)
            st.data["brightness"] = 0
            st.save()
        _status(hw, cfg, BLUE)
        print("safe boot: * held on pad A; game skipped, brightness at minimum")
        return "safe"
    if held == KEYTEST_KEY:
        mode = "keytest"
        print("key test: # held on pad A; hold * for 2 s to leave")
    if note is not None:
        print(note)
        if store_dir is not None:
            _log(store_dir, "--- %s\n" % (note,))
    try:
        return _run(cfg, hw, mode, store_dir, max_restarts, stop, watchdog)
    finally:
        if watchdog is not None:
            _stop_watchdog(watchdog)
        blank(hw)


def _stop_watchdog(watchdog):
    # First on the way out: a second Ctrl-C (mpremote sends two) must not leave it running under the REPL.
    for _ in range(5):
        try:
            watchdog.stop()
            return
        except KeyboardInterrupt:
            pass


def _fed(feed, stop):
    # App.run() calls its stop() once per tick: the watchdog is fed there (no allocation: one call).
    if feed is None:
        return stop

    def tick():
        feed()
        return stop is not None and stop()

    return tick


def aside_name(name):
    """The name a stored file gets when it is set aside: settings.json -> settings.bad.json."""
    return name[:-5] + ".bad.json"


def pause_ms(crashes):
    """The pause before the restart after the `crashes`-th crash in a row: PAUSE_MS, doubled after each
    further crash, at most PAUSE_MAX_MS."""
    return PAUSE_MAX_MS if crashes > 5 else min(PAUSE_MS << (crashes - 1), PAUSE_MAX_MS)


def ran_well(app, ran_ms):
    """True when the run that just crashed was healthy, so the crash starts a new count: the app (None if it never
    started) finished a game players played, or it ran HEALTHY_MS."""
    return (app is not None and app.last_game is not None and MODE_NAMES[app.mode] in SCORED) or ran_ms >= HEALTHY_MS


def set_aside(store_dir):
    """Rename settings.json and scores.json to settings.bad.json and scores.bad.json (one kept copy each,
    replacing an older one): the next start reads defaults. Returns the renames done, as text."""
    import os

    done = []
    for name in (SETTINGS_FILE, SCORES_FILE):
        path = _join(store_dir, name)
        bad = _join(store_dir, aside_name(name))
        try:
            os.stat(path)
        except OSError:
            continue  # not there: nothing to set aside
        try:
            try:
                os.remove(bad)
            except OSError:
                pass
            os.rename(path, bad)
            done.append("%s -> %s" % (name, aside_name(name)))
        except OSError:
            pass  # a read-only store: nothing was read from a file it could not have written either
    return ", ".join(done)


def _run(cfg, hw, mode, store_dir, max_restarts, stop, watchdog):
    clock = hw.clock
    feed = watchdog.feed if watchdog is not None else None
    crashes = 0
    aside = False
    while True:
        t_start = clock.ticks_ms()
        app = None
        try:
            app = App(hw, cfg, mode=mode, store_dir=store_dir)
            app.run(_fed(feed, stop))
            return "stopped"
        except Exception as e:  # log, show, restart: a maker's device must not just freeze
            if ran_well(app, clock.ticks_diff(clock.ticks_ms(), t_start)):
                crashes = 0  # it ran well since the last crash: this one starts a new run
            crashes += 1
            app = None  # (its memory back before the log is written)
            _crashed(cfg, hw, store_dir, crashes, e)
            if crashes >= SET_ASIDE_AT and not aside and store_dir is not None:
                aside = True
                done = set_aside(store_dir)
                if done:
                    print("%d crashes in a row: stored state set aside (%s); starting on defaults" % (crashes, done))
                    _log(store_dir, "--- set aside after %d crashes in a row: %s\n" % (crashes, done))
            if crashes >= max_restarts:
                return "crashed"
            wait = pause_ms(crashes)
            while wait > 0:  # slept in steps, fed between them
                if feed is not None:
                    feed()
                step = 1000 if wait > 1000 else wait
                clock.sleep_ms(step)
                wait -= step


def _log(store_dir, text):
    try:
        append_log(store_dir, LOG_NAME, text, LOG_KEEP)
    except Exception:  # (a full heap while writing the log must not end the restarts)
        pass


def _crashed(cfg, hw, store_dir, crashes, e):
    # Print and log the traceback, show two red status LEDs. Best effort: nothing here may raise.
    try:
        text = format_exception(e)
        print(text)
    except Exception:
        text = "(no traceback: %s)\n" % (type(e).__name__,)
    if store_dir is not None:
        _log(store_dir, "--- crash %d at %d ms\n%s" % (crashes, hw.clock.ticks_ms(), text))
    try:
        _status(hw, cfg, RED)
    except Exception:
        pass
