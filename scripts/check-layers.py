#!/usr/bin/env python3
"""Checks the direction of dependence that docs/architecture.md writes down.

    python3 scripts/check-layers.py [--root DIR] [--objects BUILD_DIR]

Reads the tables of docs/architecture.md (the core's folders, what each may include and its public
headers; the backends' row; the extension's folders), then checks every `#include "..."` of
src/ and include/boxfab/ against them, and that the folders on disk and the rows agree.  With
--objects, also the symbols: every object file of the library built in BUILD_DIR (found by its
path, .../src/core/<folder>/x.c.o) may use only symbols defined in its own folder or in one its
row lists; the one exception is the backend descriptors (bf_backend_provider_*), which
runtime/backend.c names through the generated BOXFAB_BACKEND_LIST.

Exit status 0 when everything holds, 1 with one line per violation otherwise, 2 when the page
or the tree cannot be read.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ROW = re.compile(r"^\|\s*`([a-z_]+)/`\s*\|(.*)\|\s*$")


def fail_setup(msg):
    print(f"check-layers: {msg}", file=sys.stderr)
    sys.exit(2)


def read_tables(doc):
    """(core, backend, python): core maps folder -> (public headers, allowed set); backend is the
    allowed set of src/backend/*; python is the set of folders of src/python."""
    try:
        text = open(doc, encoding="utf-8").read()
    except OSError as e:
        fail_setup(f"cannot read {doc}: {e}")
    sections = re.split(r"^## ", text, flags=re.M)

    def section(title):
        for s in sections:
            if s.startswith(title):
                return s
        fail_setup(f"{doc} has no section '## {title}'")

    core, order, named = {}, [], {}
    for line in section("The core").splitlines():
        m = ROW.match(line)
        if not m:
            continue
        cells = [c.strip() for c in m.group(2).split("|")]
        if len(cells) != 3:
            fail_setup(f"{doc}: the row of {m.group(1)}/ needs owns | public headers | may include")
        public = set(re.findall(r"`([a-z0-9_]+\.h)`", cells[1]))
        allowed = set(cells[2].split())
        core[m.group(1)] = (public, allowed)
        named[m.group(1)] = set(re.findall(r"`([a-z0-9_*]+\.(?:c|h|h\.in))`", cells[0]))
        order.append(m.group(1))
    if not core:
        fail_setup(f"{doc}: no folder rows in '## The core'")
    backend = None
    for line in section("The backends").splitlines():
        m = ROW.match(line)
        if m and m.group(1) == "backend":
            backend = set(m.group(2).split("|")[2].split())
    if backend is None:
        fail_setup(f"{doc}: no `backend/` row in '## The backends'")
    python = set()
    for line in section("The extension").splitlines():
        m = ROW.match(line)
        if m:
            python.add(m.group(1))
    return core, order, backend, python, named


class Checker:
    def __init__(self, root):
        self.root = root
        self.doc = os.path.join(root, "docs", "architecture.md")
        self.core, self.order, self.backend, self.python, self.named = read_tables(self.doc)
        self.errors = []
        self.public = {}  # public header -> folder
        for folder, (public, allowed) in self.core.items():
            for h in public:
                if h in self.public:
                    self.err(f"docs/architecture.md: include/boxfab/{h} is in the rows of both "
                             f"{self.public[h]}/ and {folder}/")
                self.public[h] = folder
            for a in allowed:
                if a.split("/")[0] not in self.core:
                    self.err(f"docs/architecture.md: {folder}/ may include '{a}', which is no folder")
        for a in self.backend:
            if a.split("/")[0] not in self.core:
                self.err(f"docs/architecture.md: backend/ may include '{a}', which is no folder")

    def err(self, msg):
        self.errors.append(msg)

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def may(self, allowed, folder, target_folder, target_rel):
        """May a file whose row allows `allowed` (its own folder: `folder`) include the header
        `target_rel` (relative to src/core) of `target_folder`?"""
        return target_folder == folder or target_folder in allowed or target_rel in allowed

    # ---- folders on disk against the rows --------------------------------------------------
    def check_tree(self):
        def subdirs(d):
            p = os.path.join(self.root, d)
            if not os.path.isdir(p):
                fail_setup(f"{d} is not a folder under {self.root}")
            return {e for e in os.listdir(p) if os.path.isdir(os.path.join(p, e)) and e != "__pycache__"}

        for f in sorted(subdirs("src/core") ^ set(self.core)):
            where = "is on disk but has no row" if f not in self.core else "has a row but is not on disk"
            self.err(f"src/core/{f}/ {where} in docs/architecture.md")
        for f in sorted(subdirs("src/python") ^ self.python):
            where = "is on disk but has no row" if f not in self.python else "has a row but is not on disk"
            self.err(f"src/python/{f}/ {where} in docs/architecture.md")
        for f in sorted(self.python - set(self.core)):
            self.err(f"src/python/{f}/ mirrors no folder of src/core")
        for f in sorted(os.listdir(os.path.join(self.root, "src"))):
            if f not in ("core", "backend", "python"):
                self.err(f"src/{f}/ is neither the core, a backend nor the extension")
        headers = {h for h in os.listdir(os.path.join(self.root, "include", "boxfab")) if h.endswith(".h")}
        for h in sorted(headers - set(self.public) - {"boxfab.h"}):
            self.err(f"include/boxfab/{h} has no row in docs/architecture.md")
        for h in sorted(set(self.public) - headers):
            self.err(f"docs/architecture.md names include/boxfab/{h}, which does not exist")
        for f in sorted(os.listdir(os.path.join(self.root, "src", "core"))):
            if os.path.isfile(os.path.join(self.root, "src", "core", f)):
                self.err(f"src/core/{f} is in no folder")
        for folder, names in sorted(self.named.items()):
            d = os.path.join(self.root, "src", "core", folder)
            for n in sorted(names):
                if not (glob.glob(os.path.join(d, n)) if os.path.isdir(d) else []):
                    self.err(f"docs/architecture.md: the row of {folder}/ names {n}, which is not in src/core/{folder}/")

    # ---- includes ---------------------------------------------------------------------------
    def sources(self, top):
        for dirpath, dirnames, filenames in os.walk(os.path.join(self.root, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for f in sorted(filenames):
                if f.endswith((".c", ".h", ".cu", ".cuh", ".h.in")):
                    yield os.path.join(dirpath, f)

    def includes(self, path):
        try:
            text = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError) as e:
            self.err(f"{self.rel(path)}: cannot read: {e}")
            return []
        return INCLUDE.findall(text)

    def resolve_core(self, path, inc):
        """(folder, path relative to src/core) of a quoted include from the core or a backend, or
        None when it is a public header or the generated configuration (returns their folder)."""
        here = os.path.dirname(path)
        core = os.path.join(self.root, "src", "core")
        if inc.startswith("boxfab/"):
            h = inc[len("boxfab/"):]
            if h == "boxfab.h":
                return "boxfab.h", inc
            if not os.path.isfile(os.path.join(self.root, "include", inc)) or h not in self.public:
                return None, inc
            return self.public[h], inc
        if inc == "boxfab_config.h":
            return "base", "base/config.h.in"
        if "/" in inc and os.path.isfile(os.path.join(core, inc)):
            return inc.split("/")[0], inc
        if os.path.isfile(os.path.join(here, inc)):  # a file beside the includer
            return "", inc
        return None, inc

    def check_core_includes(self):
        for top in ("src/core", "src/backend", "include/boxfab"):
            for path in self.sources(top):
                rel = self.rel(path)
                parts = rel.split(os.sep)
                if top == "src/core":
                    folder = parts[2]
                    allowed = self.core.get(folder, (set(), set()))[1]
                elif top == "src/backend":
                    folder, allowed = None, self.backend
                else:
                    folder = self.public.get(parts[-1])
                    allowed = self.core[folder][1] if folder else None
                for inc in self.includes(path):
                    tf, trel = self.resolve_core(path, inc)
                    if tf is None:
                        self.err(f'{rel}: #include "{inc}" is no header of the core, of this folder or '
                                 f"of the public API")
                        continue
                    if tf == "":  # beside the includer
                        if top == "src/core" and "/" not in inc:
                            self.err(f'{rel}: #include "{inc}": name the folder ("{folder}/{inc}")')
                        continue
                    if tf == "boxfab.h":
                        if parts[-1] != "boxfab.h":
                            self.err(f'{rel}: #include "{inc}": the umbrella header is for users and '
                                     f"the extension; include what is used")
                        continue
                    if top == "include/boxfab" and folder is None:
                        continue  # the umbrella includes everything; a header without a row: check_tree
                    if not self.may(allowed, folder, tf, trel):
                        who = f"{folder}/" if folder else "a backend"
                        self.err(f'{rel}: #include "{inc}" reaches up: {who} may include '
                                 f"{' '.join(sorted(allowed)) or 'nothing'}, not {tf}/")
                    if top == "include/boxfab" and not inc.startswith("boxfab/"):
                        self.err(f'{rel}: #include "{inc}": a public header includes only public headers')

    def check_python_includes(self):
        base = os.path.join(self.root, "src", "python")
        for path in self.sources("src/python"):
            rel = self.rel(path)
            parts = rel.split(os.sep)
            folder = parts[2] if len(parts) > 3 else None  # None: the top level
            for inc in self.includes(path):
                if inc.startswith("boxfab/") or inc == "boxfab_config.h":
                    tf, _ = self.resolve_core(path, inc)
                    if tf is None:
                        self.err(f'{rel}: #include "{inc}" is no public header')
                    continue
                if "/" not in inc:
                    if not os.path.isfile(os.path.join(base, inc)):
                        self.err(f'{rel}: #include "{inc}" is no header of the top level of src/python')
                    continue
                tf = inc.split("/")[0]
                if not os.path.isfile(os.path.join(base, inc)):
                    self.err(f'{rel}: #include "{inc}" is no header of src/python (the extension '
                             f"includes no private header of the core)")
                    continue
                if folder is None:
                    if parts[-1] != "module.c":
                        self.err(f'{rel}: #include "{inc}": the shared top level includes no folder')
                    continue
                allowed = self.core.get(folder, (set(), set()))[1]
                if tf != folder and tf not in allowed:
                    self.err(f'{rel}: #include "{inc}" reaches up: {folder}/ may include '
                             f"{' '.join(sorted(allowed)) or 'nothing'}, not {tf}/")

    # ---- symbols of a build -----------------------------------------------------------------
    def check_objects(self, build):
        objs = []
        for dirpath, _, filenames in os.walk(build):
            for f in filenames:
                if f.endswith(".o"):
                    p = os.path.join(dirpath, f)
                    m = re.search(r"/boxfab\.dir/src/(core/([a-z_]+)|backend/[a-z0-9_]+)/", p)
                    if m:
                        objs.append((p, m.group(2) or "backend"))
        if not objs:
            fail_setup(f"no object file of the library (.../boxfab.dir/src/...) under {build}")
        defs, undefs = {}, {}
        for p, folder in objs:
            try:
                out = subprocess.run(["nm", p], capture_output=True, text=True, check=True).stdout
            except (OSError, subprocess.CalledProcessError) as e:
                fail_setup(f"nm {p}: {e}")
            u = set()
            for line in out.splitlines():
                f = line.split()
                if len(f) == 3 and f[1] in "TDBRCVW":
                    defs.setdefault(f[2], (folder, p))
                elif len(f) == 2 and f[0] == "U":
                    u.add(f[1])
            undefs[p] = (folder, u)
        for p, (folder, u) in sorted(undefs.items()):
            allowed = self.backend if folder == "backend" else self.core.get(folder, (set(), set()))[1]
            allowed = {a.split("/")[0] for a in allowed}
            for s in sorted(u):
                if s not in defs:
                    continue
                tf, tp = defs[s]
                if tf == folder or tf in allowed:
                    continue
                if tf == "backend" and s.startswith("bf_backend_provider_") and p.endswith("runtime/backend.c.o"):
                    continue
                self.err(f"{self.rel_build(p, build)} uses {s} of {self.rel_build(tp, build)}: "
                         f"{folder}/ may not call into {tf}/")

    @staticmethod
    def rel_build(p, build):
        m = re.search(r"src/.*?(?=\.(c|cu)\.o$)", p)
        return m.group(0) + "." + m.group(1) if m else os.path.relpath(p, build)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--objects", metavar="BUILD_DIR", help="also check the symbols of this build")
    a = ap.parse_args()
    c = Checker(os.path.abspath(a.root))
    c.check_tree()
    c.check_core_includes()
    c.check_python_includes()
    if a.objects:
        c.check_objects(a.objects)
    for e in c.errors:
        print(e)
    if c.errors:
        print(f"check-layers: {len(c.errors)} violation(s) of docs/architecture.md", file=sys.stderr)
        return 1
    what = "includes and symbols" if a.objects else "includes"
    print(f"check-layers: the {what} follow docs/architecture.md "
          f"({len(c.core)} core folders: {' < '.join(c.order)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
