"""The hostile-values sweep behind test_hostile.py.

Every public callable of boxfab.space{1,2,3}d -- module functions, class
constructors, methods (static ones too), operators, property setters and
deleters -- is found by introspection and called with one hostile value in
one argument position at a time, the other arguments valid.  The valid
arguments ("forms") come from the docstrings' signatures (``name(a: int,
b: Box = ..., /) / name(iv: IntVect)``), the argument names and types mapped
to valid objects (VALID_BY_TYPE, VALID_BY_NAME), and hand_forms(), a hand
table for what the docstrings do not say well enough (all in hostile_tables.py).  Each form is first
called as it is (its baseline); a docstring form that fails there is dropped
when the unit has others.  Nothing is skipped: finalize() and AMReX.erase /
__exit__ run on instances made for the call (the runtime is re-initialized
when a call ends it); NOT_RUN lists the few calls that ask for unbounded work.

The calls run in a child interpreter (one per dimension) under an
address-space limit; the parent (run_sweep) watches it through a small shared
file holding the number of the call in progress, so a call that kills the
child (signal) or hangs (no progress for CALL_TIMEOUT s) is recorded and the
child is restarted after that call.  The child judges every call itself and
writes one JSON line per finding.

A call passes when it returns, or raises one of ALLOWED (or the hostile
mock's own exception, HostileError, which must come through unchanged);
AttributeError only when setting or deleting a read-only attribute or
reading an attribute.  After every call the objects involved must still work
(their ``state`` is readable), and after a refused call they must be
unchanged ("never lost data": a MultiFab's bytes, a Box's corners, ...).
Findings (kinds):
  crash       the child died by a signal in this call
  timeout     no return within CALL_TIMEOUT seconds
  slow        returned or raised after more than SLOW seconds (runaway work)
  system      SystemError (an exception set with a value returned, or the reverse)
  exception   a type outside ALLOWED (plus the unit's extra allowance)
  runaway     the call grew the peak memory by RUNAWAY_BYTES, or raised MemoryError after
              RUNAWAY_SECONDS: memory consumed until the address-space limit stopped it, not
              an allocation refused up front (boxfab's checks, or Python's own list(range(10**12)))
  swallowed   the hostile mock's exception was replaced by another one, or
              dropped and the call returned
  changed     the call raised but left self or an argument changed
  broken      an object (or the result) no longer works after the call
  accepted    an int parameter took a value C int cannot hold (or a float,
              NaN, None, a str) and the call returned: a silent wrong value
  readback    a property set to an int reads back another value
  leak        the address space stayed LEAK_BYTES larger after the call and its objects were gone
"""
import json
import mmap
import os
import re
import resource
import struct
import subprocess
import sys
import time

import numpy as np

from hostile_particles import is_particle_class, is_representative, state as particle_state

from hostile_tables import (ARRAY4_DTYPES, BINARY_DUNDERS, CHANGE_ALLOWED, EXTRA_ALLOWED, F, HostileError,  # noqa: F401 (re-exported)
                            K, KNOWN, unit_self, ALT_SELF, ALT_SELF_HOSTILE, ELEMENT_HOSTILE, NOT_A_FLOAT, NOT_AN_INT, NOT_RUN, SELF_KEY, UNARY_DUNDERS,
                            VALID_BY_NAME, VALID_BY_TYPE, Vocab, _Mock, hand_forms, hostile_values, int_range, meaningful_range,
                            known_issue, RaisingNumber)

# ZeroDivisionError is allowed: it is what Python's own numbers raise for x/0
# (IntVect(1) / 0, RealVect / 0.0 follow them); it is an ArithmeticError, never
# a crash, and a script that guards arithmetic catches it.
ALLOWED = (TypeError, ValueError, IndexError, OverflowError, MemoryError, RuntimeError,
           BufferError, ZeroDivisionError)

CALL_TIMEOUT = 5.0      # seconds without progress: the child is killed
SLOW = 2.0              # seconds: a call this slow is a finding
RUNAWAY_SECONDS = 0.5   # a MemoryError after this long, or any call that grows the peak memory
RUNAWAY_BYTES = 128 << 20   # by this much, is runaway growth (not an allocation refused up front)
LEAK_BYTES = 100 << 20  # address space a call may leave behind (glibc reserves heaps of 64 MiB)
AS_HEADROOM = 1 << 30   # address space the child may add after its imports (the sweep's own
                        # objects need a few MiB: runaway growth ends in MemoryError within a second)
MEMBER_OF_OBJECT = set(dir(object))


_ADDR = re.compile(r" at 0x[0-9a-f]+")


class Inconsistent(AssertionError):
    """An object whose parts disagree (a size computed in C that wrapped)."""


