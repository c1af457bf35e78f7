"""The one CPython shim: const() is folded by MicroPython's compiler, and is the identity on CPython; heap_lock()/heap_unlock() do nothing there."""
try:
    from micropython import const
except ImportError:  # CPython: same meaning, no folding

    def const(value):
        return value


try:
    from micropython import heap_lock, heap_unlock
except ImportError:  # CPython (or a port without them): no heap to lock

    def heap_lock():
        pass

    def heap_unlock():
        pass
