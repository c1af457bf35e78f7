"""One raster page -> a one-page PDF, byte for byte the same for the same picture (no dates, no random ID), and the reader the tests use."""
import io
import re
import struct
import zlib

# Paper sizes in PDF points (1/72 inch): ISO A4 is 210 x 297 mm, US Letter 8.5 x 11 in.
PAPER_PT = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}


def _hex_text(s):
    """A PDF text string that can hold any character: UTF-16BE with its byte-order mark, in hex."""
    return "<FEFF" + s.encode("utf-16-be").hex().upper() + ">"


def _png_parts(img):
    """An RGB or P image -> (width, height, colours, bits, palette bytes or None, zlib data of PNG-filtered rows).

    Pillow's PNG encoder does the row filtering (PDF's /Predictor 15 reads
    exactly those filtered rows) and the deflate; we only lift its chunks.
    """
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=9)
    data = buf.getvalue()
    pos = 8
    idat, plte, ihdr = [], None, None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = body
        elif kind == b"PLTE":
            plte = body
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    w, h, bits, ctype, _, _, interlace = struct.unpack(">IIBBBBB", ihdr)
    if interlace or ctype not in (2, 3):
        raise ValueError("unexpected PNG layout (colour type %d, interlace %d)" % (ctype, interlace))
    return w, h, (3 if ctype == 2 else 1), bits, plte, b"".join(idat)


def pdf_bytes(img, paper, info=None):
    """img: the page as an RGB or P image (it fills the page); paper: "a4" or "letter"; info: {key: text} for the Info dictionary."""
    pw, ph = PAPER_PT[paper]
    w, h, colours, bits, plte, stream = _png_parts(img)
    if plte is not None:
        space = "[/Indexed /DeviceRGB %d <%s>]" % (len(plte) // 3 - 1, plte.hex().upper())
    else:
        space = "/DeviceRGB"
    content = ("q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q\n" % (pw, ph)).encode("ascii")
    info = info or {}
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        ("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /XObject << /Im0 4 0 R >> >> "
         "/Contents 5 0 R >>" % (pw, ph)).encode("ascii"),
        ("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent %d "
         "/Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors %d /BitsPerComponent %d /Columns %d >> "
         "/Length %d >>\nstream\n" % (w, h, space, bits, colours, bits, w, len(stream))).encode("ascii")
        + stream + b"\nendstream",
        ("<< /Length %d >>\nstream\n" % len(content)).encode("ascii") + content + b"endstream",
        ("<< " + " ".join("/%s %s" % (k, _hex_text(v)) for k, v in sorted(info.items())) + " >>").encode("ascii"),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for k, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, len(objs), xref)
    return bytes(out)


def write_pdf(path, img, paper, info=None):
    data = pdf_bytes(img, paper, info)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)


# ---------------------------------------------------------------- reading back (tests)

def read_pdf(data):
    """What a PDF written here says: {"pages", "mediabox", "image": (w, h), "info": {key: text}, "pixels_ok"}.

    Checks the cross-reference table (every object where it says) and that
    the image stream inflates to exactly its rows. Raises ValueError otherwise.
    """
    if not data.startswith(b"%PDF-1."):
        raise ValueError("not a PDF")
    m = re.search(rb"startxref\n(\d+)\n%%EOF\n$", data)
    if not m:
        raise ValueError("no startxref at the end")
    xref = int(m.group(1))
    t = re.match(rb"xref\n0 (\d+)\n", data[xref:])
    if not t:
        raise ValueError("startxref does not point at the xref table")
    n = int(t.group(1))
    rows = data[xref + t.end():xref + t.end() + 20 * n].split(b"\n")
    for k in range(1, n):
        off = int(rows[k][:10])
        if not data[off:].startswith(b"%d 0 obj" % k):
            raise ValueError("object %d is not at its xref offset" % k)
    pages = int(re.search(rb"/Type /Pages /Kids \[[^\]]*\] /Count (\d+)", data).group(1))
    kids = len(re.findall(rb"/Type /Page\b", data))
    mb = tuple(float(v) for v in re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data).group(1, 2))
    im = re.search(rb"/Width (\d+) /Height (\d+) /ColorSpace .*? /BitsPerComponent (\d+) .*?/Colors (\d+) "
                   rb"/BitsPerComponent \d+ /Columns \d+ >> /Length (\d+) >>\nstream\n", data, re.S)
    w, h, bits, colours, length = (int(v) for v in im.groups())
    raw = zlib.decompress(data[im.end():im.end() + length])
    row = 1 + (w * colours * bits + 7) // 8
    info = {}
    idict = re.search(rb"/Info (\d+) 0 R", data)
    body = re.search(rb"\n%s 0 obj\n<<(.*?)>>\nendobj" % idict.group(1), data, re.S).group(1)
    for key, hx in re.findall(rb"/(\w+) <FEFF([0-9A-F]*)>", body):
        info[key.decode()] = bytes.fromhex(hx.decode()).decode("utf-16-be")
    return {"pages": pages, "page_objects": kids, "mediabox": mb, "image": (w, h),
            "pixels_ok": len(raw) == row * h, "info": info}
