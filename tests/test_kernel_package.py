"""Checks of the kernel package that need no GPU (CI):

- build.toml has kernel-builder's edition-5 keys, every source it lists
  exists, every .cu in csrc/ belongs to a [kernel.*] table;
- every .cu compiles with nvcc for sm_75, sm_80 and sm_90 with warnings as
  errors, and the ptxas report shows no spills in any kernel on any target,
  except the sm_75 spills SPILL_ALLOWANCE lists (with their most bytes);
- a [kernel.*] table may list cuda-capabilities only to ask for
  architecture-specific targets ("9.0a"); its sources also compile for
  those, with the same warnings and spill checks;
- the 16-byte vector forms of the memory-bound kernels store whole
  vectors: their sm_90 PTX has no 8-, 16- or 32-bit global stores (the
  compiler once split the three-sweep LayerNorm's stores into 16-bit ones);
- the kernel sources include no torch header;
- the torch binding compiles (g++ -fsyntax-only) against a stand-in for the
  torch headers (tests/torch_stub/), which checks its use of the package's
  host API where no PyTorch is installed.

    python3 tests/test_kernel_package.py      (or under pytest)
Set NVCC to the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc).

Each successful nvcc run's report is kept in build/kernel-check/ (set
LIT_KERNEL_CHECK_CACHE to move it), under a hash of everything that decides
it: the compiler's identity and version, the command line, and the source
with every csrc/ header it includes. A run whose inputs are unchanged reads
the report instead of compiling again, and every check reads the report
alike, so a change to one kernel recompiles that kernel only and nothing is
checked less. A failed run is never kept.
"""

import concurrent.futures
import functools
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(REPO, "kernels")
ARCHS = ["75", "80", "90"]


def nvcc():
    exe = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return exe if os.path.exists(exe) else None


