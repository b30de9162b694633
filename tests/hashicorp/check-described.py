#!/usr/bin/env python3
"""Every symbol and field a probe spec names appears in capture go --describe.

usage: check-described.py CAPTURE BINARY SPEC

The spec's `func` and `while` symbols must be among the functions
--describe lists for their package; each read's expression (inside
len(...), before [:N]) must start at an argument --describe gives the
function (a group's parameter stands for the argument its `use` names)
and go at most one field down, a field --describe shows (or one it says
an embedded field promotes).  Computed and kept fields read nothing.
Prints each name not found and exits 1; silent and 0 when all are.
"""
import re
import subprocess
import sys


def describe(capture, binary, what):
    return subprocess.run([capture, "go", "--describe", binary, what], check=True,
                          capture_output=True, text=True).stdout


def parse(spec):
    """[(func, [(line, expr or None, use)]), ...], groups, whiles."""
    funcs, groups, whiles, cur, group = [], {}, [], None, None
    for n, raw in enumerate(open(spec), 1):
        line = raw.split("#")[0].rstrip()
        words = line.split()
        if not words:
            continue
        if words[0] == "group":
            group, cur = (words[1], words[2]), None
            groups[words[1]] = (words[2], [])
        elif words[0] == "func":
            cur, group = (words[1], []), None
            funcs.append(cur)
        elif words[0] in ("entry", "return"):
            if "while" in words:
                whiles.append(words[words.index("while") + 1])
        elif words[0] == "use" and cur:
            cur[1].append((n, None, (words[1], words[2])))
        elif raw.startswith("\t") and len(words) >= 3 and words[0] != "keep":
            if words[2] in ("=", "kept"):
                continue
            target = groups[group[0]][1] if group else cur[1]
            target.append((n, words[2], None))
    return funcs, groups, whiles


def path_of(expr):
    expr = re.sub(r"^len\((.*)\)$", r"\1", expr)
    return re.sub(r"\[:\d+\]$", "", expr).split(".")


def main():
    capture, binary, spec = sys.argv[1:4]
    funcs, groups, whiles = parse(spec)
    missing = []
    listed = {}
    for name in [f for f, _ in funcs] + whiles:
        pkg = name.split(".(")[0]
        if pkg not in listed:
            listed[pkg] = set(describe(capture, binary, pkg).split())
        if name not in listed[pkg]:
            missing.append(f"function {name}")
    for name, reads in funcs:
        text = describe(capture, binary, name)
        args = set(re.findall(r"^    (\S+)\s", text.split("fields of")[0], re.M))
        known = set(re.findall(r"[\w~]+\.\w+", text))
        for n, expr, use in reads:
            exprs = [(n, expr, {})] if expr else \
                [(m, e, {groups[use[0]][0]: use[1]}) for m, e, _ in groups[use[0]][1]]
            for m, e, subst in exprs:
                p = path_of(e)
                p[0] = subst.get(p[0], p[0])
                if p[0] not in args:
                    missing.append(f"{spec}:{m}: {name}: argument {p[0]}")
                elif len(p) > 2:
                    missing.append(f"{spec}:{m}: {name}: {'.'.join(p)} is deeper than --describe shows")
                elif len(p) == 2 and ".".join(p) not in known:
                    missing.append(f"{spec}:{m}: {name}: field {'.'.join(p)}")
    for m in missing:
        print(m)
    sys.exit(1 if missing else 0)


main()
