"""ParmParse against hostile input (issue 21's adversarial run, repeated with other scenarios):
hostile names and values, odd files (CRLF, CR, BOM, unicode, NUL, huge lines, includes that nest,
loop or name things that are not files), expressions that blow up, queries of the wrong type, use
after finalize(), threads and re-entrant callbacks.  Each scenario runs in a child interpreter with
a timeout: a crash, an abort or a hang fails the test, and the child must exit cleanly."""
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = """
import os, sys, gc, threading, random, time
import boxfab.space3d as amr
amr.initialize(["amrex.verbose=0"])
pp = amr.ParmParse()
def outcome(f):
    try:
        r = f()
    except Exception as e:
        return type(e).__name__ + ": " + str(e)[:300]
    return r
def w(name, data):
    with open(name, "wb") as fh:
        fh.write(data if isinstance(data, bytes) else data.encode())
    return name
def read(name, data, *keys):
    w(name, data)
    def f():
        amr.ParmParse.addfile(name)
        return [pp.get_str_arr(k) if pp.contains(k) else None for k in keys]
    return outcome(f)
"""


def run(tmp_path, body, timeout=120):
    code = PRELUDE + f"os.chdir({str(tmp_path)!r})\n" + textwrap.dedent(body) + "\namr.finalize()\nprint('clean exit')\n"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, BOXFAB_DEVICE="cpu"))
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.endswith("clean exit\n"), r.stdout[-3000:]
    return r.stdout


def test_line_ends_encodings_and_odd_bytes(tmp_path):
    out = run(tmp_path, r'''
        print(read("crlf", "a1 = 1 2\r\nb1 = \"x y\"\r\nc1 = 3 \\\r\n 4\r\n#if AMREX_SPACEDIM == 3\r\nd1 = 5\r\n#endif\r\n",
                   "a1", "b1", "c1", "d1"))
        print(read("cr", "a2 = 1\rb2 = 2\r", "a2", "b2"))                  # \r alone is white space (AMReX)
        print(read("uni", "a4 = h\u00e9llo \u4e2d\u6587 \U0001F600 x\u00a0y\n", "a4"))
        print(read("vt", "a7 =\v1\f2\t3\n", "a7"))
        print(read("bom", b"\xef\xbb\xbfa3 = 1\n", "a3"))
        print(read("uniname", "\u00e9 = 1\n", "\u00e9"))
        print(read("nul", b"a5 = 1\nb5 = x\x00y\n", "a5"))
        print(read("latin1", b"a6 = \xe9t\xe9\n", "a6"))
        print(read("surrogate", b"a8 = \xed\xa0\x80\n", "a8"))
        print(read("overlong", b"a9 = \xc0\xaf\n", "a9"))
        print(read("cont_eof", "b4 = 1 \\", "b4"))
        print(read("cont_eof2", "b5 = 1 \\\n", "b5"))
    ''')
    lines = out.split("\n")
    assert lines[0] == "[['1', '2'], ['x y'], ['3', '4'], ['5']]"
    assert lines[1] == "[['1'], ['2']]"
    assert lines[2] == "[['h\u00e9llo', '\u4e2d\u6587', '\U0001F600', 'x\\xa0y']]"  # NBSP is not white space
    assert lines[3] == "[['1', '2', '3']]"
    assert lines[4].startswith("ValueError: bom:1:") and "not a parameter name" in lines[4]
    assert lines[5].startswith("ValueError: uniname:1:") and "not a parameter name" in lines[5]
    assert lines[6].startswith("ValueError: nul:2: a NUL byte")
    for k, name in ((7, "latin1"), (8, "surrogate"), (9, "overlong")):
        assert lines[k].startswith(f"ValueError: {name}:1: bytes that are not UTF-8"), lines[k]
    assert lines[10] == "[['1', '\\\\']]" and lines[11] == "[['1']]"


