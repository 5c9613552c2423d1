"""A stand-in for the few pytest features the GPU tests use (parametrize,
raises, skip), so `python3 tests/gpu/test_x.py` runs them where pytest is
not installed. With pytest present, the tests use pytest itself."""

import contextlib
import itertools
import re
import sys
import time
import traceback


class _Skip(Exception):
    pass


class _Mark:
    @staticmethod
    def parametrize(names, values, ids=None):
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)

        def deco(fn):
            params = getattr(fn, "_params", [])
            params.insert(0, (names, list(values)))
            fn._params = params
            return fn
        return deco

    def __getattr__(self, name):  # pytest.mark.slow etc.: no-op
        return lambda *a, **k: (a[0] if a and callable(a[0]) and not k else (lambda fn: fn))


class pytest:  # noqa: N801 - mimics the module
    mark = _Mark()

    @staticmethod
    @contextlib.contextmanager
    def raises(exc, match=None):
        try:
            yield
        except exc as e:
            if match is not None and not re.search(match, str(e)):
                raise AssertionError(f"exception {e!r} does not match {match!r}")
            return
        raise AssertionError(f"did not raise {exc}")

    @staticmethod
    def skip(reason=""):
        raise _Skip(reason)


def run_module(namespace, select=None):
    tests = [(k, v) for k, v in namespace.items() if k.startswith("test_") and callable(v)]
    passed = failed = skipped = 0
    for name, fn in tests:
        if select and select not in name:
            continue
        grids = getattr(fn, "_params", [])
        combos = [dict()]
        for names, values in grids:
            new = []
            for c in combos:
                for v in values:
                    v = v if len(names) > 1 else (v,)
                    d = dict(c)
                    d.update(zip(names, v))
                    new.append(d)
            combos = new
        for kwargs in combos:
            label = f"{name}[{'-'.join(str(v) for v in kwargs.values())}]"
            t0 = time.time()
            try:
                fn(**kwargs)
                passed += 1
                print(f"PASSED {label} ({time.time() - t0:.2f}s)", flush=True)
            except _Skip as s:
                skipped += 1
                print(f"SKIPPED {label}: {s}", flush=True)
            except Exception:
                failed += 1
                print(f"FAILED {label}\n{traceback.format_exc()}", flush=True)
    print(f"== {passed} passed, {failed} failed, {skipped} skipped ==", flush=True)
    return 1 if failed else 0


_ = itertools, sys
