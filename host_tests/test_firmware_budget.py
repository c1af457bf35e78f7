"""Budgets of issue 3, measured on real MicroPython (deterministic wasm fuel, live heap): frame cost, no allocation per tick, heap."""
import pytest

from tools.bench import firmware as bf


@pytest.mark.needs_node
def test_every_measured_frame_fits_the_fuel_budget():
    f = bf.measure_fuel()
    for k in ("idle", "anim", "cap"):
        assert f[k], k
        assert max(f[k]) <= bf.FRAME_BUDGET, (k, max(f[k]))
    # the chain-reaction turn really animated (many distinct frame costs)
    assert len(set(f["anim"])) > 10


@pytest.mark.needs_node
def test_no_allocation_in_ticks_and_frames_and_heap_after_boot():
    h = bf.measure_heap()
    # 48 bytes are the measuring loop's own range object at the guest's top level.
    assert h["idle_ticks"] <= 64
    assert h["anim_frames"] <= 64
    assert h["boot"] <= 40 * 1024
    assert h["turns"] == 10
