"""Start-up and every way out: boot-time key holds (safe boot, key test), run the app, log a crash to flash and restart, and leave the LEDs dark and the buzzer silent however the game ends."""
from firmware.app import App
from firmware.display import BLUE, RED
from firmware.settings import SAFE_BRIGHTNESS, SETTINGS_DEFAULTS
from firmware.storage import append_log, Store

LOG_NAME = "error.log"
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


def launch(cfg, hw, mode="attract", store_dir=None, max_restarts=5, stop=None):
    """Run the game until stop() (never, on a device). Returns "safe", "stopped" or "crashed";
    a KeyboardInterrupt (Ctrl-C, a deploy) goes on up. Whichever way it leaves, the strip is blanked
    first, except after safe boot, whose two dim blue status LEDs say the game was skipped."""
    held = boot_key(hw)
    if held == SAFE_KEY:
        # Skip the game so the REPL stays free, and make the next boot dim too.
        if store_dir is not None:
            st = Store(store_dir, "settings.json", SETTINGS_DEFAULTS)
            st.data["brightness"] = 0
            st.save()
        _status(hw, cfg, BLUE)
        print("safe boot: * held on pad A; game skipped, brightness at minimum")
        return "safe"
    if held == KEYTEST_KEY:
        mode = "keytest"
        print("key test: # held on pad A; hold * for 2 s to leave")
    try:
        return _run(cfg, hw, mode, store_dir, max_restarts, stop)
    finally:
        blank(hw)


def _run(cfg, hw, mode, store_dir, max_restarts, stop):
    crashes = 0
    while True:
        try:
            app = App(hw, cfg, mode=mode, store_dir=store_dir)
            app.run(stop)
            return "stopped"
        except Exception as e:  # log, show, restart: a maker's device must not just freeze
            crashes += 1
            text = format_exception(e)
            print(text)
            if store_dir is not None:
                append_log(store_dir, LOG_NAME, "--- crash %d at %d ms\n%s" % (crashes, hw.clock.ticks_ms(), text))
            try:
                _status(hw, cfg, RED)
            except Exception:
                pass
            if crashes >= max_restarts:
                return "crashed"
            hw.clock.sleep_ms(1000)
