"""Every Tier 1 name of API.md exists in all three spaces, with the kind its row gives.

The table below is transcribed from API.md Tier 1 (kinds: method, prop, prop rw, static, cprop,
class prop rw); behaviour is tested in the per-family test files.
"""
import inspect

import pytest

MEMBERS = {'AMReX': {'empty': 'static', 'erase': 'static', 'size': 'static', 'top': 'static'},
 'Box': {'begin': 'method',
         'big_end': 'prop rw',
         'cell_centered': 'prop',
         'contains': 'method',
         'convert': 'method',
         'd_num_pts': 'prop',
         'enclosed_cells': 'method',
         'end': 'method',
         'grow': 'method',
         'grow_high': 'method',
         'grow_low': 'method',
         'hi_vect': 'prop rw',
         'intersects': 'method',
         'is_empty': 'prop',
         'is_square': 'prop',
         'ix_type': 'prop',
         'lbound': 'method',
         'length': 'method',
         'lo_vect': 'prop rw',
         'make_slab': 'method',
         'normalize': 'method',
         'numPts': 'method',
         'num_pts': 'prop',
         'ok': 'prop',
         'same_size': 'method',
         'same_type': 'method',
         'shift': 'method',
         'size': 'prop',
         'small_end': 'prop rw',
         'strictly_contains': 'method',
         'surrounding_nodes': 'method',
         'the_unit_box': 'prop',
         'type': 'prop rw',
         'ubound': 'method',
         'volume': 'prop'},
 'BoxArray': {'capacity': 'prop',
              'cell_equal': 'method',
              'clear': 'method',
              'coarsen': 'method',
              'coarsenable': 'method',
              'd_numPts': 'prop',
              'define': 'method',
              'empty': 'prop',
              'enclosed_cells': 'method',
              'get': 'method',
              'ix_type': 'method',
              'max_size': 'method',
              'minimal_box': 'method',
              'numPts': 'prop',
              'refine': 'method',
              'resize': 'method',
              'size': 'prop'},
 'Config': {'amrex_version': 'cprop',
            'gpu_backend': 'cprop',
            'have_eb': 'cprop',
            'have_gpu': 'cprop',
            'have_mpi': 'cprop',
            'have_omp': 'cprop',
            'spacedim': 'cprop',
            'verbose': 'class prop rw'},
 'CoordSys': {'Coord': 'method',
              'CoordInt': 'method',
              'IsCartesian': 'method',
              'IsRZ': 'method',
              'IsSPHERICAL': 'method',
              'SetCoord': 'method',
              'ok': 'method'},
 'DistributionMapping': {'ProcessorMap': 'method',
                         'capacity': 'prop',
                         'define': 'method',
                         'empty': 'prop',
                         'link_count': 'prop',
                         'size': 'prop'},
 'Geometry': {'ProbHi': 'method',
              'ProbLength': 'method',
              'ProbLo': 'method',
              'ProbSize': 'method',
              'ResetDefaultCoord': 'method',
              'ResetDefaultPeriodicity': 'method',
              'ResetDefaultProbDomain': 'method',
              '__repr__': 'method',
              '__str__': 'method',
              'coarsen': 'method',
              'data': 'method',
              'define': 'method',
              'domain': 'prop rw',
              'growNonPeriodicDomain': 'method',
              'growPeriodicDomain': 'method',
              'insideRoundOffDomain': 'method',
              'isAllPeriodic': 'method',
              'isAnyPeriodic': 'method',
              'isPeriodic': 'method',
              'outsideRoundOffDomain': 'method',
              'period': 'method',
              'periodicity': 'method',
              'prob_domain': 'prop rw',
              'refine': 'method',
              'setPeriodicity': 'method'},
 'GeometryData': {'CellSize': 'method',
                  'Coord': 'method',
                  'Domain': 'method',
                  'ProbHi': 'method',
                  'ProbLo': 'method',
                  'coord': 'prop',
                  'domain': 'prop',
                  'dx': 'prop',
                  'isPeriodic': 'method',
                  'is_periodic': 'prop',
                  'prob_domain': 'prop'},
 'IndexType': {'__repr__': 'method',
               '__str': 'method',
               'any': 'method',
               'cell_centered': 'method',
               'cell_type': 'static',
               'clear': 'method',
               'flip': 'method',
               'ix_type': 'method',
               'node_centered': 'method',
               'node_type': 'static',
               'ok': 'method',
               'set': 'method',
               'set_type': 'method',
               'setall': 'method',
               'test': 'method',
               'to_IntVect': 'method',
               'unset': 'method'},
 'IntVect': {'__repr__': 'method',
             '__str': 'method',
             'cell_vector': 'static',
             'dim3': 'method',
             'max': 'prop',
             'max_vector': 'static',
             'min': 'prop',
             'min_vector': 'static',
             'node_vector': 'static',
             'numpy': 'method',
             'sum': 'prop',
             'unit_vector': 'static',
             'zero_vector': 'static'},
 'Periodicity': {'domain': 'prop',
                 'is_all_periodic': 'prop',
                 'is_any_periodic': 'prop',
                 'is_periodic': 'method',
                 'non_periodic': 'static',
                 'shift_IntVect': 'prop'},
 'RealBox': {'__repr__': 'method',
             '__str': 'method',
             'contains': 'method',
             'hi': 'method',
             'intersects': 'method',
             'length': 'method',
             'lo': 'method',
             'ok': 'method',
             'setHi': 'method',
             'setLo': 'method',
             'volume': 'method',
             'xhi': 'prop',
             'xlo': 'prop'},
 'RealVect': {'BASISREALV': 'method',
              '__repr__': 'method',
              '__str': 'method',
              'ceil': 'method',
              'crossProduct': 'method',
              'dotProduct': 'method',
              'floor': 'method',
              'max': 'method',
              'maxDir': 'method',
              'min': 'method',
              'minDir': 'method',
              'product': 'prop',
              'radSquared': 'prop',
              'round': 'method',
              'scale': 'method',
              'sum': 'prop',
              'unit_vector': 'static',
              'vectorLength': 'prop',
              'zero_vector': 'static'}}

