#!/usr/bin/env python3
"""kgen: generates ketch's Kafka codec from Kafka's JSON message definitions.

Reads schemas/kafka/*.json (Apache Kafka 4.3.1's common/message definitions)
and writes, per API, `<api>.h/.cc` (structs + encode/decode) and
`<api>_json.h/.cc` (to/from JSON and sample filling, for tests and tools),
plus `api_table.h/.cc`, `api_visit.h`, `api_entities.h` (emit_entities.py), `all_json.h` and the request and
response headers (`request_header`, `response_header`) from their schemas.

Usage: kgen.py SCHEMA_DIR OUT_DIR            generate
       kgen.py SCHEMA_DIR --list-outputs     print the files it would write

Model (see Kafka's clients/src/main/resources/common/message/README.md):
- a message has validVersions, flexibleVersions, fields; fields may be
  tagged (taggedVersions + tag), nullable (nullableVersions), present only in
  some versions (versions), and have defaults.
- arrays of structs and struct fields define nested struct types, named by
  their type; commonStructs are shared within one file. Struct names are
  unique within a message, so all of a message's structs are declared in the
  message's own scope, children before parents.
"""
import json
import os
import re
import sys

from model import Message, load_schema, snake, cpp_name
import emit_codec
import emit_json
import emit_entities


def api_base_name(msg_name):
    for suffix in ("Request", "Response"):
        if msg_name.endswith(suffix):
            return msg_name[: -len(suffix)]
    return msg_name


def collect(schema_dir):
    """Returns (apis, datas): apis maps api name -> {request, response}."""
    apis = {}
    datas = []
    for fn in sorted(os.listdir(schema_dir)):
        if not fn.endswith(".json"):
            continue
        spec = load_schema(os.path.join(schema_dir, fn))
        msg = Message(spec)
        if msg.kind in ("request", "response"):
            apis.setdefault(api_base_name(msg.name), {})[msg.kind] = msg
        elif msg.kind in ("header", "data"):
            datas.append(msg)
    for name, pair in apis.items():
        if set(pair) != {"request", "response"}:
            raise SystemExit(f"kgen: {name} lacks a request or a response")
    return apis, datas


def outputs(apis, datas):
    files = ["api_table.h", "api_table.cc", "api_visit.h", "api_entities.h", "all_json.h"]
    for name in sorted(apis):
        f = snake(name)
        files += [f"{f}.h", f"{f}.cc", f"{f}_json.h", f"{f}_json.cc"]
    for d in datas:
        f = snake(d.name)
        files += [f"{f}.h", f"{f}.cc", f"{f}_json.h", f"{f}_json.cc"]
    return files


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    schema_dir, out = sys.argv[1], sys.argv[2]
    apis, datas = collect(schema_dir)
    if out == "--list-outputs":
        print(";".join(outputs(apis, datas)))
        return 0
    os.makedirs(out, exist_ok=True)
    for name in sorted(apis):
        pair = apis[name]
        f = snake(name)
        msgs = [pair["request"], pair["response"]]
        write_if_changed(os.path.join(out, f"{f}.h"), emit_codec.header(f, msgs))
        write_if_changed(os.path.join(out, f"{f}.cc"), emit_codec.source(f, msgs))
        write_if_changed(os.path.join(out, f"{f}_json.h"), emit_json.header(f, msgs))
        write_if_changed(os.path.join(out, f"{f}_json.cc"), emit_json.source(f, msgs))
    for d in datas:
        f = snake(d.name)
        write_if_changed(os.path.join(out, f"{f}.h"), emit_codec.header(f, [d]))
        write_if_changed(os.path.join(out, f"{f}.cc"), emit_codec.source(f, [d]))
        write_if_changed(os.path.join(out, f"{f}_json.h"), emit_json.header(f, [d]))
        write_if_changed(os.path.join(out, f"{f}_json.cc"), emit_json.source(f, [d]))
    write_if_changed(os.path.join(out, "api_table.h"), emit_codec.api_table_header(apis))
    write_if_changed(os.path.join(out, "api_table.cc"), emit_codec.api_table_source(apis))
    write_if_changed(os.path.join(out, "api_visit.h"), emit_codec.api_visit_header(apis))
    write_if_changed(os.path.join(out, "api_entities.h"), emit_entities.header(apis))
    names = [snake(n) for n in sorted(apis)] + [snake(d.name) for d in datas]
    write_if_changed(os.path.join(out, "all_json.h"),
                     emit_codec.BANNER + "#pragma once\n\n" +
                     "".join(f'#include "protocol/messages/{n}_json.h"\n' for n in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
