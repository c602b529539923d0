/* CUDA backend: the MultiFab kernels, behind plain C launchers (cuda_impl.h).
 *
 * Element-wise: one launch covers every task; block b does piece b of the
 * launch list (cuda_impl.h), in batches of BF_CUDA_BATCH elements.  Each
 * thread takes BF_CUDA_ITEMS elements of a batch, BF_CUDA_THREADS apart (consecutive threads on consecutive x: the
 * warp's accesses are coalesced), computes their offsets with divisions by
 * the piece's constants through a float reciprocal (exact after a correction
 * step), loads all its operands first (several loads in flight per thread),
 * then computes and stores.  The arithmetic is written exactly as in the CPU
 * backend and the file is compiled with --fmad=false: results are bitwise
 * equal to the CPU's.
 *
 * Reductions: one launch, block b does piece b as the element-wise kernels do
 * (short blocks, a full machine until the end), BF_CUDA_RITEMS loads per
 * operand in flight per thread; each thread accumulates its elements in a
 * fixed order, the block combines them in a fixed tree (warp shuffles, then
 * the 8 warps in order) and writes the piece's 16-byte partial.  The last
 * block to finish in a group of BF_CUDA_RGROUP pieces (an atomic ticket)
 * combines the group's partials in a fixed tree, the last group the group
 * partials in a fixed order (cuda_impl.h): the result depends only on the
 * data and the task list, not on the device, the run or the order in which
 * blocks finish.  Min/max carry an element number inside the piece (int),
 * turned into a global index once per piece. */
#include <math.h>
#include <stdint.h>

#include "cuda_impl.h"

