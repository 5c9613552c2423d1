"""Helpers shared by the GPU test suites of the kernel package.

- lit(): the package, imported from $LIT_KERNELS_PATH or the newest local
  build under <repo>/build/ (kernels/build_local.py puts it there);
  lit_or_none(): the same, None where no build is expected (the suites skip);
- rand(): fresh random data (never ones, never zeros), new seed every call;
- poison(): an output filled with NaN so unwritten elements show;
  poison_next(): the same for an op that allocates its own output;
- check(): ||out - ref|| / ||ref|| against the float64 reference, under the
  tolerance of BENCH.md for the dtype, and every element finite;
- injection_script(): one of the model-injection scripts, imported by name;
- Sanitized: what the sanitize_*.py scripts share (random inputs, the outputs
  that came back not finite, the exit status compute-sanitizer reads).
"""

import glob
import importlib
import importlib.util
import os
import sys

import torch

try:
    import pytest  # noqa: F401
except ImportError:  # plain `python3 test_x.py`
    from _minipytest import pytest  # noqa: F401

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOLERANCE = {torch.bfloat16: 1e-2, torch.float16: 2e-3, torch.float32: 1e-5}
DTYPES = [torch.float32, torch.float16, torch.bfloat16]
_PKG = None
_SEED = [20261122]


def lit():
    global _PKG
    if _PKG is None:
        path = os.environ.get("LIT_KERNELS_PATH")
        if not path:
            found = sorted(glob.glob(os.path.join(REPO, "build", "*", "lit_kernels", "__init__.py")),
                           key=os.path.getmtime)
            if found:
                path = os.path.dirname(os.path.dirname(found[-1]))
        if path and path not in sys.path:
            sys.path.insert(0, path)
        _PKG = importlib.import_module("lit_kernels")
    return _PKG


def lit_or_none():
    """The package, or None when no build is here and none is expected. With
    LIT_KERNELS_PATH set (the device scripts set it) the package is expected:
    an import that fails then fails the suite, instead of turning every test
    into a skip that a broken build would pass."""
    try:
        return lit()
    except ImportError:
        if os.environ.get("LIT_KERNELS_PATH"):
            raise
        return None


def injection_script(name):
    """kernels/scripts/<name>.py from the repository, or scripts/<name>.py of
    a package copy (beside tests/), imported once and registered in
    sys.modules under its name: Dynamo resolves a traced function's globals
    by importing its module, which a file loaded by path is not. None when
    neither exists."""
    if name in sys.modules:
        return sys.modules[name]
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(REPO, "kernels", "scripts", name + ".py"),
                 os.path.join(here, "..", "scripts", name + ".py")):
        if os.path.exists(path):
            spec = importlib.util.spec_from_file_location(name, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            return mod
    return None


def gen():
    _SEED[0] += 1
    return torch.Generator(device="cuda").manual_seed(_SEED[0])


def rand(shape, dtype, scale=1.0, offset=0.0):
    """Normal random numbers in float32, cast to dtype; a fresh seed per call."""
    t = torch.randn(shape, generator=gen(), device="cuda", dtype=torch.float32)
    return (t * scale + offset).to(dtype)


def poison(shape, dtype):
    return torch.full(shape, float("nan"), device="cuda", dtype=dtype)


def poison_next(shape, dtype):
    """For ops that allocate their output: leave a NaN-filled block of that
    size in the caching allocator, so the op's next output of the size lands
    on NaNs and an element it does not write shows."""
    t = torch.empty(shape, dtype=dtype, device="cuda")
    t.fill_(float("nan"))
    del t


def rel_err(out, ref):
    out = out.double()
    ref = ref.double()
    return float((out - ref).norm() / ref.norm().clamp_min(1e-300))


def check(out, ref, dtype, what=""):
    assert out.shape == ref.shape, f"{what}: shape {tuple(out.shape)} != {tuple(ref.shape)}"
    bad = (~torch.isfinite(out)).sum().item()
    assert bad == 0, f"{what}: {bad} non-finite elements (unwritten or overflow)"
    if ref.numel() == 0:
        return 0.0
    e = rel_err(out, ref)
    assert e < TOLERANCE[dtype], f"{what}: relative error {e:.3e} >= {TOLERANCE[dtype]:.0e} ({dtype})"
    return e


def requires_cuda():
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")


class Sanitized:
    """A sanitize_*.py script's run: each call's outputs are checked to be
    finite (memory a kernel failed to write keeps the caching allocator's
    poison or garbage), and finish() prints the verdict and exits non-zero
    if any was not, so compute-sanitizer's run fails on a wrong result as
    well as on an access error."""

    def __init__(self, name):
        self.name, self.bad = name, []

    @staticmethod
    def rand(*shape, dtype=torch.bfloat16, scale=1.0):
        return (torch.randn(*shape, device="cuda") * scale).to(dtype)

    def check(self, what, *outputs):
        torch.cuda.synchronize()
        if not all(torch.isfinite(t.float()).all() for t in outputs):
            self.bad.append(what)

    def finish(self):
        print(f"{self.name}:", "non-finite outputs: " + ", ".join(map(str, self.bad)) if self.bad
              else "all outputs finite")
        sys.exit(1 if self.bad else 0)