def _check_extent(a4, extent, ncomp, what):
    """The data of a FAB has the extent its box (grown by the ghost cells) has, in Python ints."""
    shape = a4.__array_interface__["shape"]   # (ncomp, nz, ny, nx)
    got = [shape[3 - d] for d in range(len(extent))]
    if got != extent or shape[0] != ncomp:
        raise Inconsistent(f"{what}: data of extent {got} x {shape[0]} comps, box and ghost cells say "
                           f"{extent} x {ncomp}")


def state(obj):
    """What an object holds, to compare before and after a call (raises if it no longer works)."""
    t = type(obj).__name__
    if t in ("MultiFab", "iMultiFab"):
        if not obj.ok():
            return (t, _ADDR.sub("", repr(obj)))
        ng = list(obj.n_grow_vect)
        data = []
        for m in obj:
            a = obj.array(m)
            vb = m.validbox()
            _check_extent(a, [vb.big_end[d] - vb.small_end[d] + 1 + 2 * ng[d] for d in range(len(ng))],
                          obj.n_comp, f"{t} fab {m.index}")
            data.append(a.to_host().tobytes())
        return (t, repr(obj.box_array()), obj.n_comp, tuple(ng), tuple(data))
    if t in ("FArrayBox", "BaseFab_Real"):
        if not obj.is_allocated():
            return (t, _ADDR.sub("", repr(obj)))
        a, b = obj.array(), obj.box()
        _check_extent(a, [b.big_end[d] - b.small_end[d] + 1 for d in range(len(b.big_end))], obj.n_comp(), t)
        return (t, repr(b), obj.n_comp(), a.to_host().tobytes())
    if t.startswith("Array4_"):   # values, not bytes: long double has padding bytes
        return (t, repr(obj), obj.to_host().tolist() if obj.size else [])
    if t == "MFIter":
        return (t, repr(obj), obj.is_valid, obj.index if obj.is_valid else None)
    if t == "Geometry":
        return (t, repr(obj), repr(obj.data()))
    ps = particle_state(obj)
    if ps is not None:
        return ps
    if isinstance(obj, np.ndarray):
        return (t, obj.shape, obj.tobytes())
    if t.startswith("Vector_") or t == "DistributionMapping":
        return (t, repr(obj), [repr(x) for x in obj])
    return (t, _ADDR.sub("", repr(obj)))


# ---------------------------------------------------------------------------------------------
# Discovery
# ---------------------------------------------------------------------------------------------
class Unit:
    __slots__ = ("name", "owner", "kind", "cls", "attr", "self_key", "forms", "hand", "static", "argnames")

    def __init__(self, name, owner, kind, cls=None, attr=None, self_key=None, static=False):
        self.name, self.owner, self.kind, self.cls, self.attr = name, owner, kind, cls, attr
        self.self_key, self.static = self_key, static
        self.forms, self.hand = [], False
        self.argnames = {}   # repr(form) -> names of its positional arguments (docstring forms)


def _doc_forms(name, doc, dim):
    """Argument lists parsed from a docstring's signatures: list of (names, types, defaults, kwonly)."""
    if not doc:
        return []
    text = doc.split("\n\n")[0].replace("\n", " ")
    out = []
    pat = re.compile(r"(?<![\w.])" + re.escape(name) + r"\(|/\s*\(")
    for m in pat.finditer(text):
        i = m.end()
        depth, j = 1, i
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        inner = text[i:j - 1]
        args, depth, cur = [], 0, ""
        for ch in inner:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            if ch == "," and depth == 0:
                args.append(cur)
                cur = ""
            else:
                cur += ch
        if cur.strip():
            args.append(cur)
        parsed, kwonly = [], False
        for a in args:
            a = a.strip()
            if a in ("/", "") or a.startswith("**") or a == "...":
                continue
            if a.startswith("*"):
                kwonly = True
                if len(a) > 1:
                    continue
                continue
            dflt = None
            if "=" in a:
                a, dflt = a.split("=", 1)
                dflt = dflt.strip()
            typ = None
            if ":" in a:
                a, typ = a.split(":", 1)
                typ = typ.strip()
            parsed.append((a.strip(), typ, dflt, kwonly))
        out.append(parsed)
    return out


def _valid_for(argname, typ, dflt, owner, dim):
    """A valid value spec for one argument, or raise KeyError."""
    intish = owner == "iMultiFab"
    if typ:
        alts = [t.strip() for t in typ.split("/")]
        for t in alts:
            t = t.replace("IntVectKD", "IntVect")
            if t == "int":
                v = VALID_BY_NAME.get(argname, 0)
                return v if isinstance(v, int) and not isinstance(v, bool) else 0
            if t in ("int[N]",):
                return [1] * dim
            if t in ("float[N]", "list[float]"):
                return [1.0] * dim
            if t == "float" and intish:
                return 2
            if t in VALID_BY_TYPE:
                v = VALID_BY_TYPE[t]
                if intish and isinstance(v, K) and v.key in ("mf", "mfi"):
                    return K("i" + v.key)
                return v
    if argname in VALID_BY_NAME and VALID_BY_NAME[argname] is not None:
        v = VALID_BY_NAME[argname]
        if intish and isinstance(v, K) and v.key in ("mf", "mfi"):
            return K("i" + v.key)
        if intish and isinstance(v, float):
            return 2
        return v
    if dflt is not None:
        try:
            return eval(dflt, {"False": False, "True": True, "None": None})
        except Exception:
            pass
    raise KeyError(argname)


