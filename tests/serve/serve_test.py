#!/usr/bin/env python3
"""tests/serve/serve_test.py LIT: `lit serve` and `lit watch` on a copy of the weave fixture.

Everything runs on 127.0.0.1 against a server this script starts (port 0:
the kernel picks a free one) and stops; each wait is bounded. Checks:
  - the server listens on loopback only, serves the book's pages, and
    refuses every path outside the book (.., %2e%2e, hidden files, empty
    segments, a symbolic link leading out);
  - a saved change is re-woven and re-tangled, and an open page reloads
    itself (headless Chromium);
  - a half-written document (an undefined chunk, an unclosed fence) shows
    its messages on the page and in the terminal, and the last good book
    and kernels stay as they were; fixing it reloads the page;
  - `lit watch` rebuilds on a change without a server;
  - the --out folder the server names in the terminal is escaped, like
    every message (an escape sequence in it does not reach the terminal);
  - SIGTERM stops both, with exit status 0.
Ends with "N passed, N failed".
"""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "browser"))
from cdp import Browser  # noqa: E402

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name + (": " + str(detail) if detail else ""))


def wait(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    return cond()


class Server:
    def __init__(self, lit, project, serve=True, out=None):
        self.log = open(os.path.join(project, "..", "lit-%s.log" % ("serve" if serve else "watch")), "w+")
        args = [lit, "serve", "--port", "0"] if serve else [lit, "watch"]
        if out:
            args += ["--out", out]
        self.proc = subprocess.Popen(args, cwd=project, stdout=subprocess.DEVNULL, stderr=self.log)
        self.port = None
        if serve:
            line = wait(lambda: re.search(r"http://127\.0\.0\.1:(\d+)/", self.text()), 20)
            self.port = int(line.group(1)) if line else None
        else:
            wait(lambda: "watching" in self.text(), 20)

    def text(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()

    def get(self, path):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        c.request("GET", path)  # sent as written: http.client does not normalise the path
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, body.decode("utf-8", "replace")

    def status(self):
        return json.loads(self.get("/__lit/status")[1])

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def listening_addresses(port):
    """Local addresses with a listening TCP socket on port (from /proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    local, state = line.split()[1], line.split()[3]
                    addr, p = local.split(":")
                    if int(p, 16) == port and state == "0A":
                        found.append(addr)
        except OSError:
            pass
    return found


def append(path, text):
    with open(path, "a") as f:
        f.write(text)


def main():
    lit = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="lit-serve-")
    project = os.path.join(tmp, "project")
    shutil.copytree(os.path.join(HERE, "..", "weave", "project"), project)
    guide = os.path.join(project, "references", "guide.md")
    original = open(guide).read()
    srv = Server(lit, project)
    try:
        check("serve: starts and names its loopback address", srv.port, srv.text())
        if not srv.port:
            return
        check("serve: listens on 127.0.0.1 only", listening_addresses(srv.port) == ["0100007F"],
              listening_addresses(srv.port))
        code, page = srv.get("/")
        check("serve: serves the front page with the reload script", code == 200 and "<article>" in page and
              "/__lit/status" in page, code)
        code, _ = srv.get("/guide.html")
        check("serve: serves a page by name", code == 200, code)
        os.symlink(os.path.join(project, "index.md"), os.path.join(project, "book", "escape.html"))
        refused = []
        for path in ("/../index.md", "/%2e%2e/index.md", "/guide.html/../../index.md", "//etc/passwd",
                     "/.lit-record", "/escape.html", "/../../../../etc/passwd", "/%2E%2E%2Findex.md"):
            code, body = srv.get(path)
            if code == 200 or "tangle-roots" in body or "root:" in body:
                refused.append("%s -> %d" % (path, code))
        check("serve: no path outside the book is served", not refused, refused)
        # The link is no file lit wrote: left there, it would (rightly) stop
        # every later rebuild from replacing the book folder.
        os.unlink(os.path.join(project, "book", "escape.html"))
        code, body = srv.get("/no-such-page.html")
        check("serve: a missing page is a 404 with the book's not-found page", code == 404 and "Page not found" in body,
              code)
        kernel = os.path.join(project, "kernels", "csrc", "add.cu")
        kernel_before = open(kernel).read()
        book_page = os.path.join(project, "book", "guide.html")

        with Browser() as b:
            p = b.page(width=1000, height=800)
            p.goto("http://127.0.0.1:%d/guide.html" % srv.port)
            p.eval("window.__notReloaded = true")
            gen = srv.status()["generation"]
            append(guide, "\nA paragraph added while the book is open, marker 4711.\n")
            reloaded = p.wait_for("!window.__notReloaded && document.body.textContent.includes('marker 4711')", 15)
            check("reload: a saved change is re-woven and the open page reloads", reloaded and
                  srv.status()["generation"] > gen, srv.text()[-500:])
            # an undefined chunk: the build fails, the page says why, nothing on disk changes
            good_book = open(book_page).read()
            with open(guide, "w") as f:
                f.write(original.replace("<<add-body>>", "<<add-bdoy>>"))
            shown = p.wait_for("(() => { const e = document.getElementById('lit-diagnostics'); "
                               "return e && e.textContent; })()", 15)
            check("diagnostics: an undefined chunk is shown on the page with its file and line",
                  shown and "references/guide.md:" in shown and "add-bdoy" in shown, shown)
            check("diagnostics: and in the terminal", "references/guide.md:" in srv.text() and "add-bdoy" in srv.text(),
                  srv.text()[-400:])
            check("diagnostics: the last good book and kernels stay in place",
                  open(book_page).read() == good_book and open(kernel).read() == kernel_before)
            check("diagnostics: the server still serves the last good book", srv.get("/guide.html")[0] == 200)
            p.eval("window.__notReloaded = true")
            with open(guide, "w") as f:
                f.write(original + "\n```cuda\nint never_closed;\n")
            opened = wait(lambda: not srv.status()["ok"] and "guide.md" in srv.status()["messages"], 15)
            check("diagnostics: an unclosed fence is reported and nothing is rewritten",
                  opened and open(book_page).read() == good_book, srv.status()["messages"][:300])
            with open(guide, "w") as f:
                f.write(original + "\nFixed, marker 4712.\n")
            fixed = p.wait_for("!window.__notReloaded && document.body.textContent.includes('marker 4712') && "
                               "!document.getElementById('lit-diagnostics')", 15)
            check("diagnostics: fixing the document reloads the page without the messages", fixed)
        check("serve: SIGTERM stops it cleanly", srv.stop() == 0)

        # lit watch: the same rebuild, no server
        w = Server(lit, project, serve=False)
        append(guide, "\nWatched, marker 4713.\n")
        rebuilt = wait(lambda: "marker 4713" in open(book_page).read(), 15)
        check("watch: a change is woven into the book without a server", rebuilt, w.text()[-300:])
        with open(os.path.join(project, "references", "more.md")) as f:
            more = f.read()
        with open(os.path.join(project, "references", "more.md"), "w") as f:
            f.write(more.replace("c[i] = a[i] + b[i];", "c[i] = a[i] * b[i];"))
        retangled = wait(lambda: "a[i] * b[i]" in open(kernel).read(), 15)
        check("watch: a change to a chunk is tangled into the kernel", retangled, w.text()[-300:])
        check("watch: SIGTERM stops it cleanly", w.stop() == 0)

        odd = Server(lit, project, out="book\x1b[31m")
        check("serve: the --out folder it names is escaped", "serving book\\x1b[31m/ at" in odd.text() and
              "\x1b" not in odd.text(), repr(odd.text()[-300:]))
        check("serve: SIGTERM stops it cleanly (an --out with an escape)", odd.stop() == 0)
    finally:
        if srv.proc.poll() is None:
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # report, and count as a failure
        check("no exception", False, "%s: %s" % (type(e).__name__, e))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
