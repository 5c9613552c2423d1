#!/bin/sh
# tests/book_browser.sh [BOOK_DIR]: load every page of the book in Debian's
# headless Chromium and check what the browser built.
#
# Each page is opened from disk (file://, no server, JavaScript plays no
# part: the book has none) and its DOM dumped with --dump-dom. A page fails
# if its DOM is empty or its <article> holds no text, if a relative link
# leads to a file that is not in the book, or if a #fragment names no id in
# the target page's DOM. External links (http:, https:, mailto:) are not
# followed; the book must not load anything from elsewhere, so a <link>,
# <script> or <img> with an external source fails too.
# Needs: chromium (Debian package "chromium"), python3.
# Ends with "N passed, N failed".
set -u
BOOK=${1:-book}
BOOK=$(cd "$BOOK" && pwd) || exit 1
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
[ -n "$CHROMIUM" ] || { echo "book_browser.sh: chromium not found (apt-get install chromium)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/dom"
for page in "$BOOK"/*.html; do
  name=$(basename "$page")
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$TMP/profile" \
    --dump-dom "file://$page" >"$TMP/dom/$name" 2>"$TMP/dom/$name.err" || true
done
python3 - "$BOOK" "$TMP/dom" <<'PY'
import html.parser, os, sys, urllib.parse

book, domdir = sys.argv[1], sys.argv[2]

class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.external, self.text, self.depth = set(), [], [], 0, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a: self.ids.add(a["id"])
        if tag == "a" and "name" in a: self.ids.add(a["name"])
        if tag == "a" and "href" in a: self.links.append(a["href"])
        for key in ("src", "href"):
            v = a.get(key)
            if v and tag in ("script", "img", "link", "iframe") and urllib.parse.urlparse(v).scheme in ("http", "https", ""):
                if urllib.parse.urlparse(v).scheme or v.startswith("//"):
                    self.external.append(v)
        if tag == "article": self.depth += 1
    def handle_endtag(self, tag):
        if tag == "article": self.depth -= 1
    def handle_data(self, data):
        if self.depth > 0: self.text += len(data.strip())

pages = {}
for name in sorted(os.listdir(domdir)):
    if name.endswith(".html"):
        p = Page()
        with open(os.path.join(domdir, name), encoding="utf-8", errors="replace") as f:
            dom = f.read()
        p.feed(dom)
        p.size = len(dom)
        pages[name] = p

passed = failed = 0
for name, p in pages.items():
    problems = []
    if p.size == 0: problems.append("the browser produced an empty DOM")
    elif p.text == 0: problems.append("the page's <article> has no text")
    for v in p.external: problems.append("loads %s from elsewhere" % v)
    for href in p.links:
        u = urllib.parse.urlparse(href)
        if u.scheme or href.startswith("//"):
            continue
        target = urllib.parse.unquote(u.path) or name
        frag = urllib.parse.unquote(u.fragment)
        tpath = os.path.normpath(os.path.join(book, target))
        if not os.path.exists(tpath):
            problems.append("link %s: no such file" % href)
        elif frag and target in pages and frag not in pages[target].ids:
            problems.append("link %s: no element with id '%s'" % (href, frag))
    if problems:
        failed += 1
        print("FAIL %s" % name)
        for pr in problems[:20]: print("     " + pr)
    else:
        passed += 1
        print("ok   %s (%d links, %d ids)" % (name, len(p.links), len(p.ids)))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
