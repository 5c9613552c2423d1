"""pdftext.py: the text of each page of a PDF that Chromium printed, in order.

Enough of PDF for what Skia writes (tests/browser/book_ui.py's print test):
objects in the open (no object streams), content streams plain or
FlateDecode, text shown with Tj or TJ in hex glyph codes of two bytes, and a
ToUnicode map on each font. A glyph without a mapping reads as U+FFFD.
"""
import re
import zlib

_OBJ = re.compile(rb"(\d+) 0 obj\s*(.*?)endobj", re.S)
_REF = re.compile(rb"(\d+) 0 R")


def _stream(body):
    start = body.find(b"stream")
    data = body[start + 6:body.rfind(b"endstream")].lstrip(b"\r\n")
    if b"FlateDecode" in body[:start]:
        data = zlib.decompressobj().decompress(data)
    return data


def _unicode_map(data):
    out = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", data, re.S):
        for code, text in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(code, 16)] = bytes.fromhex(text.decode()).decode("utf-16-be", "replace")
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", data, re.S):
        for lo, hi, first in re.findall(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            lo, hi, base = int(lo, 16), int(hi, 16), int(first, 16)
            for code in range(lo, hi + 1):
                out[code] = chr(base + code - lo)
    return out


def pages(path):
    """A list with each page's text, glyphs in the order drawn, no spaces added."""
    with open(path, "rb") as f:
        data = f.read()
    objs = {int(m.group(1)): m.group(2) for m in _OBJ.finditer(data)}
    maps = {}

    def font_map(n):
        if n not in maps:
            tu = re.search(rb"/ToUnicode (\d+) 0 R", objs[n])
            maps[n] = _unicode_map(_stream(objs[int(tu.group(1))])) if tu else {}
        return maps[n]

    def leaves(n):  # the page tree, in order
        body = objs[n]
        if re.search(rb"/Type\s*/Pages\b", body):
            kids = re.search(rb"/Kids\s*\[(.*?)\]", body, re.S).group(1)
            return [p for k in _REF.findall(kids) for p in leaves(int(k))]
        return [n]

    catalog = next(b for b in objs.values() if re.search(rb"/Type\s*/Catalog\b", b))
    out = []
    for n in leaves(int(re.search(rb"/Pages (\d+) 0 R", catalog).group(1))):
        body = objs[n]
        res = re.search(rb"/Resources\s*(\d+) 0 R", body)
        res = objs[int(res.group(1))] if res else body
        fonts = re.search(rb"/Font\s*<<(.*?)>>", res, re.S)
        fonts = {k: font_map(int(v)) for k, v in re.findall(rb"/(\w+)\s+(\d+) 0 R", fonts.group(1))} if fonts else {}
        contents = re.search(rb"/Contents\s*(\[.*?\]|\d+ 0 R)", body, re.S)
        code = b"".join(_stream(objs[int(r)]) for r in _REF.findall(contents.group(1))) if contents else b""
        cur, text = {}, []
        for m in re.finditer(rb"/(\w+) [\d.]+ Tf|<([0-9A-Fa-f]*)>\s*Tj|\[(.*?)\]\s*TJ", code, re.S):
            if m.group(1):
                cur = fonts.get(m.group(1), {})
                continue
            hexes = m.group(2) if m.group(2) is not None else b"".join(re.findall(rb"<([0-9A-Fa-f]*)>", m.group(3)))
            text.extend(cur.get(int(hexes[i:i + 4], 16), "\ufffd") for i in range(0, len(hexes), 4))
        out.append("".join(text))
    return out