MODULE_FUNCTIONS = [
    "initialize", "initialized", "finalize", "size", "Print", "d_decl", "concatenate", "AlmostEqual", "min",
    "max", "coarsen", "refine", "lbound", "ubound", "length", "begin", "end", "unpack_ids", "unpack_cpus",
]
MODULE_ATTRIBUTES = ["__version__", "__author__", "__license__", "__doc__"]
CLASSES = [
    "IntVect1D", "IntVect2D", "IntVect3D", "IntVect", "Dim3", "XDim3", "IndexType", "Direction", "Box",
    "BoxArray", "DistributionMapping", "RealBox", "RealVect", "CoordSys", "Geometry", "GeometryData",
    "Periodicity", "AMReX", "Config",
    "Vector_Real", "Vector_int", "Vector_Long", "Vector_string", "Vector_IntVect", "Vector_BoxArray",
    "Vector_DistributionMapping", "Vector_Geometry",
]
VECTOR_MEMBERS = ["append", "insert", "extend", "pop", "clear", "size", "__len__", "__bool__", "__iter__",
                  "__getitem__", "__setitem__", "__delitem__"]


def test_module_functions_exist(amr):
    for name in MODULE_FUNCTIONS:
        assert callable(getattr(amr, name)), name
    for name in MODULE_ATTRIBUTES:
        assert isinstance(getattr(amr, name), str), name
    pd = amr.ParallelDescriptor
    for name in ("NProcs", "MyProc", "IOProcessor", "IOProcessorNumber"):
        assert callable(getattr(pd, name)), name


def test_classes_exist(amr):
    for name in CLASSES:
        assert isinstance(getattr(amr, name), type), name
    assert amr.IntVect is getattr(amr, f"IntVect{amr.Config.spacedim}D")
    assert issubclass(amr.Geometry, amr.CoordSys)


def _kind_ok(cls, name, kind):
    raw = inspect.getattr_static(cls, name)
    if kind in ("prop", "prop rw"):
        # a data descriptor on the class (getset / property)
        return hasattr(raw, "__get__") and (hasattr(raw, "__set__") or isinstance(raw, property)) \
            and not callable(raw)
    if kind == "method":
        return callable(raw) or isinstance(raw, (classmethod, staticmethod))
    if kind == "static":
        return callable(getattr(cls, name))
    raise AssertionError(kind)


@pytest.mark.parametrize("cls_name", sorted(k for k in MEMBERS if k != "Config"))
def test_members_have_their_kinds(amr, cls_name):
    cls = getattr(amr, cls_name)
    for name, kind in MEMBERS[cls_name].items():
        if (cls_name, name) == ("RealVect", "crossProduct") and amr.Config.spacedim != 3:
            assert not hasattr(cls, name), "crossProduct is 3D only"
            continue
        assert hasattr(cls, name), f"{cls_name}.{name} is missing"
        assert _kind_ok(cls, name, kind), f"{cls_name}.{name} should be a {kind}"


def test_properties_are_not_callables(amr):
    # where API.md says prop, the value is a plain value, not a bound method
    box = amr.Box(amr.IntVect(0), amr.IntVect(3))
    assert isinstance(box.num_pts, int) and isinstance(box.volume, int) and isinstance(box.ok, bool)
    assert callable(box.numPts) and box.numPts() == box.num_pts
    ba = amr.BoxArray(box)
    assert isinstance(ba.numPts, int) and callable(ba.ix_type)
    iv = amr.IntVect(2)
    assert isinstance(iv.sum, int) and isinstance(iv.max, int) and isinstance(iv.min, int)


def test_config_class_values(amr):
    cfg = amr.Config
    assert cfg.spacedim in (1, 2, 3)
    for name in ("have_mpi", "have_gpu", "have_omp", "have_eb"):
        assert isinstance(getattr(cfg, name), bool), name
    assert isinstance(cfg.amrex_version, str)
    assert cfg.gpu_backend in (None, "CUDA", "HIP", "SYCL")
    old = cfg.verbose
    cfg.verbose = 0
    assert cfg.verbose == 0
    cfg.verbose = old


def test_both_spellings_exist(amr):
    box = amr.Box(amr.IntVect(0), amr.IntVect(3))
    assert box.small_end == box.lo_vect and box.big_end == box.hi_vect
    assert box.numPts() == box.num_pts


@pytest.mark.parametrize("name", [c for c in CLASSES if c.startswith("Vector_")])
def test_vectors_are_lists(amr, name):
    cls = getattr(amr, name)
    for member in VECTOR_MEMBERS:
        assert hasattr(cls, member), f"{name}.{member}"
    if name != "Vector_Geometry":
        for member in ("__eq__", "__ne__", "__contains__", "count", "remove"):
            assert hasattr(cls, member), f"{name}.{member}"


def test_instances_are_unhashable(amr):
    for obj in (amr.IntVect(1), amr.Box(amr.IntVect(0), amr.IntVect(1)), amr.IndexType(), amr.RealVect(),
                amr.Periodicity()):
        with pytest.raises(TypeError):
            hash(obj)
