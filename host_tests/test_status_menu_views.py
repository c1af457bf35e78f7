"""firmware/status.py and firmware/menu.py work from the narrow view App hands them (never the App): status codes per phase, the refusal blink, menu keys, settings and picture."""
import inspect

import boards
from engine import Game, DRAW, EV_STEP
from firmware.display import Display, BLUE, WARM, GREEN, RED, AMBER, FLASH, STATUS_B
from firmware.entry import Entry
from firmware.menu import Menu, centre
from firmware.modes import M_MENU, M_2P, M_EASY, M_KEYTEST, M_ATTRACT, S_TURN, S_COUNT, S_ANIM, S_OVER, S_SHOW
from firmware.settings import BRIGHTNESS_LEVELS, brightness_index
from firmware.sound import Sound, VOLUMES
from firmware.status import Status, ERR_MS
from tools.sim.fakehw import Clock, FakeBoard


class SceneView:
    """All Status reads of the scene: the running animation's step and op."""
    step = 0
    op = 0


def status_view(volume=2):
    clock = Clock()
    entries = (Entry(False), Entry(True))
    scene = SceneView()
    sound = Sound(None, clock, volume)
    return Status(clock, entries, scene, sound), clock, entries, scene, sound


def test_status_and_menu_take_no_app():
    for fn in (Status.__init__, Status.code, Menu.__init__, Menu.key, Menu.render):
        assert "app" not in inspect.signature(fn).parameters, fn


def test_status_codes_follow_each_entry_and_the_phase():
    st, clock, entries, scene, _ = status_view()
    now = clock.ticks_ms()
    g = Game()
    idle = st.code(now, 0, M_2P, S_TURN, 0, -1, g)
    assert idle == BLUE << 4 | 2 and st.code(now, 1, M_2P, S_TURN, 0, -1, g) == WARM << 4 | 2
    entries[0].lock_cell(40)
    assert st.code(now, 0, M_2P, S_TURN, 0, -1, g) == BLUE << 4 | 15
    assert st.code(now, 1, M_2P, S_TURN, 0, -1, g) == WARM << 4 | 2     # the other pad's LED is its own
    thinking = {st.code(now + k * 64, 1, M_EASY, S_TURN, 0, 1, g) & 15 for k in range(4)}
    assert thinking == {3, 7, 11, 15}                                    # the 4-step ramp of a thinking computer
    assert st.code(now, 0, M_2P, S_COUNT, 0, -1, g) == FLASH << 4 | 15  # countdown beat
    assert st.code(now, 0, M_2P, S_COUNT, 200, -1, g) == BLUE << 4 | 15
    scene.step, scene.op = 2, EV_STEP
    assert st.code(now, 0, M_2P, S_ANIM, 0, -1, g) == GREEN << 4 | 15  # a chain reaction goes on
    scene.step = 1
    assert st.code(now, 0, M_2P, S_ANIM, 0, -1, g) == BLUE << 4 | 2
    g.result = DRAW
    assert st.code(now, 1, M_2P, S_OVER, 0, -1, g) == AMBER << 4 | 8
    g.result = 1                                                         # black won: white's LED is dark
    assert st.code(now, 1, M_2P, S_OVER, 0, -1, g) == 0 and st.code(now, 0, M_2P, S_OVER, 0, -1, g) >> 4 == BLUE
    assert st.code(now, 0, M_2P, S_SHOW, 0, -1, g) == GREEN << 4 | 8


def test_status_in_the_menu_shows_the_volume_on_led_b():
    for v in range(len(VOLUMES)):
        st, clock, _, _, _ = status_view(volume=v)
        c = st.code(clock.ticks_ms(), 1, M_MENU, S_TURN, 0, -1, Game())
        assert c == ((GREEN << 4 | v * 5) if v else (RED << 4 | 3))


def test_status_refusal_blink_ends_after_err_ms():
    st, clock, _, _, _ = status_view()
    g = Game()
    t0 = clock.ticks_ms()
    st.error(1, t0)
    assert st.code(t0, 1, M_2P, S_TURN, 0, -1, g) == RED << 4 | 15
    assert st.code(clock.ticks_add(t0, 150), 1, M_2P, S_TURN, 0, -1, g) == 0
    assert st.code(t0, 0, M_2P, S_TURN, 0, -1, g) == BLUE << 4 | 2          # pad A's LED does not blink
    assert st.code(clock.ticks_add(t0, ERR_MS), 1, M_2P, S_TURN, 0, -1, g) == WARM << 4 | 2


def menu_view(tmp_volume=2):
    cfg = boards.load("pico")
    fb = FakeBoard(cfg)
    disp = Display(fb.NeoPixel(None, 83), cfg)
    seat_b = Entry(True)
    sound = Sound(None, fb.clock, tmp_volume)
    saved = []
    menu = Menu(disp, seat_b, sound, lambda name, value: saved.append((name, value)))
    return menu, disp, seat_b, sound, saved, fb.clock


def test_menu_keys_return_the_mode_and_save_settings_through_the_callback():
    menu, disp, seat_b, sound, saved, clock = menu_view()
    now = clock.ticks_ms()
    assert [menu.key(k, now) for k in "12#*"] == [M_2P, M_EASY, M_KEYTEST, M_ATTRACT]
    assert saved == []
    b = brightness_index(disp.brightness)
    assert menu.key("8", now) == -1
    assert disp.brightness == BRIGHTNESS_LEVELS[b + 1] and saved == [("brightness", b + 1)]
    assert menu.key("9", now) == -1
    assert seat_b.rotated is False and saved[-1] == ("seating", 0)
    v = sound.volume
    assert menu.key("0", now) == -1
    assert sound.volume == (v + 1) % len(VOLUMES) and saved[-1] == ("volume", sound.volume)


def test_menu_picture_shows_the_settings_it_was_given():
    menu, disp, seat_b, _, _, clock = menu_view()
    menu.render(clock.ticks_ms())
    assert disp.cur[centre(9) - 9] == 0 and disp.cur[centre(9) + 9] == WARM << 4 | 15   # pad B turned: dot low
    seat_b.rotated = False
    menu.render(clock.ticks_ms())
    assert disp.cur[centre(9) + 9] == WARM << 4 | 15                                    # drawn once ...
    menu.drawn = False
    menu.render(clock.ticks_ms())
    assert disp.cur[centre(9) - 9] == WARM << 4 | 15 and disp.cur[centre(9) + 9] == 0  # ... redrawn when told
    assert disp.cur[STATUS_B] == 0                                                       # the status LEDs are the app's
