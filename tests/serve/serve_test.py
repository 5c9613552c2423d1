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
  - SIGTERM stops both, with exit status 0;
  - the --out folder the server names in the terminal is escaped, like
    every message (an escape sequence in it does not reach the terminal);
  - a request whose Host header is not the server's own address (DNS
    rebinding) is refused with 403;
  - --out naming a folder that is not a book lit wrote (and not empty or
    new) is refused before anything is served, and so is the project's
    own folder even with a manifest forged to vouch for it;
  - a Lua block stopped by the wall-clock limit (LIT_LUA_SECONDS) is a
    failed build like any other: serve and watch report it and go on;
  - watch follows the documents' folder when it is renamed and made again;
  - watch --stitch carries a hand edit saved in a generated file into its
    document, and reports one it cannot take without stopping;
  - 1,100 unfinished requests from one loopback address (more than select()
    could hold) are held to a per-address limit while a request from
    another address is answered at once, and an idle connection is closed
    after the connection timeout (10 s).
Ends with "N passed, N failed".
"""
import http.client
import json
import os
import re
import resource
import shutil
import signal
import socket
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


# The wall-clock limit of one Lua call, lowered so a runaway block is stopped soon.
LUA_ENV = dict(os.environ, LIT_LUA_SECONDS="2")

# A Lua block the instruction budget cannot stop: one C call (a string
# pattern that backtracks for hours), which only the wall-clock alarm ends.
SLOW_LUA = '\n```{.lua .render}\nlocal s = string.rep("a", 20000)\nreturn tostring(s:find(".-.-.-.-b"))\n```\n'


class Server:
    def __init__(self, lit, project, serve=True, env=None, name=None, out=None, extra=()):
        self.log = open(os.path.join(project, "..", "lit-%s.log" % (name or ("serve" if serve else "watch"))), "w+")
        args = [lit, "serve", "--port", "0"] if serve else [lit, "watch"]
        if out:
            args += ["--out", out]
        args += list(extra)
        self.proc = subprocess.Popen(args, cwd=project, stdout=subprocess.DEVNULL, stderr=self.log, env=env)
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

    def get(self, path, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        c.request("GET", path, headers=headers or {})  # sent as written: http.client does not normalise the path
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, body.decode("utf-8", "replace")

    def status(self):
        """The build's state; "messages" comes as a list of lines, kept as
        "lines", and is joined here for the checks that look for text."""
        s = json.loads(self.get("/__lit/status")[1])
        if not isinstance(s["messages"], list):
            raise ValueError("/__lit/status: messages is not a list of lines: %r" % s["messages"])
        s["lines"], s["messages"] = s["messages"], "\n".join(s["messages"])
        return s

    def try_status(self):
        """The build's state, or None when the server does not answer (it exited)."""
        try:
            return self.status()
        except (OSError, http.client.HTTPException, ValueError):
            return None

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


def check_host(srv):
    """DNS rebinding: a page of another site, its name pointed at 127.0.0.1,
    sends its own name as Host. Only the server's own addresses are answered."""
    port = srv.port
    wrong = {}
    for host in ("evil.example:%d" % port, "evil.example", "127.0.0.1:%d" % (port + 1), "localhost.evil.example:%d" % port,
                 "127.0.0.1:%d.evil.example" % port, "127.0.0.2:%d" % port):
        for path in ("/", "/__lit/status"):
            code, body = srv.get(path, {"Host": host})
            if code != 403 or len(body) > 200 or "<article>" in body or "generation" in body:
                wrong[host + path] = code
    check("host: a request for another host name is refused with 403 and a short body", not wrong, wrong)
    answered = {h: srv.get("/", {"Host": h})[0] for h in ("127.0.0.1:%d" % port, "localhost:%d" % port,
                                                         "LocalHost:%d" % port, "[::1]:%d" % port)}
    check("host: localhost, 127.0.0.1 and [::1] with the port are answered",
          all(c == 200 for c in answered.values()), answered)


def raise_fd_limit(want):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def closed_by_server(s):
    """1 if the server has closed s (EOF or reset), 0 if it still holds it open."""
    s.setblocking(False)
    try:
        return 1 if s.recv(1) == b"" else 0
    except BlockingIOError:
        return 0
    except OSError:
        return 1


