#!/usr/bin/env python3
"""Records a reference schema registry's answers to the scenarios in
conformance/registry/scenarios/ and replays them against ketch's registry.

  registry_conform.py record --url URL [--runs 2] [--reference NAME] SCENARIO.json ...
  registry_conform.py replay --url URL [--differences FILE] [-v] RECORDING.json ...

A scenario is a JSON object {"description": ..., "steps": [step, ...]}; a step:

  name          unique in the scenario (differences refer to it)
  method, path  the request; path relative to the registry's base URL
  body          a JSON value sent as the request body, or
  raw           a string sent as the body byte for byte (malformed JSON etc.)
  content_type  default application/vnd.schemaregistry.v1+json
  capture       {"NAME": "key"}: remember the answer's body[key] (an id) as NAME
  ids           true: the answer is a list of ids (referencedby); normalised
  any_id        true: any id in the answer becomes "{id:*}" (where the reference
                answers a different id from run to run; "why" says so)
  why           free text: why the step is there or is shaped so
  own_subjects  true: keep only this run's subjects in a list answer (names,
                or objects with a "subject"): the registry holds other runs'
                and scenarios' subjects too, and shares ids between them

In paths and in every string of the body, "{s}" becomes the run's subject
prefix and "{id:NAME}" the id captured as NAME. Answers are normalised before
they are stored or compared: the run's prefix becomes "{s}" again, a value
under an "id" key (or in an `ids` list) becomes "{id:NAME}" for a captured id
or "{id:?}" for any other, and an error body's "message" (the registry's own
words) is dropped, so that only status, error_code and the JSON shape and
values are compared.

record runs each scenario `--runs` times, each with a fresh prefix, against a
fresh or used reference; the normalised answers must agree, or nothing is
written. It writes conformance/registry/recordings/<scenario>.json.

replay runs each recording's steps against --url and compares status, body
shape and values with the recording. A difference is allowed when an entry of
the `json differences` block of --differences matches its scenario, step and
path (fnmatch globs); every other difference fails (exit 1). Entries that match
nothing are reported as stale (a warning).
"""

import argparse
import fnmatch
import json
import re
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
CT = "application/vnd.schemaregistry.v1+json"
TOKEN = re.compile(r"\{s\}|\{id:([A-Za-z0-9_]+)\}")


def substitute(value, prefix, captured):
    if isinstance(value, str):
        def one(m):
            if m.group(0) == "{s}":
                return prefix
            name = m.group(1)
            return str(captured.get(name, -1))  # an id that was never captured: -1, nowhere
        return TOKEN.sub(one, value)
    if isinstance(value, list):
        return [substitute(v, prefix, captured) for v in value]
    if isinstance(value, dict):
        return {k: substitute_id(k, v, prefix, captured) for k, v in value.items()}
    return value


def substitute_id(key, value, prefix, captured):
    # "id": "{id:NAME}" in a request body becomes the number itself.
    if key == "id" and isinstance(value, str):
        m = re.fullmatch(r"\{id:([A-Za-z0-9_]+)\}", value)
        if m:
            return captured.get(m.group(1), -1)
    return substitute(value, prefix, captured)


def http(base, step, prefix, captured):
    path = substitute(step["path"], prefix, captured)
    data = None
    if "raw" in step:
        data = substitute(step["raw"], prefix, captured).encode("utf-8", "surrogateescape")
    elif "body" in step:
        data = json.dumps(substitute(step["body"], prefix, captured)).encode()
    req = urllib.request.Request(base + path, data=data, method=step["method"])
    req.add_header("Accept", CT + ", application/json")
    if data is not None:
        req.add_header("Content-Type", step.get("content_type", CT))
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, text = r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode("utf-8", "replace")
    try:
        body = json.loads(text) if text.strip() else None
    except ValueError:
        body = {"<text>": text[:200]}
    return status, body


def normalise(step, body, prefix, captured):
    by_value = {}
    for name, v in captured.items():
        by_value.setdefault(v, name)

    def id_token(v):
        if isinstance(v, int) and not isinstance(v, bool):
            if step.get("any_id"):
                return "{id:*}"
            return "{id:%s}" % by_value.get(v, "?")
        return v

    def walk(v):
        if isinstance(v, str):
            return v.replace(prefix, "{s}")
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            out = {}
            for k, x in v.items():
                if k == "message" and "error_code" in v:
                    continue
                out[k] = id_token(x) if k == "id" else walk(x)
            return out
        return v

    if step.get("own_subjects") and isinstance(body, list):
        body = [x for x in body if (x if isinstance(x, str) else x.get("subject", "") if isinstance(x, dict) else "").startswith(prefix)]
    if step.get("ids") and isinstance(body, list):
        body = [id_token(x) for x in body]
    return walk(body)


