"""cdp.py: drive Debian's headless Chromium through the DevTools protocol.

The browser is started with --remote-debugging-pipe: it reads commands on
file descriptor 3 and writes replies on 4, each message JSON ended by a NUL
byte. No network port, no websocket library: the standard library is enough.

    with Browser() as b:
        page = b.page(width=390, height=844)
        page.goto("file:///.../index.html")
        page.eval("document.title")
        page.screenshot("phone.png")
"""
import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, chromium=None, timeout=30.0):
        self.chromium = chromium or os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which(
            "chromium-browser")
        if not self.chromium:
            raise CDPError("chromium not found (apt-get install chromium)")
        self.timeout = timeout
        self.next_id = 0
        self.buf = b""
        self.events = []

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="lit-cdp-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def fds():  # in the child: the browser's fd 3 reads commands, fd 4 writes replies
            r, w = os.dup(to_browser_r), os.dup(from_browser_w)  # above 4, so the dup2s cannot collide
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.closerange(5, 1024)

        self.proc = subprocess.Popen(
            [self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
             "--disable-extensions", "--hide-scrollbars", "--mute-audio", "--allow-file-access-from-files",
             "--user-data-dir=" + self.profile, "about:blank"],
            close_fds=False, preexec_fn=fds, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            # wait for the pipe no longer than the deadline: an event that never comes (a page that does not
            # load) must fail the test, not hang it
            if left < 0 or not select.select([self.from_browser], [], [], left)[0]:
                raise CDPError("the browser did not answer in %.0f s" % self.timeout)
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise CDPError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise CDPError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_event(self, method, session, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and e.get("sessionId") == session:
                    return self.events.pop(i)
            reply = self._read_message(deadline)
            if "method" in reply:
                self.events.append(reply)

    def page(self, width=1400, height=900, mobile=False, dark=False, media=""):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        p = Page(self, session)
        self.send("Page.enable", session=session)
        self.send("Runtime.enable", session=session)
        p.viewport(width, height, mobile)
        p.emulate(dark=dark, media=media)
        return p


class Page:
    def __init__(self, browser, session):
        self.b = browser
        self.session = session

    def send(self, method, params=None):
        return self.b.send(method, params, self.session)

    def viewport(self, width, height, mobile=False):
        self.width = width
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": mobile})

    def emulate(self, dark=False, media=""):
        self.send("Emulation.setEmulatedMedia", {"media": media, "features": [
            {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})

    def goto(self, url, timeout=None):
        self.b.events = [e for e in self.b.events if e.get("sessionId") != self.session]
        self.send("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.session, timeout)

    def eval(self, expr):
        """The value of a JavaScript expression (promises are awaited)."""
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CDPError("%s: %s" % (expr[:80], d.get("exception", {}).get("description") or d.get("text")))
        return r["result"].get("value")

    def wait_for(self, expr, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                v = self.eval(expr)
            except CDPError:  # the page may be between two documents (a reload)
                v = None
            if v:
                return v
            time.sleep(0.05)
        return self.eval(expr)

    def key(self, key, code=None, text=None):
        """Presses and releases one key, as a keyboard would."""
        params = {"key": key, "code": code or key}
        if text:
            params["text"] = text
        keycodes = {"Enter": 13, "Escape": 27, "ArrowDown": 40, "ArrowUp": 38, "ArrowLeft": 37, "ArrowRight": 39,
                    "Tab": 9}
        if key in keycodes:
            params["windowsVirtualKeyCode"] = keycodes[key]
        self.send("Input.dispatchKeyEvent", dict(params, type="keyDown"))
        self.send("Input.dispatchKeyEvent", dict(params, type="keyUp"))

    def type(self, text):
        for ch in text:
            self.key(ch, text=ch)

    def click(self, selector):
        """Clicks the middle of the first element matching selector, with the mouse."""
        box = self.eval("(() => { const e = document.querySelector(%s); if (!e) return null; e.scrollIntoView("
                        "{block: 'center'}); const r = e.getBoundingClientRect(); return [r.x + r.width / 2, "
                        "r.y + r.height / 2]; })()" % json.dumps(selector))
        if not box:
            raise CDPError("no element matches %s" % selector)
        for t in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": t, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1})

    def click_at(self, x, y):
        """A click (a tap) at a point of the viewport."""
        for t in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})

    def screenshot(self, path, full=False):
        params = {"format": "png"}
        if full:
            h = self.eval("document.documentElement.scrollHeight")
            params["clip"] = {"x": 0, "y": 0, "width": self.width, "height": min(h, 6000), "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def pdf(self, path, timeout=None):
        """Prints the page to path; a long page may take longer than the browser's usual timeout."""
        usual = self.b.timeout
        self.b.timeout = max(usual, timeout or 0)
        try:
            data = self.send("Page.printToPDF", {"printBackground": False, "preferCSSPageSize": True})["data"]
        finally:
            self.b.timeout = usual
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
