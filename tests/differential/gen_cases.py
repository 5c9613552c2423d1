#!/usr/bin/env python3
"""gen_cases.py DIR COUNT SEED: random lit projects where lit and notangle
must agree: named chunks, appends across documents, references nested at
random indentation, blank lines, several file roots. No tabs, no mid-line
references, no lines starting with '@' (noweb syntax), no cycles."""
import os
import random
import sys

WORDS = ['int', 'x', 'y', 'return', '=', '+', 'call()', '{', '}', ';', 'value', 'π', '/* c */', '# h', 'if', 'for']


def line(rng):
    return ' ' * rng.choice([0, 0, 2, 4]) + ' '.join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))


def project(path, rng):
    ndocs = rng.randint(1, 3)
    names = ['chunk-%d' % i for i in range(rng.randint(2, 25))]
    docs = [[] for _ in range(ndocs)]
    for i, name in enumerate(names):
        for _ in range(rng.choice([1, 1, 1, 2, 3])):  # appends
            body = []
            for _ in range(rng.randint(1, 6)):
                r = rng.random()
                if r < 0.3 and i + 1 < len(names):
                    body.append(' ' * rng.choice([0, 1, 2, 4, 8]) + '<<%s>>' % rng.choice(names[i + 1:]))
                elif r < 0.4:
                    body.append('')
                else:
                    body.append(line(rng))
            while body and body[-1] == '':
                body.pop()
            if not body:
                body = [line(rng)]
            docs[rng.randrange(ndocs)].append('```{.c #%s}\n%s\n```\n' % (name, '\n'.join(body)))
    nfiles = rng.randint(1, 3)
    for k in range(nfiles):
        refs = rng.sample(names, min(len(names), rng.randint(1, 3)))
        body = [line(rng)] + [' ' * rng.choice([0, 4]) + '<<%s>>' % r for r in refs] + [line(rng)]
        docs[rng.randrange(ndocs)].append('```{.c file=out/f%d.c}\n%s\n```\n' % (k, '\n'.join(body)))
    os.makedirs(path, exist_ok=True)
    links = ''.join('%d. [D%d](d%d.md)\n' % (j, j, j) for j in range(1, ndocs))
    with open(os.path.join(path, 'index.md'), 'w') as f:
        f.write('---\ntangle-roots: out\n---\n# Random\n\n' + links + '\n' + '\n'.join(docs[0]))
    for j in range(1, ndocs):
        with open(os.path.join(path, 'd%d.md' % j), 'w') as f:
            f.write('# D%d\n\n' % j + '\n'.join(docs[j]))


if __name__ == '__main__':
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for n in range(count):
        project(os.path.join(out, 'random-%03d' % n), random.Random(seed * 1000 + n))
