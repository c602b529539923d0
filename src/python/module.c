/* boxfab._core: module definition, type registry, space modules. */
#include <string.h>

#include "bfpy.h"
#include "mesh/array4.h"
#include "particles/arrays.h"
#include "particles/pc.h"
#include "boxfab_config.h"

PyTypeObject *bfpy_types[BF_SPACEDIM_MAX + 1][BFPY_NTYPES];
PyObject *bfpy_space_modules[BF_SPACEDIM_MAX + 1];

/* tp_name must outlive the type: names live here. */
static char bfpy_type_names[BF_SPACEDIM_MAX + 1][BFPY_NTYPES][4][96];

PyTypeObject *bfpy_make_type(PyObject *module, int dim, int id, const char *qualname, PyType_Spec *spec,
                             PyTypeObject *base) {
  /* Up to 4 names per (dim, id) slot: a family may create a nested helper type too. */
  char *name = NULL;
  for (int k = 0; k < 4; ++k)
    if (!bfpy_type_names[dim][id][k][0]) {
      name = bfpy_type_names[dim][id][k];
      break;
    }
  if (!name) {
    PyErr_SetString(PyExc_RuntimeError, "boxfab: too many types registered in one slot");
    return NULL;
  }
  if (dim > 0)
    snprintf(name, sizeof bfpy_type_names[0][0][0], "boxfab.space%dd.%s", dim, qualname);
  else
    snprintf(name, sizeof bfpy_type_names[0][0][0], "boxfab.%s", qualname);
  PyType_Spec s = *spec;
  s.name = name;
  PyObject *bases = NULL;
  if (base) {
    bases = PyTuple_Pack(1, (PyObject *)base);
    if (!bases) return NULL;
  }
  PyTypeObject *type = (PyTypeObject *)PyType_FromSpecWithBases(&s, bases);
  Py_XDECREF(bases);
  if (!type) return NULL;
  if (bfpy_types[dim][id] == NULL) bfpy_types[dim][id] = type; /* the registry owns this reference */
  if (module) {
    Py_INCREF(type);
    if (PyModule_AddObject(module, qualname, (PyObject *)type) < 0) {
      Py_DECREF(type);
      return NULL;
    }
  }
  return type;
}

int bfpy_type_dim(PyTypeObject *type, int id) {
  for (int d = 0; d <= BF_SPACEDIM_MAX; ++d) {
    PyTypeObject *t = bfpy_types[d][id];
    if (t && (type == t || PyType_IsSubtype(type, t))) return d;
  }
  return 0;
}

int bfpy_module_dim(PyObject *module) {
  for (int d = 1; d <= BF_SPACEDIM_MAX; ++d)
    if (module == bfpy_space_modules[d]) return d;
  return 0;
}

bool bfpy_is(PyObject *o, int id, int dim) {
  if (dim >= 0) {
    PyTypeObject *t = bfpy_types[dim][id];
    return t && PyObject_TypeCheck(o, t);
  }
  for (int d = 0; d <= BF_SPACEDIM_MAX; ++d) {
    PyTypeObject *t = bfpy_types[d][id];
    if (t && PyObject_TypeCheck(o, t)) return true;
  }
  return false;
}