def check_connections(srv):
    """Slow clients: 1,100 unfinished requests from 127.0.0.2 (more than the
    1,020 a select()-based server can hold at all), then a request from
    127.0.0.1. The flood is held to the per-address limit (half the server's
    connections), so the request is answered at once; an idle connection is
    closed after the 10 s connection timeout."""
    idle = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    opened = time.monotonic()
    flood_n = min(1100, raise_fd_limit(1400) - 150)
    flood = []
    try:
        for _ in range(flood_n):
            s = socket.socket()
            s.settimeout(5)
            s.bind(("127.0.0.2", 0))
            s.connect(("127.0.0.1", srv.port))
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and the rest never comes
            flood.append(s)
        time.sleep(1)
        t0 = time.monotonic()
        try:
            code = srv.get("/")[0]
        except (OSError, http.client.HTTPException) as e:
            code = repr(e)
        took = time.monotonic() - t0
        check("connections: with %d unfinished requests open, a new request is answered at once" % flood_n,
              code == 200 and took < 3, "%s after %.1f s" % (code, took))
        refused = sum(closed_by_server(s) for s in flood)
        check("connections: one address gets a limited share (%d of %d refused, the rest held)" % (refused, flood_n),
              0 < refused < flood_n // 2, refused)
    finally:
        for s in flood:
            s.close()
    idle.settimeout(max(1.0, opened + 14 - time.monotonic()))
    try:
        closed = idle.recv(1) == b""
    except socket.timeout:
        closed = False
    except OSError:
        closed = True
    idle.close()
    check("connections: an idle connection is closed after the connection timeout",
          closed and time.monotonic() - opened < 14.5, "%.1f s" % (time.monotonic() - opened))
    check("connections: the server still answers afterwards", srv.get("/")[0] == 200)


def check_lua_limit_serve(srv, guide, original, book_page):
    """A Lua block stopped by the wall-clock limit fails the build like any
    document error: reported on the page, the last good book still served."""
    good_book = open(book_page).read()
    with open(guide, "w") as f:
        f.write(original + SLOW_LUA)
    seen = wait(lambda: (lambda s: s and not s["ok"] and "ran for more than 2 s" in s["messages"] and s)(
        srv.try_status()), 25)
    check("lua limit: serve reports a Lua block stopped by the time limit on the page",
          seen and "references/guide.md:" in seen["messages"], srv.text()[-400:])
    check("lua limit: serve goes on running", srv.proc.poll() is None, srv.text()[-400:])
    check("lua limit: the last good book is still served and in place",
          srv.proc.poll() is None and srv.get("/guide.html")[0] == 200 and open(book_page).read() == good_book)
    with open(guide, "w") as f:
        f.write(original + "\nFixed, marker 4715.\n")
    fixed = wait(lambda: (lambda s: s and s["ok"])(srv.try_status()) and "marker 4715" in open(book_page).read(), 20)
    check("lua limit: fixing the block rebuilds the book", fixed, srv.text()[-400:])


def check_lua_limit_watch(lit, project, guide, book_page):
    w = Server(lit, project, serve=False, env=LUA_ENV, name="watch-lua")
    try:
        before = open(guide).read()
        with open(guide, "w") as f:
            f.write(before + SLOW_LUA)
        reported = wait(lambda: "ran for more than 2 s" in w.text(), 25)
        time.sleep(0.5)
        check("lua limit: watch reports a Lua block stopped by the time limit and goes on",
              reported and w.proc.poll() is None, w.text()[-400:])
        with open(guide, "w") as f:
            f.write(before + "\nFixed, marker 4716.\n")
        check("lua limit: watch rebuilds after the fix", wait(lambda: "marker 4716" in open(book_page).read(), 20),
              w.text()[-400:])
        check("lua limit: watch stops cleanly", w.stop() == 0)
    finally:
        if w.proc.poll() is None:
            w.stop()


def check_folder_recreated(lit, project, book_page):
    """mv references references.old; mkdir references; cp ...: the watches
    must follow the folder's name, not the inode that moved away."""
    w = Server(lit, project, serve=False, name="watch-rename")
    refs = os.path.join(project, "references")
    old = refs + ".old"
    try:
        os.rename(refs, old)
        time.sleep(1)  # the rebuild without the documents fails
        os.mkdir(refs)
        time.sleep(1)
        shutil.copytree(old, refs, dirs_exist_ok=True)
        time.sleep(1)
        append(os.path.join(refs, "guide.md"), "\nIn the new folder, marker 4717.\n")
        check("watch: a change in a documents' folder renamed and made again is rebuilt",
              wait(lambda: "marker 4717" in open(book_page).read(), 15), w.text()[-400:])
        before = open(book_page).read()
        append(os.path.join(old, "guide.md"), "\nIn the old folder, marker 4718.\n")
        time.sleep(1.5)
        check("watch: the folder moved away is no longer watched", open(book_page).read() == before)
        check("watch: stops cleanly after the folder was made again", w.stop() == 0)
    finally:
        if w.proc.poll() is None:
            w.stop()
        shutil.rmtree(old, ignore_errors=True)


def check_watch_stitch(lit, project):
    """lit watch --stitch: a hand edit saved in a generated file goes into
    its document and stays as saved; one it cannot take (lit's header) is
    a failed build with its message, the document untouched, and watching
    goes on."""
    kernel = os.path.join(project, "kernels", "csrc", "add.cu")
    more = os.path.join(project, "references", "more.md")
    w = Server(lit, project, serve=False, name="watch-stitch", extra=["--stitch"])
    try:
        wait(lambda: "tangled and woven" in w.text(), 15)
        good = open(kernel).read()
        edited = good.replace("c[i] = a[i] * b[i];", "c[i] = a[i] * b[i] + 1.0f;")
        check("watch --stitch: the kernel holds the line to edit", edited != good)
        with open(kernel, "w") as f:
            f.write(edited)
        stitched = wait(lambda: "a[i] * b[i] + 1.0f;" in open(more).read(), 15)
        check("watch --stitch: an edit saved in the kernel goes into its document", stitched, w.text()[-400:])
        time.sleep(1)
        check("watch --stitch: the kernel stays as saved", open(kernel).read() == edited)
        clean = subprocess.run([lit, "tangle", "--check"], cwd=project, capture_output=True, text=True)
        check("watch --stitch: lit tangle --check is clean after it", clean.returncode == 0, clean.stderr[-300:])
        doc = open(more).read()
        lines = edited.split("\n")
        lines[1] = lines[1] + " (edited)"  # lit's header: no block wrote it
        with open(kernel, "w") as f:
            f.write("\n".join(lines))
        refused = wait(lambda: "changes lit's header comment" in w.text()[-2000:], 15)
        check("watch --stitch: an edit it cannot take is reported", refused, w.text()[-400:])
        check("watch --stitch: ... and the document is left as it was", open(more).read() == doc)
        check("watch --stitch: ... and watching goes on", w.proc.poll() is None)
        with open(kernel, "w") as f:
            f.write(edited)
        time.sleep(1.5)
        check("watch --stitch: stops cleanly", w.stop() == 0)
    finally:
        if w.proc.poll() is None:
            w.stop()


def run_refused(args, cwd):
    """Runs a command that should refuse to start: its exit status (or
    "still running" after 15 s, when it is stopped) and its stderr."""
    p = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=15)
        status = p.returncode
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        try:
            _, err = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
        status = "still running"
    return status, err.decode("utf-8", "replace")


