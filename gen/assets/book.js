/* book.js: the book's only script (lit writes it; edit gen/assets/book.js).
 * Every page reads without it; it adds the theme switch, search, the
 * contents list's current section, copy buttons and whole text in tables
 * that scroll. No network: the search index is search-index.js beside the
 * pages, so it works from file:// too. */
(function () {
  "use strict";
  var root = document.documentElement;
  var stored = null;
  try { stored = localStorage.getItem("lit-theme"); } catch (e) { /* storage may be off */ }
  if (stored === "light" || stored === "dark") root.setAttribute("data-theme", stored);

  function dark() {
    var t = root.getAttribute("data-theme");
    if (t) return t === "dark";
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches;
  }

  function setupTheme() {
    var b = document.querySelector(".theme-toggle");
    if (!b) return;
    function label() {
      var d = dark();
      b.textContent = d ? "\u2600 Light" : "\u263e Dark";
      b.setAttribute("aria-label", d ? "Switch to the light theme" : "Switch to the dark theme");
    }
    b.hidden = false;
    label();
    b.addEventListener("click", function () {
      var next = dark() ? "light" : "dark";
      root.setAttribute("data-theme", next);
      try { localStorage.setItem("lit-theme", next); } catch (e) { /* not remembered, still switched */ }
      label();
    });
  }

  /* The list of pages scrolls inside its own frame (the phone menu, the
     sidebar): bring the page being read into it, a third of the way down,
     so that a chapter late in the book is not below the frame's fold. */
  function showCurrentPage() {
    var a = document.querySelector(".pages a[aria-current]");
    if (!a) return;
    for (var el = a.parentElement; el && el !== document.body; el = el.parentElement) {
      var y = getComputedStyle(el).overflowY;
      if (el.scrollHeight <= el.clientHeight + 1 || (y !== "auto" && y !== "scroll")) continue;
      var top = a.getBoundingClientRect().top - el.getBoundingClientRect().top;
      if (top < 0 || top + a.offsetHeight > el.clientHeight) el.scrollTop += top - el.clientHeight / 3;
      return;
    }
  }

  /* The width from which the menu is a sidebar (style.css's breakpoint);
     a browser without matchMedia is taken for a wide screen. */
  var SIDEBAR = "(min-width: 64rem)";
  var sidebar = window.matchMedia ? matchMedia(SIDEBAR) : { matches: true };

  /* The phone menu folds again on Esc or a tap outside it; on a wide screen
     it is the sidebar and stays. Browsers without ::details-content keep
     the menu and the contents folded on a wide screen: open them there. */
  function setupMenu() {
    var menu = document.querySelector(".menu");
    if (menu) {
      menu.addEventListener("toggle", function () { if (menu.open) showCurrentPage(); });
      document.addEventListener("keydown", function (e) {
        /* Esc in the search box is the search's own (it closes the results first) */
        if (e.key !== "Escape" || !menu.open || sidebar.matches || (e.target.closest && e.target.closest(".search"))) return;
        menu.open = false;
        var s = menu.querySelector("summary");
        if (s) s.focus();
      });
      document.addEventListener("click", function (e) {
        if (menu.open && !sidebar.matches && !menu.contains(e.target)) menu.open = false;
      });
    }
    showCurrentPage();
    if (!window.matchMedia) return;
    [[".menu", SIDEBAR], [".toc", "(min-width: 80rem)"]].forEach(function (m) {
      var el = document.querySelector(m[0]), wide = matchMedia(m[1]);
      if (!el) return;
      function apply() { if (wide.matches) el.open = true; }
      apply();
      if (wide.addEventListener) wide.addEventListener("change", apply);
    });
  }

  /* The contents list marks the section being read. */
  function setupToc() {
    var links = document.querySelectorAll(".toc a[href^='#']");
    if (!links.length) return;
    var byId = {}, heads = [];
    links.forEach(function (a) {
      var id = decodeURIComponent(a.getAttribute("href").slice(1)), h = document.getElementById(id);
      if (h) { byId[id] = a; heads.push(h); }
    });
    var current = null, queued = false;
    function update() {
      queued = false;
      var best = heads[0];
      for (var i = 0; i < heads.length; i++) {
        if (heads[i].getBoundingClientRect().top <= 90) best = heads[i]; else break;
      }
      var a = best && byId[best.id];
      if (a === current) return;
      if (current) current.removeAttribute("aria-current");
      if (a) a.setAttribute("aria-current", "true");
      current = a;
    }
    window.addEventListener("scroll", function () {
      if (!queued) { queued = true; setTimeout(update, 50); }
    }, { passive: true });
    update();
  }

  function setupCopy() {
    document.querySelectorAll("article pre").forEach(function (pre) {
      var wrap = document.createElement("div");
      wrap.className = "pre-wrap";
      pre.parentNode.insertBefore(wrap, pre);
      wrap.appendChild(pre);
      var b = document.createElement("button");
      b.type = "button";
      b.className = "copy";
      b.textContent = "Copy";
      b.setAttribute("aria-label", "Copy this code");
      b.addEventListener("click", function () {
        var text = pre.innerText;
        function done(ok) {
          b.textContent = ok ? "Copied" : "Press Ctrl+C";
          setTimeout(function () { b.textContent = "Copy"; }, 1500);
        }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(fallback(pre)); });
        } else {
          done(fallback(pre));
        }
      });
      wrap.appendChild(b);
    });
  }

  function fallback(pre) { /* select the code so the reader can copy it */
    var r = document.createRange();
    r.selectNodeContents(pre);
    var s = getSelection();
    s.removeAllRanges();
    s.addRange(r);
    try { return document.execCommand("copy"); } catch (e) { return false; }
  }

  /* ---- search ----
   * search-index.js (gen/book_search.c writes it; book_search.h says how)
   * calls litSearchIndex with the stemmer's rules, the pages [file, title],
   * the sections [page, anchor, heading, text] and the dictionary: the sorted
   * terms, each term's sections, and the words whose stem differs from them.
   * A query is cut into words and stemmed here by the same rules as the index,
   * so "bank conflict" finds "bank conflicts". Every word is required; a word
   * of several parts ("split-K") is found as its joined term ("splitk") or as
   * its parts side by side; the word being typed also finds the words it
   * begins. Sections rank by where the words are (the page's title, the
   * section's heading, its text), then by how close together they are, then
   * by how often they occur. When no section holds every word, the sections
   * that hold the most of them are shown, each saying which words it lacks. */
  var LIMIT = 50;
  var STOP = {}; /* left out of a query of other words too: they would only narrow it by chance */
  "a an and are as at be by for from how in is it of on or the to what when why with".split(" ").forEach(function (w) {
    STOP[w] = true;
  });
  var index = null, loading = false, waiting = [];

  window.litSearchIndex = function (data) {
    index = {
      rules: data.stem, pages: data.pages, sections: data.sections, post: data.post, decoded: [],
      terms: data.terms ? data.terms.split(" ") : [], words: data.words ? data.words.split(" ") : [],
      wordTerms: data.wordTerms ? data.wordTerms.split(",").map(function (x) { return parseInt(x, 36); }) : [],
      ids: new Map(), stems: new Map(), tokens: new Map(), breaks: new Map()
    };
    index.terms.forEach(function (t, i) { index.ids.set(t, i); });
    index.forms = []; /* term -> the words whose stem it is, besides itself */
    index.words.forEach(function (w, i) { (index.forms[index.wordTerms[i]] || (index.forms[index.wordTerms[i]] = [])).push(w); });
    waiting.forEach(function (f) { f(); });
    waiting = [];
    warm();
  };

  /* Reads the sections' words ahead, 8 ms at a time between the page's other work (keys, drawing), from the
   * moment the index arrives: the words typed next are then matched in words already read. */
  function warm() {
    var next = 0;
    function slice() {
      var stop = performance.now() + 8;
      while (next < index.sections.length && performance.now() < stop) textTokens(next++);
      if (next < index.sections.length) setTimeout(slice, 0);
    }
    setTimeout(slice, 0);
  }

  function withIndex(f) {
    if (index) return f();
    waiting.push(f);
    if (loading) return;
    loading = true;
    var s = document.createElement("script");
    s.src = "search-index.js";
    document.head.appendChild(s);
  }

  function esc(s) {
    return s.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }

  /* The stem of a lowercase word: book_search.c's lit_search_stem, on the rules the index carries. */
  function stem(word) {
    var w = index.stems.get(word), rules = index.rules;
    if (w !== undefined) return w;
    w = word;
    for (var step = 1; step <= 3; step++) {
      for (var r = 0; r < rules.length; r++) {
        var x = rules[r], suffix = x[1];
        if (x[0] !== step || suffix.length > w.length || w.slice(w.length - suffix.length) !== suffix) continue;
        var base = w.slice(0, w.length - suffix.length);
        if (base.length < x[3] || ((x[4] & 1) && !/[aeiouy]/.test(base))) continue;
        w = base + x[2];
        var n = w.length, last = w.charAt(n - 1);
        if ((x[4] & 2) && n >= 4 && last === w.charAt(n - 2) && "aeiouylsz".indexOf(last) < 0) w = w.slice(0, -1);
        break;
      }
    }
    index.stems.set(word, w);
    return w;
  }

  function isDigit(c) { return c >= 48 && c <= 57; }
  function isUpper(c) { return c >= 65 && c <= 90; }
  function isLower(c) { return c >= 97 && c <= 122; }
  function isAlpha(c) { return isUpper(c) || isLower(c); }
  function isAlnum(c) { return isDigit(c) || isAlpha(c); }

  /* Whether a word's part ends before t[k] (book_search.c's S_case_cut). */
  function caseCut(t, k, end) {
    var a = t.charCodeAt(k - 1);
    if (!isUpper(t.charCodeAt(k))) return false;
    if (isLower(a)) return true;
    if (isDigit(a)) return k + 1 < end && isLower(t.charCodeAt(k + 1));
    return isUpper(a) && k + 2 < end && isLower(t.charCodeAt(k + 1)) && isLower(t.charCodeAt(k + 2));
  }

  /* Calls f(stem, raw, start, end, joined, wordStart) for each term of t, as lit_search_terms does (with
   * unstemmed, stem is null: the words of a section's text are matched by the forms of the query's terms,
   * which the index lists, without stemming each). A word (S_word_end): letters and digits, joined by one - or
   * _ between two of them, or by a dot between two letters. */
  function eachTerm(t, f, unstemmed) {
    var st = unstemmed ? function () { return null; } : stem;
    for (var i = 0, n = t.length; i < n;) {
      var c = t.charCodeAt(i);
      if (!isAlnum(c)) { i++; continue; }
      var end = i + 1, plain = !isUpper(c);
      for (; end < n; end++) {
        c = t.charCodeAt(end);
        if (isLower(c) || isDigit(c)) continue;
        if (isUpper(c)) { plain = false; continue; }
        if (end + 1 < n && isAlnum(t.charCodeAt(end + 1)) && (c === 45 || c === 95 ||
            (c === 46 && isAlpha(t.charCodeAt(end - 1)) && isAlpha(t.charCodeAt(end + 1))))) { plain = false; continue; }
        break;
      }
      if (plain) { /* one part, lowercase already */
        var w = t.slice(i, end);
        f(st(w), w, i, end, false, i);
        i = end;
        continue;
      }
      var from = i, parts = 0, joined = "";
      for (var k = i + 1; ; k++) {
        var join = k < end && !isAlnum(t.charCodeAt(k));
        if (k < end && !join && !caseCut(t, k, end)) continue;
        var raw = t.slice(from, k).toLowerCase();
        f(st(raw), raw, from, k, false, i);
        joined += raw;
        parts++;
        if (k === end) break;
        from = join ? k + 1 : k;
      }
      if (parts > 1) f(st(joined), joined, i, end, true, i);
      i = end;
    }
  }

  /* A text's words, kept: the parts by position (one after another), and the joined ones at their first part's;
   * lowercase, not stemmed; and where each word is (parts: the positions; joined: their places in js). */
  function tokens(key, t) {
    var x = index.tokens.get(key);
    if (x) return x;
    x = { t: t, ps: [], pa: [], pb: [], js: [], ja: [], jb: [], jp: [], at: new Map(), jat: new Map() };
    var word = -1, first = 0;
    eachTerm(t, function (s, raw, a, b, joined, w) {
      if (w !== word) { word = w; first = x.ps.length; }
      var list = joined ? x.jat : x.at, places = list.get(raw);
      if (!places) list.set(raw, places = []);
      if (joined) { places.push(x.js.length); x.js.push(raw); x.ja.push(a); x.jb.push(b); x.jp.push(first); }
      else { places.push(x.ps.length); x.ps.push(raw); x.pa.push(a); x.pb.push(b); }
    }, true);
    index.tokens.set(key, x);
    return x;
  }

  /* Whether part j of a text follows part j - 1 as in one word: no gap ("splitK"), or one space, - _ or . */
  function adjoins(x, j) {
    var gap = x.pa[j] - x.pb[j - 1];
    return gap === 0 || (gap === 1 && /[\s\-_.]/.test(x.t.charAt(x.pb[j - 1])));
  }

  /* Where query word w is in a text's words: [position, start, end], by position. A word of several parts
   * is there as its joined word, or as its parts one after another as if in one word ("split K"). */
  function match(x, w) {
    var out = [];
    w.forms.forEach(function (f) {
      (x.jat.get(f) || []).forEach(function (i) { out.push([x.jp[i], x.ja[i], x.jb[i]]); });
      if (!w.parts) (x.at.get(f) || []).forEach(function (i) { out.push([i, x.pa[i], x.pb[i]]); });
    });
    if (w.parts) {
      var np = w.parts.length;
      w.parts[0].forms.forEach(function (f) {
        (x.at.get(f) || []).forEach(function (i) {
          if (i + np > x.ps.length) return;
          for (var k = 1; k < np; k++) if (!w.parts[k].forms.has(x.ps[i + k]) || !adjoins(x, i + k)) return;
          out.push([i, x.pa[i], x.pb[i + np - 1]]);
        });
      });
    }
    out.sort(function (p, q) { return p[0] - q[0] || p[1] - q[1]; });
    return out;
  }

  /* A term's sections, decoded once: section, fields (1 text, 2 heading, 4 page title), count in the text. */
  function postings(id) {
    var d = index.decoded[id];
    if (d) return d;
    d = [];
    var at = 0;
    index.post[id].split(",").forEach(function (e) {
      var m = /^([0-9a-z]+)(?:\.([0-7]))?(?::([0-9a-z]+))?$/.exec(e), f = m[2] ? +m[2] : 1;
      at += parseInt(m[1], 36);
      d.push(at, f, m[3] ? parseInt(m[3], 36) : f & 1);
    });
    index.decoded[id] = d;
    return d;
  }

  function lowerBound(a, x) {
    var lo = 0, hi = a.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (a[m] < x) lo = m + 1; else hi = m; }
    return lo;
  }

  /* The terms a query word finds: its stem's, and while it is being typed (two letters or more) every term
   * and word it begins. {ids: term numbers, forms: the words of the book that have those terms}. */
  function lookup(raw, prefix) {
    var ids = [], s = stem(raw), i;
    if (index.ids.has(s)) ids.push(index.ids.get(s));
    if (prefix && raw.length >= 2) {
      for (i = lowerBound(index.terms, raw); i < index.terms.length && index.terms[i].lastIndexOf(raw, 0) === 0; i++)
        ids.push(i);
      for (i = lowerBound(index.words, raw); i < index.words.length && index.words[i].lastIndexOf(raw, 0) === 0; i++)
        ids.push(index.wordTerms[i]);
    }
    ids = Array.from(new Set(ids));
    var forms = new Set();
    ids.forEach(function (id) {
      forms.add(index.terms[id]);
      (index.forms[id] || []).forEach(function (f) { forms.add(f); });
    });
    return { ids: ids, forms: forms };
  }

  /* The query's words: {text, ids, forms, parts (of a word of several parts: [{ids, forms}])}. */
  function parse(q) {
    var words = [], typing = !/\s$/.test(q), last = q.replace(/\s+$/, "").length;
    eachTerm(q, function (s, raw, a, b, joined, w) {
      var cur = words.length && words[words.length - 1].at === w ? words[words.length - 1] : null;
      if (!cur) words.push(cur = { at: w, end: b, raw: [], joined: null });
      if (joined) cur.joined = raw; else { cur.raw.push(raw); cur.end = b; }
    });
    var content = words.filter(function (w) { return w.raw.length > 1 || !STOP[w.raw[0]]; });
    if (content.length) words = content;
    var seen = {};
    return words.filter(function (w) {
      var key = w.raw.join("-");
      if (seen[key]) return false;
      seen[key] = true;
      var prefix = typing && w.end === last, one = lookup(w.joined || w.raw[0], prefix);
      w.text = q.slice(w.at, w.end);
      w.ids = one.ids;
      w.forms = one.forms;
      w.parts = w.joined ? w.raw.map(function (r, i) { return lookup(r, prefix && i === w.raw.length - 1); }) : null;
      return true;
    });
  }

  /* The sections that hold ids: section -> [fields, count, to check]. */
  function gather(ids) {
    var m = new Map();
    ids.forEach(function (id) {
      var d = postings(id);
      for (var k = 0; k < d.length; k += 3) {
        var e = m.get(d[k]);
        if (e) { e[0] |= d[k + 1]; e[1] += d[k + 2]; } else m.set(d[k], [d[k + 1], d[k + 2], false]);
      }
    });
    return m;
  }

  /* The sections that may hold query word w: where its term is, and, for a word of several parts, where all
   * its parts are (whether side by side is checked in the text, by where()). */
  function candidates(w) {
    var m = gather(w.ids);
    if (w.parts) {
      var pm = w.parts.map(function (p) { return gather(p.ids); });
      pm.sort(function (a, b) { return a.size - b.size; });
      pm[0].forEach(function (e, s) {
        if (!m.has(s) && pm.every(function (x) { return x.has(s); })) m.set(s, [0, 0, true]);
      });
    }
    return m;
  }

  function textTokens(sec) { return tokens("t" + sec, index.sections[sec][3]); }

  /* Query word w in section sec, read from the section's own terms: [fields, count]. */
  function where(sec, w) {
    var s = index.sections[sec], hits = match(textTokens(sec), w).length;
    return [(hits ? 1 : 0) | (match(tokens("h" + sec, s[2]), w).length ? 2 : 0) |
            (match(tokens("p" + s[0], index.pages[s[0]][1]), w).length ? 4 : 0), hits];
  }

  /* The fewest terms of the text that hold one place of each query word found there: a sweep over each
   * word's places, in order, always moving on the word whose place is first. */
  function span(sec, words) {
    var x = textTokens(sec), lists = [];
    words.forEach(function (w) { var m = match(x, w); if (m.length) lists.push(m); });
    if (lists.length < 2) return 0;
    var at = lists.map(function () { return 0; }), best = Infinity;
    for (;;) {
      var lo = 0, hi = -1;
      for (var k = 0; k < lists.length; k++) {
        var pos = lists[k][at[k]][0];
        if (pos < lists[lo][at[lo]][0]) lo = k;
        if (pos > hi) hi = pos;
      }
      best = Math.min(best, hi - lists[lo][at[lo]][0]);
      if (++at[lo] === lists[lo].length) return best;
    }
  }

  /* How much of the section's heading the query's words are: of two headings that hold them, the one with
   * fewer other words is the closer match ("Block size and occupancy" before "Block size, occupancy and waves"). */
  function cover(sec, words) {
    var s = index.sections[sec], x = tokens("h" + sec, s[2]), hit = {}, n = 0;
    words.forEach(function (w) { match(x, w).forEach(function (m) { if (!hit[m[0]]) { hit[m[0]] = true; n++; } }); });
    return x.ps.length ? n / x.ps.length : 0;
  }

  function rank(sec, words, maps, all) {
    var h = { sec: sec, found: 0, field: 0, span: 0, count: 0, missing: [] };
    for (var i = 0; i < words.length; i++) {
      var e = maps[i].get(sec);
      if (e && e[2]) e = where(sec, words[i]);
      if (!e || !e[0]) {
        if (all) return null;
        h.missing.push(words[i].text);
        continue;
      }
      h.found++;
      h.field += e[0];
      h.count += Math.min(e[1], 20);
    }
    return h;
  }

  /* The best sections for query q: {words, hits: [{sec, missing}], total, all (every word in every hit), ms}. */
  function find(q) {
    var t0 = performance.now(), words = parse(q), hits = [], all = true;
    if (words.length) {
      var maps = words.map(candidates);
      var order = maps.map(function (m, i) { return i; }).sort(function (a, b) { return maps[a].size - maps[b].size; });
      maps[order[0]].forEach(function (e, sec) {
        if (!order.every(function (i) { return maps[i].has(sec); })) return;
        var h = rank(sec, words, maps, true);
        if (h) hits.push(h);
      });
      if (!hits.length && words.length > 1) { /* nothing holds them all: the sections with the most of them */
        all = false;
        var any = new Set();
        maps.forEach(function (m) { m.forEach(function (e, sec) { any.add(sec); }); });
        any.forEach(function (sec) { var h = rank(sec, words, maps, false); if (h && h.found) hits.push(h); });
      }
    }
    var total = hits.length;
    hits.sort(function (a, b) { return b.found - a.found || b.field - a.field || a.sec - b.sec; });
    if (words.length > 1 && hits.length) {
      /* how close together the words are decides among sections found alike: measured where it can count,
       * in the first LIMIT and the sections tied with the last of them */
      var edge = hits[Math.min(LIMIT, hits.length) - 1], n = Math.min(LIMIT, hits.length);
      while (n < hits.length && hits[n].found === edge.found && hits[n].field === edge.field) n++;
      hits = hits.slice(0, n);
      hits.forEach(function (h) { h.span = span(h.sec, words); });
    }
    hits.forEach(function (h) { h.cover = cover(h.sec, words); });
    hits.sort(function (a, b) {
      return b.found - a.found || b.field - a.field || b.cover - a.cover || a.span - b.span || b.count - a.count ||
        a.sec - b.sec;
    });
    return { words: words, hits: hits.slice(0, LIMIT), total: total, all: all, ms: performance.now() - t0 };
  }

  /* HTML of t[from, to) with the places of the query's words marked. */
  function marked(t, x, words, from, to) {
    var spans = [];
    words.forEach(function (w) {
      match(x, w).forEach(function (m) { if (m[1] < to && m[2] > from) spans.push([Math.max(m[1], from), Math.min(m[2], to)]); });
    });
    spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var out = "", at = from;
    spans.forEach(function (s) {
      if (s[1] <= at) return;
      var a = Math.max(s[0], at);
      out += esc(t.slice(at, a)) + "<mark>" + esc(t.slice(a, s[1])) + "</mark>";
      at = s[1];
    });
    return out + esc(t.slice(at, to));
  }

  /* Where the text's sentences start: after a line's end, or after . ! ? and a space. */
  function sentences(sec) {
    var b = index.breaks.get(sec);
    if (b) return b;
    var t = index.sections[sec][3], re = /\n|[.!?](?= )/g, m;
    b = [0];
    while ((m = re.exec(t))) b.push(m.index + 1);
    b.push(t.length);
    index.breaks.set(sec, b);
    return b;
  }

  /* The sentence of section sec that holds the most of the query's words (the first such), marked, cut to
   * about 240 characters around them. */
  function snippet(sec, words) {
    var t = index.sections[sec][3], x = textTokens(sec), b = sentences(sec), per = {}, best = -1;
    words.forEach(function (w, i) {
      match(x, w).forEach(function (m) {
        var s = lowerBound(b, m[1] + 1) - 1, k = per[s] || (per[s] = { words: {}, n: 0, first: m[1] });
        if (!k.words[i]) { k.words[i] = true; k.n++; }
        k.first = Math.min(k.first, m[1]);
      });
    });
    Object.keys(per).forEach(function (s) {
      s = +s;
      if (best < 0 || per[s].n > per[best].n || (per[s].n === per[best].n && s < best)) best = s;
    });
    var from = best < 0 ? 0 : b[best], to = best < 0 ? t.length : b[best + 1];
    while (from < to && /\s/.test(t.charAt(from))) from++;
    while (to > from && /\s/.test(t.charAt(to - 1))) to--;
    if (to - from > 240) {
      var first = best < 0 ? from : per[best].first, a = Math.max(from, first - 80);
      if (a > from) { var sp = t.indexOf(" ", a); a = sp >= 0 && sp < first ? sp + 1 : a; }
      var z = Math.min(to, a + 240);
      if (z < to) { var sz = t.lastIndexOf(" ", z); z = sz > a ? sz : z; }
      return (a > from ? "\u2026" : "") + marked(t, x, words, a, z) + (z < to ? "\u2026" : "");
    }
    return marked(t, x, words, from, to);
  }

  /* The results, grouped by page (in the order of each page's best section): the page's title once, then each
   * section's heading and its matching sentence. */
  var FIRST = 12; /* results whose sentence is found before the panel is shown; the others' come just after */

  function resultsHtml(q, r) {
    if (!r.hits.length) return "<li class=\"none\">Nothing found for \u201c" + esc(q) + "\u201d.</li>";
    var groups = [], byPage = {};
    r.hits.forEach(function (h) {
      var page = index.sections[h.sec][0];
      if (!byPage[page]) groups.push(byPage[page] = { page: page, hits: [] });
      byPage[page].hits.push(h);
    });
    var n = r.hits.length, note = r.all ?
      (r.total > n ? "The best " + n + " of " + r.total + " sections" : n + (n === 1 ? " section" : " sections")) +
        " on " + groups.length + (groups.length === 1 ? " page" : " pages") :
      "No section holds every word; these hold the most of them";
    var listed = 0, html = "<li class=\"note\"><span>" + esc(note) + "</span><span class=\"keys\">\u2191 \u2193 to move, " +
      "Enter to open, Esc to close</span></li>";
    groups.forEach(function (g) {
      var title = index.pages[g.page][1];
      html += "<li class=\"group\"><p class=\"where\">" + marked(title, tokens("p" + g.page, title), r.words, 0,
        title.length) + "</p><ul>";
      g.hits.forEach(function (h) {
        var s = index.sections[h.sec], href = index.pages[s[0]][0] + (s[1] ? "#" + s[1] : "");
        var head = s[1] ? marked(s[2], tokens("h" + h.sec, s[2]), r.words, 0, s[2].length) : "Introduction";
        html += "<li><a href=\"" + esc(href) + "\"><span class=\"title\">" + head + "</span>" +
          (++listed <= FIRST ? "<span class=\"snip\">" + snippet(h.sec, r.words) :
           "<span class=\"snip\" data-sec=\"" + h.sec + "\">") + "</span>" + (h.missing.length ? "<span class=\"missing\">Missing: " +
          h.missing.map(function (m) { return "<s>" + esc(m) + "</s>"; }).join(" ") + "</span>" : "") + "</a></li>";
      });
      html += "</ul></li>";
    });
    return html;
  }

  function setupSearch() {
    var box = document.querySelector(".search"), input = document.getElementById("search");
    var list = document.getElementById("search-results"), status = document.getElementById("search-status");
    if (!box || !input || !list) return;
    box.hidden = false;
    input.setAttribute("aria-controls", "search-results");
    list.setAttribute("aria-label", "Search results");
    /* On a phone the panel hangs under the search box, down to the screen's foot; on a wide screen the
     * stylesheet puts it over the text, beside the sidebar. */
    function place() {
      if (list.hidden || sidebar.matches) { list.style.top = list.style.maxHeight = ""; return; }
      var top = Math.max(0, input.getBoundingClientRect().bottom + 6);
      list.style.top = top + "px";
      list.style.maxHeight = Math.max(120, innerHeight - top - 8) + "px";
    }
    var generation = 0; /* of the results shown: a later query stops the filling of an earlier one's */
    function close() { list.hidden = true; }
    function render() {
      var q = input.value;
      if (!q.trim()) { generation++; close(); list.innerHTML = ""; status.textContent = ""; return; }
      withIndex(function () {
        if (input.value !== q) return;
        var r = find(q), shown = ++generation;
        window.litSearch.lastMs = r.ms;
        list.innerHTML = resultsHtml(q.trim(), r);
        var rest = list.querySelectorAll(".snip[data-sec]"), k = 0;
        function fill() { /* the sentences of the results past the first few, a few milliseconds at a time */
          if (shown !== generation) return;
          for (var stop = performance.now() + 8; k < rest.length && performance.now() < stop; k++) {
            rest[k].innerHTML = snippet(+rest[k].getAttribute("data-sec"), r.words);
            rest[k].removeAttribute("data-sec");
          }
          if (k < rest.length) setTimeout(fill, 0);
        }
        setTimeout(fill, 0);
        list.scrollTop = 0;
        list.hidden = false;
        place();
        status.textContent = r.hits.length ? r.hits.length + (r.total > r.hits.length ? "+" : "") + " results" +
          (r.all ? "" : ", none with every word") : "no results";
      });
    }
    input.addEventListener("focus", function () { withIndex(function () {}); });
    input.addEventListener("click", function () { if (list.hidden && input.value.trim()) render(); });
    input.addEventListener("input", render);
    function links() { return Array.prototype.slice.call(list.querySelectorAll("a")); }
    function move(by) {
      var all = links(), i = all.indexOf(document.activeElement);
      if (!all.length) return;
      var next = i + by;
      if (next < 0) { input.focus(); return; }
      all[Math.min(next, all.length - 1)].focus();
    }
    box.addEventListener("keydown", function (e) {
      var inList = list.contains(document.activeElement);
      if (e.key === "ArrowDown") { e.preventDefault(); if (list.hidden) render(); else move(1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); move(-1); }
      else if (e.key === "Enter" && document.activeElement === input) {
        var first = links()[0];
        if (first && !list.hidden) { e.preventDefault(); first.click(); }
      } else if (e.key === "Escape") {
        if (inList) { close(); input.focus(); }
        else { input.value = ""; render(); input.blur(); }
      } else if (inList && e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
        input.focus(); /* typing goes on in the box */
      }
    });
    list.addEventListener("click", function (e) { /* a hit on this page: close the list and the phone menu */
      var a = e.target.closest && e.target.closest("a");
      if (!a) return;
      close();
      var menu = document.querySelector(".menu");
      if (menu && !sidebar.matches) menu.open = false;
    });
    document.addEventListener("click", function (e) { if (!box.contains(e.target)) close(); });
    window.addEventListener("resize", place);
    window.addEventListener("scroll", place, { passive: true });
    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || (e.key !== "/" && e.key !== "s")) return;
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      e.preventDefault();
      var menu = document.querySelector(".menu");
      if (menu) menu.open = true;
      input.focus();
      input.select();
    });
  }

  /* For the tests (tests/browser/book_ui.py) and the curious: the search's own words and ranking. */
  window.litSearch = {
    ready: function (f) { withIndex(f); },
    index: function () { return index; },
    stem: function (w) { return stem(w); },
    terms: function (t) {
      var out = [];
      eachTerm(t, function (s, raw, a, b, joined) { out.push([s, a, b, joined]); });
      return out;
    },
    find: function (q) {
      var r = find(q);
      return { all: r.all, total: r.total, ms: r.ms, hits: r.hits.map(function (h) {
        var s = index.sections[h.sec];
        return { page: index.pages[s[0]][0], anchor: s[1], heading: s[2], missing: h.missing };
      }) };
    },
    lastMs: null
  };

  /* Left and right arrows turn to the previous and next chapter (as in
     mdBook), unless a field, a scrolling table or code block, or a modifier
     has them. */
  function setupKeys() {
    document.addEventListener("keydown", function (e) {
      if ((e.key !== "ArrowLeft" && e.key !== "ArrowRight") || e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (t && t.closest && t.closest(".table-wrap, pre, .plot, .search-results")) return;
      var a = document.querySelector(".pager a[rel=" + (e.key === "ArrowLeft" ? "prev" : "next") + "]");
      if (!a) return;
      e.preventDefault();
      location.href = a.href;
    });
  }

  /* lit marks where a table's long names and number cells may break, so
     that the table fits the text's column. A table too wide to fit even so
     (on a phone, mostly) scrolls in its frame anyway and reads better with
     its text whole: its frame is marked "whole", which takes the breaks
     away (style.css). Measured again when the column's width changes or a
     folded table ("The numbers") opens; all frames read, then all marked,
     so the page is laid out once. */
  function setupTables() {
    var frames = document.querySelectorAll("article .table-wrap");
    if (!frames.length) return;
    function fit() {
      frames.forEach(function (w) { w.classList.remove("whole"); });
      var wide = [];
      frames.forEach(function (w) { if (w.scrollWidth > w.clientWidth + 1) wide.push(w); });
      wide.forEach(function (w) { w.classList.add("whole"); });
    }
    var queued = false;
    function later() {
      if (queued) return;
      queued = true;
      requestAnimationFrame(function () { queued = false; fit(); });
    }
    fit();
    window.addEventListener("resize", later);
    document.addEventListener("toggle", later, true); /* toggle does not bubble */
  }

  /* Printing shows what is folded ("The numbers" tables, the contents):
     each closed <details> is opened for the print and closed after it. */
  function setupPrint() {
    var opened = [];
    window.addEventListener("beforeprint", function () {
      document.querySelectorAll("article details:not([open])").forEach(function (d) { d.open = true; opened.push(d); });
    });
    window.addEventListener("afterprint", function () {
      opened.forEach(function (d) { d.open = false; });
      opened = [];
    });
  }

  function start() {
    setupTheme();
    setupMenu();
    setupKeys();
    setupPrint();
    setupTables();
    setupToc();
    setupCopy();
    setupSearch();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
