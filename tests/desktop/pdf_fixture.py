"""Small valid PDFs written by hand, for the desktop's tests and benchmarks
(no PDF library needed: objects, a cross-reference table, a trailer)."""


def pdf_bytes(objects):
    """A PDF of `objects` (their bodies, numbered from 1; the first is the catalog)."""
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += ("%d 0 obj\n%s\nendobj\n" % (number, body)).encode()
    xref = len(out)
    out += ("xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)).encode()
    out += b"".join(("%010d 00000 n \n" % offset).encode() for offset in offsets)
    out += ("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, xref)).encode()
    return out


def three_page_pdf():
    """Three 300x400 pages, a blue block on each, lower on each page."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               "<< /Type /Pages /Kids [3 0 R 5 0 R 7 0 R] /Count 3 >>"]
    for page in range(3):
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 400] /Contents %d 0 R >>"
                       % (4 + 2 * page))
        stream = "0 0 1 rg 50 %d 200 100 re f" % (250 - 100 * page)
        objects.append("<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    return pdf_bytes(objects)
