-- chart.lua: the weaver's chart API (lit loads it into every .render block's state).
--
-- Each function takes one table of options and returns Markdown: a
-- <figure class="chart"> holding the title and the legend as HTML (they wrap
-- like text on any screen) and the plot as inline SVG, drawn here at weave
-- time, so the book needs no script to show it. The plot is drawn twice: 720
-- units wide for a wide column and 330 for a phone, where horizontal charts
-- put each category's label on its own line above its marks; the stylesheet
-- shows the one that fits the column (a container query), so text keeps
-- its size (12 px, 11 for numbers) or more on screens down to a 360 px
-- phone, where the old single drawing shrank it to half. Colours are CSS classes (s1..s6) the book's
-- stylesheet maps to its palette, so a chart follows the light and dark
-- themes and prints in black on white. For the skill (lit.output ==
-- "skill") every function returns "": an agent reads the table instead.
--
--   chart.bar{title=, categories={...}, series={{name=, values={...}}, ...},
--             xlabel=, ylabel=, unit="%", max=, ref=, ref_label=, caption=, digits=}
--       horizontal bars, one group per category, one bar per series; xlabel
--       names the value axis with its unit, ylabel the categories
--   chart.dots{...same options...}
--       a dot plot: one row per category, one marker per series on a shared axis
--   chart.line{title=, x={...}, series={{name=, values={...}}}, xlabel=, ylabel=,
--              logx=true, unit=, max=, caption=, ref=, ref_label=}
--       one line per series over x (sizes, say), drawn in increasing x;
--       logx spaces x by powers of 2
--   chart.roofline{title=, peak=, bandwidth=, points={{name=, intensity=, perf=}},
--                  roofs={{name=, peak=}}, peak_name=, points_name=, caption=}
--       log-log roofline: perf (TFLOP/s) against arithmetic intensity
--       (FLOP/byte); bandwidth in TB/s; the roof is min(peak, bandwidth * I)
--
-- Every piece of text goes through one placer (Canvas:place), which knows
-- each text's box from the font's advance widths: a label that would overlap
-- another, or a marker, or leave the figure is moved to its next candidate
-- place, and where none is left the weave fails with an error that names the
-- chart and both texts. So a chart in the book has no clipped or overlapping
-- text by construction, and `lit book` checks it for every chart it draws.
local chart = {}

local WIDE, NARROW = 720, 330 -- viewBox widths: the book's column (48rem at most), a 390 px phone's column
local SIZE, VALUE = 12, 11 -- px: labels and ticks, numbers at the end of bars (style.css: .chart svg, .value)
local LH = 1.2 -- line height of a wrapped label, in ems
local GAP = 1 -- the least room between two texts, or a text and a marker
-- the least room between a text and the figure's edge: a glyph's ink may
-- stand out of its advance box by a pixel ("T", "j"), and the plot's frame
-- clips it there
local EDGE = 2
-- a tick label's baseline under its axis: low enough that the first one
-- clears the lowest label of the vertical axis in the corner
local TICK_DY = 19

-- Advance widths of DejaVu Sans, in thousandths of an em, for " " to "~":
-- the face system-ui resolves to on Debian (headless Chromium, which checks
-- the book), and wider than Segoe UI, San Francisco, Roboto or Noto Sans, so
-- a width estimated here is enough on a reader's machine too. Its box is
-- ascent 0.928 em over the baseline and descent 0.236 em under it (hhea),
-- which is what a browser reports as a text element's height.
local ADV = {
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
  636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
  1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
  603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
  500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
  635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
}
-- a few others the book's labels use; any other character counts a whole em
local OTHER = { [0xB2] = 401, [0xB3] = 401, [0xB5] = 636, [0xB7] = 318, [0xD7] = 838, [0x2013] = 500 }
local ASC, DESC = 0.928, 0.236

local function text_width(s, size)
  s = tostring(s)
  local em = 0
  if utf8.len(s) then
    for _, c in utf8.codes(s) do
      em = em + (c >= 32 and c <= 126 and ADV[c - 31] or OTHER[c] or 1000)
    end
  else
    em = #s * 1000
  end
  return em * size / 1000
end

