#!/usr/bin/env python3
"""End to end: ava-desktop under Xvfb with a private AVA_HOME. The desktop
starts ava-backend itself (none runs), a prompt goes through the composer to
the fake provider, which makes the model call bash and answer; the window is
saved as a PNG. Also: a second desktop on the same home refuses to start,
and closing the desktop leaves the backend running.

    desktop_e2e.py --desktop BIN --ava BIN --fake BIN --out DIR
"""

import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdf_fixture import three_page_pdf  # noqa: E402


def fail(message):
    print("FAIL: " + message, flush=True)
    sys.exit(1)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


def mean_lightness(path):
    """0 (black) .. 1 (white), by ImageMagick (the real one, see TOOLCHAIN.md)."""
    result = subprocess.run(["/usr/bin/convert", path, "-colorspace", "Gray", "-format", "%[fx:mean]", "info:"],
                            capture_output=True, text=True, check=True)
    return float(result.stdout.strip())


def backend_file(home):
    try:
        with open(os.path.join(home, "backend.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def main():
    parser = argparse.ArgumentParser()
    for name in ("desktop", "ava", "fake", "out"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    shot = os.path.join(args.out, "conversation-with-tool-card.png")
    approval_shot = os.path.join(args.out, "approval-card.png")
    analytics_shot = os.path.join(args.out, "analytics.png")
    files_shot = os.path.join(args.out, "files-pdf.png")
    for old in (shot, approval_shot):
        if os.path.exists(old):
            os.remove(old)

    work = tempfile.mkdtemp(prefix="ava-desktop-e2e-")
    home = os.path.join(work, "home")
    project = os.path.join(work, "project")
    os.makedirs(home)
    os.makedirs(project)
    # For the file panel: a Git project with an ignored folder, code, notes
    # and a three-page PDF.
    os.makedirs(os.path.join(project, "src"))
    os.makedirs(os.path.join(project, "build"))
    for name, text in ((".gitignore", "build/\n"), ("build/junk.txt", "ignored"),
                       ("src/app.ts", "export const answer = 42;\n"), ("notes.md", "# Notes\n")):
        with open(os.path.join(project, name), "w") as out:
            out.write(text)
    with open(os.path.join(project, "doc.pdf"), "wb") as out:
        out.write(three_page_pdf())
    subprocess.run(["git", "init", "-q", project], check=True)
    # No settings: the desktop's conversations start in "ask", so the bash
    # call waits on the approval card, which the automation clicks.
    fake = subprocess.Popen([args.fake, "--format", "anthropic", "--echo"], stdout=subprocess.PIPE, text=True)
    url = fake.stdout.readline().strip()
    env = dict(os.environ)
    for name in ("AVA_PROVIDER", "AVA_MODEL", "AVA_BASE_URL", "AVA_API_KEY", "OPENAI_API_KEY",
                 "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "AVA_BACKEND_BIN"):
        env.pop(name, None)
    env.update({"AVA_HOME": home, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": url,
                "no_proxy": "*", "QT_QUICK_CONTROLS_STYLE": "Basic"})
    backend_pid = None
    try:
        command = ["xvfb-run", "-a", "-s", "-screen 0 1280x860x24", args.desktop, "--ava", args.ava,
                   "--e2e-project", project, "--e2e-prompt", "bash: echo hello from the desktop",
                   "--e2e-screenshot", shot, "--e2e-approval-screenshot", approval_shot,
                   "--e2e-analytics-screenshot", analytics_shot, "--e2e-files-screenshot", files_shot]
        first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        # While it runs, a second desktop on the same home says so and exits.
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(home, "desktop.lock")):
            if time.monotonic() > deadline or first.poll() is not None:
                fail("the first desktop never took its lock")
            time.sleep(0.05)
        second = subprocess.run([args.desktop, "--no-autostart"], env=dict(env, QT_QPA_PLATFORM="offscreen"),
                                capture_output=True, text=True, timeout=60)
        if second.returncode != 1 or "another desktop" not in second.stderr:
            fail("second desktop: exit %d, stderr %r" % (second.returncode, second.stderr[-500:]))

        out, err = first.communicate(timeout=180)
        print(out, end="")
        if first.returncode != 0:
            fail("ava-desktop exited %d\nstdout: %s\nstderr: %s" % (first.returncode, out, err[-3000:]))
        if "answered;" not in out or "approvals=1" not in out:
            fail("no answer after one approval reported: " + out)
        if png_size(approval_shot)[0] < 640:
            fail("no screenshot of the approval card")
        print("approval card: %s" % approval_shot)
        # The file panel: the tree without build/, the PDF drawn by the helper
        # while an answer streamed, the helper killed and back, a file written
        # outside appearing, quick open.
        if "files pdf pages=3" not in out or "helper-starts=2" not in out or "watch=ok quick-open=ok" not in out:
            fail("file panel: " + out)
        if png_size(files_shot)[0] < 640:
            fail("no screenshot of the file panel")
        # The drawn page is on screen: the preview (the panel's lower right)
        # is mostly the page's blue block, not an empty white area.
        width, height = png_size(files_shot)
        crop = "%dx%d+%d+%d" % (width // 4, height // 4, width - width // 4 - 40, height // 2 + 80)
        blue = subprocess.run(["/usr/bin/convert", files_shot, "-crop", crop, "-format",
                               "%[fx:mean.b-mean.r]", "info:"],
                              capture_output=True, text=True, check=True).stdout.strip()
        if float(blue) < 0.3:
            fail("no drawn PDF page in the preview (blue-red %s in %s)" % (blue, crop))
        print("file panel: %s" % files_shot)
        # Then the Analytics page, from the backend's index: the two turns run.
        if "analytics turns=2 toolCalls=1" not in out:
            fail("analytics page: " + out)
        if png_size(analytics_shot)[0] < 640:
            fail("no screenshot of the analytics page")
        print("analytics page: %s" % analytics_shot)
        width, height = png_size(shot)
        if width < 640 or height < 400:
            fail("screenshot is %dx%d" % (width, height))
        print("screenshot %s (%dx%d)" % (shot, width, height))

        # The backend the desktop started outlives the window.
        info = backend_file(home)
        if not info or not alive(info["pid"]):
            fail("the backend did not survive the desktop: %s" % info)
        backend_pid = info["pid"]
        request = urllib.request.Request("http://127.0.0.1:%d/api/conversations" % info["port"],
                                         headers={"Authorization": "Bearer " + info["token"]})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        listed = json.load(opener.open(request, timeout=10))["conversations"]
        if len(listed) != 1 or listed[0]["title"] != "Desktop end-to-end":
            fail("conversations: %s" % listed)
        # The lock went with the window: a new desktop opens the conversation
        # from its history (the tool card rebuilt from the replayed events),
        # here in the dark theme.
        dark = os.path.join(args.out, "conversation-reopened-dark.png")
        reopen = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x860x24", args.desktop,
                                 "--ava", args.ava, "--open-conversation", listed[0]["id"],
                                 "--theme", "dark", "--e2e-screenshot", dark],
                                env=env, capture_output=True, text=True, timeout=180)
        if reopen.returncode != 0 or "opened; rows=5" not in reopen.stdout:
            fail("reopen: exit %d\nstdout: %s\nstderr: %s" % (reopen.returncode, reopen.stdout,
                                                               reopen.stderr[-3000:]))
        light_mean, dark_mean = mean_lightness(shot), mean_lightness(dark)
        if not (light_mean > 0.6 and dark_mean < 0.4):
            fail("theme: light screenshot mean %.2f, dark %.2f" % (light_mean, dark_mean))
        print("reopened in the dark theme: %s (mean lightness %.2f vs %.2f)" % (dark, dark_mean, light_mean))
        print("ok: desktop e2e")
    finally:
        if backend_pid is None:
            info = backend_file(home)
            backend_pid = info["pid"] if info else None
        if backend_pid and alive(backend_pid):
            subprocess.run([args.ava, "backend", "stop"], env=env, capture_output=True, timeout=60)
        fake.send_signal(signal.SIGTERM)
        fake.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
