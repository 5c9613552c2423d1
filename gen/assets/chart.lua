-- chart.lua: the weaver's chart API (lit loads it into every .render block's state).
--
-- Each function takes one table of options and returns Markdown: a
-- <figure class="chart"> holding an inline SVG, drawn here at weave time, so
-- the book needs no script to show it. Colours are CSS classes (s1..s6)
-- the book's stylesheet maps to its palette, so a chart follows the light
-- and dark themes and prints in black on white. For the skill (lit.output
-- == "skill") every function returns "": an agent reads the table instead.
--
--   chart.bar{title=, categories={...}, series={{name=, values={...}}, ...},
--             unit="%", max=, ref=, ref_label=, caption=, digits=}
--       horizontal bars, one group per category, one bar per series
--   chart.dots{...same options...}
--       a dot plot: one row per category, one marker per series on a shared axis
--   chart.line{title=, x={...}, series={{name=, values={...}}}, xlabel=, ylabel=,
--              logx=true, unit=, caption=, ref=, ref_label=}
--       one line per series over x (sizes, say); logx spaces x by powers of 2
--   chart.roofline{title=, peak=, bandwidth=, points={{name=, intensity=, perf=}},
--                  roofs={{name=, peak=}}, caption=}
--       log-log roofline: perf (TFLOP/s) against arithmetic intensity
--       (FLOP/byte); bandwidth in TB/s; the roof is min(peak, bandwidth * I)
local chart = {}

local W = 720 -- the viewBox width; the figure scales to the column

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
  return s
end

local function need(cond, msg) if not cond then error("chart: " .. msg, 3) end end

