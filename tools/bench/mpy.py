"""What a compiled .mpy holds, read per MicroPython's version-6 format (py/persistentcode.c): each function's bytecode or machine code, which a port without ROMFS copies into its heap."""

_MPY_VERSION = 6
_FLAGS_PRESENT = 0x40  # feature byte: architecture flags follow the header
_OBJ_TUPLE = 10
_OBJ_STR = 5
_OBJ_BYTES = 6
_OBJ_CONST = (0, 1, 2, 3, 4)  # fun table, None, False, True, Ellipsis: the type byte alone
_KIND_BYTECODE = 0  # kind_len & 3
_KIND_NATIVE = 1  # @micropython.native: a bytecode-like prelude inside the machine code
_KIND_ASM = 3  # (2: viper)
_NATMOD_FLAGS = 0x70  # viper scope flags for relocations, rodata, bss: only a native module (mpy_ld) has them


class MpyError(ValueError):
    """Not a .mpy of version 6 that mpy-cross wrote, or cut short."""


class _Reader:
    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def byte(self):
        if self.pos >= len(self.data):
            raise MpyError("the .mpy file ends early (at byte %d)" % self.pos)
        b = self.data[self.pos]
        self.pos += 1
        return b

    def take(self, n):
        if self.pos + n > len(self.data):
            raise MpyError("the .mpy file ends early (%d bytes wanted at byte %d)" % (n, self.pos))
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uint(self):
        v = 0
        while True:
            b = self.byte()
            v = (v << 7) | (b & 0x7F)
            if not b & 0x80:
                return v


def _obj(r):
    t = r.byte()
    if t in _OBJ_CONST:
        return
    n = r.uint()
    if t == _OBJ_TUPLE:
        for _ in range(n):
            _obj(r)
        return
    r.take(n)
    if t in (_OBJ_STR, _OBJ_BYTES):
        r.byte()  # the terminating NUL


def _simple_name(fun_data, qstrs):
    """The function's name: the first qstr of its prelude (after the signature and size bytes)."""
    i = 0
    while fun_data[i] & 0x80:  # signature: xSSSSEAA, then continuation bytes
        i += 1
    i += 1
    while fun_data[i] & 0x80:  # size: xIIIIIIC ...
        i += 1
    i += 1
    v = 0
    while True:
        b = fun_data[i]
        i += 1
        v = (v << 7) | (b & 0x7F)
        if not b & 0x80:
            break
    return qstrs[v] if v < len(qstrs) else "?"


def functions(data):
    """[(name, code bytes, depth)] of every function in the .mpy bytes `data`, in file order
    (each followed by the functions defined in it, one deeper): the module's own code first, depth 0.
    Code bytes are bytecode, or machine code (-march): viper functions are named "machine code".

    Names that are MicroPython's static qstrs (such as __init__) are not in
    the file: they read "static:N". MpyError for anything else than a
    complete version-6 file as mpy-cross writes it.
    """
    r = _Reader(data)
    head = r.take(4)
    if head[0:1] != b"M":
        raise MpyError("not a .mpy file (it does not start with 'M')")
    if head[1] != _MPY_VERSION:
        raise MpyError(".mpy version %d, this reader knows %d" % (head[1], _MPY_VERSION))
    if head[2] & _FLAGS_PRESENT:
        r.uint()
    nq = r.uint()
    no = r.uint()
    qstrs = []
    for _ in range(nq):
        n = r.uint()
        if n & 1:
            qstrs.append("static:%d" % (n >> 1))
        else:
            qstrs.append(r.take(n >> 1).decode("utf-8"))
            r.byte()
    for _ in range(no):
        _obj(r)
    out = []

    def raw_code(depth):
        kind_len = r.uint()
        kind = kind_len & 3
        fun = r.take(kind_len >> 3)
        if kind == _KIND_BYTECODE:
            name = _simple_name(fun, qstrs)
        elif kind == _KIND_NATIVE:
            name = _simple_name(fun[r.uint():], qstrs)  # (the prelude's offset)
        else:
            name = "machine code"  # viper and asm functions carry no name
            if r.uint() & _NATMOD_FLAGS:
                raise MpyError("a native module's machine code (relocations, rodata or bss): not read here")
            if kind == _KIND_ASM:
                r.uint()
                r.uint()
        out.append((name, len(fun), depth))
        if (kind_len >> 2) & 1:
            for _ in range(r.uint()):
                raw_code(depth + 1)

    raw_code(0)
    if r.pos != len(r.data):
        raise MpyError("%d bytes after the module's code" % (len(r.data) - r.pos))
    return out


def held_bytecode(data, classes=(), freed=()):
    """Bytes of heap a port without ROMFS spends on code (bytecode, machine code) once the module has run,
    each function rounded up to MicroPython's 16-byte GC blocks. Code that runs once is garbage then and not
    counted: the module's top level, the bodies of `classes` (their methods are counted), anonymous
    functions (lambdas, comprehensions: kept only if a module stores one, which this project's do
    not) and the functions named in `freed` with everything defined in them (deleted after use)."""
    total = 0
    cut = -1  # inside a freed function: the depth it was at
    for name, n, depth in functions(data):
        if cut >= 0:
            if depth > cut:
                continue
            cut = -1
        if depth == 0 or name.startswith("<") or name in classes:
            continue
        if name in freed:
            cut = depth
            continue
        total += (n + 15) // 16 * 16
    return total
