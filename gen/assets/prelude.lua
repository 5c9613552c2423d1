-- gen/assets/prelude.lua: the weaver's Lua API that needs no C (md.table,
-- fmt.num, fmt.pct), run first in every state (render.c) with the output
-- name as its argument. Errors blame the caller (level 2), so they point at
-- the Markdown line that called. Embedded in lit by gen/embed.sh.
local output = ...
md, fmt, lit = {}, {}, { output = output }
local function cell(v)
  local s
  if math.type(v) == 'float' then s = string.format('%.6g', v) else s = tostring(v) end
  s = s:gsub('\r?\n', ' '):gsub('|', '\\|')
  return s
end
function md.table(header, rows, align)
  if type(header) ~= 'table' then error('md.table: the header must be a list of column names', 2) end
  if type(rows) ~= 'table' then error('md.table: rows must be a list of rows', 2) end
  local n = #header
  if n == 0 then error('md.table: the header has no columns', 2) end
  local h, sep = {}, {}
  for i = 1, n do
    h[i] = cell(header[i])
    local a = align and align[i] or 'l'
    if a == 'l' then sep[i] = '---' elseif a == 'r' then sep[i] = '---:' elseif a == 'c' then sep[i] = ':---:'
    else error(string.format('md.table: align[%d] is %q; use "l", "r" or "c"', i, tostring(a)), 2) end
  end
  local out = { '| ' .. table.concat(h, ' | ') .. ' |', '| ' .. table.concat(sep, ' | ') .. ' |' }
  for r, row in ipairs(rows) do
    if type(row) ~= 'table' then error(string.format('md.table: row %d is a %s, not a list of cells', r, type(row)), 2) end
    if #row ~= n then error(string.format('md.table: row %d has %d cells for %d columns', r, #row, n), 2) end
    local c = {}
    for i = 1, n do c[i] = cell(row[i]) end
    out[#out + 1] = '| ' .. table.concat(c, ' | ') .. ' |'
  end
  return table.concat(out, '\n') .. '\n'
end
local function number(name, x, digits, default)
  if type(x) ~= 'number' then
    error(string.format('%s: expected a number, got %s', name, type(x) == 'userdata' and 'JSON null' or type(x)), 3)
  end
  digits = digits or default
  if math.type(digits) ~= 'integer' or digits < 0 or digits > 15 then
    error(name .. ': digits must be an integer from 0 to 15', 3)
  end
  return digits
end
local function clean(s) if s:match('^%-0%.?0*$') then return s:sub(2) end return s end
function fmt.num(x, digits)
  local d = number('fmt.num', x, digits, 0)
  return clean(string.format('%.' .. d .. 'f', x))
end
function fmt.pct(x, digits)
  local d = number('fmt.pct', x, digits, 1)
  return clean(string.format('%.' .. d .. 'f', x * 100)) .. '%'
end
