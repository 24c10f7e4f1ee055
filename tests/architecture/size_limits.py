#!/usr/bin/env python3
"""Fails naming each function over 100 lines and each file over 450 lines in core/ and apps/.

Small functions with names that explain are read, reviewed and tested one step at a time; a body
past a screenful mixes steps that a reader has to separate by hand. The scan is lexical (comments,
strings and preprocessor lines are blanked by one regular expression, then braces are tracked), so
it runs in about a second over the whole tree instead of parsing every translation unit with
clang-tidy.

A function's length is counted from the line of its name to the line of its closing brace; a
lambda or local class inside a function counts toward the function that holds it.

usage: size_limits.py SOURCE_DIR        run the check over SOURCE_DIR/core and SOURCE_DIR/apps
       size_limits.py --self-test       check the scanner against small hand-written snippets
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 100
MAX_FILE_LINES = 450
ROOTS = ("core", "apps")
SUFFIXES = (".cpp", ".hpp")

# Tokens that may stand between a function's parameter list and its body.
_QUALIFIERS = {"const", "override", "final", "noexcept", "mutable", "volatile", "try", "&", "&&"}
_KEYWORD_BEFORE_PAREN = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype",
                         "alignof", "noexcept", "requires", "static_assert"}


# What blank_non_code blanks, first match wins at each position: a preprocessor directive with its
# backslash continuations, comments, a raw string, a digit separator (1'000), a string or
# character literal (to the end of its line when unterminated).
_NON_CODE = re.compile(
    r"""^[ \t]*\#(?:[^\n\\]|\\.|\\\n)*"""
    r"""|//[^\n]*"""
    r"""|/\*.*?(?:\*/|\Z)"""
    r"""|(?<![\w])R"([^(\s]*)\(.*?(?:\)\1"|\Z)"""
    r"""|(?<=[0-9A-Za-z])'"""
    r"""|"(?:\\.|[^"\\\n])*"?"""
    r"""|'(?:\\.|[^'\\\n])*'?""",
    re.MULTILINE | re.DOTALL)


def blank_non_code(text):
    """Returns text with comments, string/char literals and preprocessor lines replaced by spaces,
    newlines kept, so that line numbers still match and braces in them do not count."""
    return _NON_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _last_token(header):
    stripped = header.rstrip()
    m = re.search(r"(&&|&|[A-Za-z_]\w*|.)$", stripped)
    return m.group(1) if m else ""


def _function_name(header):
    """The name before the parameter list: the identifier (with its scope) before the first '('
    that is not a keyword such as `if` or an attribute."""
    for m in re.finditer(r"((?:[A-Za-z_~]\w*\s*::\s*)*(?:operator\s*[^\s(]+|~?[A-Za-z_]\w*))\s*\(",
                         header):
        name = re.sub(r"\s+", "", m.group(1))
        if name.split("::")[-1] in _KEYWORD_BEFORE_PAREN or name.startswith("alignas"):
            continue
        return name, m.start(1)
    return None, None


def _opens_function(header):
    """Whether a brace that follows `header` (the code since the last ';', '{' or '}' at this
    scope) opens a function body."""
    if "(" not in header or re.search(r"(^|[^=!<>])=([^=]|$)", header.split("(")[0]):
        return False
    tail = _last_token(header)
    if tail == ")" or tail in _QUALIFIERS:
        return True
    # A trailing return type: `auto f() -> std::vector<int> {`.
    return re.search(r"\)\s*(const\s*)?(noexcept\s*)?->", header) is not None


def _opens_type_or_namespace(header):
    return re.search(r"\b(namespace|class|struct|union|enum)\b", header) is not None or \
        re.search(r'\bextern\s*$', header) is not None


