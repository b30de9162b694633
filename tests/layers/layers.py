#!/usr/bin/env python3
"""The layers of docs/architecture.md, checked on a tree's sources and objects.

    layers.py includes ROOT         every #include "..." of ROOT's sources
    layers.py symbols OBJDIR        every undefined symbol of OBJDIR's objects
    layers.py cli-symbols OBJDIR    symbols only the CLI defines, used outside it
    layers.py include-circles DIR   circles of modules under DIR by #include
    layers.py symbol-circles OBJDIR circles of objects under OBJDIR by symbol
    (either with --room ROOM before DIR, the tree's root: the circles
    among ROOM's files alone, not those of a room below it)
    layers.py rooms ROOT            the rooms of ROOT's sources, one a line
    layers.py roomless ROOT         ROOT's sources in no room and not
                                    under tests/, bench/ or build/

Each prints one line per violation ("FROM -> TO: what", or a circle
"A -> B -> A") and nothing else.
A room may use itself and rooms of a lower layer, never one of its own
layer or above: a circle through two rooms breaks that rule, one within a
room the circle checks find.  Outside the rooms (tests/, bench/,
generated headers) is not checked.
"""
import os
import re
import subprocess
import sys

# A family's rooms, scenarios/FAMILY/ and folders/FAMILY/: what the
# systems of one family share (the rafts' explorer, eBPF driver and
# harness build; their projection's fold and audit domain), below each
# system's room and above what every system shares.
FAMILIES = ["raft"]
FAMILY = "(" + "|".join(FAMILIES) + ")"

# (layer, room pattern): the first match names a path's room.
ROOMS = [
    (8, r"capture/cli/"),
    (5.5, rf"scenarios/{FAMILY}/"),
    (6, r"scenarios/[^/]+/"),
    (5, r"scenarios/"),
    (3.5, rf"folders/{FAMILY}/"),
    (4, r"folders/[^/]+/"),
    (3, r"folders/"),
    # The JVM probe engine reads bpf/'s probe-spec language (its parser,
    # layout and records): a library built on another library.
    (2.5, r"jvm/"),
    (2, r"qemu/"),
    (2, r"bpf/"),
    (1, r"capture/readers/"),
    (0, r"capture/"),
]


def room(path):
    for layer, pattern in ROOMS:
        m = re.match(pattern, path)
        if m:
            return layer, m.group(0)
    return None


def allowed(src, dst):
    a, b = room(src), room(dst)
    return a is None or b is None or a[1] == b[1] or b[0] < a[0]


def in_room(path, name):
    """@path lies in the room named @name (None: any path does)."""
    return name is None or (room(path) or (0, None))[1] == name


# Where sources lie outside every room: the tests, the benchmarks, and
# what the build writes.
OUTSIDE = ("tests/", "bench/", "build/")


def sources(root, suffixes=(".c", ".h")):
    """The path, relative to @root, of every file under it ending in one
    of @suffixes, hidden directories left out."""
    for top, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(suffixes):
                yield os.path.relpath(os.path.join(top, name), root)


def rooms(root):
    return sorted({room(p)[1] for p in sources(root) if room(p)})


def roomless(root):
    return [p for p in sources(root)
            if room(p) is None and not p.startswith(OUTSIDE)]


def includes(root):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for path in sources(root):
        if room(path) is None:
            continue
        with open(os.path.join(root, path), errors="replace") as f:
            text = f.read()
        for target in inc.findall(text):
            dst = os.path.normpath(os.path.join(os.path.dirname(path), target))
            if not os.path.exists(os.path.join(root, dst)):
                continue  # a system or generated header (-I)
            if not allowed(path, dst):
                print(f"{path} -> {dst}: #include \"{target}\"")


def objects(objdir, name=None):
    """{object path: its source's path relative to the tree}, of room
    @name's sources alone if it is given."""
    found = {}
    for path in sources(os.path.join(objdir, name or ""), (".o",)):
        src = os.path.join(name or "", path)[:-2] + ".c"
        if in_room(src, name):
            found[os.path.join(objdir, name or "", path)] = src
    return found