def cuda_include_dir():
    """The directory holding cuda_runtime_api.h, as nvcc itself reports it.

    nvcc may be a wrapper script (say /usr/local/bin/nvcc exec'ing the real
    one), so the path of the executable says nothing about where the headers
    are; the INCLUDES line of a dry run does."""
    exe = nvcc()
    candidates = []
    if exe:
        proc = subprocess.run([exe, "--dryrun", "-x", "cu", "-c", os.devnull, "-o", os.devnull],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout.splitlines():
            if "INCLUDES=" in line:
                candidates += re.findall(r'-I"?([^" ]+)', line)
                candidates += re.findall(r'-isystem"?\s*"?([^" ]+)', line)
    candidates += ["/usr/local/cuda/include", "/usr/include"]
    for d in candidates:
        if os.path.exists(os.path.join(d, "cuda_runtime_api.h")):
            return d
    return None


def load_build_toml():
    path = os.path.join(KERNELS, "build.toml")
    assert os.path.exists(path), "kernels/build.toml is missing (run make tangle)"
    if tomllib is None:
        raise RuntimeError("needs Python 3.11+ for tomllib")
    with open(path, "rb") as f:
        return tomllib.load(f)


def test_build_toml_keys():
    cfg = load_build_toml()
    g = cfg["general"]
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", g["name"]) and "-" in g["name"], g["name"]
    assert isinstance(g["version"], int) and g["version"] >= 1
    assert g["edition"] == 5
    assert isinstance(g["license"], str) and g["license"]
    assert g["backends"] == ["cuda"]
    allowed_general = {"name", "version", "edition", "license", "backends", "upstream", "source",
                       "minver", "cuda", "hub", "kernel-depends", "python-depends"}
    assert set(g) <= allowed_general, set(g) - allowed_general
    torch_src = cfg["torch"]["src"]
    assert "torch-ext/torch_binding.cpp" in torch_src and "torch-ext/torch_binding.h" in torch_src
    pkg = g["name"].replace("-", "_")
    assert os.path.exists(os.path.join(KERNELS, "torch-ext", pkg, "__init__.py"))
    listed = set()
    for name, k in cfg["kernel"].items():
        assert k["backend"] == "cuda", name
        assert k["depends"] == ["torch"], name
        # A published kernel carries every capability the builder supports;
        # a list is only for sources that need architecture-specific
        # instructions (wgmma, setmaxnreg: "9.0a").
        caps = k.get("cuda-capabilities", [])
        assert all(re.fullmatch(r"\d+\.\d+a", c) for c in caps), \
            f"{name}: cuda-capabilities may only name architecture-specific targets, got {caps}"
        assert set(k) <= {"backend", "depends", "src", "include", "cuda-flags", "cxx-flags",
                          "cuda-minver", "cuda-capabilities"}, (name, set(k))
        for s in k["src"]:
            assert os.path.exists(os.path.join(KERNELS, s)), f"{name}: {s} missing"
            listed.add(s)
    for s in torch_src:
        assert os.path.exists(os.path.join(KERNELS, s)), s
    for cu in glob.glob(os.path.join(KERNELS, "csrc", "*.cu")):
        assert os.path.relpath(cu, KERNELS) in listed, f"{cu} is in no [kernel.*] table"


def local_includes(path, seen=None):
    """The headers of csrc/ that `path` includes, directly or through others."""
    seen = set() if seen is None else seen
    with open(path) as f:
        for name in re.findall(r'^#include "([^"]+)"', f.read(), re.M):
            full = os.path.join(KERNELS, "csrc", name)
            if os.path.exists(full) and name not in seen:
                seen.add(name)
                local_includes(full, seen)
    return seen


def test_build_tables_list_every_header():
    """kernel-builder copies a kernel's listed sources only: a [kernel.*]
    table must list every header its .cu files include, transitively."""
    for name, kernel in load_build_toml()["kernel"].items():
        listed = {os.path.basename(s) for s in kernel["src"]}
        for src in kernel["src"]:
            if src.endswith(".cu"):
                missing = sorted(local_includes(os.path.join(KERNELS, src)) - listed)
                assert not missing, f"[kernel.{name}] omits headers {src} includes: {missing}"


def test_kernel_sources_are_torch_free():
    for path in glob.glob(os.path.join(KERNELS, "csrc", "*")):
        with open(path) as f:
            text = f.read()
        bad = re.findall(r'#\s*include\s*[<"](torch/|ATen/|c10/)[^>"]*[>"]', text)
        assert not bad, f"{path} includes torch headers: {bad}"


CACHE_DIR = os.environ.get("LIT_KERNEL_CHECK_CACHE") or os.path.join(REPO, "build", "kernel-check")
OUTPUT = "@OUTPUT@"  # stands for the output file in a cached command line


@functools.lru_cache(maxsize=None)
def nvcc_identity():
    """The compiler as a cache key: its resolved path and what --version says."""
    exe = nvcc()
    proc = subprocess.run([exe, "--version"], capture_output=True, text=True)
    return f"{os.path.realpath(exe)}\n{proc.stdout}"


def inputs_digest(cmd, cu):
    """sha256 of what decides an nvcc run on `cu`: compiler, command, the
    source and every csrc/ header it includes (by name and content)."""
    h = hashlib.sha256()
    h.update(nvcc_identity().encode())
    h.update(json.dumps(cmd[1:]).replace(cu, os.path.basename(cu)).encode())
    for name in [os.path.basename(cu)] + sorted(local_includes(cu)):
        path = cu if name == os.path.basename(cu) else os.path.join(KERNELS, "csrc", name)
        with open(path, "rb") as f:
            h.update(f"\0{name}\0".encode() + f.read())
    return h.hexdigest()


class Report:
    """What the checks read of an nvcc run: exit status, stderr (the ptxas
    report) and, when asked for, the output file's text."""

    def __init__(self, returncode, stderr, output=None, cached=False):
        self.returncode, self.stderr, self.output, self.cached = returncode, stderr, output, cached


def read_cached(path):
    """A kept report, or None when there is none or it is not one we wrote."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return None
    if not (isinstance(d, dict) and d.get("returncode") == 0 and isinstance(d.get("stderr"), str)):
        return None
    out = d.get("output")
    return Report(0, d["stderr"], out if isinstance(out, str) else None, cached=True)


def run_nvcc(cmd, cu, want_output=False):
    """Runs cmd (OUTPUT in it stands for a temporary output file), or reads
    the report a run with the same inputs kept."""
    path = os.path.join(CACHE_DIR, inputs_digest(cmd, cu) + ".json")
    kept = read_cached(path)
    if kept is not None and (kept.output is not None or not want_output):
        return kept
    with tempfile.TemporaryDirectory() as tmp:
        out_file = os.path.join(tmp, "out")
        proc = subprocess.run([out_file if a == OUTPUT else a for a in cmd], capture_output=True, text=True)
        output = None
        if want_output and proc.returncode == 0:
            with open(out_file) as f:
                output = f.read()
    if proc.returncode == 0:
        os.makedirs(CACHE_DIR, exist_ok=True)
        tmp_path = f"{path}.{os.getpid()}.tmp"
        with open(tmp_path, "w") as f:
            json.dump({"returncode": 0, "stderr": proc.stderr, "output": output}, f)
        os.replace(tmp_path, path)
    return Report(proc.returncode, proc.stderr, output)


def compile_cu(cu, arch, extra=()):
    cmd = [nvcc(), "-std=c++17", "-O3", "--Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra",
           f"-gencode=arch=compute_{arch},code=sm_{arch}", "-c", cu, "-o", OUTPUT, *extra]
    return run_nvcc(cmd, cu)


def specific_targets():
    """{.cu path: ["90a", ...]} for sources whose [kernel.*] lists capabilities."""
    out = {}
    for k in load_build_toml()["kernel"].values():
        for src in k["src"]:
            if src.endswith(".cu") and k.get("cuda-capabilities"):
                out[os.path.join(KERNELS, src)] = [c.replace(".", "") for c in k["cuda-capabilities"]]
    return out


def spills_in(ptxas_log):
    spills, current = [], None
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and (int(m.group(1)) or int(m.group(2))):
            spills.append((current, line.strip()))
    return spills


# Spills a target is allowed, by source: the most bytes any one kernel of it
# may store to local memory there. Everything not listed must not spill on
# any target. These are sm_75's (no bf16, and registers the fp16 mma.sync
# forms run short of): the T4 guide and the package document state them.
SPILL_ALLOWANCE = {
    ("attention_portable.cu", "75"): 88,  # the four fp16 forms
    ("gemm_portable.cu", "75"): 36,       # three fp16 tile forms
    ("norm_modulate.cu", "75"): 4,        # the bf16 gated block form of 8 vectors a thread
}


def spill_bytes(line):
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
    return max(int(m.group(1)), int(m.group(2))) if m else 0


def test_cu_compile_all_targets_no_spills():
    exe = nvcc()
    if exe is None:
        raise AssertionError("nvcc not found (set NVCC)")
    cus = sorted(glob.glob(os.path.join(KERNELS, "csrc", "*.cu")))
    assert cus, "no .cu sources"
    specific = specific_targets()
    assert specific, "no source asks for an architecture-specific target (the Hopper GEMM does)"
    jobs = [(cu, arch) for cu in cus for arch in ARCHS + specific.get(cu, [])]
    # nvcc is single-threaded per target: run the (source, target) pairs on
    # every core, largest sources first.
    jobs.sort(key=lambda j: -os.path.getsize(j[0]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        procs = list(pool.map(lambda j: compile_cu(j[0], j[1], ["-Xptxas", "-v"]), jobs))
    print(f"nvcc: {sum(p.cached for p in procs)} of {len(procs)} reports unchanged since a kept run "
          f"({CACHE_DIR})", flush=True)
    for (cu, arch), proc in zip(jobs, procs):
        assert proc.returncode == 0, f"{cu} sm_{arch}:\n{proc.stderr[-4000:]}"
        allowed = SPILL_ALLOWANCE.get((os.path.basename(cu), arch), 0)
        spills = [(k, line) for k, line in spills_in(proc.stderr) if spill_bytes(line) > allowed]
        assert not spills, f"{cu}: register spills on sm_{arch} (allowed: {allowed} bytes): {spills[:5]}"
        if arch in ("90", "90a"):
            if os.path.basename(cu) == "rms_norm.cu" and arch == "90":
                check_norm_registers(proc.stderr)
            if os.path.basename(cu) == "qk_norm_rope.cu" and arch == "90":
                check_qk_norm_rope_registers(proc.stderr)
            if arch == "90a" and os.path.basename(cu) in HOPPER_KERNELS:
                check_wgmma_compiled(proc.stderr, *HOPPER_KERNELS[os.path.basename(cu)])


# The sm_90a builds of the Hopper sources must hold the real kernels:
# ptxas reports static shared memory (their mbarriers) only for them; the
# stubs other targets get have none. Source: (kernel name, instantiations).
HOPPER_KERNELS = {
    "gemm_hopper.cu": ("gemm_hopper_kernel", 16),
    # bf16 and fp16, two head dims, causal or not; bf16 also in the two
    # schedules that are not the default
    "attention_hopper.cu": ("attention_hopper_kernel", 16),
    # bf16 and fp16 out, plain or gated, four modes, four activations
    "fp8_gemm.cu": ("fp8_gemm_kernel", 64),
}


def check_wgmma_compiled(ptxas_log, kernel, expected):
    real, current = 0, None
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used \d+ registers.* (\d+) bytes smem", line)
        if current and kernel in current and m and int(m.group(1)) >= 16:
            real += 1
    assert real >= expected, f"expected {expected} real {kernel} instantiations in the sm_90a build, found {real}"


# The RMSNorm kernel's main instantiations (16-byte vectors; one vector a
# thread, or two for plain rows) must fit in 32 registers on sm_90, so that
# an SM holds 2048 of their threads: references/rmsnorm.md, "Registers
# are occupancy". Template arguments from the mangled name: T, VEC, VPT,
# BLOCK_ROW, ADD, STRIDED.
NORM_KERNEL = re.compile(r"rms_norm_reg_kernelI(13__nv_bfloat16|6__half|f)Li(\d+)ELi(\d+)ELb([01])ELb([01])ELb([01])E")
VEC16 = {"13__nv_bfloat16": 8, "6__half": 8, "f": 4}


def check_norm_registers(ptxas_log):
    seen, over = 0, []
    current = None
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = NORM_KERNEL.search(m.group(1))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            t, vec, vpt, _, add, _ = current.groups()
            if int(vec) == VEC16[t] and (int(vpt) == 1 or (int(vpt) == 2 and add == "0")):
                seen += 1
                if int(m.group(1)) > 32:
                    over.append((current.group(0), int(m.group(1))))
            current = None
    assert seen >= 24, f"expected the RMSNorm kernel's main instantiations in the ptxas log, found {seen}"
    assert not over, f"RMSNorm main instantiations above 32 registers on sm_90: {over}"

# qk_norm_rope's 15 kernels (three dtypes, float32 or 16-bit tables for the
# 16-bit dtypes, head_dim 64, 128, 256) stay at or under 64 registers on
# sm_90, so that eight 128-thread blocks fit on an SM: references/rope.md,
# "How the launch is chosen".
QK_KERNEL = re.compile(r"qk_norm_rope_kernelI(\w+?)Li(\d+)EE")


def check_qk_norm_rope_registers(ptxas_log):
    seen, over, current = set(), [], None
    for line in ptxas_log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = QK_KERNEL.search(m.group(1))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            seen.add(current.group(0))
            if int(m.group(1)) > 64:
                over.append((current.group(0), int(m.group(1))))
            current = None
    assert len(seen) == 15, f"expected 15 qk_norm_rope kernels in the ptxas log, found {sorted(seen)}"
    assert not over, f"qk_norm_rope kernels above 64 registers on sm_90: {over}"


# Memory-bound kernels whose vector forms (template arguments T and V with V
# elements in 16 bytes) must write whole 16-byte vectors. Where the compiler
# splits such a store it emits st.global.u16 (or .u32) pieces: the same
# bytes, but four to eight store instructions and partial sector writes.
# Source: pattern of the kernel's mangled name with groups (T, V).
VECTOR_STORE_KERNELS = {
    "layer_norm.cu": r"(?:ln_reg_kernel|ln_long_kernel|ln_cluster_kernel)I(13__nv_bfloat16|6__half|f)Li(\d+)E",
    "norm_modulate.cu": r"norm_modulate_kernelI(13__nv_bfloat16|6__half|f)Li(\d+)E",
    "rms_norm.cu": r"rms_norm_reg_kernelI(13__nv_bfloat16|6__half|f)Li(\d+)E",
    "activations.cu": r"gated_kernelI(13__nv_bfloat16|6__half|f)Li\d+ELi(\d+)E",
}


def split_stores(ptx, pattern):
    """(entries checked, [(entry, store kinds)]) for the PTX entries whose
    name matches pattern with V == 16 / sizeof(T) and that store anything
    narrower than a vector to global memory."""
    checked, bad = 0, []
    for body in re.split(r"\n(?:\.visible\s+)?\.entry\s+", ptx)[1:]:
        name = body.split("(", 1)[0]
        m = re.search(pattern, name)
        if not m or int(m.group(2)) != VEC16[m.group(1)]:
            continue
        checked += 1
        kinds = set(re.findall(r"st\.global((?:\.[a-z0-9]+)+)", body))
        narrow = sorted(k for k in kinds if not k.startswith(".v"))
        if narrow:
            bad.append((name, narrow))
    return checked, bad


def test_vector_forms_store_whole_vectors():
    exe = nvcc()
    if exe is None:
        raise AssertionError("nvcc not found (set NVCC)")

    def ptx_of(src):
        cu = os.path.join(KERNELS, "csrc", src)
        report = run_nvcc([exe, "-std=c++17", "-O3", "-arch=sm_90", "-ptx", cu, "-o", OUTPUT], cu,
                          want_output=True)
        assert report.returncode == 0, f"{src}: {report.stderr[-2000:]}"
        return report.output

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        ptxs = dict(zip(VECTOR_STORE_KERNELS, pool.map(ptx_of, VECTOR_STORE_KERNELS)))
    for src, pattern in VECTOR_STORE_KERNELS.items():
        checked, bad = split_stores(ptxs[src], pattern)
        assert checked > 0, f"{src}: no vector-form entry matched {pattern}"
        assert not bad, f"{src}: vector forms with split global stores: {bad[:3]}"


def test_binding_against_torch_stub():
    cxx = shutil.which("g++")
    assert cxx, "g++ not found"
    cuda_inc = cuda_include_dir()
    assert cuda_inc, "cannot find cuda_runtime_api.h: nvcc --dryrun names no include directory holding it"
    ext = os.path.join(KERNELS, "torch-ext")
    cmd = [cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-I", os.path.join(REPO, "tests", "torch_stub"),
           "-I", cuda_inc, "-I", ext, "-DTORCH_EXTENSION_NAME=_lit_kernels",
           os.path.join(ext, "torch_binding.cpp")]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.returncode == 0, "torch_binding.cpp against tests/torch_stub:\n" + proc.stdout[-4000:]


if __name__ == "__main__":
    passed = failed = 0
    for name, fn in list(globals().items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                passed += 1
                print("PASSED", name, flush=True)
            except Exception as e:  # report every check, then fail
                failed += 1
                print("FAILED", name, e, flush=True)
    print(f"kernel package: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
