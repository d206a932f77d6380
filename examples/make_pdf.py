#!/usr/bin/env python3
"""Write examples/corpus/lindqvist_obituary.pdf: a minimal, valid two-page text PDF.

Uses only the Python standard library. The PDF has one standard Type1 font
(Helvetica), one uncompressed content stream per page and a correct xref table,
so any PDF text extractor can read it. Run from anywhere:

    python3 examples/make_pdf.py [OUTPUT.pdf]
"""

import os
import sys
import textwrap

TITLE = "Ivar Lindqvist, 1941 - 2023"

PAGES = [
    [
        "Obituary: Ivar Lindqvist, 1941 - 2023",
        "",
        "The oceanographer Ivar Lindqvist died on 12 March 2023 at the age of 81. He was born in 1941 "
        "in Kiruna, Sweden, the son of a mining engineer, and he first saw the sea at the age of "
        "fourteen on a school trip to the coast.",
        "",
        "Lindqvist studied physics in Uppsala and wrote his doctoral thesis on the tides of narrow "
        "northern sounds. From 1970 to 1996 he worked at the Polar Mapping Bureau, where he led the "
        "survey of more than forty fjords and trained many of the surveyors who later mapped the "
        "Arctic coast.",
        "",
        "Colleagues remember him as a patient teacher who insisted that every chart should state its "
        "own errors. He liked to say that a map without error bars was a story, not a measurement.",
    ],
    [
        "Later life",
        "",
        "In his later career Lindqvist built and directed a small independent research institute in "
        "the far north, and he remained on its board until 2015. He also wrote two books, Tides of "
        "the Narrow Sounds (1984) and Measuring the Margin (2001).",
        "",
        "In retirement he returned to Kiruna, where he taught navigation to young sailors and kept a "
        "careful daily record of the weather. Lindqvist is survived by his wife Britt, two daughters "
        "and five grandchildren.",
    ],
]


def escape(text):
    """Escape a string for a PDF literal string."""
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def page_stream(paragraphs):
    """Content stream for one page: wrapped lines of 11 pt Helvetica."""
    lines = []
    for para in paragraphs:
        if not para:
            lines.append("")
            continue
        lines.extend(textwrap.wrap(para, width=88))
    ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
    for line in lines:
        ops.append("(%s) Tj T*" % escape(line))
    ops.append("ET")
    return "\n".join(ops).encode("ascii")


def build_pdf(pages):
    """Return the bytes of a minimal PDF with the given pages."""
    n = len(pages)
    # Object numbers: 1 catalog, 2 pages, 3 font, 4 info, then (page, content) pairs.
    objects = {}
    kids = []
    for i, paras in enumerate(pages):
        page_no = 5 + 2 * i
        content_no = page_no + 1
        kids.append("%d 0 R" % page_no)
        stream = page_stream(paras)
        objects[page_no] = (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            "/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_no
        ).encode("ascii")
        objects[content_no] = (
            b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
        )
    objects[1] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[2] = ("<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join(kids), n)).encode("ascii")
    objects[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    objects[4] = ("<< /Title (%s) /Producer (rlmkg examples/make_pdf.py) >>" % escape(TITLE)).encode("ascii")

    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
    xref_at = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n" % size
    out += b"0000000000 65535 f \n"
    for num in range(1, size):
        out += b"%010d 00000 n \n" % offsets[num]
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref_at)
    return bytes(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus", "lindqvist_obituary.pdf")
    with open(target, "wb") as fh:
        fh.write(build_pdf(PAGES))
    print(target)


if __name__ == "__main__":
    main()