namespace {

/* a / d and a % d for 0 <= a, 1 <= d, both int: a float estimate (an
 * approximate reciprocal is enough), then exact. */
struct FastDiv {
  int d;
  float r;
  __device__ __forceinline__ explicit FastDiv(int d_) : d(d_) {
#ifdef __CUDA_ARCH__
    r = __fdividef(1.0f, (float)d_);
#else
    r = 1.0f / (float)d_;
#endif
  }
  __device__ __forceinline__ int div(int a, int &rem) const {
    int q = (int)((float)a * r);
    int m = a - q * d;
    while (m < 0) --q, m += d;
    while (m >= d) ++q, m -= d;
    rem = m;
    return q;
  }
};

/* Position of element e (< piece.count) of a piece, relative to the task's lo. */
struct Where {
  int x, j, k, n;
};

struct PieceDecoder {
  FastDiv dx, dj, dz;
  int x0, j0, p0, k0, n0;
  bool one_plane; /* np == 1 (the usual case): k and n are the piece's, one division per element */
  __device__ __forceinline__ PieceDecoder(const bf_cuda_piece &pc, int nz)
      : dx(pc.nxb), dj(pc.nj), dz(nz), x0(pc.x0), j0(pc.j0), p0(pc.p0), one_plane(pc.np == 1) {
    n0 = dz.div(p0, k0);
  }
  __device__ __forceinline__ Where at(int e) const {
    Where w;
    int xi;
    int r = dx.div(e, xi);
    w.x = x0 + xi;
    if (one_plane) {
      w.j = j0 + r, w.k = k0, w.n = n0;
    } else {
      int jj, k;
      int pp = dj.div(r, jj);
      w.n = dz.div(p0 + pp, k);
      w.k = k;
      w.j = j0 + jj;
    }
    return w;
  }
};

__device__ __forceinline__ int64_t ofs(const Where &w, int64_t js, int64_t ks, int64_t ns, int comp) {
  return (int64_t)w.x + (int64_t)w.j * js + (int64_t)w.k * ks + (int64_t)(w.n + comp) * ns;
}

/* ---- arithmetic, as in src/backend/cpu/cpu_elementwise.c ----------------------------- */

struct DOps {
  static __device__ __forceinline__ double add(double x, double y) { return x + y; }
  static __device__ __forceinline__ double sub(double x, double y) { return x - y; }
  static __device__ __forceinline__ double mul(double x, double y) { return x * y; }
  static __device__ __forceinline__ double neg(double x) { return -x; }
  static __device__ __forceinline__ double abs_(double x) { return x < 0 ? -x : x; }
  static __device__ __forceinline__ double div(double x, double y) { return x / y; }
};

struct IOps { /* two's complement wrap; division by 0 gives 0 */
  static __device__ __forceinline__ int add(int x, int y) { return (int)((unsigned)x + (unsigned)y); }
  static __device__ __forceinline__ int sub(int x, int y) { return (int)((unsigned)x - (unsigned)y); }
  static __device__ __forceinline__ int mul(int x, int y) { return (int)((unsigned)x * (unsigned)y); }
  static __device__ __forceinline__ int neg(int x) { return (int)(0u - (unsigned)x); }
  static __device__ __forceinline__ int abs_(int x) { return x < 0 ? neg(x) : x; }
  static __device__ __forceinline__ int div(int x, int y) { return y == 0 ? 0 : y == -1 ? neg(x) : x / y; }
};

template <typename T> struct OpsOf;
template <> struct OpsOf<double> { typedef DOps type; };
template <> struct OpsOf<int> { typedef IOps type; };

template <int OP> struct Uses {
  static const bool b = OP >= BF_KOP_COPY;
  static const bool c = OP == BF_KOP_LINCOMB || OP == BF_KOP_ADDPRODUCT;
  static const bool a = !(OP == BF_KOP_SET || OP == BF_KOP_COPY || OP == BF_KOP_LINCOMB);
};

template <typename T, int OP> __device__ __forceinline__ T apply(T a, T b, T c, T s0, T s1) {
  typedef typename OpsOf<T>::type O;
  switch (OP) {
  case BF_KOP_SET: return s0;
  case BF_KOP_PLUS_S: return O::add(a, s0);
  case BF_KOP_MULT_S: return O::mul(a, s0);
  case BF_KOP_INVERT: return O::div(s0, a);
  case BF_KOP_NEGATE: return O::neg(a);
  case BF_KOP_ABS: return O::abs_(a);
  case BF_KOP_COPY: return b;
  case BF_KOP_ADD: return O::add(a, b);
  case BF_KOP_SUB: return O::sub(a, b);
  case BF_KOP_MUL: return O::mul(a, b);
  case BF_KOP_DIV: return O::div(a, b);
  case BF_KOP_SWAP: return b;
  case BF_KOP_SAXPY: return O::add(a, O::mul(s0, b));
  case BF_KOP_XPAY: return O::add(b, O::mul(s0, a));
  case BF_KOP_LINCOMB: return O::add(O::mul(s0, b), O::mul(s1, c));
  case BF_KOP_ADDPRODUCT: return O::add(a, O::mul(b, c));
  default: return a;
  }
}

template <typename T> struct EwParams {
  const bf_cuda_ctask *tasks;
  const bf_cuda_piece *pieces;
  T s0, s1;
  int acomp, bcomp, ccomp;
  uintptr_t abase, bbase, cbase;
};

template <typename T, int OP> __global__ void __launch_bounds__(BF_CUDA_THREADS) ew_kernel(EwParams<T> p) {
  const bf_cuda_piece pc = p.pieces[blockIdx.x];
  const bf_cuda_ctask &t = p.tasks[pc.task];
  PieceDecoder dec(pc, t.nz);
  T *A = (T *)(t.a + p.abase);
  const T *B = (const T *)(t.b + p.bbase), *C = (const T *)(t.c + p.cbase);
  int64_t ajs = t.ajs, aks = t.aks, ans = t.ans;
  int64_t bjs = 0, bks = 0, bns = 0, cjs = 0, cks = 0, cns = 0;
  if (Uses<OP>::b) bjs = t.bjs, bks = t.bks, bns = t.bns;
  if (Uses<OP>::c) cjs = t.cjs, cks = t.cks, cns = t.cns;
  for (int base = 0; base < pc.count; base += BF_CUDA_BATCH) {
    int lim = pc.count - base;
    int64_t ao[BF_CUDA_ITEMS], bo[BF_CUDA_ITEMS], co[BF_CUDA_ITEMS];
    T va[BF_CUDA_ITEMS], vb[BF_CUDA_ITEMS], vc[BF_CUDA_ITEMS];
#pragma unroll
    for (int u = 0; u < BF_CUDA_ITEMS; ++u) {
      int e = (int)threadIdx.x + u * BF_CUDA_THREADS;
      ao[u] = bo[u] = co[u] = 0;
      va[u] = vb[u] = vc[u] = T(0);
      if (e < lim) {
        Where w = dec.at(base + e);
        ao[u] = ofs(w, ajs, aks, ans, p.acomp);
        if (Uses<OP>::b) bo[u] = ofs(w, bjs, bks, bns, p.bcomp);
        if (Uses<OP>::c) co[u] = ofs(w, cjs, cks, cns, p.ccomp);
      }
    }
    /* all loads first: BF_CUDA_ITEMS (per operand) in flight per thread */
#pragma unroll
    for (int u = 0; u < BF_CUDA_ITEMS; ++u) {
      if ((int)threadIdx.x + u * BF_CUDA_THREADS < lim) {
        if (Uses<OP>::a) va[u] = A[ao[u]];
        if (Uses<OP>::b) vb[u] = B[bo[u]];
        if (Uses<OP>::c) vc[u] = C[co[u]];
      }
    }
#pragma unroll
    for (int u = 0; u < BF_CUDA_ITEMS; ++u) {
      if ((int)threadIdx.x + u * BF_CUDA_THREADS < lim) {
        A[ao[u]] = apply<T, OP>(va[u], vb[u], vc[u], p.s0, p.s1);
        if (OP == BF_KOP_SWAP) ((T *)B)[bo[u]] = va[u];
      }
    }
  }
}

template <typename T, int OP> cudaError_t launch_ew(const EwParams<T> &p, int64_t npieces, cudaStream_t s) {
  if (npieces > 0x7fffffffll) return cudaErrorInvalidConfiguration;
  ew_kernel<T, OP><<<(unsigned)npieces, BF_CUDA_THREADS, 0, s>>>(p);
  return cudaGetLastError();
}

template <typename T> cudaError_t dispatch_ew(int op, const EwParams<T> &p, int64_t n, cudaStream_t s) {
  switch (op) {
  case BF_KOP_SET: return launch_ew<T, BF_KOP_SET>(p, n, s);
  case BF_KOP_PLUS_S: return launch_ew<T, BF_KOP_PLUS_S>(p, n, s);
  case BF_KOP_MULT_S: return launch_ew<T, BF_KOP_MULT_S>(p, n, s);
  case BF_KOP_INVERT: return launch_ew<T, BF_KOP_INVERT>(p, n, s);
  case BF_KOP_NEGATE: return launch_ew<T, BF_KOP_NEGATE>(p, n, s);
  case BF_KOP_ABS: return launch_ew<T, BF_KOP_ABS>(p, n, s);
  case BF_KOP_COPY: return launch_ew<T, BF_KOP_COPY>(p, n, s);
  case BF_KOP_ADD: return launch_ew<T, BF_KOP_ADD>(p, n, s);
  case BF_KOP_SUB: return launch_ew<T, BF_KOP_SUB>(p, n, s);
  case BF_KOP_MUL: return launch_ew<T, BF_KOP_MUL>(p, n, s);
  case BF_KOP_DIV: return launch_ew<T, BF_KOP_DIV>(p, n, s);
  case BF_KOP_SWAP: return launch_ew<T, BF_KOP_SWAP>(p, n, s);
  case BF_KOP_SAXPY: return launch_ew<T, BF_KOP_SAXPY>(p, n, s);
  case BF_KOP_XPAY: return launch_ew<T, BF_KOP_XPAY>(p, n, s);
  case BF_KOP_LINCOMB: return launch_ew<T, BF_KOP_LINCOMB>(p, n, s);
  case BF_KOP_ADDPRODUCT: return launch_ew<T, BF_KOP_ADDPRODUCT>(p, n, s);
  default: return cudaErrorInvalidValue;
  }
}

/* ---- reductions -------------------------------------------------------------------- */

#define RITEMS 8 /* elements per thread per batch: loads in flight per operand */
#define NWARPS (BF_CUDA_THREADS / 32)

struct RParams {
  const bf_cuda_ctask *tasks;
  const bf_cuda_piece *pieces;
  int64_t npieces, ngroups;
  int acomp, bcomp;
  uintptr_t abase, bbase;
  bf_cuda_rscratch sc;
};

typedef bf_cuda_rpart RPart;

template <int OP> __device__ __forceinline__ RPart rinit() {
  RPart r;
  r.v = 0;
  r.aux = (OP == BF_ROP_MIN || OP == BF_ROP_MAX) ? -1 : 0;
  return r;
}

/* r := r (+) q: sums add (in the order of the fixed trees), extrema keep the
 * lower index on ties (aux: the index, -1 = none). */
template <int OP> __device__ __forceinline__ void rcombine(RPart &r, const RPart &q) {
  switch (OP) {
  case BF_ROP_MIN:
  case BF_ROP_MAX:
    if (q.aux >= 0 && (r.aux < 0 || (OP == BF_ROP_MAX ? q.v > r.v : q.v < r.v) || (q.v == r.v && q.aux < r.aux))) r = q;
    break;
  case BF_ROP_ABSMAX:
    r.v = q.v > r.v ? q.v : r.v;
    r.aux |= q.aux;
    break;
  case BF_ROP_HASNAN:
  case BF_ROP_HASINF: r.aux |= q.aux; break;
  default:
    r.v += q.v;
    r.aux = (int64_t)((uint64_t)r.aux + (uint64_t)q.aux);
    break;
  }
}

/* The block's values combined in a fixed tree; the result is in thread 0.
 * `sh` (NWARPS entries) is free on entry and on exit. */
template <int OP> __device__ __forceinline__ RPart block_reduce(RPart x, RPart *sh) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    RPart o;
    o.v = __shfl_down_sync(0xffffffffu, x.v, off);
    o.aux = (int64_t)__shfl_down_sync(0xffffffffu, (long long)x.aux, off);
    rcombine<OP>(x, o);
  }
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = x;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < NWARPS; ++w) rcombine<OP>(x, sh[w]);
  __syncthreads();
  return x;
}