def _to_forms(parsed_list, owner, dim, argnames=None):
    """Forms from parsed signatures; argnames (a dict) gets the names of each form's arguments."""
    forms = []
    for parsed in parsed_list:
        try:
            args, kwargs, names = [], {}, []
            for (n, t, d, kw) in parsed:
                v = _valid_for(n, t, d, owner, dim)
                if kw:
                    kwargs[n] = v
                else:
                    args.append(v)
                    names.append(n)
            f = (tuple(args), kwargs)
            if f not in forms:
                forms.append(f)
                if argnames is not None:
                    argnames[repr(f)] = names
        except KeyError:
            continue
    return forms


def discover(amr, dim):
    """Every public callable of a space module, as Units (deterministic order)."""
    units = []
    hand = hand_forms(dim, amr)

    def hand_key(owner, attr):
        if owner.startswith("Array4_"):
            return f"Array4.{attr}" if attr else "Array4()"
        return f"{owner}.{attr}" if attr else f"{owner}()"

    def add(u, doc_name, doc):
        key = hand_key(u.owner, u.attr) if u.kind != "ctor" else hand_key(u.owner, None)
        if u.owner == "module":
            key = f"module.{u.attr}"
        elif u.kind != "ctor" and key not in hand and isinstance(u.cls, type):
            for base in u.cls.__mro__[1:]:   # a method inherited from a base class
                if f"{base.__name__}.{u.attr}" in hand:
                    key = f"{base.__name__}.{u.attr}"
                    break
        dunder = u.attr if u.kind == "call" and u.attr and u.attr.startswith("__") else None
        if key in hand:
            u.forms = list(hand[key])
            u.hand = True
        elif dunder in BINARY_DUNDERS and u.self_key:
            u.forms = [F(K(u.self_key))]
        elif dunder in UNARY_DUNDERS:
            u.forms = [F()]
        else:
            u.forms = _to_forms(_doc_forms(doc_name, doc, dim), u.owner, dim, u.argnames)
            if not u.forms:
                u.forms = [F()]
        units.append(u)

    names = sorted(n for n in dir(amr) if not n.startswith("_"))
    # module functions
    for n in names:
        obj = getattr(amr, n)
        if isinstance(obj, type) or type(obj).__name__ == "module":
            continue
        if callable(obj):
            add(Unit(f"module.{n}", "module", "call", attr=n), n, obj.__doc__)
    pd = amr.ParallelDescriptor
    for n in sorted(x for x in dir(pd) if not x.startswith("_")):
        add(Unit(f"ParallelDescriptor.{n}", "ParallelDescriptor", "call", cls=pd, attr=n, static=True),
            n, getattr(pd, n).__doc__)
    # classes
    seen = set()
    for n in names:
        cls = getattr(amr, n)
        if not isinstance(cls, type) or id(cls) in seen or type(cls).__name__ in ("EnumType", "EnumMeta"):
            continue   # not a class, seen, or an enum (Python's enum module: DLDeviceType)
        if n != cls.__name__ and getattr(amr, cls.__name__, None) is cls:
            continue   # an alias (DeviceVector_real is PODVector_real_std): swept under its own name
        seen.add(id(cls))
        if not is_representative(n):
            continue   # an allocator variant of a particle class: the same C code as its representative
        owner = "IntVect" if n == f"IntVect{dim}D" else n
        if n in ("IntVect1D", "IntVect2D", "IntVect3D") and n != f"IntVect{dim}D":
            owner = n
        self_key = SELF_KEY.get(owner, owner if owner.startswith("Array4_") or is_particle_class(owner) else None)
        if n == "Config":
            for a in sorted(vars(type(cls))):
                if not a.startswith("_"):
                    units.append(Unit(f"Config.{a}=", "Config", "set", cls=cls, attr=a))
            units.append(Unit("Config()", "Config", "ctor", cls=cls))
            units[-1].forms = [F()]
            continue
        if n in ("IntVect1D", "IntVect2D", "IntVect3D") and n != f"IntVect{dim}D":
            self_key = None
        add(Unit(f"{owner}()", owner, "ctor", cls=cls, self_key=self_key), n, cls.__doc__)
        for a in sorted(dir(cls)):
            if a in ("__new__", "__init_subclass__", "__subclasshook__", "__class__", "__doc__", "__module__",
                     "__dict__", "__weakref__", "__hash__", "__getattribute__", "__setattr__",
                     "__delattr__", "__reduce__", "__reduce_ex__", "__getstate__", "__sizeof__",
                     "__format__", "__dir__",
                     # Python >= 3.12 shows the buffer slots as these wrappers: CPython's calling
                     # convention, not boxfab's (the buffer protocol is tested through memoryview
                     # and NumPy in test_array4*.py and test_fab.py)
                     "__buffer__", "__release_buffer__"):
                continue
            try:
                static_attr = _getattr_static(cls, a)
            except AttributeError:
                continue
            if a in MEMBER_OF_OBJECT and getattr(cls, a, None) is getattr(object, a, None):
                continue
            tname = type(static_attr).__name__
            if isinstance(static_attr, type) or tname in ("CellIndex", "CoordType", "EnumType"):
                continue   # nested enums (Python's enum module)
            if tname in ("getset_descriptor", "member_descriptor", "property"):
                if self_key is None:
                    continue
                units.append(Unit(f"{owner}.{a}", owner, "get", cls=cls, attr=a, self_key=self_key))
                units[-1].forms = [F()]
                units.append(Unit(f"{owner}.{a}=", owner, "set", cls=cls, attr=a, self_key=self_key))
                units.append(Unit(f"del {owner}.{a}", owner, "del", cls=cls, attr=a, self_key=self_key))
                units[-1].forms = [F()]
                continue
            if tname in ("staticmethod", "classmethod", "classmethod_descriptor", "builtin_function_or_method"):
                fn = getattr(cls, a)
                add(Unit(f"{owner}.{a}", owner, "call", cls=cls, attr=a, static=True), a, fn.__doc__)
                continue
            if callable(static_attr):
                if self_key is None:
                    continue
                doc = getattr(static_attr, "__doc__", None)
                add(Unit(f"{owner}.{a}", owner, "call", cls=cls, attr=a, self_key=self_key), a, doc)
    # setters: their valid value is the current value
    for u in units:
        if u.kind == "set" and u.owner != "Config":
            u.forms = [F(K("CURRENT"))]
        elif u.kind == "set":
            u.forms = [F(K("CURRENT"))]
    return units


