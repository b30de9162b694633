#!/bin/bash
# docs/walkthrough.md, run: each command of its sh blocks (from the
# checkout's root, build/capture the sanitizer build, /tmp/walk a scratch
# directory) must exit 0 (or the N its "# exits N" says) and print the
# lines the page shows after it, in order ("..." skips); its spec blocks
# are the spec, in order.  So the walkthrough stays true.
# needs: root btf go node python3
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:$(dirname "$(go_tool)")
mkdir -p "$TMP/walk"
python3 - "$ROOT/docs/walkthrough.md" "$ROOT" "$CAPTURE" "$TMP/walk" <<'PY'
import re, subprocess, sys
page, root, capture, walk = sys.argv[1:]
steps, spec = [], []     # (command, expected lines, exit), the spec's lines
block = None
for line in open(page).read().split("\n"):
    if line.startswith("```"):
        block = None if block else (line[3:].strip() or "text")
        if block == "spec":
            steps.append(("spec", None, 0))
        continue
    if block == "spec":
        spec.append(line)
        steps[-1] = ("spec", list(spec), 0)
    elif block == "sh" and line.startswith("$ "):
        m = re.match(r"(.*?)\s+# exits (\d+)$", line[2:])
        steps.append((m[1] if m else line[2:], [], int(m[2]) if m else 0))
    elif block == "sh" and steps and steps[-1][0] != "spec":
        steps[-1][1].append(line)
def local(text):
    return text.replace("/tmp/walk", walk)
n = 0
for cmd, want, code in steps:
    if cmd == "spec":
        open(walk + "/walk.probes", "w").write("\n".join(want) + "\n")
        continue
    n += 1
    run = local(cmd).replace("build/capture", capture)
    p = subprocess.run(["bash", "-c", run], cwd=root, capture_output=True, text=True)
    name = "walkthrough %d: %s" % (n, cmd)
    if p.returncode != code:
        print("not ok - %s: exit %d, expected %d: %s" % (name, p.returncode, code, p.stderr.strip().split("\n")[-1]))
        continue
    out, at, missing = p.stdout.split("\n"), 0, None
    for w in want:
        w = local(w).rstrip()
        if w in ("", "..."):
            continue
        while at < len(out) and out[at].rstrip() != w:
            at += 1
        if at == len(out):
            missing = w
            break
        at += 1
    print("ok - %s" % name if missing is None else
          "not ok - %s: its output lacks (in order): %s" % (name, missing[:160]))
print("ok - the walkthrough ran %d commands" % n if n >= 15 else
      "not ok - the walkthrough ran %d commands, fewer than its 15" % n)
PY
