"""The one CPython shim: const() is folded by MicroPython's compiler, and is the identity on CPython."""
try:
    from micropython import const
except ImportError:  # CPython: same meaning, no folding

    def const(value):
        return value