def test_huge_lines_many_values_and_many_keys(tmp_path):
    out = run(tmp_path, r'''
        w("long", "c4 = " + "x" * 30_000_000 + "\n")
        amr.ParmParse.addfile("long")
        print(len(pp.get_str("c4")))
        pp.remove("c4")
        w("many", "v = " + " ".join(map(str, range(1_000_000))) + "\n")
        t = time.perf_counter(); amr.ParmParse.addfile("many")
        print(pp.countval("v"), pp.get_int("v", 999_999), time.perf_counter() - t < 30)
        w("keys", "".join(f"k{i} = {i}\n" for i in range(500_000)))
        t = time.perf_counter(); amr.ParmParse.addfile("keys")
        print(pp.get_int("k499999"), time.perf_counter() - t < 30)
        w("cont", "c = 0" + "".join(f" \\\n{i}" for i in range(1, 500_000)) + "\n")
        t = time.perf_counter(); amr.ParmParse.addfile("cont")
        print(pp.countval("c"), time.perf_counter() - t < 30)
        w("ifs", "#if AMREX_SPACEDIM == 3\n" * 64 + "d = 1\n" + "#endif\n" * 64)
        amr.ParmParse.addfile("ifs")
        print(pp.get_int("d"), outcome(lambda: amr.ParmParse.addfile(w("ifs2", "#if AMREX_SPACEDIM == 3\n" * 65))))
    ''', timeout=300)
    lines = out.split("\n")
    assert lines[0] == "30000000"
    assert lines[1] == "1000000 999999 True" and lines[2] == "499999 True" and lines[3] == "500000 True"
    assert lines[4].startswith("1 ValueError: ifs2:65: #if blocks nested too deeply")


def test_includes_that_nest_loop_or_name_no_file(tmp_path):
    out = run(tmp_path, r'''
        for i in range(40):
            w(f"d{i}", f"FILE = d{i + 1}\n")
        w("d40", "dd = 1\n")
        print(outcome(lambda: amr.ParmParse.addfile("d0")), pp.contains("dd"))
        w("d8b", "FILE = d32\n")
        print(outcome(lambda: amr.ParmParse.addfile("d8b")), pp.get_int("dd"))   # 32 deep is fine
        w("cyc_a", "x = 1\nFILE = cyc_b\n"); w("cyc_b", "FILE = ./cyc_a\n")
        print(outcome(lambda: amr.ParmParse.addfile("cyc_a")), pp.contains("x"))
        os.symlink("sl_b", "sl_a"); w("sl_b", "FILE = sl_a\n")
        print(outcome(lambda: amr.ParmParse.addfile("sl_a")))
        os.symlink("nowhere", "dangling"); w("incdangling", "FILE = dangling\n")
        print(outcome(lambda: amr.ParmParse.addfile("incdangling")))
        os.makedirs("adir")
        w("incdir", "FILE = adir\n"); print(outcome(lambda: amr.ParmParse.addfile("incdir")))
        w("inczero", "FILE = /dev/zero\n"); print(outcome(lambda: amr.ParmParse.addfile("inczero")))
        w("with space", "ws = 1\n"); w("incq", 'FILE = "with space"\n')
        amr.ParmParse.addfile("incq"); print(pp.get_int("ws"))
        w("incempty", 'FILE = ""\n'); print(outcome(lambda: amr.ParmParse.addfile("incempty")))
        w("inclong", "FILE = " + "a" * 5000 + "\n"); print(outcome(lambda: amr.ParmParse.addfile("inclong"))[:40])
        w("fileeq", "FILE = q = 1\n"); print(outcome(lambda: amr.ParmParse.addfile("fileeq")))
        for i in range(20):
            w(f"f{i}", f"FILE = f{i + 1}\nFILE = f{i + 1}\n")
        w("f20", "y = 1\n")
        t = time.perf_counter()
        print(outcome(lambda: amr.ParmParse.addfile("f0")), time.perf_counter() - t < 30)
    ''')
    lines = out.split("\n")
    assert lines[0] == "ValueError: d32:1: FILE includes nested more than 32 deep False"
    assert lines[1] == "None 1"
    assert "include cycle" in lines[2] and lines[2].endswith("False")      # nothing of the file added
    assert "include cycle" in lines[3]
    assert lines[4].startswith("OSError: incdangling:1: cannot read inputs file dangling")
    assert lines[5] == "OSError: incdir:1: cannot read inputs file adir: not a regular file"
    assert lines[6] == "OSError: inczero:1: cannot read inputs file /dev/zero: not a regular file"
    assert lines[7] == "1"
    assert lines[8] == "OSError: incempty:1: no file name given"
    assert lines[9].startswith("OSError: inclong:1: cannot read")
    assert lines[10] == "ValueError: fileeq:1: FILE = has no value"
    assert "inputs files read by one addfile" in lines[11] and lines[11].endswith("True")


