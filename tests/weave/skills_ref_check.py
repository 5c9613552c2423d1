#!/usr/bin/env python3
"""Runs the Agent Skills reference validator (skills-ref, agentskills.io) on
skill bundles, and on a broken copy of the first one to show that the
validator is live.

    skills_ref_check.py BUNDLE_DIR [BUNDLE_DIR...]

The validator runs under $SKILLS_REF_PYTHON (default: build/skills-ref/bin/python,
the virtual environment `make deps` creates). Both module names the package
has shipped under are tried: skills_ref, then agentskills. When no
interpreter with the package exists the check says so, names the command
that installs it, and counts nothing: tests/weave/skill_check.py still
checks the same rules.

Prints one line per check and ends with "N passed, N failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PYTHON = os.environ.get("SKILLS_REF_PYTHON", os.path.join(REPO, "build", "skills-ref", "bin", "python"))

# Run inside the validator's interpreter: print each error, exit 1 if any.
PROBE = r"""
import sys
from pathlib import Path
try:
    from skills_ref import validate
except ImportError:
    from agentskills import validate
errors = validate(Path(sys.argv[1]))
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
"""


def validate(path):
    proc = subprocess.run([PYTHON, "-c", PROBE, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc.returncode, proc.stdout.strip()


def main(bundles):
    if not bundles:
        print(__doc__.strip().split("\n\n")[1])
        return 2
    have = os.path.exists(PYTHON) and subprocess.run(
        [PYTHON, "-c", "import importlib.util as u, sys; "
                 "sys.exit(0 if u.find_spec('skills_ref') or u.find_spec('agentskills') else 1)"]).returncode == 0
    if not have:
        print(f"skills-ref: not installed at {PYTHON}; `make deps` installs it. Skipped: 0 passed, 0 failed")
        return 0
    passed = failed = 0
    for b in bundles:
        rc, out = validate(b.rstrip("/"))
        if rc == 0:
            passed += 1
            print(f"ok   skills-ref validate {b}")
        else:
            failed += 1
            print(f"FAIL skills-ref validate {b}\n{out}")
    # The negative control: a folder whose name differs from the skill's name
    # must be refused, or the validator is not looking at the bundle.
    with tempfile.TemporaryDirectory() as tmp:
        broken = os.path.join(tmp, "not-the-skill-name")
        shutil.copytree(bundles[0].rstrip("/"), broken)
        rc, out = validate(broken)
        if rc != 0 and "name" in out.lower():
            passed += 1
            print("ok   skills-ref refuses a copy whose folder name differs from the skill's name")
        else:
            failed += 1
            print(f"FAIL skills-ref accepted a copy whose folder name differs from the skill's name (rc {rc})\n{out}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
