"""The message model kgen builds from Kafka's JSON definitions."""
import json
import re

CPP_KEYWORDS = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class",
    "const", "constexpr", "continue", "default", "delete", "do", "double", "else", "enum",
    "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
    "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr", "operator", "or",
    "private", "protected", "public", "register", "return", "short", "signed", "sizeof", "static",
    "struct", "switch", "template", "this", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor",
    "concept", "requires", "co_await", "co_return", "co_yield", "char8_t",
    # names our generated structs use themselves
    "encode", "decode", "version", "unknown_tagged_fields", "api_key",
}

PRIMITIVES = {
    "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
    "uint16": "uint16_t", "uint32": "uint32_t", "float64": "double", "bool": "bool",
    "uuid": "ketch::uuid", "string": "std::string", "bytes": "ketch::bytes",
    "records": "ketch::kafka::records",
}
INTEGERS = {"int8", "int16", "int32", "int64", "uint16", "uint32"}


def load_schema(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return json.loads(text)


def snake(name):
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


def cpp_name(name):
    s = snake(name)
    return s + "_" if s in CPP_KEYWORDS else s


class Versions:
    """A version range such as "0+", "3-5", "7", or "none"."""

    def __init__(self, text):
        text = (text or "none").strip()
        self.text = text
        if text == "none":
            self.lo, self.hi = 1, 0
        elif text.endswith("+"):
            self.lo, self.hi = int(text[:-1]), 0x7FFF
        elif "-" in text:
            a, b = text.split("-")
            self.lo, self.hi = int(a), int(b)
        else:
            self.lo = self.hi = int(text)

    def empty(self):
        return self.lo > self.hi

    def contains(self, v):
        return self.lo <= v <= self.hi

    def intersect(self, other):
        r = Versions("none")
        r.lo, r.hi = max(self.lo, other.lo), min(self.hi, other.hi)
        return r

    def cond(self, var="version"):
        """A C++ condition for `var` being in this range (within `within`)."""
        if self.empty():
            return "false"
        if self.lo <= 0 and self.hi >= 0x7FFF:
            return "true"
        parts = []
        if self.lo > 0:
            parts.append(f"{var} >= {self.lo}")
        if self.hi < 0x7FFF:
            parts.append(f"{var} <= {self.hi}")
        return " && ".join(parts)


class Field:
    def __init__(self, spec, msg):
        self.spec = spec
        self.name = spec["name"]
        self.cname = cpp_name(self.name)
        self.type = spec["type"]
        self.versions = Versions(spec.get("versions", "none"))
        self.nullable = Versions(spec.get("nullableVersions", "none"))
        self.tagged = Versions(spec.get("taggedVersions", "none"))
        self.tag = spec.get("tag")
        self.flexible_override = spec.get("flexibleVersions")
        self.default = spec.get("default")
        self.about = spec.get("about", "")
        self.ignorable = spec.get("ignorable", False)
        self.is_array = self.type.startswith("[]")
        self.elem = self.type[2:] if self.is_array else self.type
        self.is_struct = self.elem not in PRIMITIVES
        self.struct = None  # resolved Struct for struct / array-of-struct
        if self.is_struct:
            self.struct = msg.define_struct(self.elem, spec.get("fields"))
        # A tagged field exists in its tagged versions even if "versions" omits them.
        if not self.tagged.empty() and self.versions.empty():
            self.versions = self.tagged

    @property
    def any_nullable(self):
        return not self.nullable.empty()

    def elem_cpp(self):
        return self.struct.cname if self.is_struct else PRIMITIVES[self.elem]

    def cpp_type(self):
        t = f"std::vector<{self.elem_cpp()}>" if self.is_array else self.elem_cpp()
        if self.any_nullable and (self.is_array or self.is_struct or self.elem in ("string", "bytes", "records")):
            t = f"std::optional<{t}>"
        return t

    def is_optional(self):
        return self.cpp_type().startswith("std::optional<")

    def default_expr(self):
        """C++ member initializer for Kafka's default, or None for value-init.

        Kafka's rule: a field is 0 / "" / empty unless "default" says otherwise;
        a nullable field is null only when its default is "null" (records: null).
        """
        d = self.default
        if self.is_optional():
            if d == "null" or self.elem == "records":
                return None
            if self.elem == "string" and not self.is_array:
                return "std::in_place, " + json.dumps(d or "")
            return "std::in_place"
        if self.is_array or self.is_struct:
            return None
        if self.elem in INTEGERS:
            if d in (None, ""):
                return None
            v = int(str(d), 0)
            if self.elem == "int64":
                return "INT64_MIN" if v == -(2**63) else f"{v}LL"
            if self.elem == "int32" and v == -(2**31):
                return "INT32_MIN"
            return str(v)
        if self.elem == "bool":
            return "true" if str(d).lower() == "true" else None
        if self.elem == "float64":
            return None if d in (None, "") else repr(float(d))
        if self.elem == "string":
            return None if d in (None, "") else json.dumps(d)
        return None


class Struct:
    def __init__(self, name, msg):
        self.name = name
        self.cname = snake(name)
        self.fields = []
        self.msg = msg

    def load(self, specs):
        self.fields = [Field(s, self.msg) for s in specs]


class Message:
    def __init__(self, spec):
        self.spec = spec
        self.name = spec["name"]
        self.kind = spec["type"]
        self.cname = snake(self.name)
        self.api_key = spec.get("apiKey")
        self.valid = Versions(spec.get("validVersions", "0"))
        self.flexible = Versions(spec.get("flexibleVersions", "none"))
        self.listeners = spec.get("listeners", [])
        self.latest_unstable = spec.get("latestVersionUnstable", False)
        self.structs = {}  # name -> Struct, in definition order (children first)
        self.order = []
        self.common = {c["name"]: c for c in spec.get("commonStructs", [])}
        self.root = Struct(self.name, self)
        self.root.cname = self.cname
        self.root.load(spec.get("fields", []))
        self._rename_collisions()

    def define_struct(self, name, field_specs):
        if name in self.structs:
            s = self.structs[name]
            if field_specs is not None and s.fields and len(field_specs) != len(s.fields):
                raise SystemExit(f"kgen: {self.name}: struct {name} defined twice differently")
            return s
        s = Struct(name, self)
        self.structs[name] = s
        specs = field_specs if field_specs is not None else self.common.get(name, {}).get("fields")
        if specs is None:
            raise SystemExit(f"kgen: {self.name}: struct type {name} has no definition")
        s.load(specs)
        self.order.append(s)  # appended after its children: children first
        return s

    def _rename_collisions(self):
        field_names = set()

        def walk(st):
            for f in st.fields:
                field_names.add(f.cname)

        walk(self.root)
        for s in self.order:
            walk(s)
        for s in self.order:
            if s.cname in field_names or s.cname == self.cname:
                s.cname = s.cname + "_data"

    def all_structs(self):
        return self.order + [self.root]

    def is_flexible_at(self, v):
        return self.flexible.contains(v)
