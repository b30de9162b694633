#!/usr/bin/env python3
"""Print "FILE:LINE: PATH" for each repository path that a doc page or a C
comment names and that the tree under ROOT does not have.

  stale-paths.py ROOT [FILE...]   (no FILE: README.md, docs/**.md, *.c, *.h)

A path is a word starting with one of the tree's top directories.  An
upper-case run of two or more is a placeholder (NAME, SYSTEM, NN-NAME)
that stands for any part of a name, `{a,b}` for both; a word without its extension names
the file with any (`bench/x` for bench/x.c).  Not paths: an include's
`<bpf/bpf.h>`, another repository's `owner/repo:path` or `qemu:path`, a
`%s` format, and recorded output (fenced blocks of docs/results/).
"""
import glob
import os
import re
import sys

TOP = r'(?:scripts|tests|bench|docs|capture|folders|scenarios|qemu|bpf|patches)'
PATH = re.compile(r'(?<![\w./:<-])(' + TOP + r'/[\w./*{},-]*[\w*}])')
PLACEHOLDER = re.compile(r'[A-Z][A-Z0-9_]+')


def expand(p):
    m = re.search(r'\{([^{}]*)\}', p)
    if not m:
        return [p]
    return [q for alt in m.group(1).split(',')
            for q in expand(p[:m.start()] + alt + p[m.end():])]


def as_glob(p):
    return PLACEHOLDER.sub('*', p)


def exists(root, p):
    p = p.rstrip('.')
    full = os.path.join(root, p)
    return (os.path.exists(full) or glob.glob(full + '.*')
            or glob.glob(os.path.join(root, as_glob(p)))
            or glob.glob(os.path.join(root, as_glob(p)) + '.*'))


def scanned(root):
    out = ['README.md']
    for d, _, fs in os.walk(root):
        rel = os.path.relpath(d, root)
        if rel.split(os.sep)[0] in ('.git', 'build', 'corpus') or '/target' in d:
            continue
        for f in fs:
            r = os.path.normpath(os.path.join(rel, f))
            if f.endswith(('.c', '.h')) or (r.startswith('docs/') and f.endswith('.md')):
                out.append(r)
    return sorted(out)


def stale(root, path, name):
    recorded = name.startswith('docs/results/')
    fenced = False
    with open(path, errors='replace') as f:
        for n, line in enumerate(f, 1):
            if line.startswith('```'):
                fenced = not fenced
                continue
            if fenced and recorded:
                continue
            for m in PATH.finditer(line):
                if '%' in m.group(1):
                    continue
                for q in expand(m.group(1)):
                    if not exists(root, q):
                        yield f'{name}:{n}: {q}'


def main():
    root = sys.argv[1]
    files = sys.argv[2:] or [os.path.join(root, f) for f in scanned(root)]
    for f in files:
        for hit in stale(root, f, os.path.relpath(f, root) if f.startswith(root) else f):
            print(hit)


main()