def _getattr_static(cls, a):
    for c in cls.__mro__:
        if a in vars(c):
            return vars(c)[a]
    raise AttributeError(a)


# ---------------------------------------------------------------------------------------------
# The child: run every call, judge it
# ---------------------------------------------------------------------------------------------
class Out:
    """One call: its objects, result or exception, and time."""
    selfobj = result = exc = target = None
    valid = None
    alt_self = False
    dt = 0.0
    grew = 0


class Child:
    def __init__(self, dim, out_fd, shm):
        import importlib
        self.dim = dim
        self.out_fd, self.shm = out_fd, shm
        mods = {d: importlib.import_module(f"boxfab.space{d}d") for d in (1, 2, 3)}
        self.amr = mods[dim]
        self.amr.initialize([])
        others = {d: Vocab(mods[d], d) for d in (1, 2, 3) if d != dim}
        self.V = Vocab(self.amr, dim, others)
        self.H = hostile_values(dim, self.V)
        self.canon = {}
        self.statm = os.open("/proc/self/statm", os.O_RDONLY)
        self.page = os.sysconf("SC_PAGE_SIZE")

    def vmsize(self):
        """The process's address space in bytes (first field of /proc/self/statm, in pages)."""
        return int(os.pread(self.statm, 64, 0).split()[0]) * self.page

    def emit(self, rec):
        os.write(self.out_fd, (json.dumps(rec) + "\n").encode())

    def mark(self, u, c):
        self.shm[0:8] = struct.pack("<ii", u, c)

    # -- objects of a call ----------------------------------------------------------------------
    def build(self, spec, unit, selfobj):
        if isinstance(spec, K):
            if spec.key == "SELF":
                return self.V.make(unit.self_key)
            if spec.key == "CURRENT":
                return getattr(selfobj if selfobj is not None else unit.cls, unit.attr)
            if spec.key == "VEC0":
                return selfobj[0]
            if spec.key == "ND_ELEM":   # a 3-D NumPy array of this Array4 type's elements
                return np.ones((2, 3, 4), ARRAY4_DTYPES[unit.owner[7:].replace("_const", "")])
            if spec.key == "ELEM":   # an element of an Array4 of this type
                return {"f": 1.5, "c": 1.5 + 0.5j, "g": 1.5}.get(ARRAY4_DTYPES[unit.owner[7:].replace(
                    "_const", "")][0], 1)
            return self.V.make(spec.key)
        if isinstance(spec, list):
            return [self.build(x, unit, selfobj) for x in spec]
        if isinstance(spec, tuple):
            return tuple(self.build(x, unit, selfobj) for x in spec)
        return spec

    def canonical(self, key, obj):
        if key not in self.canon:
            self.canon[key] = state(obj)
        return self.canon[key]

    def call_once(self, unit, form, pos, hv, self_key=None):
        """Run one call.  pos: None (baseline), int (positional index), str (keyword), "extra"
        (one argument too many), "kwextra" (an unknown keyword) or (position, element) for an
        element of a tuple or list argument.
        self_key: another self than the unit's (ALT_SELF)."""
        r = Out()
        args_spec, kw_spec = form
        alt_self = r.alt_self = self_key is not None
        selfobj = None
        if unit.kind in ("get", "set", "del") or (unit.kind == "call" and not unit.static
                                                  and unit.owner != "module"):
            self_key = self_key or unit_self(unit.name, unit.owner, unit.self_key)
            selfobj = self.V.make(self_key)
        r.selfobj = selfobj
        tracked = []   # (label, object, canonical-state key) of valid objects to compare afterwards
        if selfobj is not None and self_key not in ("amrex_new", "amrex"):
            tracked.append(("self", selfobj, self_key))
        where, elem = pos if isinstance(pos, tuple) else (pos, None)

        def put(s, label):
            """The argument for spec s: the hostile value, or s made, or s with one element hostile."""
            if elem is not None:
                v = list(self.build(s, unit, selfobj))
                r.valid = v[elem]
                v[elem] = hv
                return type(s)(v)
            if isinstance(s, K) and s.key in ("CURRENT", "ELEM"):
                r.valid = self.build(s, unit, selfobj)
            else:
                r.valid = s
            return hv

        args = []
        for i, s in enumerate(args_spec):
            if where == i:
                args.append(put(s, i))
            else:
                o = self.build(s, unit, selfobj)
                args.append(o)
                if isinstance(s, K) and s.key not in ("CURRENT", "amrex_new", "VEC0", "ELEM"):
                    tracked.append((f"arg {i}", o, (s.key, unit.owner)))
        kwargs = {}
        for k, s in kw_spec.items():
            kwargs[k] = put(s, k) if where == k else self.build(s, unit, selfobj)
        if pos == "extra":
            args.append(hv)
        elif pos == "kwextra":
            kwargs["no_such_keyword"] = hv
        r.args, r.kwargs, r.tracked = args, kwargs, tracked
        # the state before the call: the canonical one of a valid object made the usual way, taken
        # afresh for other selves (Geometry() depends on the defaults ResetDefault* changed)
        r.before = {lbl: state(o) if lbl == "self" and alt_self else self.canonical(key, o)
                    for (lbl, o, key) in tracked}
        if unit.kind == "ctor":
            fn = unit.cls
        elif unit.kind == "call":
            if unit.owner == "module":
                fn = getattr(self.amr, unit.attr)
            elif unit.static:
                fn = getattr(unit.cls, unit.attr)
            else:
                fn = getattr(selfobj, unit.attr)
        elif unit.kind == "get":
            fn = lambda: getattr(selfobj, unit.attr)   # noqa: E731
        elif unit.kind == "set":
            r.target = unit.cls if unit.owner == "Config" else selfobj
            fn = lambda v: setattr(r.target, unit.attr, v)   # noqa: E731
        else:
            fn = lambda: delattr(selfobj, unit.attr)   # noqa: E731
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        t0 = time.perf_counter()
        try:
            r.result = fn(*args, **kwargs)
        except BaseException as e:  # judged below; without its traceback, which would keep this
            r.exc = e.with_traceback(None)   # frame (and r) alive in a cycle
        r.dt = time.perf_counter() - t0
        r.grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) * 1024
        return r

    def judge(self, unit, form, pos, hid, hv, r, read_only=False):
        """The findings of one call (list of (kind, message)).  read_only: setting this attribute
        raised AttributeError with its own current value (the baseline), so it always may."""
        finds = []
        exc = r.exc
        if r.dt > SLOW:
            finds.append(("slow", f"{r.dt:.1f} s"))
        if r.grew > RUNAWAY_BYTES and not isinstance(exc, MemoryError):
            finds.append(("runaway", f"the call grew the peak memory by {r.grew >> 20} MiB"))
        mock_hit = isinstance(hv, _Mock) and hv.hit
        if exc is not None:
            et = type(exc)
            extra = tuple(x for (rx, ts) in EXTRA_ALLOWED if re.search(rx, unit.name) for x in ts)
            extra_ok = et in extra or isinstance(exc, tuple(x for x in extra if x is not Exception))
            if isinstance(exc, SystemError):
                finds.append(("system", f"{et.__name__}: {exc}"))
            elif isinstance(exc, HostileError):
                if not mock_hit:
                    finds.append(("exception", "HostileError from a mock that was not passed"))
            elif et is AttributeError and (unit.kind == "del" or (unit.kind == "set" and (read_only or pos is None))):
                pass   # deleting an attribute, or setting a read-only one
            elif isinstance(exc, MemoryError) and (r.dt > RUNAWAY_SECONDS or r.grew > RUNAWAY_BYTES):
                finds.append(("runaway", f"MemoryError after {r.dt:.2f} s and {r.grew >> 20} MiB of growth: "
                                         f"{str(exc)[:100]}"))
            elif isinstance(exc, ALLOWED) or extra_ok:
                pass
            else:
                finds.append(("exception", f"{et.__name__}: {str(exc)[:200]}"))
            if mock_hit and not isinstance(exc, HostileError):
                finds.append(("swallowed", f"mock raised HostileError, call raised {et.__name__}: {str(exc)[:120]}"))
        elif mock_hit:
            finds.append(("swallowed", "mock raised HostileError, call returned"))
        # objects still work; refused calls change nothing
        for (lbl, o, key) in r.tracked:
            try:
                after = state(o)
            except BaseException as e:
                finds.append(("broken", f"{lbl} after the call: {type(e).__name__}: {str(e)[:150]}"))
                continue
            if exc is not None and after != r.before[lbl] and not any(
                    re.search(rx, unit.name) for rx, _ in CHANGE_ALLOWED):
                finds.append(("changed", f"{lbl} changed by a call that raised {type(exc).__name__}"))
        if exc is None and r.result is not None and type(r.result).__module__.startswith("boxfab"):
            try:
                state(r.result)
            except BaseException as e:
                finds.append(("broken", f"result: {type(e).__name__}: {str(e)[:150]}"))
        # silent acceptance: an int parameter that took a value outside its range or not an int,
        # a float parameter that took something that is not a real number
        if exc is None and pos is not None and pos not in ("extra", "kwextra") and unit.kind != "del":
            if type(r.valid) is int:
                rng = int_range(unit.name, pos)
                if rng is not None:
                    bad = hid in NOT_AN_INT
                    if type(hv) is int or isinstance(hv, np.integer):
                        bad = not (rng[0] <= int(hv) <= rng[1])
                    if bad:
                        finds.append(("accepted", f"int parameter took {hid} and the call returned"))
                    elif type(hv) is int and not r.alt_self and isinstance(pos, (int, str)):
                        names = unit.argnames.get(repr(form)) or []
                        name = pos if isinstance(pos, str) else names[pos] if pos < len(names) else None
                        mrng = meaningful_range(unit.owner, name, self.dim) if name else None
                        if mrng and not (mrng[0] <= hv <= mrng[1]):
                            finds.append(("accepted", f"{name} = {hid} is outside its meaningful range "
                                                      f"{list(mrng)} and the call returned"))
            elif type(r.valid) is float and hid in NOT_A_FLOAT and int_range(unit.name, pos) is not None:
                finds.append(("accepted", f"float parameter took {hid} and the call returned"))
        if exc is None and unit.kind == "set" and type(hv) is int:
            try:
                back = getattr(r.target, unit.attr)
                if type(back) is int and back != hv:
                    finds.append(("readback", f"set {hv}, reads back {back}"))
            except BaseException:
                pass
        return finds

    def post(self, unit, r):
        """Keep the runtime stack as it was: finalize instances made for (or by) the call."""
        amr = self.amr
        for o in [r.result, r.selfobj] + list(r.args) + list(r.kwargs.values()):
            if isinstance(o, amr.AMReX):
                try:
                    if amr.size() > 1 and o.__enter__() is o:
                        amr.finalize(o)
                except Exception:
                    pass
        if not amr.initialized():
            amr.initialize([])

    def run(self, units, start_unit, skips):
        totals = {"calls": 0, "units": 0}
        for ui in range(start_unit, len(units)):
            unit = units[ui]
            ci = 0
            working = 0
            excs = {}
            t_unit = time.perf_counter()
            hostile = dict(self.H)
            plans = []   # (form, self key or None, [(pos, hostile id, factory)])
            for form in unit.forms:
                plan = [(None, None, None)]
                positions = list(range(len(form[0]))) + list(form[1].keys())
                for p in positions:
                    for hid, hf in self.H:
                        plan.append((p, hid, hf))
                    spec = form[0][p] if isinstance(p, int) else form[1][p]
                    if isinstance(spec, (tuple, list)) and 0 < len(spec) <= 4 and \
                            all(type(x) in (int, float, slice) for x in spec):
                        for e in range(len(spec)):
                            for hid in ELEMENT_HOSTILE:
                                plan.append(((p, e), hid, hostile[hid]))
                if unit.kind in ("call", "ctor"):   # one argument too many; a keyword nobody takes
                    plan += [("extra", "0", lambda: 0), ("kwextra", "0", lambda: 0)]
                plans.append((form, None, plan))
            if unit.kind != "ctor" and not unit.static and unit.owner != "module":
                own = unit_self(unit.name, unit.owner, unit.self_key)
                alts = ALT_SELF.get(unit.owner, []) + [
                    unit.owner + s for s in ("", "_empty", "_comp") if unit.owner.startswith("Array4_")] + [
                    unit.self_key + "_empty" for _ in [0] if unit.owner.startswith("Vector_")]
                for alt in [a for a in alts if a != own]:
                    for form in unit.forms:
                        plan = [(None, "self=" + alt, None)]
                        for p in list(range(len(form[0]))) + list(form[1].keys()):
                            plan += [(p, hid, hostile[hid]) for hid in ALT_SELF_HOSTILE]
                        plans.append((form, alt, plan))
            for form, alt, plan in plans:
                form_ok, read_only = True, False
                for (p, hid, hf) in plan:
                    key = (ui, ci)
                    ci += 1
                    # labels in the records: an element position as "0[2]", the hostile value with
                    # the self it met when that is not the usual one
                    plabel = f"{p[0]}[{p[1]}]" if isinstance(p, tuple) else p
                    vlabel = hid if alt is None or hid is None or hid.startswith("self=") else \
                        f"{hid} (self={alt})"
                    if key in skips:
                        kind = skips[key]
                        self.emit({"t": "find", "unit": unit.name, "owner": unit.owner, "kind": kind,
                                   "form": repr(form), "pos": plabel, "value": vlabel,
                                   "msg": "the child died in this call" if kind == "crash"
                                   else "no return within the time limit"})
                        if p is None:
                            form_ok = False
                        continue
                    if p is not None and not form_ok and not unit.hand and len(unit.forms) > 1 and alt is None:
                        continue   # a docstring form that does not work: skip its hostile calls
                    if p is not None and read_only and hid not in ("0", "None", "'x'"):
                        continue   # setting a read-only attribute: AttributeError whatever the value
                    if p is not None and any(re.search(a, unit.name) and re.search(b, hid) for a, b, _ in NOT_RUN):
                        continue
                    slow = [kd for kd in ("timeout", "runaway", "slow") if known_issue(unit.name, vlabel, kd, plabel)]
                    if slow:   # a known hang or runaway costs seconds: not run until it is fixed
                        for kd in slow:
                            self.emit({"t": "find", "unit": unit.name, "owner": unit.owner, "kind": kd,
                                       "form": repr(form), "pos": plabel, "value": vlabel,
                                       "msg": "not run: " + known_issue(unit.name, vlabel, kd, plabel)})
                        continue
                    self.mark(ui, ci - 1)
                    vm0 = self.vmsize()
                    hv = hf() if hf is not None else None
                    try:
                        r = self.call_once(unit, form, p, hv, alt)
                    except Exception as e:   # a valid argument could not be made
                        if p is None and alt is None:
                            form_ok = False
                            self.emit({"t": "baseline", "unit": unit.name, "owner": unit.owner,
                                       "form": repr(form), "hand": unit.hand,
                                       "msg": f"arguments not made: {type(e).__name__}: {str(e)[:200]}"})
                        continue
                    totals["calls"] += 1
                    if r.exc is not None:
                        excs[type(r.exc).__name__] = excs.get(type(r.exc).__name__, 0) + 1
                    if p is None:
                        form_ok = r.exc is None
                        read_only = unit.kind == "set" and type(r.exc) is AttributeError
                        if alt is None:
                            working += form_ok
                        if not form_ok and alt is None:
                            self.emit({"t": "baseline", "unit": unit.name, "owner": unit.owner,
                                       "form": repr(form), "hand": unit.hand,
                                       "msg": f"{type(r.exc).__name__}: {str(r.exc)[:200]}"})
                    for kind, msg in self.judge(unit, form, p, hid, hv, r, read_only):
                        self.emit({"t": "find", "unit": unit.name, "owner": unit.owner, "kind": kind,
                                   "form": repr(form), "pos": plabel, "value": vlabel, "msg": msg})
                    self.post(unit, r)
                    del r, hv
                    grown = self.vmsize() - vm0
                    if grown > LEAK_BYTES:   # the call's objects are gone: what stays is a leak
                        self.emit({"t": "find", "unit": unit.name, "owner": unit.owner, "kind": "leak",
                                   "form": repr(form), "pos": plabel, "value": vlabel,
                                   "msg": f"the address space grew by {grown >> 20} MiB and stayed"})
            self.emit({"t": "unit", "unit": unit.name, "owner": unit.owner, "calls": ci,
                       "forms": len(unit.forms), "working": working, "hand": unit.hand,
                       "seconds": round(time.perf_counter() - t_unit, 4), "exceptions": excs,
                       "vm": self.vmsize() >> 20})
            totals["units"] += 1
        self.emit({"t": "done", **totals})