local function check_series(o, n)
  need(type(o.series) == "table" and #o.series > 0, "series must be a list of {name=, values=}")
  need(#o.series <= 6, "at most 6 series")
  for i, s in ipairs(o.series) do
    need(type(s.name) == "string", string.format("series[%d].name must be a string", i))
    need(type(s.values) == "table" and #s.values == n,
      string.format("series[%d].values must hold %d numbers, one per category", i, n))
    for k = 1, n do
      local v = s.values[k]
      need(type(v) == "number" and v == v, string.format("series[%d].values[%d] is not a number", i, k))
    end
  end
end

-- Ticks 0, step, 2 step ... covering max, step from 1, 2, 5 x 10^k.
local function ticks(max)
  if max <= 0 then max = 1 end
  local raw = max / 5
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({ 1, 2, 2.5, 5, 10 }) do
    if m * mag >= raw then step = m * mag break end
  end
  local top = math.ceil(max / step - 1e-9) * step
  local t = {}
  for v = 0, top + step / 2, step do t[#t + 1] = v end
  return t, top
end

local function text_width(s, px) return #tostring(s) * (px or 12) * 0.58 end

-- The figure around an SVG body: title, legend, accessible name, caption.
local function figure(o, h, body, legend)
  local title = o.title or ""
  local out = {
    '<figure class="chart">',
    string.format('<svg viewBox="0 0 %d %s" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">',
      W, f(h), esc(title)),
    "<title>" .. esc(title) .. "</title>",
    string.format('<text class="title" x="0" y="16">%s</text>', esc(title)),
  }
  if legend then
    local x = 0
    for i, name in ipairs(legend) do
      out[#out + 1] = string.format('<rect class="s%d" x="%s" y="26" width="12" height="12" rx="2"/>' ..
        '<text x="%s" y="36">%s</text>', i, f(x), f(x + 16), esc(name))
      x = x + 16 + text_width(name) + 18
    end
  end
  out[#out + 1] = body
  out[#out + 1] = "</svg>"
  if o.caption then out[#out + 1] = "<figcaption>" .. esc(o.caption) .. "</figcaption>" end
  out[#out + 1] = "</figure>"
  -- an HTML block in Markdown ends at a blank line: keep every line non-empty
  return "\n" .. table.concat(out, "\n") .. "\n\n"
end

local function series_names(o)
  local t = {}
  for i, s in ipairs(o.series) do t[i] = s.name end
  return t
end

-- Horizontal layouts (bar, dots): categories down the left, values across.
local function horizontal(o, kind)
  if lit.output ~= "book" then return "" end
  need(type(o) == "table", "pass one table of options")
  need(type(o.categories) == "table" and #o.categories > 0, "categories must be a non-empty list")
  local n = #o.categories
  check_series(o, n)
  local ns = #o.series
  local max = o.max or 0
  if not o.max then
    for _, s in ipairs(o.series) do for _, v in ipairs(s.values) do if v > max then max = v end end end
    if o.ref and o.ref > max then max = o.ref end
  end
  local tk, top = ticks(max)
  if o.max then top = o.max end
  local lw = 0
  for _, c in ipairs(o.categories) do lw = math.max(lw, text_width(c)) end
  lw = math.min(lw + 10, 300)
  local unit = o.unit or ""
  local x0, x1 = lw, W - 50
  local y0 = 52
  local row = kind == "bar" and (ns * 11 + 8) or 18
  local h = y0 + n * row + 28
  local function X(v) return x0 + (x1 - x0) * math.max(0, math.min(v, top)) / top end
  local b = {}
  for _, t in ipairs(tk) do
    if t <= top + 1e-9 then
      b[#b + 1] = string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>' ..
        '<text class="tick" x="%s" y="%s" text-anchor="middle">%s%s</text>',
        f(X(t)), f(y0 - 4), f(X(t)), f(y0 + n * row), f(X(t)), f(y0 + n * row + 16), label(t), esc(unit))
    end
  end
  for i, c in ipairs(o.categories) do
    local y = y0 + (i - 1) * row
    b[#b + 1] = string.format('<text x="%s" y="%s" text-anchor="end">%s</text>', f(x0 - 8), f(y + row / 2 + 4),
      esc(c))
    if kind == "dots" then
      local lo, hi = math.huge, -math.huge
      for _, s in ipairs(o.series) do
        lo = math.min(lo, s.values[i]); hi = math.max(hi, s.values[i])
      end
      b[#b + 1] = string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(X(lo)), f(y + row / 2),
        f(X(hi)), f(y + row / 2))
    end
    for k, s in ipairs(o.series) do
      local v = s.values[i]
      local tip = string.format("<title>%s, %s: %s%s</title>", esc(c), esc(s.name), label(v, o.digits), esc(unit))
      if kind == "bar" then
        local by = y + 4 + (k - 1) * 11
        b[#b + 1] = string.format('<rect class="s%d" x="%s" y="%s" width="%s" height="9">%s</rect>', k, f(x0),
          f(by), f(X(v) - x0), tip)
        b[#b + 1] = string.format('<text class="value" x="%s" y="%s">%s</text>', f(X(v) + 3), f(by + 8),
          label(v, o.digits))
      else
        local shape = k == 1 and string.format('<circle class="s1" cx="%s" cy="%s" r="5">%s</circle>', f(X(v)),
          f(y + row / 2), tip)
          or string.format('<rect class="s%d" x="%s" y="%s" width="8" height="8" transform="rotate(%d %s %s)">' ..
            '%s</rect>', k, f(X(v) - 4), f(y + row / 2 - 4), k == 2 and 0 or 45, f(X(v)), f(y + row / 2), tip)
        b[#b + 1] = shape
      end
    end
  end
  b[#b + 1] = string.format('<line class="axis" x1="%s" y1="%s" x2="%s" y2="%s"/>', f(x0), f(y0 - 4), f(x0),
    f(y0 + n * row))
  if o.ref then
    b[#b + 1] = string.format('<line class="ref-line" x1="%s" y1="%s" x2="%s" y2="%s"/>' ..
      '<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>', f(X(o.ref)), f(y0 - 6), f(X(o.ref)),
      f(y0 + n * row), f(X(o.ref)), f(y0 - 8), esc(o.ref_label or (label(o.ref) .. unit)))
  end
  return figure(o, h, table.concat(b, "\n"), series_names(o))
end

function chart.bar(o) return horizontal(o, "bar") end

function chart.dots(o) return horizontal(o, "dots") end

local function log2(x) return math.log(x, 2) end

function chart.line(o)
  if lit.output ~= "book" then return "" end
  need(type(o) == "table", "pass one table of options")
  need(type(o.x) == "table" and #o.x > 1, "x must be a list of at least two numbers")
  local n = #o.x
  check_series(o, n)
  for i, v in ipairs(o.x) do
    need(type(v) == "number" and (not o.logx or v > 0), string.format("x[%d] must be a %snumber", i,
      o.logx and "positive " or ""))
  end
  local max = 0
  for _, s in ipairs(o.series) do for _, v in ipairs(s.values) do if v > max then max = v end end end
  if o.ref and o.ref > max then max = o.ref end
  local tk, top = ticks(o.max or max)
  if o.max then top = o.max end
  local unit = o.unit or ""
  local x0, x1, y0, y1 = 56, W - 20, 64, 310
  local h = y1 + (o.xlabel and 40 or 26)
  local lo, hi = o.x[1], o.x[1]
  for _, v in ipairs(o.x) do lo = math.min(lo, v); hi = math.max(hi, v) end
  local function X(v)
    if o.logx then return x0 + (x1 - x0) * (log2(v) - log2(lo)) / math.max(log2(hi) - log2(lo), 1e-9) end
    return x0 + (x1 - x0) * (v - lo) / math.max(hi - lo, 1e-9)
  end
  local function Y(v) return y1 - (y1 - y0) * math.max(0, math.min(v, top)) / top end
  local b = {}
  for _, t in ipairs(tk) do
    if t <= top + 1e-9 then
      b[#b + 1] = string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>' ..
        '<text class="tick" x="%s" y="%s" text-anchor="end">%s%s</text>', f(x0), f(Y(t)), f(x1), f(Y(t)),
        f(x0 - 6), f(Y(t) + 4), label(t), esc(unit))
    end
  end
  local every = math.max(1, math.ceil(n / 10))
  for i, v in ipairs(o.x) do
    if (i - 1) % every == 0 or i == n then
      b[#b + 1] = string.format('<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>', f(X(v)),
        f(y1 + 16), esc(o.xticks and o.xticks[i] or label(v)))
    end
  end
  if o.ref then
    b[#b + 1] = string.format('<line class="ref-line" x1="%s" y1="%s" x2="%s" y2="%s"/>' ..
      '<text class="tick" x="%s" y="%s" text-anchor="end">%s</text>', f(x0), f(Y(o.ref)), f(x1), f(Y(o.ref)),
      f(x1), f(Y(o.ref) - 4), esc(o.ref_label or (label(o.ref) .. unit)))
  end
  for k, s in ipairs(o.series) do
    local pts = {}
    for i, v in ipairs(s.values) do pts[#pts + 1] = f(X(o.x[i])) .. "," .. f(Y(v)) end
    b[#b + 1] = string.format('<polyline class="line s%d" points="%s"/>', k, table.concat(pts, " "))
    for i, v in ipairs(s.values) do
      b[#b + 1] = string.format('<circle class="s%d" cx="%s" cy="%s" r="3"><title>%s at %s: %s%s</title></circle>',
        k, f(X(o.x[i])), f(Y(v)), esc(s.name), esc(o.xticks and o.xticks[i] or label(o.x[i])), label(v, o.digits),
        esc(unit))
    end
  end
  b[#b + 1] = string.format('<path class="axis" d="M%s %sV%sH%s"/>', f(x0), f(y0), f(y1), f(x1))
  if o.xlabel then
    b[#b + 1] = string.format('<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>', f((x0 + x1) / 2),
      f(y1 + 34), esc(o.xlabel))
  end
  if o.ylabel then
    b[#b + 1] = string.format('<text class="tick" x="%s" y="%s">%s</text>', f(x0), f(y0 - 6), esc(o.ylabel))
  end
  return figure(o, h, table.concat(b, "\n"), series_names(o))
end

function chart.roofline(o)
  if lit.output ~= "book" then return "" end
  need(type(o) == "table", "pass one table of options")
  need(type(o.peak) == "number" and o.peak > 0, "peak (TFLOP/s) must be a positive number")
  need(type(o.bandwidth) == "number" and o.bandwidth > 0, "bandwidth (TB/s) must be a positive number")
  need(type(o.points) == "table", "points must be a list of {name=, intensity=, perf=}")
  local roofs = { { name = o.peak_name or "peak", peak = o.peak } }
  for _, r in ipairs(o.roofs or {}) do
    need(type(r.peak) == "number" and r.peak > 0, "each roofs[] entry needs a positive peak")
    roofs[#roofs + 1] = r
  end
  local ymax = 0
  for _, r in ipairs(roofs) do ymax = math.max(ymax, r.peak) end
  local lo_i, hi_i = 1 / 16, 1024
  local lo_p = math.min(o.bandwidth * lo_i, 0.1)
  for i, p in ipairs(o.points) do
    need(type(p.name) == "string" and type(p.intensity) == "number" and p.intensity > 0 and type(p.perf) == "number"
      and p.perf > 0, string.format("points[%d] needs a name and positive intensity and perf", i))
    lo_i = math.min(lo_i, p.intensity / 2); hi_i = math.max(hi_i, p.intensity * 2)
    lo_p = math.min(lo_p, p.perf / 2)
  end
  local x0, x1, y0, y1 = 60, W - 20, 64, 340
  local h = y1 + 40
  local lx0, lx1 = log2(lo_i), log2(hi_i)
  local ly0, ly1 = math.log(lo_p, 10), math.log(ymax * 2, 10)
  local function X(i) return x0 + (x1 - x0) * (log2(i) - lx0) / (lx1 - lx0) end
  local function Y(p) return y1 - (y1 - y0) * (math.log(p, 10) - ly0) / (ly1 - ly0) end
  local b = {}
  for e = math.ceil(ly0), math.floor(ly1) do
    local p = 10 ^ e
    b[#b + 1] = string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>' ..
      '<text class="tick" x="%s" y="%s" text-anchor="end">%s</text>', f(x0), f(Y(p)), f(x1), f(Y(p)), f(x0 - 6),
      f(Y(p) + 4), label(p))
  end
  for e = math.ceil(lx0), math.floor(lx1), 2 do
    local i = 2 ^ e
    b[#b + 1] = string.format('<line class="grid" x1="%s" y1="%s" x2="%s" y2="%s"/>' ..
      '<text class="tick" x="%s" y="%s" text-anchor="middle">%s</text>', f(X(i)), f(y0), f(X(i)), f(y1), f(X(i)),
      f(y1 + 16), label(i))
  end
  for k, r in ipairs(roofs) do
    local knee = r.peak / o.bandwidth
    local ia = math.max(lo_i, math.min(knee, hi_i))
    b[#b + 1] = string.format('<polyline class="roof s%d" points="%s,%s %s,%s %s,%s"/>', k, f(X(lo_i)),
      f(Y(o.bandwidth * lo_i)), f(X(ia)), f(Y(o.bandwidth * ia)), f(X(hi_i)), f(Y(r.peak)))
    b[#b + 1] = string.format('<text x="%s" y="%s" text-anchor="end">%s %s TFLOP/s</text>', f(x1),
      f(Y(r.peak) - 5), esc(r.name), label(r.peak))
  end
  b[#b + 1] = string.format('<text class="tick" x="%s" y="%s" transform="rotate(%s %s %s)">%s TB/s</text>',
    f(X(lo_i * 2) + 4), f(Y(o.bandwidth * lo_i * 2) - 6),
    f(-math.deg(math.atan((Y(o.bandwidth * lo_i) - Y(o.bandwidth * lo_i * 4)) / (X(lo_i * 4) - X(lo_i))))),
    f(X(lo_i * 2) + 4), f(Y(o.bandwidth * lo_i * 2) - 6), label(o.bandwidth))
  for _, p in ipairs(o.points) do
    b[#b + 1] = string.format('<circle class="s%d" cx="%s" cy="%s" r="4.5"><title>%s: %s FLOP/byte, %s TFLOP/s' ..
      '</title></circle><text class="value" x="%s" y="%s">%s</text>', #roofs + 1, f(X(p.intensity)), f(Y(p.perf)),
      esc(p.name), label(p.intensity), label(p.perf), f(X(p.intensity) + 7), f(Y(p.perf) + 4), esc(p.name))
  end
  b[#b + 1] = string.format('<path class="axis" d="M%s %sV%sH%s"/>', f(x0), f(y0), f(y1), f(x1))
  b[#b + 1] = string.format('<text class="tick" x="%s" y="%s" text-anchor="middle">arithmetic intensity ' ..
    '(FLOP/byte, log scale)</text><text class="tick" x="%s" y="%s">TFLOP/s (log scale)</text>', f((x0 + x1) / 2),
    f(y1 + 34), f(x0), f(y0 - 6))
  local legend = {}
  for _, r in ipairs(roofs) do legend[#legend + 1] = r.name end
  legend[#legend + 1] = o.points_name or "measured"
  return figure(o, h, table.concat(b, "\n"), legend)
end

return chart
