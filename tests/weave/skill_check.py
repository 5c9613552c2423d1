#!/usr/bin/env python3
"""Checks a skill bundle against the Agent Skills specification and walks
every link in it.

    skill_check.py BUNDLE_DIR [BUNDLE_DIR...]

Specification checks (agentskills.io/specification): SKILL.md starts with
YAML front matter holding only name, description, license, compatibility,
metadata and allowed-tools; name is 1-64 characters of a-z, 0-9 and '-',
without a leading, trailing or doubled '-', and equals the folder's name;
description is 1-1024 characters without '<' or '>'; compatibility is at
most 500 characters; the body is under 500 lines and under 5,000 tokens,
estimated as characters / 4 (no tokenizer is needed, and the estimate is
the one the specification's guidance uses).

Bundle checks: .lit-manifest, lit's record of the files it wrote there,
lists every file exactly once, and no manifest.txt repeats it; every
relative Markdown link (inline or reference definition, outside code)
resolves to a file inside the bundle, and every #anchor to a heading of the
target (GitHub's anchor rules, the ones lit uses).

Prints one line per check and ends with "N passed, N failed".
"""
import os
import re
import sys

ALLOWED = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)


def front_matter(text):
    """(dict of top-level keys, body) from '---' YAML front matter; values as strings."""
    if not text.startswith("---\n"):
        return None, text
    end = text.find("\n---\n", 4)
    if end < 0:
        return None, text
    keys, last = {}, None
    for line in text[4:end].split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" and last:  # nested (metadata) or folded continuation
            continue
        m = re.match(r"([A-Za-z0-9_-]+):\s*(.*)$", line)
        if not m:
            keys.setdefault("<malformed>", line)
            continue
        key, value = m.group(1), m.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
            if m.group(2).strip()[0] == '"':
                value = re.sub(r'\\(.)', r'\1', value)
        keys[key] = value
        last = key
    return keys, text[end + 5:]


def slug(text):
    s = []
    for ch in text.lower():
        if ch.isascii():
            if ch.isalnum() or ch in "-_":
                s.append(ch)
            elif ch == " ":
                s.append("-")
        elif not ("\u2010" <= ch <= "\u206f"):
            s.append(ch)
    return "".join(s) or "section"


def heading_text(raw):
    t = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)   # links and images: their text
    t = t.replace("`", "")
    t = t.replace("*", "")
    t = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", "", t)
    t = re.sub(r"<[^>]+>", "", t)
    return t.strip().rstrip("#").strip()


def scan(text):
    """Yields ('heading', text) and ('link', url, line) outside fenced code."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        stripped = line.lstrip(" >")
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not stripped[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        h = re.match(r"#{1,6}\s+(.*)$", stripped)
        if h:
            yield ("heading", heading_text(h.group(1)))
        code_free = re.sub(r"(`+)(.+?)\1", "", line)
        d = re.match(r"\s*\[[^\]^][^\]]*\]:\s*(\S+)", code_free)  # not a footnote, [^label]: text
        if d:
            yield ("link", d.group(1).strip("<>"), n)
        for m in re.finditer(r"\]\((<[^>]*>|[^)\s]*)", code_free):
            yield ("link", m.group(1).strip("<>"), n)


def anchors_of(path, cache={}):
    if path not in cache:
        seen, out = {}, set()
        with open(path, encoding="utf-8") as f:
            for item in scan(f.read()):
                if item[0] != "heading":
                    continue
                base = slug(item[1])
                s, k = base, seen.get(base, 0)
                while s in out:
                    k += 1
                    s = "%s-%d" % (base, k)
                seen[base] = k
                out.add(s)
        cache[path] = out
    return cache[path]


def check_bundle(root):
    root = os.path.abspath(root)
    name = os.path.basename(root)
    skill_md = os.path.join(root, "SKILL.md")
    check(os.path.isfile(skill_md), name + ": SKILL.md exists")
    if not os.path.isfile(skill_md):
        return
    with open(skill_md, encoding="utf-8") as f:
        text = f.read()
    keys, body = front_matter(text)
    check(keys is not None, name + ": SKILL.md starts with YAML front matter")
    keys = keys or {}
    extra = sorted(set(keys) - ALLOWED)
    check(not extra, name + ": front matter keys are allowed (extra: %s)" % (", ".join(extra) or "none"))
    n = keys.get("name", "")
    check(bool(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n)) and len(n) <= 64,
          name + ": name '%s' is 1-64 of a-z 0-9 and single inner hyphens" % n)
    check(n == name, name + ": name equals the folder name")
    desc = keys.get("description", "")
    check(1 <= len(desc) <= 1024 and "<" not in desc and ">" not in desc,
          name + ": description is 1-1024 characters without < or > (%d)" % len(desc))
    if "compatibility" in keys:
        check(len(keys["compatibility"]) <= 500, name + ": compatibility is at most 500 characters")
    lines = body.count("\n")
    tokens = len(body) // 4
    check(lines < 500, name + ": body is under 500 lines (%d)" % lines)
    check(tokens < 5000, name + ": body is under 5,000 tokens, estimated as characters / 4 (%d)" % tokens)

    files = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            files.add(os.path.relpath(os.path.join(d, f), root))
    # One listing of the bundle: the .lit-manifest lit writes (it names
    # itself too); a second list of the same files would only drift.
    check("manifest.txt" not in files, name + ": no manifest.txt beside .lit-manifest")
    man = os.path.join(root, ".lit-manifest")
    if os.path.isfile(man):
        with open(man, encoding="utf-8") as f:
            lines = [l for l in f.read().split("\n") if l]
        # a line a file: the digest of the bytes lit wrote, two spaces, the path
        entries = [re.fullmatch(r"([0-9a-f]{32})  (.+)", l) for l in lines]
        check(all(entries), name + ": every .lit-manifest line is a digest and a path")
        listed = [m.group(2) for m in entries if m]
        check(sorted(set(listed) | {".lit-manifest"}) == sorted(files) and len(listed) == len(set(listed)),
              name + ": .lit-manifest lists every file once (%d files)" % len(listed))
    else:
        check(False, name + ": .lit-manifest exists")

    bad = []
    nlinks = 0
    for rel in sorted(files):
        if not rel.endswith(".md"):
            continue
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            items = list(scan(f.read()))
        for item in items:
            if item[0] != "link":
                continue
            url, line = item[1], item[2]
            if not url or re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", url) or url.startswith("//"):
                continue
            nlinks += 1
            target, _, frag = url.partition("#")
            tpath = os.path.normpath(os.path.join(os.path.dirname(path), target)) if target else path
            where = "%s:%d: %s" % (rel, line, url)
            if not (tpath == root or tpath.startswith(root + os.sep)):
                bad.append(where + " leaves the bundle")
            elif not os.path.exists(tpath):
                bad.append(where + " does not exist")
            elif frag and tpath.endswith(".md") and frag not in anchors_of(tpath):
                bad.append(where + " has no such anchor")
    for b in bad:
        print("     " + b)
    check(not bad, name + ": every relative link and anchor resolves inside the bundle (%d links)" % nlinks)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    for d in argv[1:]:
        check_bundle(d)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