def child_main(argv):
    dim, start_unit, shm_path, out_path = int(argv[0]), int(argv[1]), argv[2], argv[3]
    skips = {}
    for s in argv[4:]:
        u, c, kind = s.split(":")
        skips[(int(u), int(c))] = kind
    os.environ["BOXFAB_DEVICE"] = "cpu"
    fd = os.open(shm_path, os.O_RDWR)
    shm = mmap.mmap(fd, 8)
    out_fd = os.open(out_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    child = Child(dim, out_fd, shm)
    import boxfab
    child.emit({"t": "boxfab", "file": os.path.abspath(boxfab.__file__)})
    # where CuPy and a GPU exist, to_cupy's first call loads CuPy and makes the CUDA context,
    # which maps hundreds of MiB of address space for good: make them before the budget is set
    # and before any call is measured, so that this is not taken for a leak
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            cupy.zeros(1).sum().item()
    except Exception:
        pass
    # ParallelDescriptor.Communicator() imports mpi4py, which starts MPI (hundreds of MiB of address
    # space for good): start it here, before the budget, for the same reason
    try:
        from mpi4py import MPI  # noqa: F401
    except Exception:
        pass
    # after the imports: the address space may grow by AS_HEADROOM more, no further -- except under
    # AddressSanitizer, whose shadow memory cannot live with an address-space limit (runaway growth
    # is then seen by its time and its peak memory alone)
    with open("/proc/self/maps") as f:
        maps = f.read()
    asan = "libasan" in maps or "libclang_rt.asan" in maps
    if not asan:
        with open("/proc/self/status") as f:
            vm = int(re.search(r"VmSize:\s+(\d+) kB", f.read()).group(1)) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (vm + AS_HEADROOM, resource.RLIM_INFINITY))
    child.emit({"t": "limit", "address_space": not asan})
    units = discover(child.amr, dim)
    child.emit({"t": "plan", "units": len(units)})
    child.run(units, start_unit, skips)


