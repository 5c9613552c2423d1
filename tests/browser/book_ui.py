#!/usr/bin/env python3
"""tests/browser/book_ui.py BOOK_DIR: the book as a reader uses it, in headless Chromium.

Every page is opened from disk (file://) at 1400 and 390 pixels wide, and:
  - search: typing a query shows results; following one lands on its section;
  - phone: no page is wider than the screen; the menu opens and shows the
    pages, the page being read among them (also in the wide sidebar);
  - tables: a table wider than the text scrolls inside its own frame, which
    the keyboard can reach, and numeric columns are right-aligned;
  - accessibility: axe-core (tests/browser/node_modules, from `make deps`)
    finds no serious or critical violation, in the light and dark themes;
  - charts: every chart is an inline SVG with a title and text labels; at
    1400 and at 390 px one plot of each chart is shown, its text is at
    least 10 px tall on screen, no text leaves the plot or covers another,
    and the plot fits its column;
  - around the text: the theme switch is remembered, code blocks get a copy
    button, the contents list marks the section being read, a landed-on
    block is highlighted, print.html holds every page.
Ends with "N passed, N failed".
"""
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
AXE = os.path.join(HERE, "node_modules", "axe-core", "axe.min.js")

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


def test_search(b, url):
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
    p.key("Escape")
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
    check("search: a query with no match says so", none)


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


def test_tables(b, url, book):
    p = b.page(width=1400, height=900)
    scrolled = []
    bare = 0
    for name in pages(book):
        p.goto(url(name))
        r = p.eval("""(() => {
          const out = {bare: 0, wide: []};
          for (const t of document.querySelectorAll('article table')) {
            const w = t.parentElement;
            if (!w.classList.contains('table-wrap')) { out.bare++; continue; }
            if (w.scrollWidth > w.clientWidth + 1) {
              w.scrollLeft = 200;
              out.wide.push([w.scrollLeft > 0, w.tabIndex === 0, !!w.getAttribute('aria-label'),
                             document.documentElement.scrollWidth <= innerWidth]);
            }
          }
          return out; })()""")
        bare += r["bare"]
        scrolled += [(name, w) for w in r["wide"]]
    check("tables: every table sits in a scrolling frame", bare == 0, "%d bare tables" % bare)
    check("tables: at 1400 px a wide table scrolls inside its frame, focusable and named, the page does not",
          scrolled and all(all(w) for _, w in scrolled), repr(scrolled))
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
    for dark, width, names in ((False, 1400, pages(book)), (True, 1400, pages(book)),
                               (False, 390, ["index.html", "h100-optimization-guide.html"])):
        p = b.page(width=width, height=900, dark=dark, mobile=width < 500)
        for name in names:
            if name == "print.html":
                continue  # the same articles as the pages
            p.goto(url(name))
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


def main():
    book = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "book")

    def url(name):
        return "file://" + os.path.join(book, name)

    t0 = time.time()
    with Browser() as b:
        for test in (lambda: test_search(b, url), lambda: test_phone(b, url, book),
                     lambda: test_tables(b, url, book), lambda: test_charts(b, url, book),
                     lambda: test_chart_text(b, url, book),
                     lambda: test_around(b, url, book), lambda: test_axe(b, url, book)):
            try:
                test()
            except Exception as e:  # a broken page must not hide the other tests
                check("no exception", False, "%s: %s" % (type(e).__name__, e))
    print("(%.1f s)" % (time.time() - t0))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
