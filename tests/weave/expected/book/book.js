/* book.js: the book's only script (lit writes it; edit gen/assets/book.js).
 * Every page reads without it; it adds the theme switch, search, the
 * contents list's current section and copy buttons. No network: the search
 * index is search-index.js beside the pages, so it works from file:// too. */
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

  /* Browsers without ::details-content keep the menu and the contents folded on a wide screen: open them there. */
  function setupMenu() {
    var menu = document.querySelector(".menu");
    if (menu) menu.addEventListener("toggle", function () { if (menu.open) showCurrentPage(); });
    showCurrentPage();
    if (!window.matchMedia) return;
    [[".menu", "(min-width: 64rem)"], [".toc", "(min-width: 80rem)"]].forEach(function (m) {
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

  /* ---- search ---- */
  var index = null, loading = false, waiting = [];

  /* search-index.js calls this with {pages: [[file, title]], sections: [[page, anchor, heading, text]]} */
  window.litSearchIndex = function (data) {
    index = data;
    index.lower = data.sections.map(function (s) { return [s[2].toLowerCase(), s[3].toLowerCase()]; });
    waiting.forEach(function (f) { f(); });
    waiting = [];
  };

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

  function count(hay, term) {
    var n = 0;
    for (var i = hay.indexOf(term); i >= 0 && n < 20; i = hay.indexOf(term, i + term.length)) n++;
    return n;
  }

  /* Sections that hold every term, best first: a term in the heading counts
   * most, then how often the terms occur. */
  function find(query) {
    var terms = query.toLowerCase().split(/\s+/).filter(function (t) { return t.length > 0; });
    if (!terms.length) return { terms: terms, hits: [] };
    var hits = [];
    for (var i = 0; i < index.lower.length; i++) {
      var h = index.lower[i][0], t = index.lower[i][1], score = 0, all = true;
      for (var k = 0; k < terms.length && all; k++) {
        var inHead = h.indexOf(terms[k]) >= 0, n = count(t, terms[k]);
        if (!inHead && !n) all = false;
        score += (inHead ? 20 : 0) + Math.min(n, 10);
      }
      if (all) hits.push([score, i]);
    }
    hits.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });
    return { terms: terms, hits: hits.slice(0, 30) };
  }

  function markup(text, terms) {
    var lower = text.toLowerCase(), spans = [];
    terms.forEach(function (t) {
      for (var i = lower.indexOf(t); i >= 0; i = lower.indexOf(t, i + t.length)) spans.push([i, i + t.length]);
    });
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var out = "", at = 0;
    spans.forEach(function (s) {
      if (s[0] < at) return;
      out += esc(text.slice(at, s[0])) + "<mark>" + esc(text.slice(s[0], s[1])) + "</mark>";
      at = s[1];
    });
    return out + esc(text.slice(at));
  }

  /* Up to 160 characters of text around the first place a term occurs. */
  function snippet(text, terms) {
    var lower = text.toLowerCase(), at = -1;
    terms.forEach(function (t) { var i = lower.indexOf(t); if (i >= 0 && (at < 0 || i < at)) at = i; });
    if (at < 0) return markup(text.slice(0, 160), terms) + (text.length > 160 ? "\u2026" : "");
    var from = Math.max(0, at - 60), to = Math.min(text.length, from + 160);
    return (from > 0 ? "\u2026" : "") + markup(text.slice(from, to), terms) + (to < text.length ? "\u2026" : "");
  }

  function setupSearch() {
    var box = document.querySelector(".search"), input = document.getElementById("search");
    var list = document.getElementById("search-results"), status = document.getElementById("search-status");
    if (!box || !input || !list) return;
    box.hidden = false;
    function render() {
      var q = input.value.trim();
      if (!q) { list.hidden = true; list.innerHTML = ""; status.textContent = ""; return; }
      withIndex(function () {
        if (input.value.trim() !== q) return;
        var r = find(q), html = "";
        r.hits.forEach(function (hit) {
          var s = index.sections[hit[1]], page = index.pages[s[0]];
          var href = page[0] + (s[1] ? "#" + s[1] : "");
          html += "<li><a href=\"" + esc(href) + "\"><span class=\"where\">" + esc(page[1]) + "</span>" +
            "<span class=\"title\">" + markup(s[2], r.terms) + "</span><span class=\"snip\">" +
            snippet(s[3], r.terms) + "</span></a></li>";
        });
        if (!r.hits.length) html = "<li class=\"none\">Nothing found for \u201c" + esc(q) + "\u201d.</li>";
        list.innerHTML = html;
        list.hidden = false;
        status.textContent = r.hits.length ? r.hits.length + (r.hits.length === 30 ? "+" : "") + " results" :
          "no results";
      });
    }
    input.addEventListener("focus", function () { withIndex(function () {}); });
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
      if (e.key === "ArrowDown") { e.preventDefault(); move(1); }
      else if (e.key === "ArrowUp") { e.preventDefault(); move(-1); }
      else if (e.key === "Enter" && document.activeElement === input) {
        var first = links()[0];
        if (first) { e.preventDefault(); first.click(); }
      } else if (e.key === "Escape") {
        input.value = "";
        render();
        input.blur();
      }
    });
    list.addEventListener("click", function (e) { /* a hit on this page: close the list and the phone menu */
      var a = e.target.closest && e.target.closest("a");
      if (!a) return;
      list.hidden = true;
      var menu = document.querySelector(".menu");
      if (menu && !matchMedia("(min-width: 64rem)").matches) menu.open = false;
    });
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

  function start() {
    setupTheme();
    setupMenu();
    setupToc();
    setupCopy();
    setupSearch();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