# ---------------------------------------------------------------------------------------------
# The parent
# ---------------------------------------------------------------------------------------------
def run_sweep(dim, workdir, python=sys.executable, env=None, call_timeout=CALL_TIMEOUT, deadline=240.0,
              script=None):
    """Run the sweep of one dimension; return the list of JSON records (child restarts included)."""
    os.makedirs(workdir, exist_ok=True)
    shm_path = os.path.join(workdir, f"progress{dim}")
    out_path = os.path.join(workdir, f"records{dim}.jsonl")
    with open(shm_path, "wb") as f:
        f.write(b"\xff" * 8)
    if os.path.exists(out_path):
        os.remove(out_path)
    env = dict(os.environ if env is None else env)
    env["BOXFAB_DEVICE"] = "cpu"
    # the child runs in workdir: it must import the boxfab this process imports, not another one
    # that a relative PYTHONPATH entry would miss there
    import boxfab
    paths = [os.path.dirname(os.path.dirname(os.path.abspath(boxfab.__file__)))]
    paths += [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["PYTHONFAULTHANDLER"] = "1"
    # under AddressSanitizer a refused huge allocation must come back as NULL (MemoryError), as
    # malloc's does, not abort the child
    env.setdefault("ASAN_OPTIONS", "allocator_may_return_null=1")
    script = script or os.path.abspath(__file__)
    start, skips, restarts = 0, {}, []
    t_end = time.monotonic() + deadline
    with open(shm_path, "r+b") as f:
        shm = mmap.mmap(f.fileno(), 8)
        while True:
            shm[0:8] = struct.pack("<ii", -1, -1)
            args = [python, script, "child", str(dim), str(start), shm_path, out_path] + \
                   [f"{u}:{c}:{k}" for (u, c), k in sorted(skips.items())]
            with open(os.path.join(workdir, f"stderr{dim}.txt"), "ab") as err:
                p = subprocess.Popen(args, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=err)
                last, since, kind = None, time.monotonic(), None
                while p.poll() is None:
                    time.sleep(0.02)
                    cur = struct.unpack("<ii", shm[0:8])
                    now = time.monotonic()
                    if cur != last:
                        last, since = cur, now
                    elif now - since > call_timeout or now > t_end:
                        p.kill()
                        p.wait()
                        kind = "timeout" if now <= t_end else "deadline"
                        break
            rc = p.returncode
            if kind is None and rc == 0:
                break
            cur = struct.unpack("<ii", shm[0:8])
            if kind is None:
                kind = f"crashed (signal {-rc})" if rc < 0 else f"exited with status {rc}"
            if cur[0] < 0 or kind == "deadline" or rc > 0 or len(restarts) > 50:
                restarts.append((cur, kind))
                with open(out_path, "a") as f2:
                    f2.write(json.dumps({"t": "fatal", "kind": kind, "at": list(cur)}) + "\n")
                break
            restarts.append((cur, kind))
            skips[tuple(cur)] = "timeout" if kind == "timeout" else "crash"
            start = cur[0]
    # a restarted child runs its unit again from the start: keep each record once
    recs, seen = [], set()
    with open(out_path) as f:
        for line in f:
            if line.strip() and line not in seen:
                seen.add(line)
                recs.append(json.loads(line))
    return recs


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child_main(sys.argv[2:])
