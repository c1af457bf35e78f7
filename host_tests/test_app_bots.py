"""Computer players in the app: honest (they choose first, on a copy), sliced over ticks so the display, sounds and keys never freeze, and reseeded from the hardware's entropy every game."""
import pytest

from engine import parse_square, square_name
from engine.bot import Bot
from firmware.entry import IDLE
from firmware.app import TICK_MS
from firmware.modes import M_EASY, M_HARD, M_MENU
from tools.sim.keyscript import parse_script
from tools.sim.vdevice import VirtualDevice
from firmware_helpers import Cfg, events, BotChose, KeyRead


class SpyBot:
    """engine.bot.Bot, remembering every board it was shown."""

    games = []

    def __init__(self, level):
        self.inner = Bot(level)

    def reseed(self, seed):
        self.inner.reseed(seed)

    def start(self, game, color):
        SpyBot.games.append(game)
        self.inner.start(game, color)

    def step(self, units):
        return self.inner.step(units)


def test_bot_chooses_before_any_human_key_of_the_turn_is_read():
    trace = []
    SpyBot.games = []
    dev = VirtualDevice(Cfg(), mode="easy", bots=SpyBot, trace=trace)
    app = dev.app
    dev.run(parse_script("A move e5\nwait 300"))
    # Turn 2: the human types the next move while turn 1 still animates: queued, not read.
    dev.advance(1000)
    dev.run(parse_script("A move a1"))
    dev.sync()
    evs = events(trace)
    bots = [t for t in evs if isinstance(t, BotChose)]
    keys = [t for t in evs if isinstance(t, KeyRead)]
    assert len(bots) >= 2 and keys
    for i, t in enumerate(evs):
        if isinstance(t, KeyRead):
            first_bot = [j for j, u in enumerate(evs) if isinstance(u, BotChose) and u.turn == t.turn][0]
            assert first_bot < i, "a human key of turn %d was read before the bot chose" % t.turn
    for t in bots:
        assert t.entry_a == IDLE  # the human's entry was empty when the bot chose
    assert bots[1].queued > 0  # ... although keys were already waiting in the ring
    assert SpyBot.games and all(g is not app.game for g in SpyBot.games)  # the bot only sees a copy
    assert app.game.cell(parse_square("a1")) == 1


class ClockedBot:
    """engine.bot.Bot whose work takes virtual time, as on a device: each step() call costs STEP_MS,
    the old one-call choose() the same per slice it does. Contacts change on time meanwhile."""

    STEP_MS = 15
    device = None

    def __init__(self, level):
        self.inner = Bot(level)
        self.steps = 0

    def reseed(self, seed):
        self.inner.reseed(seed)

    def _spend(self):
        dev = ClockedBot.device
        dev.clock.now += self.STEP_MS
        dev.board.due()
        self.steps += 1

    def start(self, game, color):
        self.inner.start(game, color)

    def step(self, units):
        self._spend()
        return self.inner.step(units)

    def choose(self, game, color):  # (the API before slicing: the whole move in one call)
        from engine.bot import SLICE_UNITS

        self.inner.start(game, color)
        while True:
            self._spend()
            c = self.inner.step(SLICE_UNITS)
            if c >= 0:
                return c


def _thinking_device(level="hard"):
    made = []

    def factory(lv):
        made.append(ClockedBot(lv))
        return made[-1]

    dev = VirtualDevice(Cfg(), mode=level, bots=factory, seed=4)
    ClockedBot.device = dev
    return dev, made