local function esc(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

local function f(x) -- coordinates with one decimal, no "-0"
  local s = string.format("%.1f", x)
  if s == "-0.0" then s = "0.0" end
  return (s:gsub("%.0$", ""))
end

local function label(v, digits)
  if math.type(v) == "integer" then return tostring(v) end
  local d = digits
  if not d then
    local a = math.abs(v)
    d = a >= 100 and 0 or a >= 10 and 1 or a >= 1 and 2 or 3
  end
  local s = string.format("%." .. d .. "f", v)
  if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
  if s == "-0" then s = "0" end
  return s
end

-- A power of two as a tick label: 1/16, 1/2, 1, 2, 1024.
local function pow2_label(e)
  if e >= 0 then return string.format("%d", 2 ^ e) end
  return string.format("1/%d", 2 ^ -e)
end

-- A power of ten as a tick label, with as many decimals as it needs: 0.001, 1, 1000.
local function pow10_label(e)
  if e >= 0 then return string.format("%d", 10 ^ e) end
  return string.format("%." .. -e .. "f", 10 ^ e)
end

-- Errors: a table, so that the public function can tell its own errors from
-- a bug and raise them at the Markdown line that called it (level 2).
local function fail(msg) error({ chart_error = msg }, 0) end
local function need(cond, msg) if not cond then fail(msg) end end

-- Cuts s into at most maxlines lines no wider than maxw: at spaces first,
-- then after "_", "/" or "-" inside a long name; what still does not fit
-- ends in "…". Returns the lines and whether text was lost (the caller then
-- keeps the whole of it in a tooltip).
local function fit_lines(s, maxw, size, maxlines)
  s = tostring(s)
  if text_width(s, size) <= maxw then return { s }, false end
  local pieces = {} -- {text, space after}
  for word, space in s:gmatch("([^ ]+)( *)") do
    for part in word:gmatch("[^_/%-]*[_/%-]?") do
      if part ~= "" then pieces[#pieces + 1] = { part, "" } end
    end
    if #pieces > 0 and space ~= "" then pieces[#pieces][2] = " " end
  end
  local lines, seps, cur, sep = {}, {}, "", "" -- seps[i]: what stood between line i and the next
  for _, p in ipairs(pieces) do
    if cur ~= "" and text_width(cur .. sep .. p[1], size) > maxw then
      lines[#lines + 1], seps[#lines + 1] = cur, sep
      cur = p[1]
    else
      cur = cur .. sep .. p[1]
    end
    sep = p[2]
  end
  lines[#lines + 1] = cur
  local lost = false
  if #lines > maxlines then -- the last line takes the rest, as written, and is cut below
    local rest = lines[maxlines]
    for i = maxlines + 1, #lines do rest = rest .. seps[i - 1] .. lines[i] end
    for i = #lines, maxlines + 1, -1 do lines[i] = nil end
    lines[maxlines] = rest
  end
  for i, l in ipairs(lines) do
    if text_width(l, size) > maxw then
      lost = true
      local n = utf8.len(l) or #l
      while n > 0 and text_width(l, size) + text_width("…", size) > maxw do
        n = n - 1
        l = utf8.len(l) and l:sub(1, utf8.offset(l, n + 1) - 1) or l:sub(1, n)
      end
      lines[i] = l:gsub("[ _/%-]+$", "") .. "…"
    end
  end
  return lines, lost
end

---------------------------------------------------------------------------
-- The canvas: the SVG body of one layout, with the box of every text placed

local Canvas = {}
Canvas.__index = Canvas

local function canvas(o, w, h)
  return setmetatable({ title = o.title, w = w, h = h, body = {}, texts = {}, marks = {}, segs = {}, leaders = {} },
    Canvas)
end

function Canvas:add(s) self.body[#self.body + 1] = s end

-- A drawn marker (a point): no text may cover it.
function Canvas:mark(cx, cy, r) self.marks[#self.marks + 1] = { cx - r, cy - r, cx + r, cy + r } end

-- A drawn line that labels placed with avoid_lines keep off.
function Canvas:seg(x1, y1, x2, y2) self.segs[#self.segs + 1] = { x1, y1, x2, y2 } end

-- The box {left, top, right, bottom} a text covers, rotation included.
local function box_of(t)
  local w = 0
  for _, l in ipairs(t.lines) do w = math.max(w, text_width(l, t.size)) end
  local l = t.anchor == "middle" and t.x - w / 2 or t.anchor == "end" and t.x - w or t.x
  local top, bot = t.y - ASC * t.size, t.y + (#t.lines - 1) * LH * t.size + DESC * t.size
  if not t.rotate then return { l, top, l + w, bot } end
  local a = math.rad(t.rotate)
  local ca, sa = math.cos(a), math.sin(a)
  local b = { math.huge, math.huge, -math.huge, -math.huge }
  for _, p in ipairs({ { l, top }, { l + w, top }, { l, bot }, { l + w, bot } }) do
    local dx, dy = p[1] - t.x, p[2] - t.y
    local x, y = t.x + dx * ca - dy * sa, t.y + dx * sa + dy * ca
    b[1], b[2], b[3], b[4] = math.min(b[1], x), math.min(b[2], y), math.max(b[3], x), math.max(b[4], y)
  end
  return b
end

local function overlap(a, b)
  return a[1] < b[3] + GAP and b[1] < a[3] + GAP and a[2] < b[4] + GAP and b[2] < a[4] + GAP
end

-- Whether the segment s crosses the box b (Liang-Barsky clipping).
local function crosses(b, s)
  local x, y, dx, dy = s[1], s[2], s[3] - s[1], s[4] - s[2]
  local t0, t1 = 0, 1
  for _, pq in ipairs({ { -dx, x - b[1] }, { dx, b[3] - x }, { -dy, y - b[2] }, { dy, b[4] - y } }) do
    local p, q = pq[1], pq[2]
    if p == 0 then
      if q < 0 then return false end
    else
      local r = q / p
      if p < 0 then
        if r > t1 then return false elseif r > t0 then t0 = r end
      else
        if r < t0 then return false elseif r < t1 then t1 = r end
      end
    end
  end
  return true
end

local function quote(t) return '"' .. table.concat(t.lines, " ") .. '"' end

-- Whether segments a and b cross (each one's ends on both sides of the other).
local function seg_cross(a, b)
  local function side(p, q, r) return (q[1] - p[1]) * (r[2] - p[2]) - (q[2] - p[2]) * (r[1] - p[1]) end
  local p1, p2, p3, p4 = { a[1], a[2] }, { a[3], a[4] }, { b[1], b[2] }, { b[3], b[4] }
  local d1, d2 = side(p3, p4, p1), side(p3, p4, p2)
  local d3, d4 = side(p1, p2, p3), side(p1, p2, p4)
  return ((d1 > 0) ~= (d2 > 0)) and ((d3 > 0) ~= (d4 > 0))
end

-- What a candidate whose box is b would do wrong, in words that follow "it
-- would" ('overlap "label"', 'cover a marker'), or nil; one with a leader
-- line (from its point to it) must also keep that line off every text and
-- every other leader.
function Canvas:collision(b, avoid_lines, leader)
  if b[1] < EDGE or b[2] < EDGE or b[3] > self.w - EDGE or b[4] > self.h - EDGE then
    return "run past the edge of the figure"
  end
  for _, t in ipairs(self.texts) do
    if overlap(b, t.box) then return "overlap " .. quote(t) end
    if leader and crosses(t.box, leader) then return "draw its leader line across " .. quote(t) end
  end
  if leader then
    for _, l in ipairs(self.leaders) do
      if seg_cross(l, leader) then return "draw its leader line across another" end
    end
  end
  for _, m in ipairs(self.marks) do
    if overlap(b, m) then return "cover a marker" end
  end
  if avoid_lines then
    for _, s in ipairs(self.segs) do
      if crosses(b, s) then return "cross a line" end
    end
  end
  return nil
end

-- A text: t = {x=, y=, text= or lines=, anchor=, cls=, rotate=, tip=}. Its
-- size follows its class, as in style.css.
local function text(t)
  t.lines = t.lines or { tostring(t.text) }
  t.size = t.cls == "value" and VALUE or SIZE
  t.anchor = t.anchor or "start"
  return t
end

-- Places the first of the candidates (texts) that collides with nothing and
-- returns it; when none fits, nil and a candidate with what it would do
-- wrong, an overlap with a text if any (the most useful to name).
function Canvas:try(cands, avoid_lines)
  local first
  for _, c in ipairs(cands) do
    text(c)
    local b = box_of(c)
    local hit = self:collision(b, avoid_lines, c.leader)
    if not hit then
      if c.leader then
        self.leaders[#self.leaders + 1] = c.leader
        self.segs[#self.segs + 1] = c.leader
        self:add(string.format('<line class="leader" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(c.leader[1]),
          f(c.leader[2]), f(c.leader[3]), f(c.leader[4])))
      end
      self:put(c, b)
      return c
    end
    if not first or (not first[2]:find('^overlap "') and hit:find('^overlap "')) then first = { c, hit } end
  end
  return nil, first
end

function Canvas:layout_name()
  return string.format('"%s" (%s layout, %d units wide)', self.title, self.w < WIDE and "phone" or "wide",
    self.w)
end

function Canvas:place(cands, avoid_lines)
  local t, first = self:try(cands, avoid_lines)
  if t then return t end
  fail(string.format("%s: no room for the text %s: it would %s%s", self:layout_name(), quote(first[1]),
    first[2], #cands > 1 and string.format(" (each of its %d places is taken)", #cands) or ""))
end

function Canvas:put(t, b)
  self.texts[#self.texts + 1] = { box = b, lines = t.lines }
  local a = string.format(' x="%s" y="%s"', f(t.x), f(t.y))
  if t.anchor ~= "start" then a = a .. ' text-anchor="' .. t.anchor .. '"' end
  if t.cls then a = a .. ' class="' .. t.cls .. '"' end
  if t.rotate then a = a .. string.format(' transform="rotate(%s %s %s)"', f(t.rotate), f(t.x), f(t.y)) end
  local inner = {}
  if t.tip then inner[1] = "<title>" .. esc(t.tip) .. "</title>" end
  if #t.lines == 1 then
    inner[#inner + 1] = esc(t.lines[1])
  else
    for i, l in ipairs(t.lines) do
      inner[#inner + 1] = string.format('<tspan x="%s"%s>%s</tspan>', f(t.x), i > 1 and ' dy="' .. LH .. 'em"' or "",
        esc(l))
    end
  end
  self:add("<text" .. a .. ">" .. table.concat(inner) .. "</text>")
end

-- The SVG; first, every text is checked once more against the figure's
-- final height and against every other text, whatever order placed them.
function Canvas:svg()
  for i, t in ipairs(self.texts) do
    local b = t.box
    if b[1] < EDGE or b[2] < EDGE or b[3] > self.w - EDGE or b[4] > self.h - EDGE then
      fail(string.format("%s: the text %s runs past the edge of the figure", self:layout_name(), quote(t)))
    end
    for j = 1, i - 1 do
      if overlap(b, self.texts[j].box) then
        fail(string.format("%s: the texts %s and %s overlap", self:layout_name(), quote(self.texts[j]), quote(t)))
      end
    end
  end
  return table.concat({
    string.format('<svg viewBox="0 0 %d %s" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">', self.w,
      f(self.h), esc(self.title)),
    "<title>" .. esc(self.title) .. "</title>",
    table.concat(self.body, "\n"),
    "</svg>" }, "\n")
end

-- The height of a block of n lines of text, first baseline to last descent.
local function block_h(n, size) return (n - 1) * LH * (size or SIZE) + (ASC + DESC) * (size or SIZE) end

---------------------------------------------------------------------------
-- Options, ticks, the figure

local function check_common(o)
  need(type(o) == "table", "pass one table of options")
  need(type(o.title) == "string" and o.title ~= "", "title must be a non-empty string")
  for _, k in ipairs({ "unit", "caption", "ref_label", "xlabel", "ylabel" }) do
    need(o[k] == nil or type(o[k]) == "string", k .. " must be a string")
  end
  need(o.max == nil or (type(o.max) == "number" and o.max > 0), "max must be a positive number")
  need(o.ref == nil or (type(o.ref) == "number" and o.ref == o.ref), "ref must be a number")
  need(o.digits == nil or (math.type(o.digits) == "integer" and o.digits >= 0 and o.digits <= 15),
    "digits must be an integer from 0 to 15")
end

local function check_axes(o, x_what, y_what)
  need(type(o.xlabel) == "string" and o.xlabel ~= "",
    string.format('"%s": xlabel must name %s, with its unit', o.title, x_what))
  need(type(o.ylabel) == "string" and o.ylabel ~= "",
    string.format('"%s": ylabel must name %s', o.title, y_what))
end

local function check_series(o, n, what)
  need(type(o.series) == "table" and #o.series > 0, "series must be a list of {name=, values=}")
  need(#o.series <= 6, "at most 6 series")
  local seen = {}
  for i, s in ipairs(o.series) do
    need(type(s.name) == "string" and s.name ~= "", string.format("series[%d].name must be a string", i))
    need(not seen[s.name], string.format('series[%d] and series[%d] are both named "%s": the legend could not ' ..
      "tell them apart", seen[s.name] or 0, i, s.name))
    seen[s.name] = i
    need(type(s.values) == "table" and #s.values == n,
      string.format("series[%d].values must hold %d numbers, one per %s", i, n, what))
    for k = 1, n do
      local v = s.values[k]
      need(type(v) == "number" and v == v, string.format("series[%d].values[%d] is not a number", i, k))
    end
  end
end

-- The unit after a tick's number when it is a symbol ("%"); a word unit
-- (" TFLOP/s") is said once, in the axis title.
local function tick_unit(o)
  local u = o.unit or ""
  return u:find("^%S+$") and u or ""
end

-- A value axis from 0: the most ticks (a step of 1, 2, 2.5 or 5 x 10^k)
-- whose labels stay apart along length units; room(label) is how much one
-- label needs. Returns the ticks, their labels and the axis's top.
local function value_axis(max, fixed_top, length, unit, room)
  if max <= 0 then max = 1 end
  local span = fixed_top or max
  for n = 8, 1, -1 do
    local raw = span / n
    local mag = 10 ^ math.floor(math.log(raw, 10))
    local step
    for _, m in ipairs({ 1, 2, 2.5, 5, 10 }) do
      if m * mag >= raw * (1 - 1e-9) then step = m * mag break end
    end
    local top = fixed_top or math.ceil(max / step - 1e-9) * step
    local ticks, labels, fits = {}, {}, true
    for i = 0, math.floor(top / step + 1e-9) do
      ticks[#ticks + 1] = i * step
      labels[#labels + 1] = label(i * step) .. unit
      if room(labels[#labels]) > length * step / top then fits = false end
    end
    if fits or n == 1 then return ticks, labels, top end
  end
end

local function legend_html(items)
  local out = { '<ul class="legend">' }
  for _, it in ipairs(items) do
    out[#out + 1] = string.format('<li><span class="key %s s%d" aria-hidden="true"></span>%s</li>', it.key, it.k,
      esc(it.name))
  end
  out[#out + 1] = "</ul>"
  return table.concat(out)
end

-- The figure: title and legend as HTML, the two layouts, the caption.
local function figure(o, legend, wide, narrow)
  local out = {
    '<figure class="chart">',
    '<p class="chart-title">' .. esc(o.title) .. "</p>",
    legend_html(legend),
    '<div class="plot wide">',
    wide,
    "</div>",
    '<div class="plot narrow">',
    narrow,
    "</div>",
  }
  if o.caption then out[#out + 1] = "<figcaption>" .. esc(o.caption) .. "</figcaption>" end
  out[#out + 1] = "</figure>"
  -- an HTML block in Markdown ends at a blank line: keep every line non-empty
  return "\n" .. table.concat(out, "\n") .. "\n\n"
end

-- An axis title under the plot, wrapped to the figure's width.
local function bottom_title(s, w)
  local lines, lost = fit_lines(s, w - 2 * EDGE - 1, SIZE, 2)
  return lines, lost and s or nil
end

-- Where it goes: a line under the tick labels of an axis at y, centred on
-- the plot (x0..x1) as far as the figure's edges allow.
local function bottom_title_at(lines, tip, x0, x1, w, y)
  local hw = 0
  for _, l in ipairs(lines) do hw = math.max(hw, text_width(l, SIZE) / 2) end
  local cx = math.max(hw + EDGE, math.min(w - hw - EDGE, (x0 + x1) / 2))
  return { x = cx, y = y + TICK_DY + DESC * SIZE + 6 + ASC * SIZE, lines = lines, anchor = "middle", cls = "tick",
    tip = tip }
end

---------------------------------------------------------------------------
-- Horizontal layouts (bar, dots): categories down the left, values across

local function horizontal_svg(o, kind, W)
  local narrow = W < WIDE
  local n, ns = #o.categories, #o.series
  local unit, tu = o.unit or "", tick_unit(o)
  local max = o.max or 0
  if not o.max then
    for _, s in ipairs(o.series) do for _, v in ipairs(s.values) do max = math.max(max, v) end end
    if o.ref then max = math.max(max, o.ref) end
  end
  -- the category labels: a column on the left, or a line of their own on a phone
  local colw = W - 2 * EDGE
  if not narrow then
    local widest = 0
    for _, s in ipairs(o.categories) do widest = math.max(widest, text_width(s, SIZE)) end
    colw = math.min(widest, math.floor(W * 0.42))
  end
  local lines, lost, maxl = {}, {}, 1
  for i, s in ipairs(o.categories) do
    lines[i], lost[i] = fit_lines(s, colw, SIZE, 2)
    maxl = math.max(maxl, #lines[i])
  end
  local vw = 0 -- the widest number written after a bar
  if kind == "bar" then
    for _, s in ipairs(o.series) do
      for _, v in ipairs(s.values) do vw = math.max(vw, text_width(label(v, o.digits), VALUE)) end
    end
  end
  -- x0..x1: the value axis; a tick's label is centred on it, so half of the
  -- first one and of the last one must fit beside it
  local x0 = narrow and text_width("0" .. tu, SIZE) / 2 + EDGE + 1 or colw + 12
  local right = kind == "bar" and vw + 6 or 4
  local ticks, tlabels, top
  for _ = 1, 2 do
    local x1 = W - right
    ticks, tlabels, top = value_axis(max, o.max, x1 - x0, tu, function(s) return text_width(s, SIZE) + 10 end)
    local half = text_width(tlabels[#tlabels], SIZE) / 2 + EDGE + 1
    if half <= right then break end
    right = half
  end
  local x1 = W - right
  local function X(v) return x0 + (x1 - x0) * math.max(0, math.min(v, top)) / top end
  -- rows, top down: the axis titles' line, then each row
  local pitch = 14 -- one bar: 11 high, and room for its number (11 px text is 12.8 high)
  local marks_h = kind == "bar" and ns * pitch or 16
  local row_h, label_h = {}, {}
  for i = 1, n do
    label_h[i] = narrow and block_h(#lines[i]) + 3 or 0
    row_h[i] = narrow and label_h[i] + marks_h + 10 or math.max(marks_h + 10, block_h(maxl) + 6)
  end
  local xl_lines, xl_tip = bottom_title(o.xlabel, W)
  local c = canvas(o, W, 0)
  c.h = 1e9 -- known once the rows are laid out; placed texts are checked against it at the end
  local yl_lines, yl_lost = fit_lines(o.ylabel, narrow and W - 2 * EDGE or math.max(colw, W / 2), SIZE, 2)
  -- the categories' title: over their column, flush right with it as they are
  local ylw = 0
  for _, l in ipairs(yl_lines) do ylw = math.max(ylw, text_width(l, SIZE)) end
  local ylab = c:place({ { x = narrow and EDGE or math.max(x0 - 8, ylw + EDGE), y = ASC * SIZE + EDGE,
    lines = yl_lines, anchor = narrow and "start" or "end", cls = "tick", tip = yl_lost and o.ylabel or nil } })
  local y0 = box_of(ylab)[4] + 8
  if o.ref then
    -- the reference line's label over the plot, on the axis titles' line if it fits there
    local rl = o.ref_label or (label(o.ref) .. unit)
    local cands = {}
    for _, y in ipairs({ ASC * SIZE + EDGE, y0 + ASC * SIZE }) do
      cands[#cands + 1] = { x = X(o.ref), y = y, text = rl, anchor = "middle", cls = "tick" }
      cands[#cands + 1] = { x = X(o.ref), y = y, text = rl, anchor = "end", cls = "tick" }
      cands[#cands + 1] = { x = X(o.ref), y = y, text = rl, anchor = "start", cls = "tick" }
    end
    local t = c:place(cands)
    y0 = math.max(y0, box_of(t)[4] + 6)
  end
  local ytop, yend = {}, y0
  for i = 1, n do ytop[i] = yend; yend = yend + row_h[i] end
  local h = yend + TICK_DY + DESC * SIZE + 6 + block_h(#xl_lines) + 4
  c.h = h
  -- grid, axis and reference line: over the whole plot, or each row's marks on a phone
  local spans = narrow and {} or { { y0 - 4, yend } }
  if narrow then for i = 1, n do spans[i] = { ytop[i] + label_h[i] - 2, ytop[i] + label_h[i] + marks_h + 2 } end end
  for _, sp in ipairs(spans) do
    for _, t in ipairs(ticks) do
      c:add(string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(X(t)), f(sp[1]), f(X(t)),
        f(sp[2])))
    end
    c:add(string.format('<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(x0), f(sp[1]), f(x0), f(sp[2])))
    if o.ref then
      c:add(string.format('<line class="ref-line" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(X(o.ref)),
        f(sp == spans[1] and not narrow and y0 - 6 or sp[1]), f(X(o.ref)), f(sp[2])))
    end
  end
  for i, cat in ipairs(o.categories) do
    local y = ytop[i]
    local my -- the top of this row's marks
    if narrow then
      c:place({ { x = EDGE, y = y + ASC * SIZE, lines = lines[i], tip = lost[i] and cat or nil } })
      my = y + label_h[i]
    else
      local ly = y + (row_h[i] - block_h(#lines[i])) / 2 + ASC * SIZE
      c:place({ { x = x0 - 8, y = ly, lines = lines[i], anchor = "end", tip = lost[i] and cat or nil } })
      my = y + (row_h[i] - marks_h) / 2
    end
    if kind == "dots" then
      local lo, hi = math.huge, -math.huge
      for _, s in ipairs(o.series) do lo = math.min(lo, s.values[i]); hi = math.max(hi, s.values[i]) end
      c:add(string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(X(lo)), f(my + marks_h / 2),
        f(X(hi)), f(my + marks_h / 2)))
    end
    for k, s in ipairs(o.series) do
      local v = s.values[i]
      local tip = string.format("<title>%s, %s: %s%s</title>", esc(cat), esc(s.name), label(v, o.digits), esc(unit))
      if kind == "bar" then
        local by = my + (k - 1) * pitch
        c:add(string.format('<rect class="s%d" x="%s" y="%s" width="%s" height="11">%s</rect>', k, f(x0), f(by),
          f(X(v) - x0), tip))
        c:place({ { x = X(v) + 3, y = by + 9.5, text = label(v, o.digits), cls = "value" } })
      else
        local cy = my + marks_h / 2
        c:add(k == 1 and string.format('<circle class="s1" cx="%s" cy="%s" r="5">%s</circle>', f(X(v)), f(cy), tip)
          or string.format('<rect class="s%d" x="%s" y="%s" width="8" height="8" transform="rotate(%d %s %s)">' ..
            '%s</rect>', k, f(X(v) - 4), f(cy - 4), k == 2 and 0 or 45, f(X(v)), f(cy), tip))
      end
    end
  end
  for i, t in ipairs(ticks) do
    c:place({ { x = X(t), y = yend + TICK_DY, text = tlabels[i], anchor = "middle", cls = "tick" } })
  end
  c:place({ bottom_title_at(xl_lines, xl_tip, x0, x1, W, yend) })
  return c:svg()
end

local function horizontal(o, kind)
  check_common(o)
  need(type(o.categories) == "table" and #o.categories > 0, "categories must be a non-empty list")
  local seen = {}
  for i, cat in ipairs(o.categories) do
    need(type(cat) == "string" or type(cat) == "number", string.format("categories[%d] must be a string", i))
    need(not seen[cat], string.format('categories[%d] and categories[%d] are both "%s": a reader could not tell ' ..
      "the rows apart; name them (the set, the model) as the table does", seen[cat] or 0, i, cat))
    seen[cat] = i
  end
  check_series(o, #o.categories, "category")
  check_axes(o, "the value axis", "the categories")
  local legend = {}
  for k, s in ipairs(o.series) do
    legend[k] = { name = s.name, k = k, key = kind == "bar" and "bar" or k == 1 and "dot" or k == 2 and "square"
      or "diamond" }
  end
  return figure(o, legend, horizontal_svg(o, kind, WIDE), horizontal_svg(o, kind, NARROW))
end

---------------------------------------------------------------------------
-- Line charts

local function log2(x) return math.log(x, 2) end

-- x ticks at the powers of two (logx) or at round numbers inside lo..hi,
-- every stride-th one, the least stride whose labels stay apart.
local function x_ticks(lo, hi, logx, X)
  local sets = {}
  local e0, e1 = 0, -1
  if logx then e0, e1 = math.ceil(log2(lo) - 1e-9), math.floor(log2(hi) + 1e-9) end
  if e1 > e0 then -- two powers of two or more inside lo..hi; else round numbers, log-spaced
    for stride = 1, e1 - e0 do
      local t = {}
      for e = e0, e1, stride do t[#t + 1] = { 2 ^ e, pow2_label(e) } end
      sets[#sets + 1] = t
    end
  else
    for n = 10, 1, -1 do
      local raw = (hi - lo) / n
      local mag = 10 ^ math.floor(math.log(raw, 10))
      local step = mag
      for _, m in ipairs({ 1, 2, 2.5, 5, 10 }) do if m * mag >= raw * (1 - 1e-9) then step = m * mag break end end
      local t = {}
      for i = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) do t[#t + 1] = { i * step, label(i * step) } end
      sets[#sets + 1] = t
    end
  end
  for _, t in ipairs(sets) do
    local ok, prev = true, -math.huge
    for _, p in ipairs(t) do
      local w = text_width(p[2], SIZE)
      if X(p[1]) - w / 2 < prev + 8 then ok = false break end
      prev = X(p[1]) + w / 2
    end
    if ok then return t end
  end
  return sets[#sets]
end

local function line_svg(o, W, order)
  local narrow = W < WIDE
  local unit, tu = o.unit or "", tick_unit(o)
  local max = 0
  for _, s in ipairs(o.series) do for _, v in ipairs(s.values) do max = math.max(max, v) end end
  if o.ref then max = math.max(max, o.ref) end
  local c = canvas(o, W, 0)
  c.h = 1e9
  local yl_lines, yl_lost = fit_lines(o.ylabel, W - 2 * EDGE, SIZE, 2)
  local ylab = c:place({ { x = EDGE, y = ASC * SIZE + EDGE, lines = yl_lines, cls = "tick",
    tip = yl_lost and o.ylabel or nil } })
  local y0 = box_of(ylab)[4] + 12
  local ph = narrow and 200 or 250
  local y1 = y0 + ph
  local ticks, tlabels, top = value_axis(max, o.max, ph, tu, function() return LH * SIZE + 4 end)
  local x0 = 0
  for _, l in ipairs(tlabels) do x0 = math.max(x0, text_width(l, SIZE)) end
  x0 = x0 + 10
  local lo, hi = o.x[1], o.x[1]
  for _, v in ipairs(o.x) do lo = math.min(lo, v); hi = math.max(hi, v) end
  -- the last tick's label is centred on it: room for half of the widest it can be
  local last = math.max(text_width(label(hi), SIZE), o.logx and text_width(pow2_label(math.floor(log2(hi) + 1e-9)),
    SIZE) or 0)
  local x1 = W - math.max(8, last / 2 + EDGE + 1)
  local function X(v)
    if o.logx then return x0 + (x1 - x0) * (log2(v) - log2(lo)) / math.max(log2(hi) - log2(lo), 1e-9) end
    return x0 + (x1 - x0) * (v - lo) / math.max(hi - lo, 1e-9)
  end
  local function Y(v) return y1 - (y1 - y0) * math.max(0, math.min(v, top)) / top end
  local xl_lines, xl_tip = bottom_title(o.xlabel, W)
  c.h = y1 + TICK_DY + DESC * SIZE + 6 + block_h(#xl_lines) + 4
  for i, t in ipairs(ticks) do
    c:add(string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(x0), f(Y(t)), f(x1), f(Y(t))))
    c:place({ { x = x0 - 6, y = Y(t) + 4, text = tlabels[i], anchor = "end", cls = "tick" } })
  end
  for _, p in ipairs(x_ticks(lo, hi, o.logx, X)) do
    c:add(string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(X(p[1])), f(y0), f(X(p[1])), f(y1)))
    c:place({ { x = X(p[1]), y = y1 + TICK_DY, text = p[2], anchor = "middle", cls = "tick" } })
  end
  c:add(string.format('<path class="axis" d="M%s %sV%sH%s"/>', f(x0), f(y0), f(y1), f(x1)))
  for k, s in ipairs(o.series) do
    local pts = {}
    for j, i in ipairs(order) do
      pts[#pts + 1] = f(X(o.x[i])) .. "," .. f(Y(s.values[i]))
      if j > 1 then
        local p = order[j - 1]
        c:seg(X(o.x[p]), Y(s.values[p]), X(o.x[i]), Y(s.values[i]))
      end
    end
    c:add(string.format('<polyline class="line s%d" points="%s"/>', k, table.concat(pts, " ")))
    for _, i in ipairs(order) do
      local v = s.values[i]
      c:add(string.format('<circle class="s%d" cx="%s" cy="%s" r="3"><title>%s at %s: %s%s</title></circle>', k,
        f(X(o.x[i])), f(Y(v)), esc(s.name), label(o.x[i]), label(v, o.digits), esc(unit)))
      c:mark(X(o.x[i]), Y(v), 3)
    end
  end
  if o.ref then
    c:add(string.format('<line class="ref-line" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(x0), f(Y(o.ref)), f(x1),
      f(Y(o.ref))))
    local rl = o.ref_label or (label(o.ref) .. unit)
    local above, below = Y(o.ref) - 4, Y(o.ref) + 4 + ASC * SIZE
    c:place({ { x = x1, y = above, text = rl, anchor = "end", cls = "tick" },
      { x = x1, y = below, text = rl, anchor = "end", cls = "tick" },
      { x = x0 + 4, y = above, text = rl, cls = "tick" }, { x = x0 + 4, y = below, text = rl, cls = "tick" },
      { x = (x0 + x1) / 2, y = above, text = rl, anchor = "middle", cls = "tick" },
      { x = (x0 + x1) / 2, y = below, text = rl, anchor = "middle", cls = "tick" } }, true)
  end
  c:place({ bottom_title_at(xl_lines, xl_tip, x0, x1, W, y1) })
  return c:svg()
end

local function chart_line(o)
  check_common(o)
  need(type(o.x) == "table" and #o.x > 1, "x must be a list of at least two numbers")
  local n = #o.x
  check_series(o, n, "x")
  check_axes(o, "x", "the values")
  for i, v in ipairs(o.x) do
    need(type(v) == "number" and v == v and (not o.logx or v > 0), string.format("x[%d] must be a %snumber", i,
      o.logx and "positive " or ""))
  end
  -- a line is drawn in increasing x; two values at one x would make it
  -- double back on itself, so they are refused
  local order = {}
  for i = 1, n do order[i] = i end
  table.sort(order, function(a, b) return o.x[a] < o.x[b] or (o.x[a] == o.x[b] and a < b) end)
  for j = 2, n do
    local a, b = order[j - 1], order[j]
    need(o.x[a] ~= o.x[b], string.format('"%s": x[%d] and x[%d] are both %s: a line takes one value per x ' ..
      "(draw one shape per size, or the others as a series of their own)", o.title, a, b, label(o.x[a])))
  end
  local legend = {}
  for k, s in ipairs(o.series) do legend[k] = { name = s.name, k = k, key = "line" } end
  return figure(o, legend, line_svg(o, WIDE, order), line_svg(o, NARROW, order))
end

---------------------------------------------------------------------------
-- Rooflines

local function roofline_svg(o, W, roofs)
  local narrow = W < WIDE
  local lo_i, hi_i = 1 / 16, 1024
  local lo_p = math.min(o.bandwidth * lo_i, 0.1)
  local ymax = 0
  for _, r in ipairs(roofs) do ymax = math.max(ymax, r.peak) end
  for _, p in ipairs(o.points) do
    lo_i = math.min(lo_i, p.intensity / 2); hi_i = math.max(hi_i, p.intensity * 2)
    lo_p = math.min(lo_p, p.perf / 2)
  end
  local ly0, ly1 = math.log(lo_p, 10), math.log(ymax * 2, 10)
  local c = canvas(o, W, 0)
  c.h = 1e9
  c:place({ { x = EDGE, y = ASC * SIZE + EDGE, text = "TFLOP/s (log scale)", cls = "tick" } })
  local y0 = 28
  local y1 = y0 + (narrow and 240 or 280)
  local ytl = {}
  local x0 = 0
  for e = math.ceil(ly0 - 1e-9), math.floor(ly1 + 1e-9) do
    ytl[#ytl + 1] = { 10 ^ e, pow10_label(e) }
    x0 = math.max(x0, text_width(ytl[#ytl][2], SIZE))
  end
  x0 = x0 + 10
  local x1 = W - math.max(8, text_width(pow2_label(math.floor(log2(hi_i))), SIZE) / 2 + 3)
  local lx0, lx1 = log2(lo_i), log2(hi_i)
  local function X(i) return x0 + (x1 - x0) * (log2(i) - lx0) / (lx1 - lx0) end
  local function Y(p) return y1 - (y1 - y0) * (math.log(p, 10) - ly0) / (ly1 - ly0) end
  local xl_lines, xl_tip = bottom_title("arithmetic intensity (FLOP/byte, log scale)", W)
  c.h = y1 + TICK_DY + DESC * SIZE + 6 + block_h(#xl_lines) + 4
  for _, t in ipairs(ytl) do
    c:add(string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(x0), f(Y(t[1])), f(x1), f(Y(t[1]))))
    c:place({ { x = x0 - 6, y = Y(t[1]) + 4, text = t[2], anchor = "end", cls = "tick" } })
  end
  for _, p in ipairs(x_ticks(lo_i, hi_i, true, X)) do
    c:add(string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(X(p[1])), f(y0), f(X(p[1])), f(y1)))
    c:place({ { x = X(p[1]), y = y1 + TICK_DY, text = p[2], anchor = "middle", cls = "tick" } })
  end
  c:add(string.format('<path class="axis" d="M%s %sV%sH%s"/>', f(x0), f(y0), f(y1), f(x1)))
  c:seg(x0, y0, x0, y1)
  c:seg(x0, y1, x1, y1)
  -- the roofs, last to first: where they share the slope, the first roof's
  -- colour is the one on top
  for k = #roofs, 1, -1 do
    local r = roofs[k]
    local knee = math.max(lo_i, math.min(r.peak / o.bandwidth, hi_i))
    c:add(string.format('<polyline class="roof s%d" points="%s,%s %s,%s %s,%s"/>', k, f(X(lo_i)),
      f(Y(o.bandwidth * lo_i)), f(X(knee)), f(Y(o.bandwidth * knee)), f(X(hi_i)), f(Y(r.peak))))
    c:seg(X(lo_i), Y(o.bandwidth * lo_i), X(knee), Y(o.bandwidth * knee))
    c:seg(X(knee), Y(r.peak), X(hi_i), Y(r.peak))
  end
  -- every point is a marker before any label is placed, so no label covers one
  for _, p in ipairs(o.points) do c:mark(X(p.intensity), Y(p.perf), 4.5) end
  for k, r in ipairs(roofs) do
    -- over the flat roof no line is drawn, so the label may run left past
    -- the knee there; under it, it must stay right of the slope
    local s = r.name .. " " .. label(r.peak) .. " TFLOP/s"
    local knee = math.max(lo_i, math.min(r.peak / o.bandwidth, hi_i))
    local over = fit_lines(s, x1 - x0 - 4, SIZE, 2)
    local under = fit_lines(s, x1 - X(knee) - 4, SIZE, 2)
    local up = Y(r.peak) - 5 - (#over - 1) * LH * SIZE
    local down = Y(r.peak) + 5 + ASC * SIZE
    c:place({ { x = x1, y = up, lines = over, anchor = "end" }, { x = x1, y = down, lines = under, anchor = "end" },
      { x = X(knee) + 4, y = down, lines = under } }, true)
  end
  -- the bandwidth along its slope, near the left end
  local angle = -math.deg(math.atan((Y(o.bandwidth * lo_i) - Y(o.bandwidth * lo_i * 4)) / (X(lo_i * 4) - X(lo_i))))
  local bw = label(o.bandwidth) .. " TB/s"
  local cands = {}
  for _, m in ipairs({ 2, 4, 8, 16, 32 }) do
    local i = lo_i * m
    cands[#cands + 1] = { x = X(i) + 4, y = Y(o.bandwidth * i) - 6, text = bw, cls = "tick", rotate = angle }
  end
  c:place(cands)
  -- each point's label beside it, or further off with a leader line
  local function candidates(p)
    local x, y = X(p.intensity), Y(p.perf)
    local below = y + 8 + ASC * SIZE
    local cands = {
      { x = x + 8, y = y + 4 }, { x = x - 8, y = y + 4, anchor = "end" },
      { x = x, y = y - 8, anchor = "middle" }, { x = x, y = below, anchor = "middle" },
      { x = x + 5, y = y - 8 }, { x = x + 5, y = below }, { x = x - 5, y = y - 8, anchor = "end" },
      { x = x - 5, y = below, anchor = "end" },
    }
    local near = #cands
    -- further off, a leader line from the marker's edge to the label's
    for _, d in ipairs({ 16, 32, 48, 64, 80, 96, 112 }) do
      for _, sgn in ipairs({ -1, 1 }) do
        for _, side in ipairs({ 1, -1, 3, -3 }) do
          local lx, ly = x + side * 14, y + 4 + sgn * d
          side = side > 0 and 1 or -1
          local dx, dy = lx - side * 2 - x, ly - 4 - y
          local r = 4.5 / math.sqrt(dx * dx + dy * dy)
          cands[#cands + 1] = { x = lx, y = ly, anchor = side < 0 and "end" or nil,
            leader = { x + dx * r, y + dy * r, lx - side * 2, ly - 4 } }
        end
      end
    end
    for _, t in ipairs(cands) do t.text = p.name; text(t) end
    return cands, near
  end
  -- the most crowded point first: the one with the fewest free places beside it
  local order = {}
  for i, p in ipairs(o.points) do
    local cands, near = candidates(p)
    local free = 0
    for j = 1, near do if not c:collision(box_of(cands[j]), true) then free = free + 1 end end
    order[i] = { i = i, free = free }
  end
  table.sort(order, function(a, b) return a.free < b.free or (a.free == b.free and a.i < b.i) end)
  for _, e in ipairs(order) do
    local p = o.points[e.i]
    local cands = candidates(p)
    -- off the roofs and axes if it can be; over a line rather than nowhere
    local _ = c:try(cands, true) or c:place(cands)
  end
  for _, p in ipairs(o.points) do
    c:add(string.format('<circle class="s%d" cx="%s" cy="%s" r="4.5"><title>%s: %s FLOP/byte, %s TFLOP/s' ..
      '</title></circle>', #roofs + 1, f(X(p.intensity)), f(Y(p.perf)), esc(p.name), label(p.intensity),
      label(p.perf)))
  end
  c:place({ bottom_title_at(xl_lines, xl_tip, x0, x1, W, y1) })
  return c:svg()
end

local function roofline(o)
  check_common(o)
  need(type(o.peak) == "number" and o.peak > 0, "peak (TFLOP/s) must be a positive number")
  need(type(o.bandwidth) == "number" and o.bandwidth > 0, "bandwidth (TB/s) must be a positive number")
  need(type(o.points) == "table", "points must be a list of {name=, intensity=, perf=}")
  local roofs = { { name = o.peak_name or "peak", peak = o.peak } }
  for _, r in ipairs(o.roofs or {}) do
    need(type(r.peak) == "number" and r.peak > 0 and type(r.name) == "string",
      "each roofs[] entry needs a name and a positive peak")
    roofs[#roofs + 1] = r
  end
  need(#roofs <= 5, "at most 5 roofs")
  for i, p in ipairs(o.points) do
    need(type(p.name) == "string" and type(p.intensity) == "number" and p.intensity > 0 and type(p.perf) == "number"
      and p.perf > 0, string.format("points[%d] needs a name and positive intensity and perf", i))
  end
  local legend = {}
  for k, r in ipairs(roofs) do legend[k] = { name = r.name, k = k, key = "line" } end
  legend[#legend + 1] = { name = o.points_name or "measured", k = #roofs + 1, key = "dot" }
  return figure(o, legend, roofline_svg(o, WIDE, roofs), roofline_svg(o, NARROW, roofs))
end

---------------------------------------------------------------------------
-- The public functions: "" for the skill; an error of the chart's (bad
-- options, no room for a text) is raised at the Markdown line that called.

local function api(draw)
  return function(o)
    if lit.output ~= "book" then return "" end
    local ok, res = pcall(draw, o)
    if ok then return res end
    if type(res) == "table" and res.chart_error then error("chart: " .. res.chart_error, 2) end
    error(res, 0) -- a fault of chart.lua itself, or the instruction budget: as it came
  end
end

chart.bar = api(function(o) return horizontal(o, "bar") end)
chart.dots = api(function(o) return horizontal(o, "dots") end)
chart.line = api(chart_line)
chart.roofline = api(roofline)

return chart