def check_out_project_refused(lit, tmp):
    """--out . with a manifest forged to vouch, hash and all, for every file
    of the project's folder: the book folder would be the project, so lit
    serve (and watch) refuse to start instead of serving its own files."""
    src = os.path.join(tmp, "forged-src")
    os.mkdir(src)
    with open(os.path.join(src, "index.md"), "w") as f:
        f.write("# Forged\n\nA project whose folder a manifest vouches for.\n")
    with open(os.path.join(src, "SKILL.md"), "w") as f:
        f.write("---\nname: forged-src\n---\n")
    # lit skill install copies a folder and writes a manifest with the hash
    # of every file: the forgery, made by lit itself.
    dest = os.path.join(tmp, "forged-dest")
    subprocess.run([lit, "skill", "install", "--from", src, "--dest", dest], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    project = os.path.join(dest, "forged-src")
    before = sorted(os.listdir(project))
    for cmd in ("serve", "watch"):
        args = [lit, cmd, "--out", "."] + (["--port", "0"] if cmd == "serve" else [])
        status, err = run_refused(args, project)
        check("out: lit %s --out . (the project, with a forged manifest) is refused" % cmd,
              status == 1 and "the project's own" in err and "serving" not in err and "watching" not in err,
              "%s: %s" % (status, err))
    check("out: the project refused as --out is left as it was", sorted(os.listdir(project)) == before,
          sorted(os.listdir(project)))


def check_out_refused(lit, tmp, project):
    """--out must be a book lit wrote, an empty folder or a new one."""
    notes = os.path.join(tmp, "notes")
    os.mkdir(notes)
    with open(os.path.join(notes, "secret.txt"), "w") as f:
        f.write("not lit's\n")
    for cmd, out in (("serve", notes), ("serve", "/etc"), ("watch", notes)):
        args = [lit, cmd, "--out", out] + (["--port", "0"] if cmd == "serve" else [])
        p = subprocess.Popen(args, cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = p.communicate(timeout=15)
            status = p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            _, err = p.communicate()
            status = "still running"
        err = err.decode("utf-8", "replace")
        check("out: lit %s --out %s (not a book lit wrote) is refused" % (cmd, "/etc" if out == "/etc" else "notes/"),
              status == 1 and out in err and "serving" not in err and "watching" not in err, "%s: %s" % (status, err))
    check("out: the refused folder is left as it was", os.listdir(notes) == ["secret.txt"], os.listdir(notes))
    check_out_project_refused(lit, tmp)
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    p = subprocess.Popen([lit, "serve", "--port", "0", "--out", empty], cwd=project, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    started = False
    try:
        line = b""
        end = time.monotonic() + 20
        while time.monotonic() < end and b"serving" not in line:
            line = p.stderr.readline()
            if not line:
                break
        started = b"serving" in line and os.path.exists(os.path.join(empty, "index.html"))
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    check("out: an empty folder is accepted and the book written into it", started)


def main():
    lit = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="lit-serve-")
    project = os.path.join(tmp, "project")
    shutil.copytree(os.path.join(HERE, "..", "weave", "project"), project)
    guide = os.path.join(project, "references", "guide.md")
    original = open(guide).read()
    srv = Server(lit, project, env=LUA_ENV)
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
                     "/.lit-record", "/escape.html", "/../../../../etc/passwd", "/%2E%2E%2Findex.md",
                     "/index.html%00/../../index.md", "/%00", "/guide.html%00.png"):
            code, body = srv.get(path)
            # A NUL would cut the decoded path short: refused, not served as its first part.
            if code == 200 or "tangle-roots" in body or "root:" in body:
                refused.append("%s -> %d" % (path, code))
        check("serve: no path outside the book is served", not refused, refused)
        # The link is no file lit wrote: left there, it would (rightly) stop
        # every later rebuild from replacing the book folder.
        os.unlink(os.path.join(project, "book", "escape.html"))
        code, body = srv.get("/no-such-page.html")
        check("serve: a missing page is a 404 with the book's not-found page", code == 404 and "Page not found" in body,
              code)
        code, body = srv.get("/a/b/no-such-page.html")
        check("serve: the not-found page at a nested path resolves its links from the book's root",
              code == 404 and '<base href="/">' in body and 'href="style.css"' in body, body[:300])
        check("serve: the not-found page names no document it came from", "Woven by lit.</footer>" in body and
              "no document" not in body, body[-300:])
        check_host(srv)
        check_connections(srv)
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
            lines = (shown or "").split("\n")
            check("diagnostics: one message a line on the page, not run together",
                  any(l.startswith("references/guide.md:") and "add-bdoy" in l for l in lines) and
                  any(l.startswith("lit: note:") for l in lines), repr(shown))
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
        check_lua_limit_serve(srv, guide, original, book_page)
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
        check_lua_limit_watch(lit, project, guide, book_page)
        check_folder_recreated(lit, project, book_page)
        check_watch_stitch(lit, project)
        check_out_refused(lit, tmp, project)

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