def test_frames_sounds_and_keys_go_on_while_the_hard_computer_thinks():
    from engine.notation import load
    from firmware_helpers import RANDOM_GAMES

    dev, made = _thinking_device("hard")
    app = dev.app
    # A middle-game position (hard needs ~70 slices there), then a new turn: the computer starts thinking.
    want = RANDOM_GAMES[2]["turns"][15]["expect"]
    load(app.game, want["board"], want["eggs"])
    app.scene.set_board(app.game)
    app._new_turn(app.clock.ticks_ms())
    assert app.thinking == 1
    steps0 = made[0].steps
    t0 = dev.clock.now
    n0 = len(dev.frames)
    tones0 = len(dev.board.tones)
    downs0 = app.ring.downs
    dev.board.bounce(0, "1", True, at=t0 + 40)  # a 60 ms tap while it thinks
    dev.board.bounce(0, "1", False, at=t0 + 100)
    status_b = set()
    while app.thinking == 1:
        dev.advance(10)
        status_b.add(app.disp.cur[82])
    t1 = dev.clock.now
    assert made[0].steps - steps0 >= 8, "the move was too quick to say anything"
    times = [t for t, _ in dev.frames[n0:] if t <= t1]
    gaps = [b - a for a, b in zip([t0] + times, times)]
    # A frame in every tick that carries a slice: no gap longer than one slow tick (before: 25 frames/s
    # while thinking, one slow tick late, 55 ms; and before that none for the whole move).
    assert max(gaps) <= TICK_MS + ClockedBot.STEP_MS, gaps
    assert app.ring.downs == downs0 + 1, "the tap while the computer thought was lost"
    # The click of that tap ended on time (15 ms, within one slow tick), though the computer was still thinking.
    on = [(t, f) for t, f, d in dev.board.tones[tones0:] if d]
    off = [t for t, f, d in dev.board.tones[tones0:] if not d]
    assert on and on[0][1] == 3500
    end = min(t for t in off if t > on[0][0])
    assert end - on[0][0] <= 15 + ClockedBot.STEP_MS + 10 and end < t1
    assert len(status_b) >= 3  # the thinking animation on pad B's status LED moves


class UnevenBot(ClockedBot):
    """ClockedBot whose slices cost 1, 1, 9 ms of virtual time in turn (a search's phases differ), all within a
    tick: the sliced path then draws a frame in every other tick."""

    COSTS = (1, 1, 9)

    def _spend(self):
        self.STEP_MS = self.COSTS[self.steps % len(self.COSTS)]
        ClockedBot._spend(self)


def test_while_the_computer_thinks_in_the_ticks_frames_keep_their_pace_however_long_each_slice_is():
    # A frame drawn after a short slice, the next one after a long slice: the strip waited two ticks and the
    # long slice (before: 28 ms; the emulated Pico's strip saw 25.5 ms against hard). Drawn before the tick's
    # slice, a frame is as late as the tick that draws it: two ticks at most while the ticks keep the grid.
    made = []

    def factory(lv):
        made.append(UnevenBot(lv))
        return made[-1]

    dev = VirtualDevice(Cfg(), mode="hard", bots=factory, seed=4)
    ClockedBot.device = dev
    app = dev.app
    dev.advance(3000)   # the computer's first move, then the countdown, then it thinks about nothing: a human turn
    app._new_turn(app.clock.ticks_ms())
    assert app.thinking == 1
    t0 = dev.clock.now
    n0 = len(dev.frames)
    steps0 = made[0].steps
    while app.thinking == 1:
        dev.advance(10)
    t1 = dev.clock.now
    assert made[0].steps - steps0 >= 12, "the move was too quick to say anything"
    times = [t for t, _ in dev.frames[n0:] if t <= t1]
    gaps = [b - a for a, b in zip([t0] + times, times)]
    assert max(gaps) <= 2 * TICK_MS, gaps


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_sliced_move_is_the_move_of_one_call(seed):
    # Sliced over the device's ticks, with frames and scans in between, the move is the one choose() makes in one call.
    from engine import Game, WHITE
    from engine.notation import load
    from firmware_helpers import RANDOM_GAMES

    dev = VirtualDevice(Cfg(), mode="hard")
    app = dev.app
    want = RANDOM_GAMES[3]["turns"][11]["expect"]
    load(app.game, want["board"], want["eggs"])
    app.scene.set_board(app.game)
    app.bots[1].reseed(seed)
    app._new_turn(app.clock.ticks_ms())
    ticks = 0
    while app.thinking >= 0:
        dev.advance(10)
        ticks += 1
    assert ticks > 5
    g = Game()
    g.copy_from(app.game)
    ref = Bot("hard")
    ref.reseed(seed)
    assert app.entries[1].move == ref.choose(g, WHITE)


def _replies(dev, moves):
    out = []
    for m in moves:
        g = dev.app.game
        if g.result:
            break
        before = [g.cell(i) for i in range(81)]
        dev.run(parse_script("A move %s\nsync" % m))
        g = dev.app.game
        out.append([square_name(i) for i in range(81) if g.cell(i) == 2 and before[i] != 2])
    return out


