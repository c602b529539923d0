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
 * Reductions: stage 1 gives block g the pieces [g*P/G, (g+1)*P/G) (G fixed by
 * the number of pieces P), its threads accumulate their elements in a fixed
 * order and combine in a fixed tree; stage 2 (one block) combines the G
 * partials in a fixed tree.  The result depends only on the data and the task
 * list, not on the device or the run. */
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
};

template <typename T, int OP> __global__ void __launch_bounds__(BF_CUDA_THREADS) ew_kernel(EwParams<T> p) {
  const bf_cuda_piece pc = p.pieces[blockIdx.x];
  const bf_cuda_ctask &t = p.tasks[pc.task];
  PieceDecoder dec(pc, t.nz);
  T *A = (T *)t.a;
  const T *B = (const T *)t.b, *C = (const T *)t.c;
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

struct RParams {
  const bf_cuda_ctask *tasks;
  const bf_cuda_piece *pieces;
  int64_t npieces, nblocks;
  int op, dbl, acomp, bcomp;
  bf_cuda_rpart *partials, *result;
};

__device__ __forceinline__ void rpart_init(bf_cuda_rpart &r) {
  r.v = 0;
  r.isum = 0;
  r.idx = -1;
  r.found = 0;
  r.pad = 0;
}

/* r := r (+) q where r's elements precede q's (as the CPU combines chunks). */
__device__ __forceinline__ void rpart_combine(int op, bf_cuda_rpart &r, const bf_cuda_rpart &q) {
  switch (op) {
  case BF_ROP_MIN:
  case BF_ROP_MAX:
    if (q.found && (!r.found || (op == BF_ROP_MAX ? q.v > r.v : q.v < r.v) || (q.v == r.v && q.idx < r.idx))) r = q;
    break;
  case BF_ROP_ABSMAX:
    r.v = q.v > r.v ? q.v : r.v;
    r.found |= q.found;
    break;
  case BF_ROP_HASNAN:
  case BF_ROP_HASINF: r.found |= q.found; break;
  default:
    r.v += q.v;
    r.isum += q.isum;
    break;
  }
}

/* Fixed-order tree over the block's values (blockDim.x = BF_CUDA_THREADS). */
__device__ void block_combine(int op, bf_cuda_rpart &mine, bf_cuda_rpart *sh) {
  sh[threadIdx.x] = mine;
  __syncthreads();
  for (int w = BF_CUDA_THREADS / 2; w > 0; w /= 2) {
    if ((int)threadIdx.x < w) {
      bf_cuda_rpart q = sh[threadIdx.x + w];
      rpart_combine(op, sh[threadIdx.x], q);
    }
    __syncthreads();
  }
  mine = sh[0];
}

template <typename T, int OP> __device__ __forceinline__ void accumulate(bf_cuda_rpart &acc, T x, T y, int64_t idx) {
  double v = (double)x;
  switch (OP) {
  case BF_ROP_SUM:
    if (sizeof(T) == sizeof(double)) acc.v += v;
    else acc.isum += (uint64_t)(int64_t)x;
    break;
  case BF_ROP_ABSSUM:
    if (sizeof(T) == sizeof(double)) acc.v += fabs(v);
    else {
      int64_t w = (int64_t)x;
      acc.isum += (uint64_t)(w < 0 ? -w : w);
    }
    break;
  case BF_ROP_SUMSQ:
    if (sizeof(T) == sizeof(double)) acc.v += v * v;
    else acc.isum += (uint64_t)((int64_t)x * (int64_t)x);
    break;
  case BF_ROP_DOT:
    if (sizeof(T) == sizeof(double)) acc.v += v * (double)y;
    else acc.isum += (uint64_t)((int64_t)x * (int64_t)y);
    break;
  case BF_ROP_MIN:
  case BF_ROP_MAX:
    if (!acc.found || (OP == BF_ROP_MAX ? v > acc.v : v < acc.v) || (v == acc.v && idx < acc.idx)) {
      acc.found = 1;
      acc.v = v;
      acc.idx = idx;
    }
    break;
  case BF_ROP_ABSMAX: {
    double a = fabs(v);
    acc.v = a > acc.v ? a : acc.v;
    acc.found = 1;
    break;
  }
  case BF_ROP_HASNAN:
    if (sizeof(T) == sizeof(double) && isnan(v)) acc.found = 1;
    break;
  case BF_ROP_HASINF:
    if (sizeof(T) == sizeof(double) && isinf(v)) acc.found = 1;
    break;
  default: break;
  }
}

/* One piece into this thread's accumulator, batch by batch: loads first, then
 * in order.  Reductions keep fewer blocks resident than element-wise launches
 * (a fixed grid), so they take more elements per batch: more loads in flight. */
#define RITEMS 4
template <typename T, int OP> __device__ __forceinline__ void reduce_piece(const RParams &p, int64_t pi, bf_cuda_rpart &acc) {
  const bf_cuda_piece pc = p.pieces[pi];
  const bf_cuda_ctask &t = p.tasks[pc.task];
  PieceDecoder dec(pc, t.nz);
  const T *A = (const T *)t.a, *B = (const T *)t.b;
  const uint8_t *mask = t.mask;
  for (int base = 0; base < pc.count; base += RITEMS * BF_CUDA_THREADS) {
    T va[RITEMS], vb[RITEMS];
    bool on[RITEMS];
    int64_t idx[RITEMS];
#pragma unroll
    for (int u = 0; u < RITEMS; ++u) {
      int e = base + (int)threadIdx.x + u * BF_CUDA_THREADS;
      on[u] = e < pc.count;
      va[u] = vb[u] = T(0);
      idx[u] = 0;
      if (on[u]) {
        Where w = dec.at(e);
        int64_t rowp = (int64_t)w.j + (int64_t)t.ny * ((int64_t)w.k);
        if (mask && !mask[rowp * t.nx + w.x]) on[u] = false;
        if (on[u]) {
          va[u] = A[ofs(w, t.ajs, t.aks, t.ans, p.acomp)];
          if (OP == BF_ROP_DOT) vb[u] = B[ofs(w, t.bjs, t.bks, t.bns, p.bcomp)];
          if (OP == BF_ROP_MIN || OP == BF_ROP_MAX)
            idx[u] = t.gofs + w.x + (int64_t)t.nx * (rowp + (int64_t)t.ny * t.nz * w.n);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < RITEMS; ++u)
      if (on[u]) accumulate<T, OP>(acc, va[u], vb[u], idx[u]);
  }
}

template <typename T, int OP> __global__ void __launch_bounds__(BF_CUDA_THREADS) reduce_stage1(RParams p) {
  __shared__ bf_cuda_rpart sh[BF_CUDA_THREADS];
  bf_cuda_rpart acc;
  rpart_init(acc);
  int64_t g = blockIdx.x;
  int64_t q0 = p.npieces * g / p.nblocks, q1 = p.npieces * (g + 1) / p.nblocks;
  for (int64_t q = q0; q < q1; ++q) reduce_piece<T, OP>(p, q, acc);
  /* ABSMAX found means "visited", like the CPU (which starts from 0) */
  block_combine(OP, acc, sh);
  if (threadIdx.x == 0) p.partials[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(BF_CUDA_THREADS) reduce_stage2(RParams p) {
  __shared__ bf_cuda_rpart sh[BF_CUDA_THREADS];
  bf_cuda_rpart acc;
  rpart_init(acc);
  /* thread t combines partials t, t + T, t + 2T, ... in order */
  for (int64_t b = threadIdx.x; b < p.nblocks; b += BF_CUDA_THREADS) rpart_combine(p.op, acc, p.partials[b]);
  block_combine(p.op, acc, sh);
  if (threadIdx.x == 0) *p.result = acc;
}

template <typename T> cudaError_t launch_r1(const RParams &p, cudaStream_t s) {
  unsigned nb = (unsigned)p.nblocks;
  switch (p.op) {
  case BF_ROP_SUM: reduce_stage1<T, BF_ROP_SUM><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_MIN: reduce_stage1<T, BF_ROP_MIN><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_MAX: reduce_stage1<T, BF_ROP_MAX><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_ABSMAX: reduce_stage1<T, BF_ROP_ABSMAX><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_ABSSUM: reduce_stage1<T, BF_ROP_ABSSUM><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_SUMSQ: reduce_stage1<T, BF_ROP_SUMSQ><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_DOT: reduce_stage1<T, BF_ROP_DOT><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_HASNAN: reduce_stage1<T, BF_ROP_HASNAN><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  case BF_ROP_HASINF: reduce_stage1<T, BF_ROP_HASINF><<<nb, BF_CUDA_THREADS, 0, s>>>(p); break;
  default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

} // namespace

extern "C" int bf_cuda_launch_elementwise(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                                          int64_t npieces, cudaStream_t s) {
  if (npieces <= 0) return cudaSuccess;
  if (g->type == BF_KTYPE_DOUBLE) {
    EwParams<double> p = {tasks, pieces, g->s0, g->s1, g->acomp, g->bcomp, g->ccomp};
    return dispatch_ew<double>(g->op, p, npieces, s);
  }
  EwParams<int> p = {tasks, pieces, (int)g->s0, (int)g->s1, g->acomp, g->bcomp, g->ccomp};
  return dispatch_ew<int>(g->op, p, npieces, s);
}

extern "C" int bf_cuda_launch_reduce(const bf_kargs *g, const bf_cuda_ctask *tasks, const bf_cuda_piece *pieces,
                                     int64_t npieces, bf_cuda_rpart *partials, bf_cuda_rpart *result, cudaStream_t s) {
  RParams p = {tasks, pieces, npieces, bf_cuda_reduce_nblocks(npieces), g->op, g->type == BF_KTYPE_DOUBLE,
               g->acomp, g->bcomp, partials, result};
  if (p.nblocks > 0) {
    cudaError_t e = p.dbl ? launch_r1<double>(p, s) : launch_r1<int>(p, s);
    if (e != cudaSuccess) return e;
  }
  reduce_stage2<<<1, BF_CUDA_THREADS, 0, s>>>(p);
  return cudaGetLastError();
}