static const char *const bfpy_family_names[BFPY_NTYPES] = {
    [BFPY_T_INTVECT] = "IntVect", [BFPY_T_DIM3] = "Dim3", [BFPY_T_XDIM3] = "XDim3",
    [BFPY_T_INDEXTYPE] = "IndexType", [BFPY_T_DIRECTION] = "Direction", [BFPY_T_BOX] = "Box",
    [BFPY_T_BOXARRAY] = "BoxArray", [BFPY_T_DISTMAP] = "DistributionMapping", [BFPY_T_REALBOX] = "RealBox",
    [BFPY_T_REALVECT] = "RealVect", [BFPY_T_COORDSYS] = "CoordSys", [BFPY_T_GEOMETRY] = "Geometry",
    [BFPY_T_GEOMETRYDATA] = "GeometryData", [BFPY_T_PERIODICITY] = "Periodicity",
    [BFPY_T_VECTOR_REAL] = "Vector_Real", [BFPY_T_VECTOR_INT] = "Vector_int", [BFPY_T_VECTOR_LONG] = "Vector_Long",
    [BFPY_T_VECTOR_STRING] = "Vector_string", [BFPY_T_VECTOR_INTVECT] = "Vector_IntVect",
    [BFPY_T_VECTOR_BOXARRAY] = "Vector_BoxArray", [BFPY_T_VECTOR_DISTMAP] = "Vector_DistributionMapping",
    [BFPY_T_VECTOR_GEOMETRY] = "Vector_Geometry", [BFPY_T_VECTOR_BOX] = "Vector_Box", [BFPY_T_AMREX] = "AMReX", [BFPY_T_CONFIG] = "Config", [BFPY_T_ARRAY4] = "Array4", [BFPY_T_BUFFER_OWNER] = "_BufferOwner", [BFPY_T_ARENA] = "Arena",
    [BFPY_T_MFINFO] = "MFInfo", [BFPY_T_MFITINFO] = "MFItInfo", [BFPY_T_FABFACTORY] = "FabFactory_FArrayBox",
    [BFPY_T_BASEFAB] = "BaseFab_Real", [BFPY_T_FARRAYBOX] = "FArrayBox", [BFPY_T_FABARRAYBASE] = "FabArrayBase",
    [BFPY_T_FABARRAY] = "FabArray_FArrayBox", [BFPY_T_MULTIFAB] = "MultiFab", [BFPY_T_IMULTIFAB] = "iMultiFab",
    [BFPY_T_MFITER] = "MFIter", [BFPY_T_PODVIEW] = "_PODView", [BFPY_T_PODVECTOR] = "PODVector",
    [BFPY_T_PARTICLE] = "Particle", [BFPY_T_PINIT] = "ParticleInitType", [BFPY_T_AOS] = "ArrayOfStructs",
    [BFPY_T_SOA] = "StructOfArrays", [BFPY_T_PTILE] = "ParticleTile", [BFPY_T_PTILEDATA] = "ParticleTileData",
    [BFPY_T_PC] = "ParticleContainer", [BFPY_T_PARITER] = "ParIter",
    [BFPY_T_PARMPARSE] = "ParmParse", [BFPY_T_AMRINFO] = "AmrInfo",
    [BFPY_T_AMRMESH] = "AmrMesh",
    [BFPY_T_PLOTFILEDATA] = "PlotFileData",
    [BFPY_T_VISMF] = "VisMF",
    [BFPY_T_MFSTACK] = "StackedArray",
};

const char *bfpy_type_name(int id, int dim) {
  static char buf[64];
  if (id == BFPY_T_INTVECT && dim >= 1 && dim <= 3) {
    snprintf(buf, sizeof buf, "IntVect%dD", dim);
    return buf;
  }
  return (id >= 0 && id < BFPY_NTYPES && bfpy_family_names[id]) ? bfpy_family_names[id] : "object";
}

/* ---- module ---------------------------------------------------------------- */
static PyObject *build_info(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return Py_BuildValue("{s:s,s:O,s:O,s:O,s:i}", "version", bf_version(), "cuda",
                       bf_build_has_cuda() ? Py_True : Py_False, "mpi", bf_build_has_mpi() ? Py_True : Py_False,
                       "openmp", bf_build_has_openmp() ? Py_True : Py_False, "max_spacedim", BF_SPACEDIM_MAX);
}

static PyObject *exchange_stats(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  int64_t v[6];
  int st = bf_exchange_stats(v, 6);
  if (st != BF_SUCCESS) return bfpy_raise(st);
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L}", "bytes_sent", (long long)v[0], "messages_sent", (long long)v[1],
                       "bytes_received", (long long)v[2], "messages_received", (long long)v[3], "total_bytes_sent",
                       (long long)v[4], "total_messages_sent", (long long)v[5]);
}

