/* CUDA backend: the MultiFab kernels, behind plain C launchers (cuda/impl.h).
 *
 * Element-wise: one launch covers every task; block b does piece b of the
 * launch list (cuda/impl.h), in batches of BF_CUDA_BATCH elements.  Each
 * thread takes BF_CUDA_ITEMS elements of a batch, BF_CUDA_THREADS apart
 * (consecutive threads on consecutive x: the warp's accesses are coalesced).
 * A thread's position is decoded once per piece (divisions through a float
 * reciprocal, exact after a correction step) and then walked by adding the
 * digits of the step (Walk: a few integer additions per element, no
 * division).  It loads all its operands first (several loads in flight per
 * thread), then computes and stores.  The arithmetic is written exactly as
 * in the CPU backend and the file is compiled with --fmad=false: results are
 * bitwise equal to the CPU's.
 *
 * Reductions: one launch of as many blocks as the device holds at once;
 * block b does pieces b, b + grid, ... (no block start-up or tail per
 * piece); the operands stream through a ring in shared memory filled by
 * asynchronous copies (cp.async), several stages ahead, so the loads in
 * flight are not bounded by registers; pieces whose elements are consecutive
 * in memory (views without ghost cells in x) are read without the walk.
 * Each thread accumulates its elements of a piece in a fixed order, the
 * block combines them in a fixed tree (warp shuffles, then the 8 warps in
 * order) into the piece's 16-byte partial.  The last block to finish (an
 * atomic ticket) combines the partials in a fixed order and tree
 * (cuda/impl.h) and writes the result: it depends only on the data and the
 * task list, not on the device, the grid, the run or the order in which
 * blocks finish.  Min/max carry (piece, element number in the piece) as
 * their index, which orders like the global index; the last block turns the
 * winner's into the global index. */
#include <math.h>
#include <stdint.h>

#include "impl.h"

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

/* Walking a piece: thread t takes its elements t, t + S, t + 2S, ...
 * (S = BF_CUDA_THREADS) in order.  Its position is kept as mixed-radix
 * digits (x - x0 < nxb, j - j0 < nj, k < nz, n) and a step adds the digits
 * of S with one carry at most per digit, so the walk costs a few integer
 * additions per element and no division (the divisions are done once per
 * piece and thread, by PieceDecoder). */
struct Walk {
  int nxb, nj, nz, sx, sj, sk, sn; /* radices, and the digits of S */
  int xd, jd, k, n;                /* position of the thread's current element */
  __device__ __forceinline__ Walk() {}
  __device__ __forceinline__ Walk(const PieceDecoder &dec, const bf_cuda_piece &pc, int nz_)
      : nxb(pc.nxb), nj(pc.nj), nz(nz_) {
    int rows = dec.dx.div(BF_CUDA_THREADS, sx);
    int planes = dec.dj.div(rows, sj);
    sn = dec.dz.div(planes, sk);
    Where w = dec.at((int)threadIdx.x);
    xd = w.x - pc.x0, jd = w.j - pc.j0, k = w.k, n = w.n;
  }
  __device__ __forceinline__ void step() {
    xd += sx;
    const bool cx = xd >= nxb;
    if (cx) xd -= nxb;
    jd += sj + (int)cx;
    const bool cj = jd >= nj;
    if (cj) jd -= nj;
    k += sk + (int)cj;
    const bool ck = k >= nz;
    if (ck) k -= nz;
    n += sn + (int)ck;
  }
};

/* A view's strides, and the offset of the walk's current element in it. */
struct Cursor {
  int64_t base, js, ks, ns; /* base: the offset of (x0, j0, 0, comp) */
  __device__ __forceinline__ Cursor() : base(0), js(0), ks(0), ns(0) {}
  __device__ __forceinline__ Cursor(const bf_cuda_piece &pc, int64_t js_, int64_t ks_, int64_t ns_, int comp)
      : base((int64_t)pc.x0 + (int64_t)pc.j0 * js_ + (int64_t)comp * ns_), js(js_), ks(ks_), ns(ns_) {}
  __device__ __forceinline__ int64_t at(const Walk &w) const {
    return base + w.xd + (int64_t)w.jd * js + (int64_t)w.k * ks + (int64_t)w.n * ns;
  }
};

