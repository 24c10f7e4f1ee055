#!/usr/bin/env python3
"""Runs the command blocks of README.md and of every docs/*.md, so their examples cannot rot.

usage: readme_test.py SOURCE_DIR BUILD_DIR [--bench] [--only [FILE:]LINE,...] [--list]

The files run one after another in one scratch folder, in the order a reader who starts at the
README meets them (DOCS below, then the other docs/*.md by name): a later file may use what an
earlier one made (scripts/demo's database, which the README makes first). --only runs the blocks
that open at those lines (FILE defaults to README.md).

A fenced block whose first line starts with "$ " is a transcript: each "$ " line is a command,
the lines under it what it prints. The test runs every command, in README order, in one scratch
folder that looks like a fresh clone (the tree's folders linked in, `runbooks/` copied, `build/`
the build folder) with build/bin first on PATH, in a 120-column pseudo-terminal (as a user in
tmux sees it; `script` from util-linux gives the terminal). Each command must exit 0, print no line
over 120 columns, and print the shown lines. Exempt from the width: commands that ask for
--width 0 or --wide, `kprof validate` (it echoes the runbook's own lines), and kprof's one-line
messages ("kprof: ...", whole so that they can be grepped). Shown lines match when:
  - consecutive shown lines match consecutive printed lines; a line "..." skips any lines;
  - "..." inside a line matches any text; runs of blanks compare as one blank;
  - durations (250ms, 2.1s, 1m05s) compare equal to any duration.
An HTML comment `<!-- readme-test: skip: WHY -->` on the line before a block keeps it from
running (a benchmark, a real MI300X); the first word of each of its commands must still exist.
Blocks of plain `sh` commands are not run: their scripts and build outputs must exist.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

WIDTH = 120
DURATION = re.compile(r"(?<![\w.])(\d+h\d\dm\d\ds|\d+m\d\ds|\d+(\.\d+)?s|\d+ ?ms)(?![\w])")


class Block:
    def __init__(self, line, lang, lines, skip):
        self.line = line  # README line of the opening fence
        self.lang = lang
        self.lines = lines
        self.skip = skip

    def commands(self):
        """[(command, [shown output lines])] of a transcript block."""
        out = []
        for text in self.lines:
            if text.startswith("$ "):
                out.append((text[2:], []))
            elif out:
                out[-1][1].append(text)
        return out


def blocks_of(readme):
    lines = open(readme, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, lang, start = len(m.group(1)), m.group(2), i
        body = []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            text = lines[i]
            body.append(text[indent:] if text[:indent].strip() == "" else text.lstrip())
            i += 1
        i += 1
        prev = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
        skip = re.match(r"^\s*<!-- readme-test: skip: (.*) -->\s*$", prev)
        blocks.append(Block(start + 1, lang, body, skip.group(1) if skip else None))
    return blocks


# The reading order: the README, then the docs it points to in the order of its sections.
DOCS = ["README.md", "docs/runbooks.md", "docs/one-run.md", "docs/real-node.md", "docs/slurm.md",
        "docs/ingest.md", "docs/query.md", "docs/report.md", "docs/simulator.md",
        "docs/database.md", "docs/performance.md", "docs/development.md", "runbooks/README.md"]


def documents(src):
    """The files to run, relative to src: DOCS that exist, then the other docs/*.md by name."""
    docs_dir = os.path.join(src, "docs")
    others = sorted("docs/" + n for n in os.listdir(docs_dir) if n.endswith(".md")) if os.path.isdir(docs_dir) else []
    files = [f for f in DOCS if os.path.exists(os.path.join(src, f))]
    return files + [f for f in others if f not in files]


def normalize(s):
    s = DURATION.sub("<D>", s.rstrip())
    return re.sub(r"\s+", " ", s)


def line_matches(shown, printed):
    shown, printed = normalize(shown), normalize(printed)
    if "..." not in shown:
        return shown == printed
    pattern = ".*".join(re.escape(part) for part in shown.split("..."))
    return re.fullmatch(pattern, printed) is not None


def match(shown, printed):
    """None when `shown` appears in `printed` as described above, else why not."""
    groups, cur = [], []
    for s in shown:
        if s.strip() == "...":
            if cur:
                groups.append(cur)
            cur = []
            groups.append(None)  # a gap
        else:
            cur.append(s)
    if cur:
        groups.append(cur)
    pos, anchored = 0, True
    for g in groups:
        if g is None:
            anchored = False
            continue
        starts = [pos] if anchored else range(pos, max(pos, len(printed) - len(g)) + 1)
        found, best = None, (-1, pos)  # best: (lines matched, start) for the message
        for st in starts:
            k = 0
            while k < len(g) and st + k < len(printed) and line_matches(g[k], printed[st + k]):
                k += 1
            if k == len(g):
                found = st
                break
            if k > best[0]:
                best = (k, st)
        if found is None:
            k, st = max(best[0], 0), best[1]
            near = printed[st + k] if st + k < len(printed) else "(end of output)"
            return "expected %r\n  printed line %d: %r" % (g[k], st + k + 1, near)
        pos, anchored = found + len(g), True
    return None


def terminal_text(raw):
    """What a terminal shows: '\\r' returns to the line's start, ESC [K erases to its end, so a live
    line redrawn and then cleared leaves nothing behind."""
    lines = []
    for line in raw.decode("utf-8", "replace").split("\n"):
        shown, col, i = [], 0, 0
        while i < len(line):
            if line[i] == "\r":
                col = 0
            elif line.startswith("\x1b[K", i):
                del shown[col:]
                i += 2
            else:
                if col < len(shown):
                    shown[col] = line[i]
                else:
                    shown.append(line[i])
                col += 1
            i += 1
        lines.append("".join(shown))
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def make_clone(src, build, work):
    """A folder that looks like a fresh clone with its build: runs write only here."""
    for name in os.listdir(src):
        if name.startswith(".") or name in ("build", "out") or name.startswith("build-"):
            continue
        if name == "runbooks":  # databases and captures are written beside the runbooks
            shutil.copytree(os.path.join(src, name), os.path.join(work, name), symlinks=True)
        else:
            os.symlink(os.path.join(src, name), os.path.join(work, name))
    os.symlink(build, os.path.join(work, "build"))


def run(cmd, work, env):
    wrapped = ["script", "-qefc", cmd, "/dev/null"]
    p = subprocess.run(
        wrapped, cwd=work, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, timeout=300)
    return p.returncode, terminal_text(p.stdout)


def first_word_exists(cmd, work, env):
    words = cmd.split()
    while words and re.match(r"^\w+=", words[0]):  # VAR=value cmd
        words.pop(0)
    if not words:
        return True
    w = words[0]
    if "/" in w:
        return os.path.exists(os.path.join(work, w))
    return shutil.which(w, path=env["PATH"]) is not None or w in ("cd", "echo", "cat", "grep")


def main():
    args = sys.argv[1:]
    src, build = os.path.realpath(args[0]), os.path.realpath(args[1])
    bench = "--bench" in args
    only = None
    if "--only" in args:
        only = {x if ":" in x else "README.md:" + x for x in args[args.index("--only") + 1].split(",")}
    blocks = [(f, b) for f in documents(src) for b in blocks_of(os.path.join(src, f))]
    if "--list" in args:
        for f, b in blocks:
            kind = "transcript" if b.lines and b.lines[0].startswith("$ ") else b.lang or "text"
            print("%s:%d  %-10s %s" % (f, b.line, kind, ("skip: " + b.skip) if b.skip else ""))
        return 0
    failures, ran = [], 0
    with tempfile.TemporaryDirectory(prefix="kprof-readme-") as work:
        make_clone(src, build, work)
        env = dict(os.environ)
        env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
        env["COLUMNS"] = str(WIDTH)
        env["KPROF_BIN"] = os.path.join(build, "bin")  # scripts/demo: use this build, build nothing
        env.pop("LINES", None)
        for f, b in blocks:
            transcript = bool(b.lines) and b.lines[0].startswith("$ ")
            where = "%s:%d" % (f, b.line)
            if not transcript:
                if b.lang != "sh":
                    continue
                for text in b.lines:
                    cmd = text.strip()
                    if not cmd or cmd.startswith("#"):
                        continue
                    w = cmd.split()[0]
                    if w.startswith(("scripts/", "build/bin/", "runbooks/", "tests/")) and (
                        not os.path.exists(os.path.join(work, w))
                    ):
                        failures.append("%s: %s does not exist" % (where, w))
                continue
            for cmd, shown in b.commands():
                if b.skip or (only is not None and where not in only):
                    if b.skip and not (cmd.startswith("build/bench/") and not bench):
                        if not first_word_exists(cmd, work, env):
                            failures.append("%s: %s: no such command" % (where, cmd))
                    continue
                ran += 1
                code, printed = run(cmd, work, env)
                sys.stdout.write("%s: $ %s  (exit %d, %d lines)\n" % (where, cmd, code, len(printed)))
                problems = []
                if code != 0:
                    problems.append("exit %d" % code)
                if not re.search(r"--width 0|--wide|^kprof validate", cmd):
                    long = [l for l in printed if len(l) > WIDTH and not l.startswith("kprof: ")]
                    if long:
                        problems.append("%d lines over %d columns, e.g. %r" % (len(long), WIDTH, long[0]))
                why = match(shown, printed)
                if why:
                    problems.append(why)
                if problems:
                    failures.append(
                        "%s: $ %s\n  %s\n  printed:\n%s"
                        % (where, cmd, "\n  ".join(problems), "\n".join("    | " + l for l in printed[:400]))
                    )
    for f in failures:
        sys.stdout.write("FAIL " + f + "\n")
    sys.stdout.write("%d commands run, %d failures\n" % (ran, len(failures)))
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