def run_scenario(base, scenario):
    prefix = "c%s-" % uuid.uuid4().hex[:8]
    captured = {}
    answers = []
    for step in scenario["steps"]:
        status, body = http(base, step, prefix, captured)
        for name, key in step.get("capture", {}).items():
            if isinstance(body, dict) and isinstance(body.get(key), int):
                captured[name] = body[key]
        answers.append({"status": status, "body": normalise(step, body, prefix, captured)})
    return answers


def diff(a, b, path, out):
    """Differences between recorded a and actual b as (path, recorded, actual)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                out.append(("%s.%s" % (path, k), a[k], "<missing>"))
            else:
                diff(a[k], b[k], "%s.%s" % (path, k), out)
        for k in b:
            if k not in a:
                out.append(("%s.%s" % (path, k), "<missing>", b[k]))
        if list(a) != list(b) and set(a) == set(b):
            out.append(("%s.<order>" % path, list(a), list(b)))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, "%s.%d" % (path, i), out)
    elif a != b or type(a) is not type(b):
        out.append((path, a, b))


def load_differences(path):
    text = Path(path).read_text()
    m = re.search(r"```json differences\n(.*?)```", text, re.S)
    if not m:
        sys.exit("%s: no ```json differences block" % path)
    entries = json.loads(m.group(1))
    for e in entries:
        for k in ("id", "scenario", "step", "path", "reason"):
            if k not in e:
                sys.exit("%s: entry %s lacks %r" % (path, e.get("id"), k))
    return entries


def cmd_record(args):
    out_dir = HERE / "recordings"
    out_dir.mkdir(exist_ok=True)
    failed = False
    for s in args.scenarios:
        scenario = json.loads(Path(s).read_text())
        name = Path(s).stem
        runs = [run_scenario(args.url, scenario) for _ in range(args.runs)]
        disagree = []
        for r in runs[1:]:
            for i, (x, y) in enumerate(zip(runs[0], r)):
                d = []
                diff(x, y, scenario["steps"][i]["name"], d)
                disagree += d
        if disagree:
            failed = True
            print("%s: the runs disagree (a missing normalisation?):" % name, file=sys.stderr)
            for p, a, b in disagree:
                print("  %s: %s vs %s" % (p, json.dumps(a), json.dumps(b)), file=sys.stderr)
            continue
        steps = []
        for step, answer in zip(scenario["steps"], runs[0]):
            steps.append({"step": step, "answer": answer})
        rec = {"scenario": name, "description": scenario.get("description", ""),
               "reference": args.reference, "steps": steps}
        (out_dir / (name + ".json")).write_text(json.dumps(rec, indent=1) + "\n")
        print("%s: %d steps recorded" % (name, len(steps)))
    return 1 if failed else 0


def cmd_replay(args):
    entries = load_differences(args.differences) if args.differences else []
    used = set()
    failed = 0
    allowed = 0
    for r in args.recordings:
        rec = json.loads(Path(r).read_text())
        scenario = {"steps": [s["step"] for s in rec["steps"]]}
        actual = run_scenario(args.url, scenario)
        for s, got in zip(rec["steps"], actual):
            d = []
            diff(s["answer"], got, "", d)
            for path, want, have in d:
                path = path.lstrip(".")
                match = [e for e in entries
                         if fnmatch.fnmatchcase(rec["scenario"], e["scenario"])
                         and fnmatch.fnmatchcase(s["step"]["name"], e["step"])
                         and fnmatch.fnmatchcase(path, e["path"])]
                line = "%s/%s %s: %s: %s, ketch: %s" % (
                    rec["scenario"], s["step"]["name"], path, rec.get("reference", "reference"),
                    json.dumps(want), json.dumps(have))
                if match:
                    allowed += 1
                    used.update(e["id"] for e in match)
                    if args.verbose:
                        print("allowed (%s) %s" % (match[0]["id"], line))
                else:
                    failed += 1
                    print("DIFFERENCE " + line)
    for e in entries:
        if e["id"] not in used:
            print("stale difference entry (matches nothing): %s" % e["id"])
    print("registry replay: %d recordings, %d unexplained differences, %d allowed"
          % (len(args.recordings), failed, allowed))
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    rp = sub.add_parser("record")
    rp.add_argument("--url", required=True)
    rp.add_argument("--runs", type=int, default=2)
    rp.add_argument("--reference", default="Apicurio Registry 2.4.2.Final (ccompat v7)")
    rp.add_argument("scenarios", nargs="+")
    pp = sub.add_parser("replay")
    pp.add_argument("--url", required=True)
    pp.add_argument("--differences")
    pp.add_argument("-v", "--verbose", action="store_true")
    pp.add_argument("recordings", nargs="+")
    args = p.parse_args()
    args.url = args.url.rstrip("/")
    sys.exit(cmd_record(args) if args.cmd == "record" else cmd_replay(args))


if __name__ == "__main__":
    main()