def nm(paths, *flags):
    """[(object path, symbol)] of every object, one nm for all of them."""
    out = subprocess.run(["nm", "-A", *flags, *sorted(paths)], check=True,
                         capture_output=True, text=True).stdout
    pairs = []
    for line in out.splitlines():
        path, _, rest = line.partition(":")
        if rest.split():
            pairs.append((path, rest.split()[-1]))
    return pairs


# The symbols an object defines that another may use: a static one of the
# same name as another object's is no arrow to it.
DEFINED = ("--defined-only", "--extern-only")


def symbols(objdir, cli_only):
    objs = objects(objdir)
    where = {}
    for path, sym in nm(objs, *DEFINED):
        where.setdefault(sym, set()).add(objs[path])
    for path, sym in nm(objs, "--undefined-only"):
        src = objs[path]
        for dst in sorted(where.get(sym, ())):
            r = room(dst)
            if cli_only:
                bad = r and r[0] == 8 and room(src) and room(src)[0] != 8
            else:
                bad = not allowed(src, dst)
            if bad:
                print(f"{src} -> {dst}: {sym}")


def circles(graph):
    """Each circle of @graph ({node: nodes it points to}) a depth-first
    walk meets, as the list of its nodes, the first one again at its end."""
    state, found = {}, []

    def walk(u, path):
        state[u] = 1
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                found.append(path[path.index(v):] + [v])
            elif not state.get(v):
                walk(v, path + [v])
        state[u] = 2
    for u in sorted(graph):
        if not state.get(u):
            walk(u, [u])
    return found


def include_graph(top, name=None):
    """{module: modules whose header it includes} under @top or, @name
    given, among room @name's in the tree at @top: a module is a .c with
    its .h (a path without its extension)."""
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
    graph = {}
    for path in sources(os.path.join(top, name or "")):
        path = os.path.join(name or "", path)
        if not in_room(path, name):
            continue
        mod = path[:-2]
        with open(os.path.join(top, path), errors="replace") as f:
            text = f.read()
        for target in inc.findall(text):
            to = os.path.normpath(os.path.join(os.path.dirname(mod), target))
            if (to != mod and os.path.exists(os.path.join(top, to + ".h"))
                    and in_room(to + ".h", name)):
                graph.setdefault(mod, set()).add(to)
    return graph


def symbol_graph(objdir, name=None):
    """{object: objects defining a symbol it uses} under @objdir or, @name
    given, among room @name's, each by its source's path without the
    extension."""
    objs = objects(objdir, name)
    if not objs:
        return {}
    where, graph = {}, {}
    for path, sym in nm(objs, *DEFINED):
        where[sym] = objs[path][:-2]
    for path, sym in nm(objs, "--undefined-only"):
        src = objs[path][:-2]
        if sym in where and where[sym] != src:
            graph.setdefault(src, set()).add(where[sym])
    return graph


if __name__ == "__main__":
    mode, arg, opts = sys.argv[1], sys.argv[-1], sys.argv[2:-1]
    if mode == "families":
        print("\n".join(FAMILIES))
    elif mode in ("rooms", "roomless"):
        for line in (rooms if mode == "rooms" else roomless)(arg):
            print(line)
    elif mode == "includes":
        includes(arg)
    elif mode == "symbols":
        symbols(arg, cli_only=False)
    elif mode == "cli-symbols":
        symbols(arg, cli_only=True)
    elif mode in ("include-circles", "symbol-circles"):
        name = opts[opts.index("--room") + 1] if "--room" in opts else None
        if name is not None and not in_room(os.path.join(name, "x.c"), name):
            sys.exit(f"layers.py: {name} is no room (rooms: layers.py rooms ROOT)")
        graph = (include_graph if mode == "include-circles" else symbol_graph)(
            arg, name)
        for c in circles(graph):
            print(" -> ".join(c))
    else:
        sys.exit(f"layers.py: unknown mode {mode}")
