#!/usr/bin/env python3
"""md2noweb.py PROJECT OUT.nw: writes the noweb form of a lit project.

A deliberately small, independent reader (line-based, top-level fences
only) for the cases the differential test feeds it: the documents are read
in the order index.md links them, each tangled block becomes a noweb code
chunk, everything else documentation. A block with file=PATH becomes the
chunk <<PATH>>; one with both #name and file= becomes <<PATH>> holding
<<name>>, then <<name>>. Prints the file roots, one a line.
"""
import os
import re
import sys

FENCE = re.compile(r'^(`{3,}|~{3,})\s*(.*)$')
LINK = re.compile(r'\]\(([^)#\s]+\.md)(?:#[^)]*)?\)')


def reading_order(root):
    order = ['index.md']
    with open(os.path.join(root, 'index.md'), encoding='utf-8-sig') as f:
        for m in LINK.finditer(f.read()):
            url = m.group(1)
            if '://' in url or url.startswith('/'):
                continue
            path = os.path.normpath(url)
            if path not in order:
                order.append(path)
    return order


def attrs(info):
    """(name, file, tangled) from an info string, both attribute forms."""
    m = re.search(r'\{([^}]*)\}', info)
    if not m:
        return None, None, False
    words = m.group(1).split()
    if '.example' in words or '.data' in words or '.render' in words:
        return None, None, False
    name = next((w[1:] for w in words if w.startswith('#')), None)
    path = next((w[5:] for w in words if w.startswith('file=')), None)
    return name, path, bool(name or path)


def convert(root, out):
    roots = []
    with open(out, 'w', encoding='utf-8') as nw:
        for doc in reading_order(root):
            with open(os.path.join(root, doc), encoding='utf-8-sig') as f:
                lines = f.read().replace('\r\n', '\n').split('\n')
            i = 0
            nw.write('@ %s\n' % doc)
            while i < len(lines):
                m = FENCE.match(lines[i])
                if not m:
                    text = lines[i]
                    text = text.replace('<<', '@<<')  # noweb's escape in documentation
                    nw.write((' ' + text if text.startswith('@') else text) + '\n')
                    i += 1
                    continue
                fence = m.group(1)
                name, path, tangled = attrs(m.group(2))
                body = []
                i += 1
                while i < len(lines) and not (lines[i].startswith(fence[0] * len(fence)) and
                                                lines[i].strip() == lines[i].strip()[0] * len(lines[i].strip()) and
                                                len(lines[i].strip()) >= len(fence)):
                    body.append(lines[i])
                    i += 1
                i += 1
                if not tangled:
                    continue
                if path:
                    roots.append(path)
                if path and name:
                    nw.write('<<%s>>=\n<<%s>>\n@\n' % (path, name))
                nw.write('<<%s>>=\n' % (name or path))
                for b in body:
                    nw.write(b + '\n')
                nw.write('@\n')
    for r in roots:
        print(r)


if __name__ == '__main__':
    convert(sys.argv[1], sys.argv[2])