def long_functions(text, limit=MAX_FUNCTION_LINES):
    """Returns (name, first line, line count) of each function in text longer than limit lines."""
    code = blank_non_code(text)
    found = []
    stack = []  # one of "scope", "function", "init", "inner" per open brace
    header_start = 0  # offset where the current declaration began
    function_start = None  # (name, line) of the function whose body is open
    line = 1
    counted = 0  # code[:counted] has had its newlines counted into `line`
    for m in re.finditer(r"[{};]", code):
        i, c = m.start(), m.group(0)
        line += code.count("\n", counted, i)
        counted = i
        in_function = any(kind == "function" for kind in stack)
        if c == ";":
            if not in_function:
                header_start = i + 1
            continue
        if c == "{":
            header = code[header_start:i]
            if in_function:
                stack.append("inner")
            elif _opens_type_or_namespace(header) and not _opens_function(header):
                stack.append("scope")
                header_start = i + 1
            elif _opens_function(header):
                name, offset = _function_name(header)
                first = line - header[offset:].count("\n") if offset is not None else line
                function_start = (name or "<unnamed>", first)
                stack.append("function")
            else:
                # A brace initializer (`int x{3};`, `m_{v}` in a constructor's initializer list,
                # `= {...}` tables): part of the declaration around it.
                stack.append("init")
            continue
        # c == "}"
        kind = stack.pop() if stack else "scope"
        if kind == "function":
            name, first = function_start
            count = line - first + 1
            if count > limit:
                found.append((name, first, count))
            header_start = i + 1
        elif kind == "scope":
            header_start = i + 1
    return found


def scan(source_dir):
    problems = []
    for root in ROOTS:
        for folder, _, files in sorted(os.walk(os.path.join(source_dir, root))):
            for f in sorted(files):
                if not f.endswith(SUFFIXES):
                    continue
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, source_dir)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
                if lines > MAX_FILE_LINES:
                    problems.append(f"{rel}: {lines} lines, over the {MAX_FILE_LINES}-line limit "
                                    "for a file: split it by what its parts are about")
                for name, first, count in long_functions(text):
                    problems.append(f"{rel}:{first}: {name} is {count} lines, over the "
                                    f"{MAX_FUNCTION_LINES}-line limit for a function: split it "
                                    "into named steps")
    return problems


def self_test():
    def lengths(snippet, limit=0):
        return [(name, first, count) for name, first, count in long_functions(snippet, limit)]

    cases = [
        # A free function: name on line 1, closing brace on line 3.
        ("int f(int x) {\n  return x;\n}\n", [("f", 1, 3)]),
        # Braces in strings, comments and a character literal do not count.
        ('void g() {\n  auto s = "}}";  // }\n  char c = \'{\';\n}\n', [("g", 1, 4)]),
        # A namespace and a class hold functions; a member function keeps its class scope.
        ("namespace n {\nstruct S {\n  int v{1};\n  int get() const {\n    return v;\n  }\n};\n"
         "int S2::h() const noexcept {\n  return 0;\n}\n}  // namespace n\n",
         [("get", 4, 3), ("S2::h", 8, 3)]),
        # A constructor's brace-initialized members are not functions of their own.
        ("A::A(int x)\n    : a_{x},\n      b_(x) {\n  run();\n}\n", [("A::A", 1, 5)]),
        # A table of data is not a function, and a lambda counts toward the function holding it.
        ("const int kT[] = {\n  1,\n  2,\n};\nvoid k() {\n  auto l = [](int y) {\n    return y;\n"
         "  };\n}\n", [("k", 5, 5)]),
        # A trailing return type, and a signature over several lines counted from its name.
        ("auto\nm(int a,\n  int b) -> std::vector<int> {\n  return {};\n}\n", [("m", 2, 4)]),
        # A raw string with braces and quotes inside.
        ('void r() {\n  const char* q = R"(SELECT "{" FROM t)";\n}\n', [("r", 1, 3)]),
        # A preprocessor line with a brace does not open a scope.
        ("#define OPEN {\nvoid p() {\n}\n", [("p", 2, 2)]),
    ]
    failures = 0
    for snippet, want in cases:
        got = lengths(snippet)
        if got != want:
            failures += 1
            print(f"self-test: {snippet!r}\n  want {want}\n  got  {got}")
    if lengths("void f() {\n}\n", 2) != []:
        failures += 1
        print("self-test: a 2-line function is within a 2-line limit")
    return failures


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return 1 if self_test() else 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    problems = scan(argv[1])
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
