#!/usr/bin/env python3
"""Checks that a module's .cc files can share one translation unit (the unity build,
cmake/ketch_module.cmake) without a call binding silently to another file's function.

In a unity batch every file sees what the files before it declared. A clash of types or
variables is a compile error; a clash of function names is not always one: overload
resolution may prefer the other file's function (docs/design/README.md, "Unity builds").
So, within each module (src/<module>/, one static library):

  1. a function of internal linkage (in an anonymous namespace, or `static` at namespace
     scope) is named nowhere else in the module where it would be seen: no other .cc file
     whose code is in its namespace (or one inside it) calls or declares that name
     unqualified (a call there could take it instead; member calls a.f() and qualified
     calls x::f() are not counted);
  2. a macro a .cc file #defines is #undef'd in that file.

It reads clang-format's layout (.clang-format: no namespace indentation), so a declaration
at namespace scope starts in column 0. Usage: check-unity.py DIR... (src, and tests/unit,
whose test binaries are batched the same way: tests/CMakeLists.txt)
"""
import collections
import pathlib
import re
import sys

SKIP = re.compile(r"^(?:return|if|for|while|switch|case|do|else|namespace|using|typedef|template|"
                  r"struct|class|enum|union|friend|static_assert|extern \"C\"|#|//|/\*|\*|\}|\{|[A-Z_]+\()")
NAME_BEFORE_PAREN = re.compile(r"(~?[A-Za-z_]\w*)\s*\($")
NAMESPACE_OPEN = re.compile(r"^(?:inline )?namespace(?: ([\w:]+))? \{")
DEFINE = re.compile(r"^#\s*define\s+(\w+)")
UNDEF = re.compile(r"^#\s*undef\s+(\w+)")


def declared_name(line):
    """The unqualified name a column-0 line declares as a function, or None."""
    if not line or line[0].isspace() or SKIP.match(line) or line.rstrip().endswith(":"):
        return None
    paren = line.find("(")
    if paren < 0:
        return None
    head = line[:paren]
    if "=" in head or "[" in head or "<<" in head:
        return None  # a variable's initializer, a lambda, a stream
    m = NAME_BEFORE_PAREN.search(head + "(")
    if not m or head.rstrip().endswith("operator"):
        return None
    before = head[: m.start()].rstrip()
    if before.endswith("::") or not before:
        return None  # a member's definition (a::f), or a call/macro at column 0
    return m.group(1)


STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
RAW_OPEN = re.compile(r'R"([^(\s]*)\(')


def code_lines(path):
    """The file's lines without comments after //, string and character literals, raw strings."""
    raw_end = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if raw_end is not None:
            if raw_end not in line:
                continue
            line, raw_end = line.split(raw_end, 1)[1], None
        while (m := RAW_OPEN.search(line)) and not STRING.match(line, m.start() + 1):
            end = ")" + m.group(1) + '"'
            rest = line[m.end():]
            if end in rest:
                line = line[: m.start()] + '""' + rest.split(end, 1)[1]
            else:
                line, raw_end = line[: m.start()] + '""', end
                break
        line = STRING.sub('""', line)
        yield line if line.startswith("#") else line.split("//", 1)[0]


CALL = re.compile(r"(?<![\w.>:])(~?[A-Za-z_]\w*)\s*\(")


def scan(path):
    """A .cc file's internal functions {name: namespace path}, the namespace paths its code
    is in, the names it calls (or declares) unqualified-looking, and its macros left defined."""
    internal, paths, calls = {}, set(), set()
    defined, undefined = set(), set()
    stack = []  # (name or None for an anonymous namespace, brace depth inside it)
    depth = 0
    for line in code_lines(path):
        m = NAMESPACE_OPEN.match(line)
        if m:
            depth += 1
            stack.extend((n, depth) for n in (m.group(1).split("::") if m.group(1) else [None]))
            line = line[m.end():]
        depth += line.count("{") - line.count("}")
        while stack and stack[-1][1] > depth:
            stack.pop()
        if m:
            continue
        if (d := DEFINE.match(line)):
            defined.add(d.group(1))
        if (u := UNDEF.match(line)):
            undefined.add(u.group(1))
        named = tuple(n for n, _ in stack if n)
        paths.add(named)
        calls.update(CALL.findall(line))
        name = declared_name(line)
        if name is not None and (any(n is None for n, _ in stack) or line.startswith("static ")):
            internal[name] = named
    return internal, paths, calls, defined - undefined


def problems_in(src):
    src = pathlib.Path(src)
    problems = []
    for module in sorted(p for p in src.iterdir() if p.is_dir()):
        files = {cc.relative_to(src): scan(cc) for cc in sorted(module.rglob("*.cc"))}
        for cc, (internal, _, _, macros) in files.items():
            for macro in sorted(macros):
                problems.append(f"{cc}: #define {macro} without #undef {macro} at the file's end")
            for name, where in sorted(internal.items()):
                # Another file of the module sees this function in its batch when its code is
                # in the function's namespace or one inside it, and a call by this name there
                # could bind to it.
                users = [str(other) for other, (_, paths, calls, _) in files.items()
                         if other != cc and name in calls and any(p[: len(where)] == where for p in paths)]
                if users:
                    problems.append(f"{cc}: internal {name}() in {'::'.join(where) or '(global)'} "
                                    f"is also called or declared in {', '.join(users[:4])}")
    return problems


# The case that happened (console/transactions.cc and console/topic_configs.cc, a87914d):
# two files' anonymous-namespace describe() overloads, the later file's call taking the
# earlier one's in a batch; and cases that must pass.
SELF_TEST = {
    "console/topic_configs.cc": """namespace ketch::console {
namespace {
json describe(context& ctx, const std::string& topic) { return {}; }
}  // namespace
void topic_configs_routes() { describe(ctx, "t"); }
}  // namespace ketch::console
""",
    "console/transactions.cc": """namespace ketch::console {

namespace {
json describe(context& ctx, const std::vector<std::string>& ids) {
    return {};
}
}

void transactions_routes() { auto s = "describe(x)"; describe(ctx, {id}); }
}  // namespace ketch::console
""",
    "console/macro.cc": "#define KETCH_ROW(x) x\nint a = KETCH_ROW(1);\n",
    "console/undef.cc": "#define KETCH_COL(x) x\nint b = KETCH_COL(1);\n#undef KETCH_COL\n",
    "broker/a.cc": "namespace ketch::broker::a {\nnamespace {\nint row(int x) { return x; }\n}  // namespace\n}\n",
    "broker/b.cc": "namespace ketch::broker::b {\nint f() { return row(1); }\n}  // namespace ketch::broker::b\n",
    "broker/c.cc": "namespace ketch::broker {\nstruct s { int row(int); };\nint g(s& x) { return x.row(1); }\n}\n",
}


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        for name, text in SELF_TEST.items():
            path = pathlib.Path(d, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        found = problems_in(d)
    expected = ["console/topic_configs.cc: internal describe()", "console/transactions.cc: internal describe()",
                "console/macro.cc: #define KETCH_ROW"]
    missing = [e for e in expected if not any(p.startswith(e) for p in found)]
    extra = [p for p in found if not any(p.startswith(e) for e in expected)]
    if missing or extra:
        print(f"check-unity: self-test failed: missing {missing}, unexpected {extra}")
        return False
    return True


def main(dirs):
    if not self_test():
        return 2
    problems = [p for src in dirs for p in problems_in(src)]
    for p in problems:
        print(p)
    print(f"check-unity: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["src"]))
