"""validate.py SCHEMA FILE...: every line of every FILE (a canonical window
file) is valid against SCHEMA (JSON Schema draft-07, by fastjsonschema as
pinned in tests/requirements.txt), and its pre_state and post_state have
the same variables.  Prints "FILE:LINE: why" for the first bad line."""
import json, sys
import fastjsonschema

check = fastjsonschema.compile(json.load(open(sys.argv[1])))
n = 0
for path in sys.argv[2:]:
    for i, line in enumerate(open(path), 1):
        try:
            w = json.loads(line)
            check(w)
            if list(w["pre_state"]) != list(w["post_state"]):
                raise ValueError("pre_state and post_state differ in variables")
        except (ValueError, fastjsonschema.JsonSchemaException) as e:
            sys.exit(f"{path}:{i}: {e}")
        n += 1
if not n:
    sys.exit("no windows")