def test_expressions_that_blow_up_end_quickly(tmp_path):
    out = run(tmp_path, r'''
        # each name used three times by the next: 3^30 evaluations unless each is evaluated once
        pp.add("a0", 1)
        for k in range(1, 31):
            pp.add(f"a{k}", f"a{k - 1}*2-a{k - 1}+a{k - 1}-a{k - 1}")
        t = time.perf_counter()
        print(pp.get_int("a30"), pp.get_real("a30"), time.perf_counter() - t < 5)
        pp.add("a0", 3)                                     # a new table: nothing stale
        print(pp.get_int("a30"), pp.get_int("a1"))
        for e in ["-" * 100000 + "1", "(" * 10000 + "1" + ")" * 10000, "2^" * 10000 + "2", "sqrt(" * 5000 + "1" + ")" * 5000,
                  "1+" * 200000 + "1", "r1", "(-9223372036854775807-1)//(-1)", "2^63", "1//0", "1e19", "max(1,2,3)"]:
            pp.add("e", e)
            print(str(outcome(lambda: pp.get_int("e"))).split(" (")[0][:60], "|", str(outcome(lambda: pp.get_real("e")))[:50])
        pp.add("r1", "r2"); pp.add("r2", "r1")
        print(outcome(lambda: pp.get_int("r1"))[:80])
    ''')
    lines = out.split("\n")
    assert lines[0] == "1 1.0 True" and lines[1] == "3 3"
    assert lines[2].startswith("ValueError: parameter e: ")            # 100000 unary minus: too deep
    assert lines[3].startswith("ValueError") and lines[4].startswith("ValueError") and lines[5].startswith("ValueError")
    assert lines[6] == "200001 | 200001.0"
    assert lines[8].startswith("OverflowError") and lines[9].startswith("OverflowError")
    assert lines[10].startswith("ValueError") and lines[10].endswith("| 1.0")   # in a real, // starts a comment
    assert lines[11].startswith("OverflowError") and lines[12].startswith("ValueError")
    assert "recursive" in lines[13] or "refers to itself" in lines[13], lines[13]


def test_queries_of_the_wrong_type_and_odd_arguments(tmp_path):
    out = run(tmp_path, r'''
        import numpy as np
        from fractions import Fraction
        q = amr.ParmParse("q")
        q.add("iv", "(1,2)"); q.add("bx", "((0,0,0) (1,1,1) (2,0,0))"); q.add("b", "yes"); q.add("r", 1.5)
        q.add("big", "99999999999999999999"); q.add("s", "a b")
        calls = [lambda: q.get_intvect("iv"), lambda: q.get_box("bx"), lambda: q.get_bool("b"), lambda: q.get_int("r"),
                 lambda: q.get_int("big"), lambda: q.get_real("s"), lambda: q.get_int("r", 2**40), lambda: q.get_int("r", -1),
                 lambda: q.get_int_arr("r", 2**31 - 1, 2**31 - 1), lambda: q.get_int_arr("r", 0, -2), lambda: q.get_int("nope"),
                 lambda: q.add("x", object()), lambda: q.add(b"x", 1), lambda: q.add("x", 2**64), lambda: q.addarr("x", [1, "a"]),
                 lambda: q.addarr("x", "abc"), lambda: q.add("\udc80", 1), lambda: q.add("x", "\udc80"),
                 lambda: q.get_int(None), lambda: amr.ParmParse(3)]
        for c in calls:
            print(str(outcome(c)).split(":")[0])
        q.add("n", np.int64(3)); q.add("f", np.float32(0.1)); q.add("fr", Fraction(1, 3))
        print(q.get("n"), q.get("f") == float(np.float32(0.1)), q.get("fr") == 1 / 3)
        class Mutating:                               # __index__ changes the store while addarr converts
            def __index__(self):
                q.remove("m"); q.add("m", "zz"); return 5
        q.addarr("m", [Mutating(), Mutating()])
        print(q.get_int_arr("m"))
    ''')
    got = out.split("\n")[:22]
    assert got == ["ValueError", "ValueError", "ValueError", "ValueError", "OverflowError", "ValueError",
                   "OverflowError", "IndexError", "IndexError", "IndexError", "RuntimeError", "TypeError", "TypeError",
                   "OverflowError", "TypeError", "TypeError", "UnicodeEncodeError", "UnicodeEncodeError", "TypeError",
                   "TypeError", "3 True True", "[5, 5]"], out