__device__ __forceinline__ RPart load_part(const RPart *p) {
  RPart r;
  r.v = __ldcg(&p->v);
  r.aux = (int64_t)__ldcg((const long long *)&p->aux);
  return r;
}

/* Element x (and y for DOT) into the accumulator; e: element number in the piece. */
template <typename T, int OP> __device__ __forceinline__ void accumulate(RPart &acc, T x, T y, int e) {
  double v = (double)x;
  switch (OP) {
  case BF_ROP_SUM:
    if (sizeof(T) == sizeof(double)) acc.v += v;
    else acc.aux = (int64_t)((uint64_t)acc.aux + (uint64_t)(int64_t)x);
    break;
  case BF_ROP_ABSSUM:
    if (sizeof(T) == sizeof(double)) acc.v += fabs(v);
    else {
      int64_t w = (int64_t)x;
      acc.aux = (int64_t)((uint64_t)acc.aux + (uint64_t)(w < 0 ? -w : w));
    }
    break;
  case BF_ROP_SUMSQ:
    if (sizeof(T) == sizeof(double)) acc.v += v * v;
    else acc.aux = (int64_t)((uint64_t)acc.aux + (uint64_t)((int64_t)x * (int64_t)x));
    break;
  case BF_ROP_DOT:
    if (sizeof(T) == sizeof(double)) acc.v += v * (double)y;
    else acc.aux = (int64_t)((uint64_t)acc.aux + (uint64_t)((int64_t)x * (int64_t)y));
    break;
  case BF_ROP_MIN:
  case BF_ROP_MAX: /* a thread sees its elements in increasing e: strict compare keeps the first */
    if (acc.aux < 0 || (OP == BF_ROP_MAX ? v > acc.v : v < acc.v)) {
      acc.v = v;
      acc.aux = e;
    }
    break;
  case BF_ROP_ABSMAX: {
    double a = fabs(v);
    acc.v = a > acc.v ? a : acc.v;
    acc.aux = 1;
    break;
  }
  case BF_ROP_HASNAN:
    if (sizeof(T) == sizeof(double) && isnan(v)) acc.aux = 1;
    break;
  case BF_ROP_HASINF:
    if (sizeof(T) == sizeof(double) && isinf(v)) acc.aux = 1;
    break;
  default: break;
  }
}

