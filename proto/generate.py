#!/usr/bin/env python3
"""Writes Ferry's .proto files for Pulumi's `pulumirpc` protocol from the protocol facts
(service, method, message, field number, type, label, oneof, enum and reserved tables) in
shared/fixtures/pulumi/protocol/PROTO_FIELDS*.md, so that every message is wire-compatible with
real Pulumi providers. Run: python3 proto/generate.py [FACTS.md]; it rewrites proto/pulumi/*.proto.
"""
import os
import re
import sys
from collections import OrderedDict, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FACTS = os.path.join(HERE, "..", "..", "shared", "fixtures", "pulumi", "protocol",
                             "PROTO_FIELDS-pypi-pulumi-3.272.0.md")
SCALARS = {"double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32",
           "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes"}
WELL_KNOWN = {"google/protobuf/struct.proto", "google/protobuf/empty.proto"}
# Types the facts use but do not list, and the file protox brings them in.
EXTERNAL = {"google.protobuf.Any": "google/protobuf/any.proto"}


def parse(path):
    """Returns {file: {package, services, messages, enums}} in the order the facts list them."""
    files = OrderedDict()
    cur_file = None
    section = None  # ("service", name) or ("message", name)
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"^## (\S+) \(package (\S+)\)", line)
        if m:
            cur_file = files.setdefault(m.group(1), {"package": m.group(2), "services": OrderedDict(),
                                                     "messages": OrderedDict(), "enums": OrderedDict()})
            section = None
            continue
        m = re.match(r"^### service (\S+)", line)
        if m:
            section = ("service", m.group(1))
            cur_file["services"][m.group(1)] = []
            continue
        m = re.match(r"^### message (\S+)( \(map entry\))?", line)
        if m:
            section = ("message", m.group(1))
            cur_file["messages"][m.group(1)] = {"fields": [], "map_entry": bool(m.group(2)), "reserved": None}
            continue
        m = re.match(r"^enum (\S+): (.*)$", line)
        if m:
            values = [v.strip().split("=") for v in m.group(2).split(",")]
            cur_file["enums"][m.group(1)] = [(k, int(n)) for k, n in values]
            continue
        m = re.match(r"^reserved: (.*)$", line)
        if m and section and section[0] == "message":
            cur_file["messages"][section[1]]["reserved"] = m.group(1)
            continue
        if not line.startswith("|") or section is None:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] in ("#", "rpc") or set(cells[0]) <= {"-"}:
            continue
        if section[0] == "service":
            rpc, req, resp, streaming = (cells + [""] * 4)[:4]
            cur_file["services"][section[1]].append((rpc, req, resp, streaming))
        else:
            number, name, ftype, label, oneof = (cells + [""] * 5)[:5]
            deprecated = name.endswith("(deprecated)")
            name = name.replace("(deprecated)", "").strip()
            cur_file["messages"][section[1]]["fields"].append(
                {"number": int(number), "name": name, "type": ftype, "label": label, "oneof": oneof,
                 "deprecated": deprecated})
    return files


def render(fname, spec, owner_of, all_map_entries):
    pkg = spec["package"]
    messages, enums = spec["messages"], spec["enums"]
    imports = set()

    def ref(t):
        if t in SCALARS:
            return t
        owner = owner_of.get(t) or EXTERNAL.get(t)
        if owner and owner != fname:
            imports.add(owner)
        return "." + t

    map_entries = {n: m for n, m in messages.items() if m["map_entry"]}
    for n, m in all_map_entries.items():
        map_entries.setdefault(n, m)

    def field_line(f, indent):
        opts = " [deprecated = true]" if f["deprecated"] else ""
        if f["label"] == "repeated" and f["type"] in map_entries:
            entry = {x["name"]: x for x in map_entries[f["type"]]["fields"]}
            return f'{indent}map<{ref(entry["key"]["type"])}, {ref(entry["value"]["type"])}> {f["name"]} = {f["number"]}{opts};'
        label = f["label"] + " " if f["label"] in ("repeated", "optional") else ""
        return f'{indent}{label}{ref(f["type"])} {f["name"]} = {f["number"]}{opts};'

    # Nest messages and enums under their parents (names are fully qualified).
    children = defaultdict(list)
    top = []
    for name in list(messages) + list(enums):
        parent = name.rsplit(".", 1)[0]
        if parent in messages:
            children[parent].append(name)
        else:
            top.append(name)

    def emit(name, depth):
        ind = "  " * depth
        short = name.rsplit(".", 1)[1]
        if name in enums:
            out = [f"{ind}enum {short} {{"]
            out += [f"{ind}  {k} = {n};" for k, n in enums[name]]
            return out + [f"{ind}}}"]
        msg = messages[name]
        if msg["map_entry"]:
            return []
        out = [f"{ind}message {short} {{"]
        if msg["reserved"]:
            ranges, _, names = msg["reserved"].partition("; names: ")
            if ranges.strip():
                nums = []
                for r in ranges.split(","):
                    a, b = r.strip().split("..")
                    nums.append(a if a == b else f"{a} to {b}")
                out.append(f"{ind}  reserved {', '.join(nums)};")
            if names.strip():
                out.append(f"{ind}  reserved {', '.join(repr(n.strip()).replace(chr(39), chr(34)) for n in names.split(','))};")
        emitted_oneofs = set()
        for f in msg["fields"]:
            if f["oneof"]:
                if f["oneof"] in emitted_oneofs:
                    continue
                emitted_oneofs.add(f["oneof"])
                out.append(f"{ind}  oneof {f['oneof']} {{")
                out += [field_line(g, ind + "    ") for g in msg["fields"] if g["oneof"] == f["oneof"]]
                out.append(f"{ind}  }}")
            else:
                out.append(field_line(f, ind + "  "))
        for child in children[name]:
            out += emit(child, depth + 1)
        return out + [f"{ind}}}"]

    body = []
    for name in top:
        lines = emit(name, 0)
        if lines:
            body += lines + [""]
    for sname, rpcs in spec["services"].items():
        body.append(f"service {sname.rsplit('.', 1)[1]} {{")
        for rpc, req, resp, streaming in rpcs:
            req_s = ("stream " if streaming in ("client", "bidi") else "") + ref(req)
            resp_s = ("stream " if streaming in ("server", "bidi") else "") + ref(resp)
            body.append(f"  rpc {rpc}({req_s}) returns ({resp_s});")
        body += ["}", ""]
    header = [
        "// Generated by proto/generate.py from Pulumi's protocol facts; do not edit by hand.",
        "// Field numbers, names and types match Pulumi's pulumirpc package for wire compatibility.",
        'syntax = "proto3";', "", f"package {pkg};", "",
    ]
    imps = [f'import "{i}";' for i in sorted(imports)]
    return "\n".join(header + imps + ([""] if imps else []) + body).rstrip() + "\n"


if __name__ == "__main__":
    facts = parse(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_FACTS)
    owner_of = {}
    all_map_entries = {}
    for fname, spec in facts.items():
        for n, m in spec["messages"].items():
            owner_of[n] = fname
            if m["map_entry"]:
                all_map_entries[n] = m
        for n in spec["enums"]:
            owner_of[n] = fname
    for fname, spec in facts.items():
        if fname in WELL_KNOWN:
            continue  # protox and prost bring their own well-known types
        out = os.path.join(HERE, fname)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(render(fname, spec, owner_of, all_map_entries))
        print("wrote", os.path.relpath(out, HERE))
