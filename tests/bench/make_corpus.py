#!/usr/bin/env python3
"""make_corpus.py OUT_DIR [--scale S]: the synthetic corpus for the tangle
benchmark, as a lit project and its exact noweb equivalent.

Written (deterministically, from a fixed seed):
  OUT_DIR/md/index.md, OUT_DIR/md/docs/*.md   the lit project (about 50 MB)
  OUT_DIR/corpus.nw                           the same chunks in noweb syntax
  OUT_DIR/roots.txt                           the file roots, one a line
  OUT_DIR/stats.json                          input bytes, chunks, depth

Shape: 25,000 named chunks of about 2 KB each, in several documents:
  - a chain of 10,001 chunks, each including the next (10,000 deep), every
    500th reference indented by two spaces, written to out/chain.c;
  - 1,000 group chunks, each including about 14 leaf chunks indented by four
    spaces, spread over 8 file roots (out/f0.c .. out/f7.c);
  - 13,999 leaf chunks, 1,000 of them appended to by a second definition in
    a later document.
Every chunk is used exactly once, so the tangled output is about the size of
the input. Python 3 standard library only.
"""
import json
import os
import random
import sys

SEED = 20261122
CHAIN = 10001
GROUPS = 1000
FILES = 8
TOTAL = 25000
LEAVES = TOTAL - CHAIN - GROUPS
APPENDS = 1000
LINES_PER_CHUNK = 47
DOCS = 6

IDENTS = ['acc', 'idx', 'lane', 'warp', 'tile', 'row', 'col', 'sum', 'val', 'tmp', 'base', 'stride', 'n', 'k']
OPS = ['+', '-', '*', '^', '&', '|']


def code_line(rng, i):
    a, b, c = rng.choice(IDENTS), rng.choice(IDENTS), rng.choice(IDENTS)
    kind = i % 5
    if kind == 0:
        return 'float %s_%d = %s %s %s * %d.0f;' % (a, i, b, rng.choice(OPS), c, rng.randint(1, 99))
    if kind == 1:
        return 'for (int %s = 0; %s < %s; %s += %d) {' % (a, a, b, a, rng.randint(1, 8))
    if kind == 2:
        return '  %s[%s] = fmaf(%s, %s, %s[%s]);' % (a, b, c, a, b, c)
    if kind == 3:
        return '}  /* %s %s %s: %d */' % (a, b, c, rng.randint(0, 10**6))
    return '__syncthreads(); %s ^= __shfl_xor_sync(0xffffffff, %s, %d);' % (a, b, 1 << rng.randint(0, 4))


def body(rng, lines):
    return [code_line(rng, i) for i in range(lines)]


def main():
    out = sys.argv[1]
    scale = float(sys.argv[sys.argv.index('--scale') + 1]) if '--scale' in sys.argv else 1.0
    lines = max(2, int(LINES_PER_CHUNK * scale))
    rng = random.Random(SEED)
    # blocks[d] = list of (name or None, file or None, lines) for document d (0 = index.md)
    blocks = [[] for _ in range(DOCS + 1)]

    def put(doc, name, path, text):
        blocks[doc].append((name, path, text))

    # file roots, in index.md
    put(0, None, 'out/chain.c', ['// the 10,000-deep chain', '<<chain-0>>'])
    groups_per_file = GROUPS // FILES
    for f in range(FILES):
        refs = ['    <<group-%d>>' % g for g in range(f * groups_per_file, (f + 1) * groups_per_file)]
        put(0, None, 'out/f%d.c' % f, ['// file %d' % f, 'void file_%d(void) {' % f] + refs + ['}'])
    # the chain: documents 1 and 2
    for i in range(CHAIN):
        text = body(rng, lines)
        if i + 1 < CHAIN:
            text.insert(lines // 2, ('  ' if (i + 1) % 500 == 0 else '') + '<<chain-%d>>' % (i + 1))
        put(1 if i < CHAIN // 2 else 2, 'chain-%d' % i, None, text)
    # groups: document 3
    leaves_per_group = LEAVES // GROUPS
    extra = LEAVES - leaves_per_group * GROUPS
    leaf = 0
    for g in range(GROUPS):
        n = leaves_per_group + (1 if g < extra else 0)
        text = ['{ /* group %d */' % g] + ['    <<leaf-%d>>' % (leaf + k) for k in range(n)] + ['}']
        leaf += n
        pad = body(rng, max(0, lines - len(text)))
        put(3, 'group-%d' % g, None, pad[: len(pad) // 2] + text + pad[len(pad) // 2:])
    # leaves: documents 4..6, appends in a later document than the first definition
    appended = set(rng.sample(range(LEAVES), APPENDS))
    for i in range(LEAVES):
        put(4 + i % 2, 'leaf-%d' % i, None, body(rng, lines))
    for i in sorted(appended):
        put(6, 'leaf-%d' % i, None, ['/* appended to leaf %d */' % i] + body(rng, max(1, lines // 4)))

    md = os.path.join(out, 'md')
    os.makedirs(os.path.join(md, 'docs'), exist_ok=True)
    names = ['index.md'] + ['docs/part-%d.md' % d for d in range(1, DOCS + 1)]
    total = 0
    nw_parts = []
    for d, name in enumerate(names):
        md_parts = []
        if d == 0:
            md_parts.append('---\ntangle-roots: out\n---\n# Synthetic corpus\n\n')
            for k, other in enumerate(names[1:], 1):
                md_parts.append('%d. [Part %d](%s)\n' % (k, k, other))
            md_parts.append('\n')
        else:
            md_parts.append('# Part %d\n\n' % d)
        nw_parts.append('@ %s\n' % name)
        for name_, path, text in blocks[d]:
            attrs = ('#%s' % name_) if name_ else ('file=%s' % path)
            prose = 'The next block is %s.\n\n' % (name_ or path)
            code = '\n'.join(text) + '\n'
            md_parts.append(prose + '```{.c %s}\n' % attrs + code + '```\n\n')
            nw_parts.append(prose + '<<%s>>=\n' % (name_ or path) + code + '@\n')
        data = ''.join(md_parts).encode()
        total += len(data)
        with open(os.path.join(md, name), 'wb') as f:
            f.write(data)
    with open(os.path.join(out, 'corpus.nw'), 'w') as f:
        f.write(''.join(nw_parts))
    roots = ['out/chain.c'] + ['out/f%d.c' % f for f in range(FILES)]
    with open(os.path.join(out, 'roots.txt'), 'w') as f:
        f.write('\n'.join(roots) + '\n')
    with open(os.path.join(out, 'stats.json'), 'w') as f:
        json.dump({'input_bytes': total, 'chunks': TOTAL, 'depth': CHAIN - 1, 'files': len(roots),
                   'documents': len(names)}, f)
    print('%d bytes in %d documents, %d chunks, depth %d' % (total, len(names), TOTAL, CHAIN - 1))


if __name__ == '__main__':
    main()