/* ---- arithmetic, as in src/backend/cpu/elementwise.c ----------------------------- */

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
  Walk walk(dec, pc, t.nz);
  Cursor ca(pc, ajs, aks, ans, p.acomp), cb, cc;
  if (Uses<OP>::b) cb = Cursor(pc, bjs, bks, bns, p.bcomp);
  if (Uses<OP>::c) cc = Cursor(pc, cjs, cks, cns, p.ccomp);
  for (int base = 0; base < pc.count; base += BF_CUDA_BATCH) {
    int lim = pc.count - base;
    int64_t ao[BF_CUDA_ITEMS], bo[BF_CUDA_ITEMS], co[BF_CUDA_ITEMS];
    T va[BF_CUDA_ITEMS], vb[BF_CUDA_ITEMS], vc[BF_CUDA_ITEMS];
#pragma unroll
    for (int u = 0; u < BF_CUDA_ITEMS; ++u) { /* the offsets of the thread's elements of the batch */
      va[u] = vb[u] = vc[u] = T(0);
      ao[u] = ca.at(walk), bo[u] = cb.at(walk), co[u] = cc.at(walk);
      walk.step();
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

#define NWARPS (BF_CUDA_THREADS / 32)

struct RParams {
  const bf_cuda_ctask *tasks;
  const bf_cuda_piece *pieces;
  int64_t npieces;
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

/* The warp's values combined in a fixed tree; the result is in lane 0. */
template <int OP> __device__ __forceinline__ RPart warp_reduce(RPart x) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    RPart o;
    o.v = __shfl_down_sync(0xffffffffu, x.v, off);
    o.aux = (int64_t)__shfl_down_sync(0xffffffffu, (long long)x.aux, off);
    rcombine<OP>(x, o);
  }
  return x;
}

/* The block's values combined in a fixed tree; the result is in thread 0.
 * `sh` (NWARPS entries) is free on entry and on exit. */
template <int OP> __device__ __forceinline__ RPart block_reduce(RPart x, RPart *sh) {
  x = warp_reduce<OP>(x);
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

/* Element x (and y for DOT) into the accumulator (min/max: the reduction
 * kernel keeps their extremum and its element number itself). */
template <typename T, int OP> __device__ __forceinline__ void accumulate(RPart &acc, T x, T y) {
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

/* Copies into shared memory that run while the thread goes on (cp.async,
 * sm_80 and later): the loads in flight are limited by shared memory, not by
 * registers.  Waiting for all but the last N groups makes the older copies
 * visible to the thread that issued them.  Older chips (a build for
 * CMAKE_CUDA_ARCHITECTURES below 80) copy synchronously: same results. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
template <typename T> __device__ __forceinline__ void cp_async(T *dst, const T *src) { *dst = *src; }
__device__ __forceinline__ void cp_commit() {}
template <int N> __device__ __forceinline__ void cp_wait() {}
#else
template <typename T> __device__ __forceinline__ void cp_async(T *dst, const T *src) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(d), "l"(src), "n"(sizeof(T)) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }
#endif

/* Reductions stream their operands through a ring of `stages` stages in
 * shared memory (BF_CUDA_RSTAGES, 4: 64 KB per block for doubles): a stage
 * is k elements per thread (per operand) of one round of a piece; stages - 1
 * are in flight while the thread accumulates the oldest.  Each thread reads
 * only the slots it filled, so the ring needs no barrier.  A slot's "copied"
 * bits live in one 32-bit word: stages * k <= 32. */
#ifndef BF_CUDA_RSTAGES
#define BF_CUDA_RSTAGES 4
#endif
template <int OP> struct RShape {
  static const int stages = BF_CUDA_RSTAGES;
  static const int k = OP == BF_ROP_DOT ? 4 : 8; /* elements per thread per stage and operand */
  static const int round = k * BF_CUDA_THREADS;  /* elements of a piece per stage */
  static const unsigned mask = (1u << k) - 1;
  static const int operands = OP == BF_ROP_DOT ? 2 : 1;
};
static_assert(RShape<BF_ROP_SUM>::stages * RShape<BF_ROP_SUM>::k <= 32, "a slot's bits must fit in 32");
static_assert(RShape<BF_ROP_SUM>::stages >= 2, "the ring needs two stages or more");
template <typename T, int OP> struct RRing {
  static const size_t bytes =
      (size_t)RShape<OP>::stages * RShape<OP>::k * BF_CUDA_THREADS * sizeof(T) * RShape<OP>::operands;
};

/* The issuing side of a block's walk through its pieces b, b + grid, ...:
 * the piece it is in, the round in it, and the walk's position. */
template <typename T, int OP> struct RIssuer {
  int64_t pi;
  int r, nr, count, nx, ny, x0, j0;
  const T *A, *B;
  const uint8_t *mask;
  bool flat;       /* the piece's elements are consecutive in memory (in every operand): at pA + e, pB + e */
  const T *pA, *pB;
  Walk walk;
  Cursor ca, cb;

  /* Does element e of the piece sit at (offset of element 0) + e in a view of these strides? */
  static __device__ __forceinline__ bool consecutive(const bf_cuda_piece &pc, const PieceDecoder &dec, int nz,
                                                     int64_t js, int64_t ks, int64_t ns) {
    if (pc.np == 1) return pc.nj == 1 || js == pc.nxb;
    return js == pc.nxb && ks == (int64_t)pc.nj * js && (ns == (int64_t)nz * ks || dec.k0 + pc.np <= nz);
  }

  __device__ __forceinline__ void start(const RParams &p) {
    r = 0;
    if (pi >= p.npieces) return;
    const bf_cuda_piece pc = p.pieces[pi];
    const bf_cuda_ctask &t = p.tasks[pc.task];
    PieceDecoder dec(pc, t.nz);
    walk = Walk(dec, pc, t.nz);
    A = (const T *)(t.a + p.abase), B = (const T *)(t.b + p.bbase);
    mask = t.mask, nx = t.nx, ny = t.ny, x0 = pc.x0, j0 = pc.j0;
    ca = Cursor(pc, t.ajs, t.aks, t.ans, p.acomp);
    if (OP == BF_ROP_DOT) cb = Cursor(pc, t.bjs, t.bks, t.bns, p.bcomp);
    Walk w0 = walk; /* element 0 of the piece: thread 0's start */
    w0.xd = 0, w0.jd = 0, w0.k = dec.k0, w0.n = dec.n0;
    flat = !mask && consecutive(pc, dec, t.nz, t.ajs, t.aks, t.ans) &&
           (OP != BF_ROP_DOT || consecutive(pc, dec, t.nz, t.bjs, t.bks, t.bns));
    pA = A + ca.at(w0), pB = B;
    if (OP == BF_ROP_DOT) pB = B + cb.at(w0);
    count = pc.count;
    nr = (count + RShape<OP>::round - 1) / RShape<OP>::round;
  }

  /* Issue the next stage into ring slot `slot` (nothing once the block's
   * pieces are done: an empty group keeps the count of groups); returns a
   * bit per element that was copied (in the piece, and owned where there is
   * a mask). */
  __device__ __forceinline__ unsigned issue(const RParams &p, T *ringA, T *ringB, int slot) {
    typedef RShape<OP> S;
    unsigned bits = 0;
    if (pi < p.npieces && flat) { /* the same elements per thread, at consecutive addresses: no walk */
      const int base = r * S::round + (int)threadIdx.x;
      const bool full = (r + 1) * S::round <= count; /* every element of the stage is in the piece */
#pragma unroll
      for (int u = 0; u < S::k; ++u) {
        const int e = base + u * BF_CUDA_THREADS;
        if (full || e < count) {
          const int at = (slot * S::k + u) * BF_CUDA_THREADS + (int)threadIdx.x;
          cp_async(&ringA[at], pA + e);
          if (OP == BF_ROP_DOT) cp_async(&ringB[at], pB + e);
        }
      }
      if (full) bits = S::mask; /* the bits apart from the copies: no test per element in a full stage */
      else
        for (int u = 0; u < S::k; ++u) bits |= (unsigned)(base + u * BF_CUDA_THREADS < count) << u;
    } else if (pi < p.npieces) {
      const int base = r * S::round;
#pragma unroll
      for (int u = 0; u < S::k; ++u) {
        const int e = base + (int)threadIdx.x + u * BF_CUDA_THREADS;
        bool ok = e < count;
        if (ok && mask && !mask[((int64_t)(j0 + walk.jd) + (int64_t)ny * walk.k) * nx + x0 + walk.xd]) ok = false;
        if (ok) {
          const int at = (slot * S::k + u) * BF_CUDA_THREADS + (int)threadIdx.x;
          cp_async(&ringA[at], A + ca.at(walk));
          if (OP == BF_ROP_DOT) cp_async(&ringB[at], B + cb.at(walk));
          bits |= 1u << u;
        }
        walk.step();
      }
    }
    if (pi < p.npieces && ++r == nr) { /* the piece is issued: on to the block's next */
      pi += gridDim.x;
      start(p);
    }
    cp_commit();
    return bits;
  }
};

/* Block b does pieces b, b + gridDim.x, ...: the operands stream through the
 * ring across piece boundaries; each thread accumulates its elements of a
 * piece (e = threadIdx.x + BF_CUDA_THREADS * i, in increasing i), each warp
 * combines its threads in a fixed tree, and after one barrier per piece
 * thread 0 combines the warps in order into the piece's partial (the warps'
 * values are double-buffered in shared memory, so the next piece goes on
 * meanwhile).  The last block to finish combines the partials: thread k
 * those of pieces k, k + BF_CUDA_THREADS, ... in increasing order, then the
 * block in a fixed tree. */
template <typename T, int OP> __global__ void __launch_bounds__(BF_CUDA_THREADS) reduce_kernel(RParams p) {
  typedef RShape<OP> S;
  extern __shared__ __align__(16) unsigned char ring_raw[];
  T *ringA = (T *)ring_raw, *ringB = ringA + S::stages * S::round;
  __shared__ RPart sh[2][NWARPS];
  __shared__ int last;
  RIssuer<T, OP> is;
  is.pi = blockIdx.x;
  is.start(p);
  int64_t cpi = blockIdx.x; /* the piece being accumulated, its round and rounds */
  int cr = 0, cnr = cpi < p.npieces ? (p.pieces[cpi].count + S::round - 1) / S::round : 0;
  unsigned vbits = 0; /* the copied bits of every slot, S::k bits each */
#pragma unroll
  for (int st = 0; st < S::stages - 1; ++st) vbits |= is.issue(p, ringA, ringB, st) << (st * S::k);
  int si = S::stages - 1, sc = 0, buf = 0;
  RPart acc = rinit<OP>();
  const bool extremum = OP == BF_ROP_MIN || OP == BF_ROP_MAX;
  double mv = 0; /* min/max: the thread's extremum so far in the piece, and its element number (-1: none) */
  int mi = -1;
  while (cpi < p.npieces) {
    const unsigned b = is.issue(p, ringA, ringB, si);
    vbits = (vbits & ~(S::mask << (si * S::k))) | (b << (si * S::k));
    si = si + 1 == S::stages ? 0 : si + 1;
    cp_wait<S::stages - 1>(); /* slot sc has landed */
    const unsigned bits = (vbits >> (sc * S::k)) & S::mask;
    const int base = cr * S::round;
    auto take = [&](int u) {
      const int at = (sc * S::k + u) * BF_CUDA_THREADS + (int)threadIdx.x;
      const int e = base + (int)threadIdx.x + u * BF_CUDA_THREADS;
      if (extremum) { /* elements come in increasing e: the strict compare keeps the first extremum */
        const double v = (double)ringA[at];
        if (mi < 0 || (OP == BF_ROP_MAX ? v > mv : v < mv)) mv = v, mi = e;
      } else {
        accumulate<T, OP>(acc, ringA[at], OP == BF_ROP_DOT ? ringB[at] : T(0));
      }
    };
    if (bits == S::mask) { /* a full stage (the usual case): no test per element */
#pragma unroll
      for (int u = 0; u < S::k; ++u) take(u);
    } else {
#pragma unroll
      for (int u = 0; u < S::k; ++u)
        if (bits >> u & 1u) take(u);
    }
    sc = sc + 1 == S::stages ? 0 : sc + 1;
    if (++cr < cnr) continue;
    /* the piece is done: its partial */
    if (extremum) {
      acc.v = mv, acc.aux = mi;
      mi = -1;
    }
    acc = warp_reduce<OP>(acc);
    if ((threadIdx.x & 31) == 0) sh[buf][threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      RPart x = sh[buf][0];
      for (int w = 1; w < NWARPS; ++w) rcombine<OP>(x, sh[buf][w]);
      /* min/max: (piece, element number) in one int64; reduction lists keep their pieces in task order and
       * a task's pieces in element order, so this orders like the global index (the last block converts) */
      if (extremum && x.aux >= 0) x.aux = (int64_t)((uint64_t)cpi << 32 | (uint64_t)x.aux);
      p.sc.parts[cpi] = x;
    }
    buf ^= 1;
    acc = rinit<OP>();
    cpi += gridDim.x, cr = 0;
    if (cpi < p.npieces) cnr = (p.pieces[cpi].count + S::round - 1) / S::round;
  }
  cp_wait<0>();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(p.sc.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  RPart y = rinit<OP>();
  int64_t k = threadIdx.x;
  for (; k + 7 * BF_CUDA_THREADS < p.npieces; k += 8 * BF_CUDA_THREADS) {
    RPart q[8]; /* loads first, then combined in order */
#pragma unroll
    for (int u = 0; u < 8; ++u) q[u] = load_part(&p.sc.parts[k + u * BF_CUDA_THREADS]);
#pragma unroll
    for (int u = 0; u < 8; ++u) rcombine<OP>(y, q[u]);
  }
  for (; k < p.npieces; k += BF_CUDA_THREADS) {
    RPart q = load_part(&p.sc.parts[k]);
    rcombine<OP>(y, q);
  }
  y = block_reduce<OP>(y, sh[0]);
  if (threadIdx.x == 0) {
    if (extremum && y.aux >= 0) { /* (piece, element number) -> global index */
      const bf_cuda_piece pc = p.pieces[y.aux >> 32];
      const bf_cuda_ctask &t = p.tasks[pc.task];
      PieceDecoder dec(pc, t.nz);
      Where w = dec.at((int)(y.aux & 0xffffffff));
      y.aux = t.gofs + w.x + (int64_t)t.nx * ((int64_t)w.j + (int64_t)t.ny * ((int64_t)w.k + (int64_t)t.nz * w.n));
    }
    *p.sc.result = y;
    *p.sc.counter = 0;
  }
}

/* Blocks of reduce_kernel<T, OP> resident on the whole device at once (per
 * device, asked once, after allowing the kernel its ring of shared memory);
 * 0 when CUDA refuses. */
template <typename T, int OP> int resident_blocks() {
  static int cached[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) {
    (void)cudaGetLastError();
    return 0;
  }
  if (!cached[dev]) {
    int per_sm = 0, sms = 0;
    if (cudaFuncSetAttribute(reduce_kernel<T, OP>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)RRing<T, OP>::bytes) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce_kernel<T, OP>, BF_CUDA_THREADS,
                                                      RRing<T, OP>::bytes) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || per_sm < 1 || sms < 1) {
      (void)cudaGetLastError();
      return 0;
    }
    cached[dev] = per_sm * sms;
  }
  return cached[dev];
}

template <typename T, int OP> cudaError_t launch_r(const RParams &p, cudaStream_t s) {
  int64_t nb = resident_blocks<T, OP>();
  if (nb < 1) return cudaErrorLaunchOutOfResources;
  if (nb > p.npieces) nb = p.npieces;
  reduce_kernel<T, OP><<<(unsigned)nb, BF_CUDA_THREADS, RRing<T, OP>::bytes, s>>>(p);
  return cudaGetLastError();
}

template <typename T> cudaError_t dispatch_r(int op, const RParams &p, cudaStream_t s) {
  switch (op) {
  case BF_ROP_SUM: return launch_r<T, BF_ROP_SUM>(p, s);
  case BF_ROP_MIN: return launch_r<T, BF_ROP_MIN>(p, s);
  case BF_ROP_MAX: return launch_r<T, BF_ROP_MAX>(p, s);
  case BF_ROP_ABSMAX: return launch_r<T, BF_ROP_ABSMAX>(p, s);
  case BF_ROP_ABSSUM: return launch_r<T, BF_ROP_ABSSUM>(p, s);
  case BF_ROP_SUMSQ: return launch_r<T, BF_ROP_SUMSQ>(p, s);
  case BF_ROP_DOT: return launch_r<T, BF_ROP_DOT>(p, s);
  case BF_ROP_HASNAN: return launch_r<T, BF_ROP_HASNAN>(p, s);
  case BF_ROP_HASINF: return launch_r<T, BF_ROP_HASINF>(p, s);
  default: return cudaErrorInvalidValue;
  }
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
  RParams p = {tasks, pieces, npieces, g->acomp, g->bcomp, g->abase, g->bbase, *scratch};
  return g->type == BF_KTYPE_DOUBLE ? dispatch_r<double>(g->op, p, s) : dispatch_r<int>(g->op, p, s);
}
