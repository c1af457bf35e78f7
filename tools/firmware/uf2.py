"""Reading UF2 files (the format a Pico's BOOTSEL drive takes): blocks, chip family ids, the flash range they write, the payload bytes."""
import struct
from pathlib import Path

MAGIC = (0x0A324655, 0x9E5D5157)
MAGIC_END = 0x0AB16F30
FLAG_NOT_MAIN_FLASH = 0x0001
FLAG_FAMILY = 0x2000
XIP_BASE = 0x10000000
# Family ids from Microsoft's uf2 families.json (the pico-sdk writes the same).
FAMILIES = {
    0xE48BFF56: "rp2040",
    0xE48BFF57: "absolute",          # the RP2350 erratum E10 workaround block picotool puts first
    0xE48BFF58: "data",
    0xE48BFF59: "rp2350-arm-s",
    0xE48BFF5A: "rp2350-riscv",
    0xE48BFF5B: "rp2350-arm-ns",
}


class Uf2Error(ValueError):
    """Not a UF2 file, or one that does not say what a Pico needs; str() is one line."""


def blocks(data):
    """[(flash address, family id or None, payload bytes)] of every main-flash block, in file order."""
    if not data or len(data) % 512:
        raise Uf2Error("not a UF2 file (size %d is not a multiple of 512)" % len(data))
    out = []
    for off in range(0, len(data), 512):
        b = data[off:off + 512]
        m0, m1, flags, addr, size, _, _, fam = struct.unpack_from("<8I", b)
        if (m0, m1) != MAGIC or struct.unpack_from("<I", b, 508)[0] != MAGIC_END:
            raise Uf2Error("not a UF2 file (bad magic in block %d)" % (off // 512))
        if flags & FLAG_NOT_MAIN_FLASH:
            continue
        if size > 476:
            raise Uf2Error("block %d claims %d payload bytes (at most 476)" % (off // 512, size))
        out.append((addr, fam if flags & FLAG_FAMILY else None, bytes(b[32:32 + size])))
    return out


def summary(path_or_bytes):
    """{"size": file bytes, "families": {name: blocks}, "start", "end": flash offsets written (from XIP_BASE),
    "payload": the bytes of the chip's own family concatenated in address order}."""
    data = Path(path_or_bytes).read_bytes() if isinstance(path_or_bytes, (str, Path)) else bytes(path_or_bytes)
    bl = blocks(data)
    fams = {}
    for _, fam, _ in bl:
        name = FAMILIES.get(fam, "0x%08x" % fam if fam is not None else "none")
        fams[name] = fams.get(name, 0) + 1
    code = [b for b in bl if FAMILIES.get(b[1]) in ("rp2040", "rp2350-arm-s", "rp2350-riscv", "rp2350-arm-ns")]
    if not code:
        raise Uf2Error("no RP2040/RP2350 blocks in this UF2 (families: %s)" % ", ".join(sorted(fams)))
    code.sort(key=lambda b: b[0])
    start = code[0][0] - XIP_BASE
    end = max(a + len(p) for a, _, p in code) - XIP_BASE
    return {"size": len(data), "families": fams, "start": start, "end": end,
            "payload": b"".join(p for _, _, p in code)}
