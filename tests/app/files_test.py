#!/usr/bin/env python3
"""Black-box tests of a project's files through the API: folders, previews,
raw bytes, quick open and the change stream, on a real ava-backend with a
real Git repository.

    files_test.py AVA AVA_BACKEND FAKE_PROVIDER [TEST ...]
"""

import http.client
import os
import socket
import subprocess
import sys
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from backend_harness import EventStream, FakeProvider, Home, Server, check, run_tests, wait_for  # noqa: E402

AVA, BACKEND, FAKE = sys.argv[1:4]
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f6a6e6"
                    "0000000049454e44ae426082")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data if isinstance(data, bytes) else data.encode())


class Setup:
    """A backend with one project: a Git repository with an ignored folder."""

    def __enter__(self):
        self.fake = FakeProvider(FAKE)
        self.home = Home(self.fake)
        root = self.home.project
        write(os.path.join(root, ".gitignore"), "build/\n")
        write(os.path.join(root, "src/main.cpp"), "int main() {}\n")
        write(os.path.join(root, "README.md"), "# Hello\n")
        write(os.path.join(root, "logo.png"), PNG)
        write(os.path.join(root, "page.html"), "<script>alert(1)</script>")
        write(os.path.join(root, "build/out.o"), "o")
        subprocess.run(["git", "init", "-q", root], check=True)
        self.server = Server(self.home, [BACKEND, "--port", "0"])
        self.project = self.server.ok("POST", "/api/projects", {"path": root})["id"]
        return self

    def __exit__(self, *_):
        self.server.stop()
        self.fake.stop()
        self.home.cleanup()

    def get(self, route, **query):
        path = "/api/projects/%s/files%s" % (self.project, route)
        if query:
            path += "?" + urllib.parse.urlencode(query)
        return self.server.request("GET", path)


def test_folders_list_what_git_keeps():
    with Setup() as setup:
        top = setup.get("", path="")
        check(top.status == 200, "list -> %d %s" % (top.status, top.raw))
        names = [entry["name"] for entry in top.json["entries"]]
        check(names == ["src", ".gitignore", "logo.png", "page.html", "README.md"], names)
        check(top.json["ignoresApplied"] is True, top.json)
        src = setup.get("", path="src")
        check([e["name"] for e in src.json["entries"]] == ["main.cpp"], src.json)
        check(setup.get("", path="nowhere").status == 404, "a missing folder is 404")


def test_paths_never_leave_the_project():
    with Setup() as setup:
        os.symlink("/etc", os.path.join(setup.home.project, "etc"))
        os.symlink("/etc/hostname", os.path.join(setup.home.project, "host"))
        for path in ["../", "src/../../x", "/etc/passwd"]:
            answer = setup.get("", path=path)
            check(answer.status == 400, "%s -> %d" % (path, answer.status))
        # Encoded in the target itself, not only through urlencode.
        raw = setup.server.request("GET", "/api/projects/%s/files/preview?path=%%2e%%2e%%2fx"
                                   % setup.project)
        check(raw.status == 400, "encoded .. -> %d" % raw.status)
        check(setup.get("", path="etc").status == 403, "a link out of the project")
        check(setup.get("/preview", path="host").status == 403, "a file link out")
        check(setup.get("/raw", path="host").status == 403, "raw through a link out")
        check(setup.get("/preview").status == 400, "no path")
        unknown = setup.server.request("GET", "/api/projects/nope/files")
        check(unknown.status == 404, "unknown project -> %d" % unknown.status)


def test_previews_and_raw_bytes_are_versioned_and_inert():
    with Setup() as setup:
        text = setup.get("/preview", path="README.md").json
        check(text["kind"] == "text" and text["text"] == "# Hello\n", text)
        image = setup.get("/preview", path="logo.png").json
        check(image["kind"] == "image" and "text" not in image, image)
        raw = setup.get("/raw", path="logo.png", version=image["version"])
        check(raw.status == 200 and raw.raw == PNG, "raw png -> %d" % raw.status)
        headers = {name.lower(): value for name, value in raw.headers.items()}
        check(headers["content-type"] == "image/png", headers)
        check("sandbox" in headers["content-security-policy"], headers)
        check(headers["x-content-type-options"] == "nosniff", headers)
        # HTML is never served as HTML from the UI's origin.
        page = setup.get("/raw", path="page.html")
        page_headers = {name.lower(): value for name, value in page.headers.items()}
        check(page_headers["content-type"] == "application/octet-stream", page_headers)
        check(page_headers["content-disposition"].startswith("attachment"), page_headers)
        # A stale version is refused, not served.
        write(os.path.join(setup.home.project, "logo.png"), PNG + b"more")
        stale = setup.get("/raw", path="logo.png", version=image["version"])
        check(stale.status == 409, "stale -> %d" % stale.status)
        fresh = setup.get("/preview", path="logo.png").json
        check(fresh["version"] != image["version"], "the version follows the content")
        check(setup.get("/preview", path="src").status == 400, "a folder is not previewed")


def test_quick_open_ranks_the_projects_files():
    with Setup() as setup:
        found = setup.get("/search", q="main").json
        check([m["path"] for m in found["matches"]] == ["src/main.cpp"], found)
        check(found["matches"][0]["positions"] == [4, 5, 6, 7], found)
        everything = setup.get("/search", q="", limit="2").json
        check(len(everything["matches"]) == 2, everything)
        check(setup.get("/search", q="o", limit="0").status == 400, "limit 0")
        check(setup.get("/search", q="x" * 300).status == 400, "a long query")
        out = setup.get("/search", q="out").json
        check(out["matches"] == [], "ignored files are not offered: %s" % out)


def test_the_change_stream_reports_folders_that_change():
    with Setup() as setup:
        stream = EventStream(setup.server, "/api/projects/%s/files/events" % setup.project)
        ready = stream.wait_until(lambda events: events, what="ready")[0]
        check(ready[1] == "ready" and ready[2]["folders"] == 2, ready)  # the top and src
        write(os.path.join(setup.home.project, "src/new.cpp"), "x")
        events = stream.wait_until(
            lambda events: any(e[1] == "changes" and "src" in e[2]["dirs"] for e in events),
            what="src changed")
        check(all(e[1] in ("ready", "changes") for e in events), events)
        stream.connection.close()


def test_file_watches_are_bounded():
    with Setup() as setup:
        path = "/api/projects/%s/files/events" % setup.project

        def watch_status():
            connection = http.client.HTTPConnection("127.0.0.1", setup.server.port, timeout=30)
            connection.request("GET", path, headers=setup.server.auth_headers())
            status = connection.getresponse().status
            connection.close()
            return status

        streams = [EventStream(setup.server, path) for _ in range(16)]
        for stream in streams:
            stream.wait_until(lambda events: events, what="ready")
        check(watch_status() == 503, "the 17th watch is refused")
        # The reader thread keeps the descriptor open: shut the connection itself.
        streams[0].socket.shutdown(socket.SHUT_RDWR)
        # Its place is free once the server notices, at the next keep-alive.
        wait_for(lambda: watch_status() == 200, 20, "a freed watch")
        for stream in streams[1:]:
            stream.connection.close()


if __name__ == "__main__":
    tests = [(name, test) for name, test in sorted(globals().items()) if name.startswith("test_")]
    sys.exit(run_tests(tests, set(sys.argv[4:])))