def test_reselecting_hard_never_replays_the_same_game():
    # Issue 12: a new Bot with the same seed each time hard was chosen replayed a won game move for move.
    dev = VirtualDevice(Cfg(), mode="menu", seed=5)
    moves = ["e5", "e4", "d5", "f6", "c3", "g7"]
    games = []
    for _ in range(3):
        dev.run(parse_script("A 4\nwait 100"))
        assert dev.app.mode == M_HARD
        games.append(_replies(dev, moves))
        dev.run(parse_script("A press *\nwait 2200\nA release *"))
        assert dev.app.mode == M_MENU
    assert games[0] != games[1] and games[1] != games[2] and games[0] != games[2]


def test_every_game_reseeds_each_bot_from_the_entropy_source():
    from firmware.app import App
    from firmware.hw import build
    from tools.sim.fakehw import FakeBoard

    seeds = []

    class Seen(Bot):
        def __init__(self, level):
            super().__init__(level)
            self.made = True

        def reseed(self, seed):
            if getattr(self, "made", False):  # (not the constructor's own reseed)
                seeds.append(seed)
            super().reseed(seed)

    drawn = []

    def entropy():
        drawn.append(len(drawn) * 7919 + 3)
        return drawn[-1]

    cfg = Cfg()
    fb = FakeBoard(cfg)
    hw = build(cfg, fb.Pin, fb.NeoPixel, fb.clock, entropy=entropy)
    app = App(hw, cfg, mode="demo", bots=Seen)
    assert seeds == drawn and len(drawn) == 2  # one per bot for the first game
    app.set_mode(M_EASY)
    assert seeds == drawn and len(drawn) == 3  # one bot, a new game
    assert len(set(seeds)) == 3


def test_without_a_seed_the_entropy_is_the_systems():
    dev = VirtualDevice(Cfg(), mode="2p", seed=None)
    vals = {dev.hw.entropy() for _ in range(8)}
    assert len(vals) == 8 and all(0 <= v < 2 ** 30 for v in vals)


def test_seeded_entropy_is_small_and_repeatable():
    from tools.sim.fakehw import SeededEntropy

    a, b = SeededEntropy(3), SeededEntropy(3)
    xs = [a() for _ in range(50)]
    assert xs == [b() for _ in range(50)]
    assert all(0 <= x < 2 ** 30 for x in xs) and len(set(xs)) == 50
    assert xs != [SeededEntropy(4)() for _ in range(50)]


def test_vs_computer_full_game_ends():
    dev = VirtualDevice(Cfg(), mode="medium", seed=3)
    for _ in range(60):
        g = dev.app.game
        if g.result or dev.app.last_game is not None:
            break
        cell = next(i for i in range(81) if g.legal(i))
        dev.run(parse_script("A move %s\nsync" % square_name(cell)))
    assert dev.final_game().turns > 0


def test_an_illegal_choice_by_the_computer_is_a_clear_error():
    class Bad(Bot):
        def step(self, units):
            return 40 if super().step(units) >= 0 else -1  # e5, whether free or not

    dev = VirtualDevice(Cfg(), mode="easy", bots=Bad)
    with pytest.raises(ValueError, match="not free"):
        dev.run(parse_script("A move e5\nsync\nA move a1\nsync"))


def test_the_engines_bots_are_shown_their_own_trial_board_and_two_players_hold_no_copy():
    # The copy a computer seat is shown is the Game engine.bot plays its trial turns on (one Game
    # fewer on the device, 1.9 KB); a plug-in bot class gets a copy of its own; two humans need none.
    from engine.bot import board

    dev = VirtualDevice(Cfg(), mode="2p")
    dev.run(parse_script("A move e5\nB move d4\nwait 3000"))
    assert dev.app.scratch is None and dev.app.game.turns == 1
    dev = VirtualDevice(Cfg(), mode="hard")
    assert dev.app.scratch is board()
    dev.run(parse_script("A move e5\nwait 3000"))
    assert dev.app.game.turns == 1
    SpyBot.games = []
    dev = VirtualDevice(Cfg(), mode="medium", bots=SpyBot)
    dev.run(parse_script("A move e5\nwait 3000"))
    assert SpyBot.games and all(g is dev.app.scratch for g in SpyBot.games)
    assert dev.app.scratch is not board() and dev.app.scratch is not dev.app.game