static PyObject *mpi_cuda_aware(PyObject *self, PyObject *noargs) {
  (void)self, (void)noargs;
  return PyBool_FromLong(bf_parallel_cuda_aware());
}

static PyMethodDef core_methods[] = {
    {"_mpi_cuda_aware", mpi_cuda_aware, METH_NOARGS,
     "_mpi_cuda_aware() -> bool: device pointers go to MPI directly (a CUDA-aware MPI, or BOXFAB_MPI_CUDA_AWARE=1)."},
    {"_exchange_stats", exchange_stats, METH_NOARGS,
     "_exchange_stats() -> dict: bytes and messages of this process's last ghost exchange across processes."},
    {"_dlpack_to_host", (PyCFunction)(void (*)(void))bfpy_dlpack_to_host, METH_FASTCALL,
     "_dlpack_to_host(obj, what: str, /) -> numpy.ndarray: a 1-D host copy of a DLPack array (no CuPy needed)."},
    {"build_info", build_info, METH_NOARGS,
     "build_info() -> dict: what this build contains (version, cuda, mpi, openmp)."},
    {NULL, NULL, 0, NULL},
};

typedef int (*bfpy_family_init)(PyObject *, int);
static const bfpy_family_init bfpy_families[] = {
    bfpy_init_intvect, bfpy_init_indextype, bfpy_init_box,     bfpy_init_boxarray,
    bfpy_init_geometry, bfpy_init_vector,   bfpy_init_runtime, bfpy_init_array4,
    bfpy_init_buffer,   bfpy_init_fab,      bfpy_init_multifab, bfpy_init_podvector,
    bfpy_init_particle, bfpy_init_ptile,    bfpy_init_pc,       bfpy_init_pariter,
    bfpy_init_parmparse,
    bfpy_init_amrmesh,
    bfpy_init_bcrec,
    bfpy_init_mfutil,
    bfpy_init_interp,
    bfpy_init_fillpatch,
    bfpy_init_fluxreg,
    bfpy_init_tagbox,
    bfpy_init_amrcore,
    bfpy_init_plotfile,
    bfpy_init_mfstack,
    bfpy_init_smallmatrix,
};

static int core_exec(PyObject *core) {
  if (bfpy_space_modules[1]) {
    PyErr_SetString(PyExc_ImportError, "boxfab._core cannot be loaded twice in one process");
    return -1;
  }
  if (PyModule_AddStringConstant(core, "__version__", bf_version()) < 0) return -1;
  for (int dim = 1; dim <= BF_SPACEDIM_MAX; ++dim) {
    char name[32];
    snprintf(name, sizeof name, "boxfab._core.space%dd", dim);
    PyObject *m = PyModule_New(name);
    if (!m) return -1;
    bfpy_space_modules[dim] = m; /* owned by the registry for the process lifetime */
    Py_INCREF(m);
    snprintf(name, sizeof name, "space%dd", dim);
    if (PyModule_AddObject(core, name, m) < 0) {
      Py_DECREF(m);
      return -1;
    }
  }
  /* Dimension by dimension so that each family's types of lower dims exist
   * (IntVect1D..3D are made on the first pass and added to every module). */
  for (int dim = 1; dim <= BF_SPACEDIM_MAX; ++dim)
    for (size_t f = 0; f < sizeof bfpy_families / sizeof bfpy_families[0]; ++f)
      if (bfpy_families[f](bfpy_space_modules[dim], dim) < 0) return -1;
  return 0;
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, (void *)core_exec},
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "boxfab._core",
    .m_doc = "boxfab's CPython extension, written in C. Use boxfab.space1d/2d/3d.",
    .m_size = 0,
    .m_methods = core_methods,
    .m_slots = core_slots,
};

PyMODINIT_FUNC PyInit__core(void) { return PyModuleDef_Init(&core_module); }