template <typename T, int OP> __global__ void __launch_bounds__(BF_CUDA_THREADS) reduce_kernel(RParams p) {
  __shared__ RPart sh[NWARPS];
  __shared__ int last;
  const bf_cuda_piece pc = p.pieces[blockIdx.x];
  const bf_cuda_ctask &t = p.tasks[pc.task];
  PieceDecoder dec(pc, t.nz);
  const T *A = (const T *)(t.a + p.abase), *B = (const T *)(t.b + p.bbase);
  const uint8_t *mask = t.mask;
  RPart acc = rinit<OP>();
  for (int base = 0; base < pc.count; base += RITEMS * BF_CUDA_THREADS) {
    T va[RITEMS], vb[RITEMS];
    bool on[RITEMS];
#pragma unroll
    for (int u = 0; u < RITEMS; ++u) {
      int e = base + (int)threadIdx.x + u * BF_CUDA_THREADS;
      on[u] = e < pc.count;
      va[u] = vb[u] = T(0);
      if (on[u]) {
        Where w = dec.at(e);
        if (mask && !mask[((int64_t)w.j + (int64_t)t.ny * w.k) * t.nx + w.x]) on[u] = false;
        if (on[u]) {
          va[u] = A[ofs(w, t.ajs, t.aks, t.ans, p.acomp)];
          if (OP == BF_ROP_DOT) vb[u] = B[ofs(w, t.bjs, t.bks, t.bns, p.bcomp)];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < RITEMS; ++u)
      if (on[u]) accumulate<T, OP>(acc, va[u], vb[u], base + (int)threadIdx.x + u * BF_CUDA_THREADS);
  }
  acc = block_reduce<OP>(acc, sh);
  const int64_t gi = blockIdx.x / BF_CUDA_RGROUP, g0 = gi * BF_CUDA_RGROUP;
  const int gsize = (int)(p.npieces - g0 < BF_CUDA_RGROUP ? p.npieces - g0 : BF_CUDA_RGROUP);
  if (threadIdx.x == 0) {
    if ((OP == BF_ROP_MIN || OP == BF_ROP_MAX) && acc.aux >= 0) { /* element number -> global index */
      Where w = dec.at((int)acc.aux);
      acc.aux = t.gofs + w.x + (int64_t)t.nx * ((int64_t)w.j + (int64_t)t.ny * ((int64_t)w.k + (int64_t)t.nz * w.n));
    }
    p.sc.parts[blockIdx.x] = acc;
    __threadfence();
    last = atomicAdd(&p.sc.counters[gi], 1u) == (unsigned)(gsize - 1);
  }
  __syncthreads();
  if (!last) return;
  /* the group's last block: its partials in a fixed tree */
  __threadfence();
  RPart x = rinit<OP>();
  if ((int)threadIdx.x < gsize) x = load_part(&p.sc.parts[g0 + threadIdx.x]);
  x = block_reduce<OP>(x, sh);
  if (threadIdx.x == 0) {
    p.sc.gparts[gi] = x;
    p.sc.counters[gi] = 0;
    __threadfence();
    last = atomicAdd(&p.sc.counters[p.ngroups], 1u) == (unsigned)(p.ngroups - 1);
  }
  __syncthreads();
  if (!last) return;
  /* the last group: thread k combines group partials k, k + T, ... in order, then a fixed tree */
  __threadfence();
  RPart y = rinit<OP>();
  for (int64_t b = threadIdx.x; b < p.ngroups; b += BF_CUDA_THREADS) {
    RPart q = load_part(&p.sc.gparts[b]);
    rcombine<OP>(y, q);
  }
  y = block_reduce<OP>(y, sh);
  if (threadIdx.x == 0) {
    *p.sc.result = y;
    p.sc.counters[p.ngroups] = 0;
  }
}

template <typename T> cudaError_t dispatch_r(int op, const RParams &p, cudaStream_t s) {
  unsigned nb = (unsigned)p.npieces;
  switch (op) {
  case BF_ROP_SUM: reduce_kernel<T, BF_ROP_SUM><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_MIN: reduce_kernel<T, BF_ROP_MIN><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_MAX: reduce_kernel<T, BF_ROP_MAX><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_ABSMAX: reduce_kernel<T, BF_ROP_ABSMAX><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_ABSSUM: reduce_kernel<T, BF_ROP_ABSSUM><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_SUMSQ: reduce_kernel<T, BF_ROP_SUMSQ><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_DOT: reduce_kernel<T, BF_ROP_DOT><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_HASNAN: reduce_kernel<T, BF_ROP_HASNAN><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_HASINF: reduce_kernel<T, BF_ROP_HASINF><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

} // namespace

extern "C" int bf_cuda_launch_elementwise(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                                          int64_t npieces, cudaStream_t s) {
  if (npieces <= 0) return cudaSuccess;
  if (npieces > 0x7fffffffll) return cudaErrorInvalidConfiguration;
  if (g->type == BF_KTYPE_DOUBLE) {
    EwParams<double> p = {tasks, pieces, g->s0, g->s1, g->acomp, g->bcomp, g->ccomp, g->abase, g->bbase, g->cbase};
    return dispatch_ew<double>(g->op, p, npieces, s);
  }
  EwParams<int> p = {tasks, pieces, (int)g->s0, (int)g->s1, g->acomp, g->bcomp, g->ccomp, g->abase, g->bbase, g->cbase};
  return dispatch_ew<int>(g->op, p, npieces, s);
}

extern "C" int bf_cuda_launch_reduce(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                                     int64_t npieces, const bf_cuda_rscratch *scratch, cudaStream_t s) {
  if (npieces <= 0) return cudaSuccess;
  if (npieces > 0x7fffffffll) return cudaErrorInvalidConfiguration;
  RParams p = {tasks, pieces, npieces, bf_cuda_rgroups(npieces), g->acomp, g->bcomp, g->abase, g->bbase, *scratch};
  return g->type == BF_KTYPE_DOUBLE ? dispatch_r<double>(g->op, p, s) : dispatch_r<int>(g->op, p, s);
}