def test_after_finalize_the_store_is_empty_and_still_safe(tmp_path):
    out = run(tmp_path, r'''
        p = amr.ParmParse("p")
        p.add("a", 1)
        amr.finalize()
        print(p.contains("a"), outcome(lambda: p.get_int("a"))[:12], p.query_int("a"))
        p.add("b", 2)                                # as AMReX: the table outlives the runtime
        print(outcome(lambda: amr.ParmParse.addfile(w("in", "c = 3\n"))), p.to_dict(), repr(p.pretty_text()))
        print(outcome(lambda: p.add("a b", 1))[:10])
        amr.initialize(["amrex.verbose=0", "p.d=4"])
        print(sorted(amr.ParmParse("p").to_dict()["p"].items()))
        p = None
    ''')
    lines = out.split("\n")
    assert lines[0] == "False RuntimeError (False, 0)"
    assert lines[1] == "None {'c': 3, 'p': {'b': 2}} 'c = 3\\np.b = 2\\n'"
    assert lines[2] == "ValueError"
    assert lines[3] == "[('b', 2), ('d', 4)]"


def test_threads_and_reentrant_callbacks(tmp_path):
    """8 threads add, remove, read, list and print while a gc callback (run at every allocation)
    changes the table under to_dict, get_*_arr and pretty_text: exceptions are allowed where the
    table changed under a call, crashes and wrong values are not."""
    out = run(tmp_path, r'''
        g = amr.ParmParse("g")
        for i in range(500):
            g.addarr(f"k{i}", [i, i + 1, i + 2])
        rnd = random.Random(1)
        def cb(phase, info):
            k = f"k{rnd.randrange(500)}"
            r = rnd.random()
            if r < 0.3: g.remove(k)
            elif r < 0.6: g.addarr(k, [rnd.randrange(500)] * 3)
            else: g.add(f"new{rnd.randrange(1000)}", "x y")
        gc.callbacks.append(cb)
        gc.set_threshold(1, 1, 1)
        class Cycle:
            def __init__(self): self.me = self
        for it in range(200):
            Cycle()
            try:
                amr.ParmParse().to_dict()
                for i in range(0, 500, 37):
                    found, v = g.query_int_arr(f"k{i}")
                    assert not found or len(v) == 3, v
                g.pretty_text()
            except (IndexError, RuntimeError):
                pass
        gc.callbacks.remove(cb)
        gc.set_threshold(700, 10, 10)
        print("gc ok")
        sys.setswitchinterval(1e-6)
        stop = False
        errors = []
        class SlowIndex:
            def __init__(self, v): self.v = v
            def __index__(self):
                time.sleep(0)
                return self.v
        def worker(t):
            r = random.Random(t)
            try:
                while not stop:
                    k = f"t{r.randrange(50)}"
                    x = r.random()
                    if x < 0.2: g.addarr(k, [SlowIndex(7), SlowIndex(8)])
                    elif x < 0.35: g.remove(k)
                    elif x < 0.6:
                        found, v = g.query_str_arr(k)
                        assert not found or v in (["7", "8"], ["a b"]), v
                    elif x < 0.7: amr.ParmParse().to_dict()
                    elif x < 0.8: g.pretty_text()
                    elif x < 0.9: g.add(k, "a b")
                    else: amr.ParmParse.addfile(w(f"in{t}", f"g.{k} = 7 8\n"))
            except Exception as e:
                errors.append(repr(e))
        ts = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for t in ts: t.start()
        time.sleep(3)
        stop = True
        for t in ts: t.join()
        print("threads", errors[:3])
    ''', timeout=180)
    assert out.split("\n")[:2] == ["gc ok", "threads []"], out
