-- check_specs.lua: the rules the GPU specification data must keep, run by
-- tests/check_specs.c on the data table (the argument). Returns the number
-- of problems and a report: every figure beside its source (and, for a
-- derived one, how it was derived), then one PROBLEM line per fault.

local d = ...
local lines, problems = {}, {}

local function problem(fmt, ...) problems[#problems + 1] = "PROBLEM " .. string.format(fmt, ...) end

if type(d) ~= "table" or type(d.sources) ~= "table" then return 1, "PROBLEM no sources table" end
local sources = d.sources

for key, s in pairs(sources) do
  if type(s) ~= "table" or type(s.title) ~= "string" or s.title == "" then
    problem("%s: source without a title", key)
  elseif type(s.url) ~= "string" or not s.url:match("^https://") then
    problem("%s: source without an https address", key)
  end
end

-- Keys of an entry that name it rather than hold a figure.
local descriptive = { id = true, name = true, cc = true, target = true }
-- What a figure table may hold.
local figure_keys = { v = true, src = true, sparse = true, derived = true }
-- The data type of each dense Tensor Core field.
local tc_field = {
  FP64 = "tc_fp64_tflops", TF32 = "tc_tf32_tflops", BF16 = "tc_bf16_tflops",
  FP16 = "tc_fp16_tflops", FP8 = "tc_fp8_tflops", INT8 = "tc_int8_tops",
}
local tc_type = {}
for typ, field in pairs(tc_field) do tc_type[field] = typ end
-- Every field a product may have: "figure" must be one, "either" may be
-- a none marker instead, "optional" may be absent.
local product_fields = {
  sms = "either", memory = "figure", dram_gbs = "figure", l2_mb = "either",
  tensor_types = "figure", boost_clock_mhz = "either", base_clock_mhz = "optional",
  tc_clock_mhz = "optional", memory_clock_mhz = "optional", fp32_tflops = "optional",
}
for field in pairs(tc_type) do product_fields[field] = "optional" end

local function show(v)
  if type(v) == "table" then
    local t = {}
    for i, x in ipairs(v) do t[i] = tostring(x) end
    return "{" .. table.concat(t, ", ") .. "}"
  end
  return tostring(v)
end

-- Checks one figure or none marker, lists it; true when it holds a value.
local function figure(owner, key, f)
  local where = owner .. "." .. key
  if type(f) ~= "table" then
    problem("%s: not a figure table {v = ..., src = ...}", where)
    return false
  end
  if f.none ~= nil then
    if type(f.none) ~= "string" or f.none == "" then problem("%s: a none marker must say which documents were checked", where) end
    if f.v ~= nil or f.src ~= nil then problem("%s: a none marker cannot also hold a value", where) end
    lines[#lines + 1] = string.format("%-14s %-24s %-28s none: %s", owner, key, "-", tostring(f.none))
    return false
  end
  for k in pairs(f) do
    if not figure_keys[k] then problem("%s: unknown key '%s' in a figure", where, tostring(k)) end
  end
  if f.v == nil then
    problem("%s: a figure without a value", where)
    return false
  end
  if f.src == nil then
    problem("%s: a figure that names no source", where)
  elseif sources[f.src] == nil then
    problem("%s: source %s is not in sources", where, tostring(f.src))
  end
  if f.derived ~= nil and (type(f.derived) ~= "string" or f.derived == "") then
    problem("%s: a derived figure must say how it was derived", where)
  end
  if type(f.v) == "number" and not (f.v > 0 and f.v < math.huge) then
    problem("%s: %s is not a positive number", where, tostring(f.v))
  end
  if f.sparse ~= nil then
    if type(f.v) ~= "number" or type(f.sparse) ~= "number" then
      problem("%s: dense and sparse figures must be numbers", where)
    elseif not (f.v < f.sparse) then
      problem("%s: dense %g is not below the sparse %g", where, f.v, f.sparse)
    elseif math.abs(2 * f.v - f.sparse) > 0.002 * f.sparse then
      -- NVIDIA rounds both figures, so half is half to within 0.2%
      problem("%s: dense %g is not half the sparse %g", where, f.v, f.sparse)
    end
  end
  local title = f.src and sources[f.src] and sources[f.src].title or "?"
  local value = show(f.v) .. (f.sparse and string.format(" (sparse %g)", f.sparse) or "")
  lines[#lines + 1] = string.format("%-14s %-24s %-28s %s", owner, key, value, title)
  if type(f.derived) == "string" then lines[#lines + 1] = string.format("%-39s derived: %s", "", f.derived) end
  return true
end

local function walk(owner, entry, is_product)
  local keys = {}
  for k in pairs(entry) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local held = {}
  for _, k in ipairs(keys) do
    if not descriptive[k] then
      if is_product and not product_fields[k] then problem("%s.%s: not a product field", owner, tostring(k)) end
      held[k] = figure(owner, tostring(k), entry[k])
    end
  end
  return held
end

local function value(fig) return type(fig) == "table" and fig.v or nil end

local ccs = {}
for cc in pairs(d.archs or {}) do ccs[#ccs + 1] = cc end
table.sort(ccs)
for _, cc in ipairs(ccs) do
  local a = d.archs[cc]
  local owner = "cc " .. cc
  walk(owner, a, false)
  local portable, nonportable = value(a.max_cluster_portable), value(a.max_cluster_nonportable)
  if portable and not nonportable then problem("%s: a portable cluster size without the opt-in one", owner) end
  if portable and nonportable and nonportable < portable then
    problem("%s: the opt-in cluster size %s is below the portable %s", owner, tostring(nonportable), tostring(portable))
  end
end

local ids = {}
for i, g in ipairs(d.gpus or {}) do
  local owner = type(g.id) == "string" and g.id or ("product " .. i)
  if ids[owner] then problem("%s: the id is used twice", owner) end
  ids[owner] = true
  if type(g.name) ~= "string" or g.name == "" then problem("%s: no name", owner) end
  if d.archs == nil or d.archs[g.cc] == nil then problem("%s: cc %s is not in archs", owner, tostring(g.cc)) end
  local held = walk(owner, g, true)
  for field, need in pairs(product_fields) do
    local f = g[field]
    if need ~= "optional" and f == nil then
      problem("%s: no %s (give the figure, or none(...) naming the documents checked)", owner, field)
    elseif need == "figure" and f ~= nil and not held[field] then
      problem("%s: %s must be a figure", owner, field)
    end
  end
  local types = {}
  if held.tensor_types and type(g.tensor_types.v) == "table" then
    for _, t in ipairs(g.tensor_types.v) do types[t] = true end
  end
  for typ, field in pairs(tc_field) do
    if types[typ] and not held[field] then
      problem("%s: its Tensor Cores take %s but it has no dense %s figure", owner, typ, field)
    end
  end
  for field, typ in pairs(tc_type) do
    if g[field] ~= nil and not types[typ] then problem("%s: %s, but %s is not among its Tensor Core types", owner, field, typ) end
  end
  -- the ridge point needs dense BF16, or FP16 where the Tensor Cores take no BF16
  if not held.tc_bf16_tflops and (types.BF16 or not held.tc_fp16_tflops) then
    problem("%s: no dense BF16 figure (or FP16, where its Tensor Cores take no BF16)", owner)
  end
  local boost = held.boost_clock_mhz and value(g.boost_clock_mhz)
  if boost and held.base_clock_mhz and not (value(g.base_clock_mhz) < boost) then
    problem("%s: the base clock is not below the boost clock", owner)
  end
  if boost and held.tc_clock_mhz and value(g.tc_clock_mhz) > boost then
    problem("%s: the Tensor Core clock is above the boost clock", owner)
  end
end
if #ccs == 0 or #(d.gpus or {}) == 0 then problem("no architectures or products") end

local report = table.concat(lines, "\n")
if #problems > 0 then report = report .. "\n" .. table.concat(problems, "\n") end
return #problems, report
