"""Secret move entry (firmware/entry.py): key pairs for every cell from both seats, step back, lock, unlock, refusal."""
import pytest

from engine import Game, parse_square
from firmware.entry import Entry, cell_of, keys_for, LOCKED, IDLE, ENTERING, FB_CLICK, FB_ERROR, FB_LOCK, FB_UNLOCK


@pytest.mark.parametrize("name,keys", [("e5", "55#"), ("a1", "11#"), ("c3", "19#"), ("d1", "21#"), ("i9", "99#"), ("g1", "31#")])
def test_keys_for_cells_from_blacks_seat(name, keys):
    i = parse_square(name)
    assert keys_for(i, False) == keys
    assert cell_of(int(keys[0]), int(keys[1])) == i


@pytest.mark.parametrize("name,keys", [("a1", "99#"), ("e5", "55#"), ("i9", "11#"), ("c3", "91#")])
def test_pad_b_is_rotated_180_degrees(name, keys):
    assert keys_for(parse_square(name), True) == keys


def test_every_cell_has_exactly_one_key_pair():
    seen = {cell_of(b, c) for b in range(1, 10) for c in range(1, 10)}
    assert seen == set(range(81))


def test_entry_back_lock_unlock_and_refusal():
    g = Game()
    g.play(40, 0)
    e = Entry(False)
    assert e.state() == IDLE
    assert e.key("5", g) == FB_CLICK
    assert e.state() == ENTERING
    e.key("*", g)
    assert e.state() == IDLE
    fbs = [e.key(k, g) for k in "55#"]  # e5 is occupied: refused, entry starts over
    assert fbs == [FB_CLICK, FB_CLICK, FB_ERROR]
    assert e.state() == IDLE and e.move == -1
    fbs = [e.key(k, g) for k in "56#"]
    assert fbs[-1] == FB_LOCK
    assert e.state() == LOCKED and e.move == parse_square("f5")
    assert e.key("*", g) == FB_UNLOCK
    assert e.state() == ENTERING and e.move == -1


@pytest.mark.parametrize("keys", ["#", "5#", "0#"])
def test_too_few_digits_are_refused(keys):
    e = Entry(False)
    fbs = [e.key(k, Game()) for k in keys]
    assert fbs[-1] == FB_ERROR and e.state() == IDLE
