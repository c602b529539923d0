"""scripts/check-layers.py, which keeps docs/architecture.md true: the tree passes it, and each kind of
violation planted in a copy of the tree (an include reaching up in the core, in a public header, in
the extension, in a backend; an include of nothing known; a folder the page does not name; a call
across the floors hidden from the includes) makes it fail, naming the file."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "scripts", "check-layers.py")


def check(root, *args):
    r = subprocess.run([sys.executable, SCRIPT, "--root", str(root), *args], capture_output=True, text=True,
                       timeout=120)
    return r.returncode, r.stdout + r.stderr


@pytest.fixture
def tree(tmp_path):
    """A copy of what the check reads: the page, src/ and include/."""
    for d in ("src", "include"):
        shutil.copytree(os.path.join(ROOT, d), tmp_path / d, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "docs").mkdir()
    shutil.copy(os.path.join(ROOT, "docs", "architecture.md"), tmp_path / "docs")
    return tmp_path


def plant(path, line):
    text = path.read_text()
    path.write_text(line + "\n" + text)


def test_the_tree_follows_the_page():
    rc, out = check(ROOT)
    assert rc == 0, out
    assert "base < index < params < runtime < mesh < particles < io < amr" in out


def test_the_copy_passes_before_anything_is_planted(tree):
    rc, out = check(tree)
    assert rc == 0, out


@pytest.mark.parametrize("where,line,expect", [
    ("src/core/index/box.c", '#include "mesh/multifab_impl.h"', "src/core/index/box.c: #include \"mesh/multifab_impl.h\" reaches up"),
    ("src/core/params/store.c", '#include "boxfab/runtime.h"', "src/core/params/store.c: #include \"boxfab/runtime.h\" reaches up"),
    ("src/core/mesh/fab.c", '#include "boxfab/particles.h"', "reaches up: mesh/ may include base index params runtime, not particles/"),
    ("src/core/io/vismf.c", '#include "particles/impl.h"', "src/core/io/vismf.c: #include \"particles/impl.h\" reaches up"),
    ("include/boxfab/box.h", '#include "boxfab/multifab.h"', "include/boxfab/box.h: #include \"boxfab/multifab.h\" reaches up"),
    ("src/python/mesh/fab.c", '#include "particles/pc.h"', "src/python/mesh/fab.c: #include \"particles/pc.h\" reaches up"),
    ("src/python/index/box.c", '#include "runtime/comm.h"', "no header of src/python"),
    ("src/python/util.c", '#include "mesh/array4.h"', "the shared top level includes no folder"),
    ("src/backend/cpu/reduce.c", '#include "mesh/multifab_impl.h"', "src/backend/cpu/reduce.c: #include \"mesh/multifab_impl.h\" reaches up: a backend"),
    ("src/backend/cuda/ops.c", '#include "particles/impl.h"', "reaches up: a backend"),
    ("src/core/base/error.c", '#include "cpu_work.h"', "is no header of the core"),
    ("src/core/mesh/fab.c", '#include "multifab_impl.h"', "name the folder"),
    ("src/core/runtime/gpu.c", '#include "boxfab/boxfab.h"', "the umbrella header is for users"),
])
def test_an_include_that_breaks_the_floors_is_reported(tree, where, line, expect):
    plant(tree / where, line)
    rc, out = check(tree)
    assert rc == 1, out
    assert expect in out, out


def test_folders_and_rows_must_agree(tree):
    (tree / "src" / "core" / "solvers").mkdir()
    (tree / "src" / "core" / "solvers" / "mlmg.c").write_text("int x;\n")
    shutil.rmtree(tree / "src" / "python" / "amr")
    (tree / "include" / "boxfab" / "mlmg.h").write_text("#include \"boxfab/base.h\"\n")
    (tree / "src" / "core" / "loose.c").write_text("int y;\n")
    os.remove(tree / "src" / "core" / "params" / "expr.c")
    rc, out = check(tree)
    assert rc == 1, out
    for expect in ("src/core/solvers/ is on disk but has no row", "src/python/amr/ has a row but is not on disk",
                   "include/boxfab/mlmg.h has no row", "src/core/loose.c is in no folder",
                   "the row of params/ names expr.c, which is not in src/core/params/"):
        assert expect in out, out


# ---- symbols: a call that the includes do not show ------------------------------------------------
def compile_objects(build, files):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    for rel, code in files.items():
        src = build / "src" / rel
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text(code)
        obj = build / "CMakeFiles" / "boxfab.dir" / "src" / (rel + ".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([cc, "-c", str(src), "-o", str(obj)], check=True)


def test_a_call_up_the_floors_is_reported_from_the_objects(tmp_path):
    compile_objects(tmp_path / "b", {
        "core/index/box.c": "int bf_mesh_thing(void);\nint bf_box_thing(void) { return bf_mesh_thing(); }\n",
        "core/mesh/fab.c": "int bf_box_thing(void);\nint bf_mesh_thing(void) { return 1; }\n"
                           "int bf_fab_uses(void) { return bf_box_thing(); }\n",
    })
    rc, out = check(ROOT, "--objects", str(tmp_path / "b"))
    assert rc == 1, out
    assert "src/core/index/box.c uses bf_mesh_thing of src/core/mesh/fab.c: index/ may not call into mesh/" in out
    assert "bf_box_thing" not in out.replace("index/box.c uses", "")  # mesh calling index is allowed


def test_only_the_backend_list_may_name_a_backend(tmp_path):
    compile_objects(tmp_path / "b", {
        "backend/cpu/memory.c": "int bf_backend_provider_cpu = 1;\nint bf_cpu_kernel(void) { return 2; }\n",
        "core/runtime/backend.c": "extern int bf_backend_provider_cpu;\nint bf_list(void) { return bf_backend_provider_cpu; }\n",
        "core/runtime/arena.c": "int bf_cpu_kernel(void);\nint bf_arena_x(void) { return bf_cpu_kernel(); }\n",
    })
    rc, out = check(ROOT, "--objects", str(tmp_path / "b"))
    assert rc == 1, out
    assert "src/core/runtime/arena.c uses bf_cpu_kernel of src/backend/cpu/memory.c" in out, out
    assert "runtime/backend.c uses" not in out, out


def test_objects_of_no_library_are_refused(tmp_path):
    rc, out = check(ROOT, "--objects", str(tmp_path))
    assert rc == 2 and "no object file of the library" in out, out
