#!/usr/bin/env python3
"""Checks the stdout of one `mpidbg --json` session.

Usage: jsonlines.py SCHEMA OUTPUT < CHECKS

Every line of OUTPUT must be one JSON object valid against SCHEMA
(docs/json-schema.json, JSON Schema draft 2020-12); then CHECKS, Python
statements read from stdin, run with these names:

  lines          every object, in order
  envelopes      the command envelopes (objects with "command"), in order
  events         the event objects (with "event"), in order
  result(line)   the "result" of the envelope whose "line" is `line` (the
                 first one; fails when there is none)
  envelope(line) that envelope itself
  check(cond, what)  fails with `what` when cond is false
  json, re       the modules

Prints one line per problem and exits 1 on the first failed check or
invalid line; exits 0 otherwise. Needs the jsonschema module (Debian:
python3-jsonschema).
"""
import json
import re
import sys

import jsonschema


class CheckFailed(Exception):
    pass


def main():
    schema_path, output_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    defs = schema["$defs"]

    lines = []
    with open(output_path) as f:
        for number, text in enumerate(f, 1):
            try:
                obj = json.loads(text)
            except ValueError as e:
                print(f"    stdout line {number} is not JSON ({e}): {text.rstrip()[:200]}")
                return 1
            # Validate against the branch the object claims, for a precise message.
            branch = dict(schema, **defs["envelope" if "command" in obj else "event"])
            branch.pop("oneOf", None)
            error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(branch).iter_errors(obj))
            if error is None and not validator.is_valid(obj):
                error = jsonschema.exceptions.best_match(validator.iter_errors(obj))
            if error is not None:
                where = "/".join(str(p) for p in error.absolute_path)
                print(f"    stdout line {number} does not match docs/json-schema.json at '{where}': "
                      f"{error.message[:300]}")
                print(f"      {text.rstrip()[:300]}")
                return 1
            lines.append(obj)

    envelopes = [o for o in lines if "command" in o]
    events = [o for o in lines if "event" in o]

    def envelope(line):
        for o in envelopes:
            if o["line"] == line:
                return o
        raise CheckFailed(f"no envelope for the command line '{line}'")

    def result(line):
        return envelope(line)["result"]

    def check(cond, what):
        if not cond:
            raise CheckFailed(what)

    names = {"lines": lines, "envelopes": envelopes, "events": events, "envelope": envelope,
             "result": result, "check": check, "json": json, "re": re}
    try:
        exec(compile(sys.stdin.read(), "checks", "exec"), names)
    except CheckFailed as e:
        print(f"    JSON check failed: {e}")
        return 1
    except Exception as e:  # a check that could not even look (KeyError, IndexError, ...)
        print(f"    JSON check failed: {type(e).__name__}: {e}")
        return 1
    print(f"    {len(lines)} JSON lines valid ({len(envelopes)} commands, {len(events)} events)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
