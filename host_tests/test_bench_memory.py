"""tools.bench's memory section: the search for the heap the game's imports need on the Pico."""
import re

import pytest


def test_the_memory_search_counts_a_trial_that_runs_out_of_heap_while_reporting_as_not_fitting():
    """tools.bench's memory section bisects the ballast that still lets the game import. Near the edge the imports'
    MemoryError can escape the trial (the heap too full even to print its answer): that is a trial that did not
    fit, not a crash of the benchmark; any other guest error still stops it."""
    from tools.bench import memory
    from tools.rp2040 import Rp2040Error

    free, need = 240000, 12345
    seen = []

    def trial(pico, code):
        n = int(re.search(r"bytearray\((\d+)\)", code).group(1))
        seen.append(n)
        if n > free - need:
            if n < free - need + 4096:  # the edge: too full to report
                raise Rp2040Error("guest error: MemoryError: memory allocation failed, allocating 80 bytes")
            return [0, free]
        return [1, free]

    got_free, got_need = memory.needed(None, trial)
    assert got_free == free and need <= got_need < need + memory.STEP
    assert any(free - need < n < free - need + 4096 for n in seen)  # the edge was met

    def broken(pico, code):
        raise Rp2040Error("guest error: ImportError: no module named 'firmware'")

    with pytest.raises(Rp2040Error):
        memory.needed(None, broken)


def test_the_memory_search_tells_the_heap_for_the_machine_code_from_the_heap_for_the_bytecode():
    """With less heap than compiling viper.py's source takes, the imports still succeed (the bot's loops as
    bytecode): the search for the machine code's need counts those trials as not fitting."""
    from tools.bench import memory

    free, code, machine = 240000, 100000, 160000

    def trial(pico, text):
        n = int(re.search(r"bytearray\((\d+)\)", text).group(1))
        return [2 if n <= free - machine else 1 if n <= free - code else 0, free]

    assert machine <= memory.needed(None, trial, want=2)[1] < machine + memory.STEP
    assert code <= memory.needed(None, trial)[1] < code + memory.STEP
