#!/usr/bin/env python3
"""The desktop's PDF previews, for docs/performance.md.

  helper   ava-pdf-render on its own: a fresh helper's first page of a
           PAGES-page PDF (text and shapes on every page), from spawn to its
           answer, and a warm helper's next pages; medians of RUNS
  desktop  ava-desktop under Xvfb (the e2e automation): doc.pdf opened in the
           file panel while an answer streams; the time to the drawn page
           and the largest gap between the window's frames meanwhile,
           medians of RUNS

    bench/desktop/pdf_bench.py [BUILD_DIR] [helper|desktop ...]
    env: PAGES (default 40), RUNS (default 7)
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].isalpha() else "build/release"
SELECTED = [a for a in sys.argv[1:] if a.isalpha()] or ["helper", "desktop"]
HELPER = os.path.join(BUILD, "src/desktop/ava-pdf-render")
DESKTOP = os.path.join(BUILD, "src/desktop/ava-desktop")
AVA = os.path.join(BUILD, "src/app/ava")
FAKE = os.path.join(BUILD, "tests/transport/ava-fake-provider")
PAGES = int(os.environ.get("PAGES", "40"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "desktop"))
from pdf_fixture import pdf_bytes, three_page_pdf  # noqa: E402
RUNS = int(os.environ.get("RUNS", "7"))


def text_pdf(pages):
    """A PDF of `pages` A4 pages, each with 50 lines of Helvetica text and a few shapes."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", None,
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for page in range(pages):
        lines = ["BT /F1 10 Tf 56 790 Td 13 TL"]
        for line in range(50):
            lines.append("(Page %d, line %d: the quick brown fox jumps over the lazy dog.) '"
                         % (page + 1, line + 1))
        lines.append("ET")
        for box in range(6):
            lines.append("%.2f %.2f %.2f rg %d %d 80 40 re f" % (box / 6, 0.4, 1 - box / 6,
                                                                   60 + box * 80, 60))
        stream = "\n".join(lines)
        objects.append("<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content = len(objects)
        objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources "
                       "<< /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content)
        kids.append("%d 0 R" % len(objects))
    objects[1] = "<< /Type /Pages /Kids [%s] /Count %d >>" % (" ".join(kids), pages)
    return pdf_bytes(objects)


def helper(work):
    pdf = os.path.join(work, "bench.pdf")
    with open(pdf, "wb") as out:
        out.write(text_pdf(PAGES))
    first, warm = [], []
    for run in range(RUNS):
        start = time.monotonic()
        process = subprocess.Popen([HELPER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

        def page(number):
            request = {"id": number, "file": pdf, "page": number, "width": 900,
                       "out": os.path.join(work, "p%d-%d.png" % (run, number))}
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            assert answer.get("ok"), answer
            return answer

        page(0)
        first.append((time.monotonic() - start) * 1000)
        for number in range(1, 6):
            began = time.monotonic()
            page(number)
            warm.append((time.monotonic() - began) * 1000)
        process.stdin.close()
        process.wait(timeout=10)
    print("helper: %d-page PDF, 900 px wide: first page from spawn median %.0f ms (%s); "
          "next pages median %.1f ms" % (PAGES, statistics.median(first),
                                        ", ".join("%.0f" % v for v in first), statistics.median(warm)))


def desktop(work):
    pages, gaps = [], []
    for run in range(RUNS):
        home = os.path.join(work, "home%d" % run)
        project = os.path.join(work, "project%d" % run)
        os.makedirs(home)
        os.makedirs(os.path.join(project, "src"))
        with open(os.path.join(project, "src", "app.ts"), "w") as out:
            out.write("export const answer = 42;\n")
        with open(os.path.join(project, "doc.pdf"), "wb") as out:
            out.write(three_page_pdf())
        fake = subprocess.Popen([FAKE, "--format", "anthropic", "--echo"], stdout=subprocess.PIPE, text=True)
        url = fake.stdout.readline().strip()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AVA_", "DISPLAY", "WAYLAND"))}
        env.update({"AVA_HOME": home, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": url,
                    "no_proxy": "*", "QT_QUICK_CONTROLS_STYLE": "Basic"})
        try:
            result = subprocess.run(
                ["xvfb-run", "-a", "-s", "-screen 0 1280x860x24", DESKTOP, "--ava", AVA,
                 "--e2e-project", project, "--e2e-prompt", "bash: echo hi",
                 "--e2e-files-screenshot", os.path.join(work, "shot%d.png" % run)],
                env=env, capture_output=True, text=True, timeout=180)
            found = re.search(r"first-page-ms=(\d+) frames=(\d+) max-frame-gap-ms=(\d+)", result.stdout)
            assert found, result.stdout + result.stderr[-2000:]
            pages.append(int(found.group(1)))
            gaps.append(int(found.group(3)))
        finally:
            subprocess.run([AVA, "backend", "stop"], env=env, capture_output=True, timeout=60)
            fake.terminate()
            fake.wait(timeout=10)
    print("desktop: doc.pdf opened while an answer streams: drawn page after median %d ms (%s); "
          "largest frame gap median %d ms (%s)" % (statistics.median(pages), ", ".join(map(str, pages)),
                                                  statistics.median(gaps), ", ".join(map(str, gaps))))


def main():
    work = tempfile.mkdtemp(prefix="ava-pdf-bench-")
    try:
        for name in SELECTED:
            {"helper": helper, "desktop": desktop}[name](work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
