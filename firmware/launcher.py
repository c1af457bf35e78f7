"""Start-up and crash handling: safe boot (hold * on pad A), run the app, log any exception to flash and restart cleanly."""
from firmware.app import App, SAFE_BRIGHTNESS
from firmware.storage import append_log, Store
from firmware.app import SETTINGS_DEFAULTS
from firmware.display import BLUE, RED

LOG_NAME = "error.log"


def safe_boot_held(hw):
    """Scan pad A for ~30 ms: True if `*` is held (debounced) at power-up."""
    from firmware.keypad import EventRing

    ring = EventRing()
    pad = hw.pads[0]
    for _ in range(6):
        pad.scan(ring)
        hw.clock.sleep_ms(5)
    return pad.held("*")


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


def launch(cfg, hw, mode="attract", store_dir=None, max_restarts=5, stop=None, seed=None):
    """Run the game until stop() (never, on a device). Returns "safe", "stopped" or "crashed"."""
    if safe_boot_held(hw):
        # Skip the game so the REPL stays free, and make the next boot dim too.
        if store_dir is not None:
            st = Store(store_dir, "settings.json", SETTINGS_DEFAULTS)
            st.data["brightness"] = 0
            st.save()
        _status(hw, cfg, BLUE)
        print("safe boot: * held on pad A; game skipped, brightness at minimum")
        return "safe"
    crashes = 0
    if seed is None:
        seed = hw.clock.ticks_ms()
    while True:
        try:
            app = App(hw, cfg, mode=mode, seed=seed + crashes, store_dir=store_dir)
            app.run(stop)
            return "stopped"
        except KeyboardInterrupt:
            raise
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
