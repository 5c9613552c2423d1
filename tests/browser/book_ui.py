#!/usr/bin/env python3
"""tests/browser/book_ui.py BOOK_DIR: the book as a reader uses it, in headless Chromium.

Every page is opened from disk (file://) at 1400 and 390 pixels wide, and:
  - search: typing a query shows results in a panel over the text (under the
    box on a phone), each page's title once over its sections, each with the
    matching sentence marked; the keyboard moves through them, Enter follows
    one to its section, Esc closes them; the index and book.js cut and stem
    words alike (tests/search_words.txt, and every term of every section);
    queries on this book and on a fixture book (tests/browser/search-fixture,
    woven with LIT) find what a reader expects, ranked by where the words are
    and how close; the time a query takes is printed;
  - phone: no page is wider than the screen; the menu opens and shows the
    pages, the page being read among them (also in the wide sidebar);
  - tables: at 1400 px every table fits the text's column (folded ones
    opened); at 390 px one wider than the phone scrolls inside its own frame,
    which the keyboard can reach, its text kept whole; numeric columns are
    right-aligned;
  - accessibility: axe-core (tests/browser/node_modules, from `make deps`)
    finds no serious or critical violation, in the light and dark themes;
  - charts: every chart is an inline SVG with a title and text labels; at
    1400 and at 390 px one plot of each chart is shown, its text is at
    least 10 px tall on screen, no text leaves the plot or covers another,
    and the plot fits its column;
  - around the text: the theme switch is remembered, code blocks get a copy
    button, the contents list marks the section being read, a landed-on
    block is highlighted, print.html holds every page;
  - print: print.html printed to PDF (read by pdftext.py) keeps each chunk's
    caption on the page of its code's first lines, and leaves no page but a
    chapter's last nearly blank; laid out for print, no table is wider than
    the printed page's column (its right columns would be lost off the paper).
Usage: book_ui.py BOOK_DIR [LIT] (LIT defaults to gen/build/lit). Ends with "N passed, N failed".
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
AXE = os.path.join(HERE, "node_modules", "axe-core", "axe.min.js")
WORDS = os.path.join(os.path.dirname(HERE), "search_words.txt")
FIXTURE = os.path.join(HERE, "search-fixture")

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name + (": " + detail if detail else ""))


def pages(book):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(book, "*.html")))


def index_data(book):
    """search-index.js, read as the data it hands book.js."""
    with open(os.path.join(book, "search-index.js"), encoding="utf-8") as f:
        s = f.read()
    return json.loads(s[s.index("litSearchIndex(") + len("litSearchIndex("):s.rindex(")")])


def ready(p):
    """Loads the page's search index (as the first focus on the box does)."""
    p.eval("new Promise(r => litSearch.ready(r))")


def find(p, q):
    return p.eval("litSearch.find(%s)" % json.dumps(q))


def results(p):
    """What the panel shows: [[page title, [[href, heading, snippet, marked words, missing]]]], once every
    result's sentence is in (those past the first few come just after the panel)."""
    p.wait_for("!document.querySelector('#search-results .snip[data-sec]')")
    return p.eval("""[...document.querySelectorAll('#search-results .group')].map(g => [
      g.querySelector('.where').textContent, [...g.querySelectorAll('a')].map(a => [a.getAttribute('href'),
      a.querySelector('.title').textContent, a.querySelector('.snip').textContent,
      [...a.querySelectorAll('mark')].map(m => m.textContent),
      a.querySelector('.missing') ? a.querySelector('.missing').textContent : ''])])""")


def test_search(b, url, book):
    titles = dict((pg[0], pg[1]) for pg in index_data(book)["pages"])
    p = b.page(width=1400, height=900)
    p.goto(url("index.html"))
    check("search: the box is shown (the script runs)", p.eval("!document.querySelector('.search').hidden"))
    p.key("/", code="Slash", text="/")
    check("search: / focuses the box", p.eval("document.activeElement.id") == "search")
    p.type("occupancy")
    n = p.wait_for("document.querySelectorAll('#search-results a').length")
    check("search: typing a query shows results", n and n > 0, "no results for 'occupancy'")
    first = p.eval("(() => { const a = document.querySelector('#search-results a'); return a && "
                   "[a.getAttribute('href'), a.querySelector('.title').textContent, "
                   "a.querySelector('mark') !== null]; })()")
    check("search: a result names its section and marks the match", first and first[2] and "#" in first[0],
          repr(first))
    panel = p.eval("""(() => { const l = document.getElementById('search-results').getBoundingClientRect(),
      side = document.querySelector('.side').getBoundingClientRect(), a = [...document.querySelectorAll(
      '#search-results a')].filter(a => { const r = a.getBoundingClientRect(); return r.top >= l.top &&
      r.bottom <= Math.min(l.bottom, innerHeight); });
      return [l.left, side.right, l.width, a.length, document.elementFromPoint(l.left + l.width / 2,
      a[0].getBoundingClientRect().top + 5).closest('#search-results') !== null]; })()""")
    check("search: the results are a panel over the text, beside the sidebar, wide, several in view and on top",
          panel[0] >= panel[1] and panel[2] >= 600 and panel[3] >= 5 and panel[4], repr(panel))
    shown = results(p)
    once = [g[0] for g in shown]
    bad = [g for g in shown if len(set(h[0].split("#")[0] for h in g[1])) != 1 or
           titles.get(g[1][0][0].split("#")[0]) != g[0]]
    check("search: each page's title is shown once, over its own sections", shown and len(set(once)) == len(once)
          and not bad, repr(bad[:2] or once))
    unmarked = [h for g in shown for h in g[1] if not any(m.lower().startswith("occupanc") for m in h[3])]
    check("search: each result shows its matching sentence, the word marked", not unmarked, repr(unmarked[:2]))
    p.key("Escape")
    check("search: Esc in the box clears it and closes the results",
          p.eval("document.getElementById('search-results').hidden && document.getElementById('search').value === ''"))
    p.eval("document.getElementById('search').focus()")
    p.type("block size and occupancy")
    p.wait_for("[...document.querySelectorAll('#search-results .title')].some(t => "
               "t.textContent === 'Block size and occupancy')")
    hits = p.eval("[...document.querySelectorAll('#search-results a')].map(a => a.getAttribute('href'))")
    want = "h100-optimization-guide.html#block-size-and-occupancy"
    check("search: the section whose heading matches comes first", hits and hits[0] == want, repr(hits[:3]))
    p.key("ArrowDown")
    check("search: the arrow key moves into the results",
          p.eval("document.activeElement.closest('#search-results') !== null"))
    p.key("ArrowDown")
    second = p.eval("document.activeElement.getAttribute('href')")
    p.key("ArrowUp")
    back = p.eval("document.activeElement.getAttribute('href')")
    p.key("ArrowUp")
    check("search: the arrow keys move down and up the results, and back to the box",
          second == hits[1] and back == hits[0] and p.eval("document.activeElement.id") == "search",
          "%r %r %r" % (second, back, p.eval("document.activeElement.id")))
    p.key("ArrowDown")
    p.key("Escape")
    check("search: Esc in the results closes them and returns to the box, the query kept",
          p.eval("document.getElementById('search-results').hidden && document.activeElement.id === 'search' && "
                 "document.getElementById('search').value === 'block size and occupancy'"))
    p.key("ArrowDown")
    p.wait_for("!document.getElementById('search-results').hidden")
    p.key("ArrowDown")
    p.b.events.clear()
    p.key("Enter")
    p.b.wait_event("Page.loadEventFired", p.session)
    landed = p.wait_for("location.pathname.endsWith('/h100-optimization-guide.html') && "
                        "location.hash === '#block-size-and-occupancy' && "
                        "document.getElementById('block-size-and-occupancy').getBoundingClientRect().top < 200")
    check("search: Enter follows the result to its section", landed,
          p.eval("location.href") + " top " + str(p.eval(
              "(document.getElementById('block-size-and-occupancy')||{getBoundingClientRect:()=>({})})"
              ".getBoundingClientRect().top")))
    p.eval("document.getElementById('search').focus()")
    p.type("zzqqxxnotaword")
    none = p.wait_for("document.querySelector('#search-results .none') !== null")
    check("search: a query with no match says so", none and p.eval(
        "document.getElementById('search-status').textContent") == "no results")


def test_search_words(b, url):
    """book.js cuts and stems the words of tests/search_words.txt as book_search.c does (check_book_search.c)."""
    cases = []
    with open(WORDS, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            kind, rest = line.split(" ", 1)
            if kind == "terms":
                text, want = rest.split(" => ")
                cases.append([kind, text, want])
            elif kind == "stem":
                cases.append([kind] + rest.split(" "))
            elif kind == "same":
                cases.append([kind, rest, ""])
            else:
                cases.append(["unknown", line, ""])
    p = b.page(width=1400, height=900)
    p.goto(url("index.html"))
    ready(p)
    bad = p.eval("""((cases) => cases.map(c => {
      if (c[0] === 'stem') return litSearch.stem(c[1]) === c[2] ? null : c.join(' ') + ': ' + litSearch.stem(c[1]);
      if (c[0] === 'terms') {
        const got = litSearch.terms(c[1]).map(t => (t[3] ? '+' : '') + t[0]).join(' ');
        return got === c[2] ? null : c[1] + ' => ' + got + ', want ' + c[2];
      }
      if (c[0] === 'same') {
        const s = c[1].split(' ').map(w => litSearch.stem(w));
        return s.every(x => x === s[0]) ? null : c[1] + ': ' + s.join(' ');
      }
      return 'unknown line: ' + c[1];
    }).filter(x => x))(%s)""" % json.dumps(cases))
    check("search: book.js stems and cuts the words of search_words.txt as the index does (%d lines)" % len(cases),
          len(cases) > 100 and not bad, "; ".join(bad[:8]))


def test_search_index_agrees(b, url):
    """Every term book.js reads in every section's title, heading and text is the index's, with the same
    fields and count, and the index has no other; every listed word stems to its term."""
    p = b.page(width=1400, height=900)
    p.goto(url("index.html"))
    ready(p)
    r = p.eval("""(() => {
      const ix = litSearch.index(), want = new Map(), got = new Map(), bad = [];
      ix.sections.forEach((s, k) => [[ix.pages[s[0]][1], 4], [s[2], 2], [s[3], 1]].forEach(([t, f]) =>
        litSearch.terms(t).forEach(x => {
          const key = x[0] + ' ' + k, e = want.get(key) || [0, 0];
          e[0] |= f;
          if (f === 1) e[1]++;
          want.set(key, e);
        })));
      ix.terms.forEach((term, i) => {
        let at = 0;
        ix.post[i].split(',').forEach(e => {
          const m = /^([0-9a-z]+)(?:\\.([0-7]))?(?::([0-9a-z]+))?$/.exec(e);
          if (!m) { bad.push(term + ': entry ' + e); return; }
          at += parseInt(m[1], 36);
          const f = m[2] ? +m[2] : 1;
          got.set(term + ' ' + at, [f, m[3] ? parseInt(m[3], 36) : f & 1]);
        });
      });
      want.forEach((v, k) => { const g = got.get(k);
        if (!g || g[0] !== v[0] || g[1] !== v[1]) bad.push(k + ': book.js ' + v + ', index ' + g); });
      got.forEach((v, k) => { if (!want.has(k)) bad.push(k + ': only in the index'); });
      ix.words.forEach((w, i) => { if (litSearch.stem(w) !== ix.terms[ix.wordTerms[i]] || w === litSearch.stem(w))
        bad.push('word ' + w + ': term ' + ix.terms[ix.wordTerms[i]]); });
      return [want.size, bad.slice(0, 8)]; })()""")
    check("search: book.js reads every section's terms as the index lists them (%d terms of sections)" % r[0],
          r[0] > 1000 and not r[1], "; ".join(r[1]))


def test_search_book(b, url, book):
    """Queries on this book: what the documents say decides what must be found."""
    data = index_data(book)
    text = [(data["pages"][s[0]][0], " ".join([data["pages"][s[0]][1], s[2], s[3]])) for s in data["sections"]]
    p = b.page(width=1400, height=900)
    p.goto(url("index.html"))
    ready(p)
    r = find(p, "bank conflict")
    said = any(re.search(r"(?i)conflict", t) for _, t in text)
    first = r["hits"][0]["page"] if r["hits"] else None
    check("search (this book): 'bank conflict' finds a GEMM page first", first and first.startswith("gemm"),
          repr(r["hits"][:3]))
    if said:
        check("search (this book): 'bank conflict' finds sections that hold both words", r["all"], repr(r["hits"][:3]))
    else:  # no document says "conflict": the nearest sections, each saying what it lacks
        check("search (this book): no document says 'conflict', and every result says it lacks it",
              not r["all"] and all(h["missing"] == ["conflict"] for h in r["hits"]), repr(r["hits"][:3]))
    p.eval("document.getElementById('search').focus()")
    p.type("bank conflict")
    p.wait_for("document.querySelectorAll('#search-results a').length")
    shown = results(p)
    check("search (this book): the panel says which word a result lacks", said or (
        shown and all(h[4] == "Missing: conflict" for g in shown for h in g[1]) and
        "every word" in p.eval("document.querySelector('#search-results .note').textContent")), repr(shown[:1]))
    p.key("Escape")
    mention = sorted(set(page for page, t in text if re.search(r"(?i)(?<![a-z0-9])split[-_]?k", t)))
    r = find(p, "split-K")
    got = sorted(set(h["page"] for h in r["hits"]))
    check("search (this book): 'split-K' finds every page that mentions split-K (or split-KV)",
          mention and set(mention) <= set(got) and r["all"], "%r, found %r" % (mention, got))
    p.eval("document.getElementById('search').focus()")
    p.type("split-K")
    p.wait_for("document.querySelectorAll('#search-results a').length")
    unmarked = [h for g in results(p) for h in g[1] if not any(re.match(r"(?i)split.?k", m) for m in h[3])]
    check("search (this book): each 'split-K' result marks its split-K", not unmarked, repr(unmarked[:2]))
    p.key("Escape")
    r = find(p, "mbarrier hang")
    hangs = any(re.search(r"(?i)\bhang", t) for _, t in text)
    check("search (this book): 'mbarrier hang' finds the mbarrier text, saying no document speaks of hangs" if
          not hangs else "search (this book): 'mbarrier hang' finds text about mbarrier hangs",
          r["hits"] and (r["all"] if hangs else not r["all"] and all(h["missing"] == ["hang"] for h in r["hits"])),
          repr(r["hits"][:3]))
    check("search (this book): 'mbarrier hang' opens with the troubleshooting page",
          r["hits"] and r["hits"][0]["page"] == "troubleshooting.html", repr(r["hits"][:3]))
    r = find(p, "rmsnorm")
    check("search (this book): a page's title ranks first: 'rmsnorm' opens with the RMSNorm page",
          r["hits"] and r["hits"][0]["page"] == "rmsnorm.html" and r["hits"][0]["anchor"] == "", repr(r["hits"][:3]))

    # how long a query takes: the index read on a fresh page, the first query before any section's words are
    # read (cold), then, once they are, the median of five runs of each query
    p = b.page(width=1400, height=900)
    p.goto(url("index.html"))
    load, cold = p.eval("""new Promise(r => { const t0 = performance.now();
      litSearch.ready(() => { const t1 = performance.now(); r([t1 - t0, litSearch.find('kernel launch').ms]); }); })""")
    p.wait_for("litSearch.index().tokens.size >= litSearch.index().sections.length", timeout=30)
    queries = ["occupancy", "bank conflict", "split-K", "kernel launch", "tma mbarrier wgmma", "rms"]
    warm = p.eval("""((qs) => qs.map(q => { const t = [];
      for (let i = 0; i < 5; i++) t.push(litSearch.find(q).ms);
      return t.sort((a, b) => a - b)[2]; }))(%s)""" % json.dumps(queries))
    size = os.path.getsize(os.path.join(book, "search-index.js"))
    print("     search-index.js %d bytes; read in %.0f ms; first query %.1f ms cold; then %s" % (
        size, load, cold, ", ".join("%r %.1f ms" % (q, t) for q, t in zip(queries, warm))))
    check("search: a query takes under 50 ms once the index is read (median of five)", max(warm) < 50,
          "%.1f ms" % max(warm))


def test_search_fixture(b, lit):
    """The fixture book's documents hold the words the queries name: they must be found, and ranked."""
    tmp = tempfile.mkdtemp()
    try:
        out = os.path.join(tmp, "book")
        run = subprocess.run([lit, "book", "--root", FIXTURE, "--out", out], capture_output=True, text=True)
        check("search fixture: the book weaves", run.returncode == 0, run.stderr)
        if run.returncode:
            return
        p = b.page(width=1400, height=900)
        p.goto("file://" + os.path.join(out, "index.html"))
        ready(p)

        def first(q):
            r = find(p, q)
            return r["hits"][0]["page"] + "#" + r["hits"][0]["anchor"] if r["hits"] else None

        r = find(p, "bank conflict")
        check("search fixture: 'bank conflict' finds 'bank conflicts' (stems), both words in one section",
              first("bank conflict") == "gemm.html#bank-conflicts" and r["all"], repr(r["hits"][:3]))
        forms = {q: first(q) for q in ("split-K", "split k", "splitk", "splitK", "SPLIT-K ")}
        check("search fixture: 'split-K', 'split k', 'splitk', 'splitK' all find the split-K section first",
              all(v == "gemm.html#split-k" for v in forms.values()), repr(forms))
        check("search fixture: 'mbarrier hang' finds the troubleshooting entry on mbarrier hangs",
              first("mbarrier hang") == "troubleshooting.html#a-kernel-hangs-on-the-mbarrier-wait",
              repr(find(p, "mbarrier hang")["hits"][:2]))
        order = ["%s#%s" % (h["page"], h["anchor"]) for h in find(p, "swizzle")["hits"]]
        at = {k: (order.index(k) if k in order else 99) for k in
              ("swizzle.html#", "swizzle.html#layout", "gemm.html#swizzle", "pipelines.html#conflicting-writes")}
        check("search fixture: the page's title ranks over a section's heading, which ranks over the text",
              max(at["swizzle.html#"], at["swizzle.html#layout"]) < at["gemm.html#swizzle"] <
              at["pipelines.html#conflicting-writes"] < 99, repr(order))
        order = ["%s#%s" % (h["page"], h["anchor"]) for h in find(p, "ring depth")["hits"]]
        check("search fixture: of two sections with both words, the one where they stand closer comes first",
              order == ["pipelines.html#stages", "pipelines.html#refill"], repr(order))
        r = find(p, "tiling")
        pages = set("%s#%s" % (h["page"], h["anchor"]) for h in r["hits"])
        check("search fixture: 'tiling' finds 'tiles' and 'Tile order' too (stems)",
              {"troubleshooting.html#tiling-mistakes", "gemm.html#tile-order"} <= pages, repr(sorted(pages)))
        typed, done = find(p, "conflictin"), find(p, "conflictin ")
        check("search fixture: a word being typed finds the words it begins; once ended by a space, it does not",
              "pipelines.html#conflicting-writes" in ["%s#%s" % (h["page"], h["anchor"]) for h in typed["hits"]]
              and not done["hits"], "%r / %r" % (typed["hits"][:2], done["hits"][:2]))
        r = find(p, "bank padding")
        check("search fixture: every word is required; with none holding both, the panel says what each lacks",
              not r["all"] and r["hits"] and all(len(h["missing"]) == 1 for h in r["hits"]), repr(r["hits"]))
        p.eval("document.getElementById('search').focus()")
        p.type("split")
        p.wait_for("document.querySelectorAll('#search-results a').length")
        p.key("ArrowDown")
        p.type("-K")
        p.wait_for("document.getElementById('search').value === 'split-K' && (document.querySelector("
                   "'#search-results a') || {}).hash === '#split-k'")
        check("search fixture: typing while in the results goes on in the box",
              p.eval("document.activeElement.id === 'search' && document.getElementById('search').value") ==
              "split-K", repr(p.eval("[document.activeElement.id, document.getElementById('search').value]")))
    finally:
        shutil.rmtree(tmp)


def test_phone(b, url, book):
    p = b.page(width=390, height=844, mobile=True)
    wide = []
    for name in pages(book):
        p.goto(url(name))
        # against the screen's 390 px: a phone browser widens innerWidth to fit content that overflows
        sw, iw = p.eval("[document.documentElement.scrollWidth, innerWidth]")
        if sw > 390 or iw > 390:
            wide.append("%s (%d px)" % (name, sw))
    check("phone: no page scrolls sideways at 390 px", not wide, ", ".join(wide))
    p.goto(url("h100-optimization-guide.html"))
    folded = p.eval("!document.querySelector('.pages ol').checkVisibility() && "
                    "document.querySelector('.side').getBoundingClientRect().height < 120")
    check("phone: the pages are folded behind the menu, the bar is short", folded,
          str(p.eval("document.querySelector('.side').getBoundingClientRect().height")))
    p.click(".menu > summary")
    shown = p.wait_for("(() => { const r = document.querySelector('.pages a[aria-current]').getBoundingClientRect(); "
                       "return r.height > 0 && r.width > 0 && r.bottom <= innerHeight; })()")
    check("phone: the menu opens and shows the pages", shown)
    p.eval("document.getElementById('search').focus()")
    p.type("occupancy")
    p.wait_for("document.querySelectorAll('#search-results a').length")
    r = p.eval("""(() => { const l = document.getElementById('search-results').getBoundingClientRect(),
      box = document.getElementById('search').getBoundingClientRect(), a = [...document.querySelectorAll(
      '#search-results a')].filter(a => { const r = a.getBoundingClientRect(); return r.top >= l.top &&
      r.bottom <= Math.min(l.bottom, innerHeight); });
      return {left: l.left, right: l.right, top: l.top, bottom: l.bottom, box: box.bottom, height: innerHeight,
              shown: a.length, page: document.documentElement.scrollWidth, font: parseFloat(getComputedStyle(
              document.querySelector('#search-results .snip')).fontSize), onTop: document.elementFromPoint(
              l.left + l.width / 2, a[0].getBoundingClientRect().top + 5).closest('#search-results') !== null}; })()""")
    check("phone: the search results take the screen's width under the box, three or more in view, readable",
          r["left"] >= 0 and r["right"] <= 390 and r["right"] - r["left"] >= 360 and r["top"] >= r["box"] and
          r["bottom"] <= r["height"] and r["shown"] >= 3 and r["page"] <= 390 and r["font"] >= 13 and r["onTop"],
          repr(r))
    href = p.eval("document.querySelector('#search-results a').getAttribute('href')")
    p.click("#search-results a")
    landed = p.wait_for("location.hash === %s && document.getElementById('search-results').hidden && "
                        "!document.querySelector('.menu').open" % json.dumps("#" + href.split("#")[1]))
    check("phone: tapping a result goes to it and folds the menu", landed, href)


def test_tables(b, url, book):
    """At 1400 px every table fits the text's column (its long names broken where lit marks them), folded ones
    ("The numbers") opened as a reader would; at 390 px one too wide for the phone scrolls in its own frame,
    with its text whole (book.js), and the page does not."""
    p = b.page(width=1400, height=900)
    wide, bare = [], 0
    for name in pages(book):
        p.goto(url(name))
        p.eval("document.querySelectorAll('article details').forEach(d => d.open = true)")
        r = p.eval("""(() => {
          const out = {bare: 0, wide: []};
          document.querySelectorAll('article table').forEach((t, i) => {
            const w = t.parentElement;
            if (!w.classList.contains('table-wrap')) { out.bare++; return; }
            if (w.scrollWidth > w.clientWidth + 1 || t.getBoundingClientRect().width > w.clientWidth + 1)
              out.wide.push('table ' + (i + 1) + ' ' + w.scrollWidth + ' > ' + w.clientWidth + ' px');
          });
          return out; })()""")
        bare += r["bare"]
        wide += ["%s: %s" % (name, w) for w in r["wide"]]
    check("tables: every table sits in a scrolling frame", bare == 0, "%d bare tables" % bare)
    check("tables: at 1400 px every table fits its column, none scrolls sideways", not wide,
          "%d wider: %s" % (len(wide), "; ".join(wide[:8])))
    p = b.page(width=390, height=844, mobile=True)
    scrolled = []
    for name in pages(book):
        p.goto(url(name))
        r = p.eval("""(() => {
          const out = [];
          for (const w of document.querySelectorAll('article .table-wrap')) {
            if (w.scrollWidth > w.clientWidth + 1) {
              w.scrollLeft = 200;
              out.push([w.scrollLeft > 0, w.tabIndex === 0, !!w.getAttribute('aria-label'),
                        document.documentElement.scrollWidth <= innerWidth, w.classList.contains('whole')]);
            }
          }
          return out; })()""")
        scrolled += [(name, w) for w in r]
    check("tables: at 390 px a wide table scrolls inside its frame, focusable and named, the page does not",
          scrolled and all(all(w[:4]) for _, w in scrolled), repr([x for x in scrolled if not all(x[1][:4])][:6]))
    check("tables: at 390 px a table that scrolls anyway keeps its text whole",
          scrolled and all(w[4] for _, w in scrolled), repr([x for x in scrolled if not x[1][4]][:6]))
    p.goto(url("h100-optimization-guide.html"))
    right = p.eval("[...document.querySelectorAll('article td')].filter(td => /^\\s*[0-9][0-9.,]*\\s*$/.test(td.textContent))"
                   ".map(td => getComputedStyle(td).textAlign)")
    check("tables: numeric cells are right-aligned", right and all(a == "right" for a in right),
          "%d of %d" % (sum(a == "right" for a in right or []), len(right or [])))


def test_axe(b, url, book):
    if not os.path.exists(AXE):
        check("accessibility: axe-core is installed (make deps)", False, AXE + " is missing")
        return
    with open(AXE, encoding="utf-8") as f:
        axe = f.read()
    problems = []
    for dark, width, names, query in ((False, 1400, pages(book), None), (True, 1400, pages(book), None),
                                      (False, 390, ["index.html", "h100-optimization-guide.html"], None),
                                      (False, 1400, ["index.html"], "bank conflict"),
                                      (True, 1400, ["index.html"], "kernel launch"),
                                      (False, 390, ["index.html"], "occupancy")):
        p = b.page(width=width, height=900, dark=dark, mobile=width < 500)
        for name in names:
            if name == "print.html":
                continue  # the same articles as the pages
            p.goto(url(name))
            if query:  # the search results open
                name += " (searching %r)" % query
                p.key("/", code="Slash", text="/")
                p.type(query)
                p.wait_for("document.querySelectorAll('#search-results a').length")
            p.eval(axe)
            res = p.eval("axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', "
                         "'wcag21aa', 'best-practice']}}).then(r => r.violations.filter(v => v.impact === 'serious' "
                         "|| v.impact === 'critical').map(v => [v.id, v.nodes.length, v.nodes[0].target.join(' '), "
                         "v.nodes[0].failureSummary]))")
            for v in res:
                problems.append("%s %s %d px: %s (%d nodes, first %s: %s)" % (
                    name, "dark" if dark else "light", width, v[0], v[1], v[2], v[3].replace("\n", " ")[:200]))
    check("accessibility: axe-core finds no serious or critical violation", not problems, "\n  " + "\n  ".join(
        problems[:15]))


def test_charts(b, url, book):
    p = b.page(width=1400, height=900)
    charts = 0
    bad = []
    for name in pages(book):
        if name == "print.html":
            continue
        p.goto(url(name))
        r = p.eval("""[...document.querySelectorAll('figure.chart')].map(f => {
          const svg = f.querySelector('svg'), box = svg && svg.getBoundingClientRect();
          return [!!svg, !!(svg && svg.querySelector('title') && svg.querySelector('title').textContent),
                  svg ? svg.querySelectorAll('text').length : 0, box ? box.width * box.height : 0,
                  svg ? svg.getAttribute('role') : null];
        })""")
        for i, c in enumerate(r):
            charts += 1
            if not (c[0] and c[1] and c[2] >= 3 and c[3] > 1000 and c[4] == "img"):
                bad.append("%s chart %d: %r" % (name, i + 1, c))
    check("charts: the book has charts", charts > 0, "no figure.chart in any page")
    check("charts: each is a drawn SVG with a title and text labels", not bad, "; ".join(bad))


# For every chart on the page: the plot shown (one of its layouts), its
# text's size on screen, and each text box against the plot and the others,
# as the browser drew them; a list of what is wrong, in words.
CHART_TEXT_JS = r"""(() => {
  const out = [], name = t => [...t.childNodes].filter(n => n.nodeName !== 'title')
    .map(n => n.textContent).join(' ');
  document.querySelectorAll('figure.chart').forEach((f, i) => {
    const title = f.querySelector('.chart-title') || f.querySelector('svg > title');
    const at = 'chart ' + (i + 1) + ' (' + (title ? title.textContent : 'no title') + ')';
    f.scrollIntoView();
    const shown = [...f.querySelectorAll('svg')].filter(s => s.getBoundingClientRect().width > 0);
    if (shown.length !== 1) { out.push(at + ': ' + shown.length + ' plots shown'); return; }
    const svg = shown[0], sb = svg.getBoundingClientRect(), plot = svg.parentElement;
    const scale = sb.width / svg.viewBox.baseVal.width;
    if (plot.scrollWidth > plot.clientWidth + 1)
      out.push(at + ': the plot is wider than its column (' + plot.scrollWidth + ' > ' + plot.clientWidth + ' px)');
    const boxes = [...svg.querySelectorAll('text')].map(t => [name(t), t.getBoundingClientRect(),
      parseFloat(getComputedStyle(t).fontSize) * scale]);
    for (const [s, r, px] of boxes) {
      if (px < 10) out.push(at + ': "' + s + '" is ' + px.toFixed(1) + ' px tall');
      if (r.left < sb.left - 0.5 || r.right > sb.right + 0.5 || r.top < sb.top - 0.5 || r.bottom > sb.bottom + 0.5)
        out.push(at + ': "' + s + '" leaves the plot');
    }
    for (let a = 0; a < boxes.length; a++)
      for (let b = 0; b < a; b++) {
        const p = boxes[a][1], q = boxes[b][1];
        if (Math.min(p.right, q.right) - Math.max(p.left, q.left) > 0.5 &&
            Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 0.5)
          out.push(at + ': "' + boxes[b][0] + '" and "' + boxes[a][0] + '" overlap');
      }
  });
  return out; })()"""


def test_chart_text(b, url, book):
    with_charts = []
    for name in pages(book):
        with open(os.path.join(book, name), encoding="utf-8") as f:
            if name != "print.html" and '<figure class="chart">' in f.read():
                with_charts.append(name)
    for width in (1400, 390):
        p = b.page(width=width, height=900, mobile=width < 500)
        bad = []
        for name in with_charts:
            p.goto(url(name))
            bad += ["%s %s" % (name, x) for x in p.eval(CHART_TEXT_JS)]
        check("charts at %d px: one plot each, text 10 px or more, inside the plot, none over another" % width,
              with_charts and not bad, "\n  " + "\n  ".join(bad[:20]) + ("\n  (%d in all)" % len(bad) if bad else ""))


def test_around(b, url, book):
    p = b.page(width=1400, height=900)
    p.goto(url("index.html"))
    before = p.eval("getComputedStyle(document.body).backgroundColor")
    p.click(".theme-toggle")
    after = p.eval("getComputedStyle(document.body).backgroundColor")
    p.goto(url("gpu-specs.html"))
    kept = p.eval("[document.documentElement.dataset.theme, getComputedStyle(document.body).backgroundColor]")
    check("theme: the switch changes the colours and is remembered on the next page",
          before != after and kept[0] == "dark" and kept[1] == after, "%s -> %s, then %r" % (before, after, kept))
    p.click(".theme-toggle")  # back to light for the rest
    # the last chapter: its entry in the sidebar is in view, not below its fold
    p.goto(url("troubleshooting.html"))
    seen = p.eval("(() => { const r = document.querySelector('.pages a[aria-current]').getBoundingClientRect(); "
                  "return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; })()")
    check("sidebar: the page being read is in view in the list of pages", seen)
    p.goto(url("rmsnorm.html"))
    n = p.eval("[document.querySelectorAll('article pre').length, document.querySelectorAll('article .copy').length]")
    check("code: every code block has a copy button", n[0] > 0 and n[0] == n[1], repr(n))
    ids = p.eval("[...document.querySelectorAll('.toc a')].map(a => a.getAttribute('href').slice(1))")
    target = ids[len(ids) // 2]
    p.eval("document.getElementById(%s).scrollIntoView(); window.dispatchEvent(new Event('scroll'))"
           % json.dumps(target))
    p.wait_for("(() => { const a = document.querySelector('.toc a[aria-current]'); "
               "return a && a.getAttribute('href') === %s; })()" % json.dumps("#" + target))
    cur = p.eval("document.querySelector('.toc a[aria-current]').getAttribute('href')")
    fixed = p.eval("getComputedStyle(document.querySelector('.toc')).position")
    check("contents: beside the text on a wide screen, marking the section being read",
          cur == "#" + target and fixed == "fixed", "%r, %s" % (cur, fixed))
    fig = p.eval("document.querySelector('figure.code[id]').id")
    p.goto(url("index.html"))
    p.goto(url("rmsnorm.html") + "#" + fig)
    p.wait_for("location.hash.length > 1")
    outline = p.eval("getComputedStyle(document.getElementById(%s)).outlineStyle" % json.dumps(fig))
    check("target: a landed-on code block is highlighted", outline == "solid", outline)
    p.goto(url("print.html"))
    titles = p.eval("document.querySelectorAll('section.print-page h1').length")
    n_pages = len([x for x in pages(book) if x not in ("print.html", "404.html", "chunks.html")])
    broken = p.eval("[...document.querySelectorAll('a[href^=\"#\"]')].filter(a => a.getAttribute('href').length > 1 "
                    "&& !document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1))))"
                    ".map(a => a.getAttribute('href')).slice(0, 5)")
    check("print: print.html holds every page, and its links stay inside it", titles == n_pages and not broken,
          "%d of %d pages, broken %r" % (titles, n_pages, broken))
    p.emulate(media="print")
    nowrap = p.eval("[...document.querySelectorAll('td[align=right]')].every(td => "
                    "getComputedStyle(td).whiteSpace === 'nowrap')")
    check("print: numbers in tables are not split across lines", nowrap)
    p.emulate()
    p.goto(url("404.html"))
    check("404: the not-found page links home", p.eval("!!document.querySelector('article a[href=\"index.html\"]')"))
    check("favicon: every page names the icon, and it is there",
          p.eval("document.querySelector('link[rel=icon]').getAttribute('href')") == "favicon.svg" and
          os.path.exists(os.path.join(book, "favicon.svg")))


def test_reader(b, url, book):
    """The bar on a phone, the menu's folding, the arrow keys, the theme
    switch's place, and what a print shows."""
    p = b.page(width=390, height=844, mobile=True)
    p.goto(url("h100-optimization-guide.html"))
    p.eval("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
    r = p.wait_for("(() => { const s = document.querySelector('.side').getBoundingClientRect(), "
                   "m = document.querySelector('.menu > summary').getBoundingClientRect(); "
                   "return scrollY > 2000 && s.top === 0 && m.bottom > 0 && m.bottom < 80 ? [scrollY, m.bottom] : null; })()")
    check("phone: the bar with the menu, search and theme stays at the top of a long page", bool(r), repr(r))
    p.click(".menu > summary")
    opened = p.wait_for("document.querySelector('.menu').open")
    p.key("Escape")
    esc = p.wait_for("!document.querySelector('.menu').open")
    check("phone: Esc folds the open menu", opened and esc)
    p.eval("document.querySelector('.menu').open = true")
    outside = p.eval("(() => { const e = document.elementFromPoint(6, innerHeight - 6); "
                     "return !!e && !e.closest('.menu') && !e.closest('a'); })()")
    p.click_at(6, 844 - 6)
    tap = p.wait_for("!document.querySelector('.menu').open")
    check("phone: a tap outside the open menu folds it", outside and tap, "outside=%r" % outside)

    p = b.page(width=1400, height=900)
    p.goto(url("troubleshooting.html"))
    t = p.eval("(() => { const b = document.querySelector('.theme-toggle'), r = b.getBoundingClientRect(); "
               "return [r.top, r.bottom, b.hidden]; })()")
    check("desktop: the theme switch sits at the top of the sidebar, in view, on the last chapter",
          t[0] >= 0 and t[1] <= 160 and not t[2], repr(t))
    p.goto(url("rmsnorm.html"))
    nxt = p.eval("document.querySelector('.pager a[rel=next]').getAttribute('href')")
    def focus():  # the page has the keyboard, as after a reader's first click (on the title's first letter)
        h1 = p.eval("(() => { const r = document.querySelector('article h1').getBoundingClientRect(); "
                    "return [r.left + 3, r.top + r.height / 2]; })()")
        p.click_at(h1[0], h1[1])
    focus()
    p.key("ArrowRight")
    went = p.wait_for("location.pathname.endsWith('/' + %s) && document.readyState === 'complete'" % json.dumps(nxt))
    focus()
    p.key("ArrowLeft")
    back = p.wait_for("location.pathname.endsWith('/rmsnorm.html')")
    check("keys: the right and left arrows turn to the next and the previous chapter", went and back, nxt)
    p.goto(url("gpu-specs.html"))
    p.click(".table-wrap")
    p.key("ArrowRight")
    time.sleep(0.3)
    check("keys: an arrow in a focused table scrolls the table, it does not turn the page",
          p.eval("location.pathname.endsWith('/gpu-specs.html')"))
    p.goto(url("gemm-results.html"))
    p.emulate(media="print")
    h = p.eval("[...document.querySelectorAll('article details.data:not([open]) table')].map(t => t.checkVisibility())")
    p.emulate()
    check("print: the folded tables ('The numbers') print", h and all(h), repr(h))


# Each chunk's caption, the start of its code, and each chapter's title in
# print.html, as the print shows them (whitespace is dropped: the PDF's text
# has none between its runs).
PRINT_PARTS_JS = r"""(() => ({
  figures: [...document.querySelectorAll('figure.code')].map(f => {
    const c = f.querySelector('figcaption'), l = c && c.querySelector('.label'), pre = f.querySelector('pre');
    return l && pre ? [l.textContent, c.textContent + pre.textContent.slice(0, 80)] : null; }).filter(x => x),
  titles: [...document.querySelectorAll('section.print-page h1')].map(h => [...h.childNodes]
    .filter(n => !(n.classList && n.classList.contains('anchor'))).map(n => n.textContent).join(''))
}))()"""


def test_print(b, url, book):
    """print.html printed to PDF, read page by page: no chunk's caption ends a
    page with its code on the next, and no page but a chapter's last holds
    only a few lines (a block kept whole for the next page left it blank)."""
    import unicodedata
    import pdftext

    def norm(t):
        return re.sub(r"\s+", "", unicodedata.normalize("NFKC", t))

    p = b.page(width=1400, height=900)
    p.goto(url("print.html"), timeout=60)
    p.emulate(media="print")
    parts = p.eval(PRINT_PARTS_JS)
    tmp = tempfile.mkdtemp()
    try:
        pdf = os.path.join(tmp, "print.pdf")
        p.pdf(pdf, timeout=600)
        texts = [norm(t) for t in pdftext.pages(pdf)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    p.emulate()
    figures = [(norm(label), norm(whole)) for label, whole in parts["figures"]]
    titles = [norm(t)[:40] for t in parts["titles"]]
    stranded, short = [], []
    for i, text in enumerate(texts[:-1]):
        tail, after = text[-600:], texts[i + 1]
        for label, whole in figures:
            k = tail.rfind(label)  # the page ends inside this caption, the rest of it and its code on the next
            if k >= 0 and whole.startswith(tail[k:]) and after.startswith(whole[len(tail) - k:][:20]):
                stranded.append("page %d: %s" % (i + 1, tail[k:][:60]))
                break
        if len(text) < 300 and not any(after.startswith(t) for t in titles):
            short.append("page %d: %s" % (i + 1, text[:60]))
    print("     print.html: %d PDF pages" % len(texts))
    check("print: print.html prints, a chapter title on a page", len(texts) > len(titles) and titles and all(
        any(t.startswith(x) for t in texts) for x in titles), "%d pages, %d titles" % (len(texts), len(titles)))
    check("print: no chunk's caption ends a page apart from its code", not stranded,
          "%d: %s" % (len(stranded), "; ".join(stranded[:6])))
    check("print: no page but a chapter's last is nearly blank", not short,
          "%d: %s" % (len(short), "; ".join(short[:6])))


# The printed column: print.html is printed on the browser's default paper
# (Letter, 8.5 in = 816 px) inside style.css's 1.6 cm page margins, as
# test_print does. A table wider than that runs off the paper, its right
# columns lost.
PRINT_COLUMN_PX = 816 - 2 * 1.6 / 2.54 * 96


def test_print_tables(b, url, book):
    """Every table of print.html, laid out for print on the printed column's width, fits it."""
    p = b.page(width=int(PRINT_COLUMN_PX), height=900)
    p.goto(url("print.html"), timeout=60)
    p.emulate(media="print")
    r = p.eval("""(() => { const w = document.querySelector('article').getBoundingClientRect().width;
      return [w, [...document.querySelectorAll('article table')].filter(t => t.getBoundingClientRect().width > w + 1)
        .map(t => Math.round(t.getBoundingClientRect().width) + ' px: ' + t.closest('section').querySelector('h1')
        .textContent.slice(0, 40) + ' (' + t.rows[0].cells.length + ' columns)')]; })()""")
    p.emulate()
    check("print: every table fits the printed page's width (%.0f px)" % PRINT_COLUMN_PX,
          abs(r[0] - PRINT_COLUMN_PX) < 2 and not r[1], "column %.0f px; %d wider: %s" % (
              r[0], len(r[1]), "; ".join(r[1][:6])))


def main():
    book = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "book")
    lit = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "gen", "build", "lit"))

    def url(name):
        return "file://" + os.path.join(book, name)

    t0 = time.time()
    with Browser() as b:
        for test in (lambda: test_search(b, url, book), lambda: test_search_words(b, url),
                     lambda: test_search_index_agrees(b, url), lambda: test_search_book(b, url, book),
                     lambda: test_search_fixture(b, lit), lambda: test_phone(b, url, book),
                     lambda: test_tables(b, url, book), lambda: test_charts(b, url, book),
                     lambda: test_chart_text(b, url, book),
                     lambda: test_around(b, url, book), lambda: test_reader(b, url, book),
                     lambda: test_print(b, url, book), lambda: test_print_tables(b, url, book),
                     lambda: test_axe(b, url, book)):
            try:
                test()
            except Exception as e:  # a broken page must not hide the other tests
                check("no exception", False, "%s: %s" % (type(e).__name__, e))
    print("(%.1f s)" % (time.time() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
