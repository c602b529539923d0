/* CUDA backend: the MultiFab kernels, behind plain C launchers (cuda_impl.h).
 *
 * Element-wise: one launch covers every task.  Block b handles the global
 * elements [b*TILE, (b+1)*TILE); thread 0 finds the tasks of the tile's ends,
 * each thread then finds the task of its elements by a binary search inside
 * that (usually one-task) range, so tiny tasks (ghost slabs) cost no more than
 * big ones.  The arithmetic is written exactly as in the CPU backend and the
 * file is compiled with --fmad=false: results are bitwise equal to the CPU's.
 *
 * Reductions: stage 1 gives block b the fixed range [b*chunk, (b+1)*chunk)
 * (bf_cuda_reduce_chunk), its threads accumulate strided elements in order and
 * combine in a fixed tree; stage 2 (one block) combines the partials in a fixed
 * tree.  The result depends only on the data, not on the device or the run. */
#include <math.h>
#include <stdint.h>

#include "cuda_impl.h"

#define TILE_ITEMS 4
#define TILE (BF_CUDA_THREADS * TILE_ITEMS)

namespace {

/* Largest t in [lo, hi] with prefix[t] <= e (prefix[lo] <= e holds). */
__device__ __forceinline__ int64_t find_task(const int64_t *prefix, int64_t lo, int64_t hi, int64_t e) {
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (prefix[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Local element l of task t -> offsets (in i, j, k, n) from the task's lo. */
struct Pos {
  int i, j, k, n;
};

__device__ __forceinline__ Pos decode(const bf_ktask &t, int64_t l) {
  Pos p;
  int64_t nx = (int64_t)t.hi[0] - t.lo[0] + 1, ny = (int64_t)t.hi[1] - t.lo[1] + 1,
          nz = (int64_t)t.hi[2] - t.lo[2] + 1;
  if (l <= 0xffffffffll && nx * ny * nz <= 0xffffffffll) { /* 32-bit division is much cheaper */
    uint32_t u = (uint32_t)l, ux = (uint32_t)nx, uy = (uint32_t)ny, uz = (uint32_t)nz;
    uint32_t r = u / ux;
    p.i = (int)(u - r * ux);
    uint32_t r2 = r / uy;
    p.j = (int)(r - r2 * uy);
    uint32_t r3 = r2 / uz;
    p.k = (int)(r2 - r3 * uz);
    p.n = (int)r3;
  } else {
    int64_t r = l / nx;
    p.i = (int)(l - r * nx);
    int64_t r2 = r / ny;
    p.j = (int)(r - r2 * ny);
    int64_t r3 = r2 / nz;
    p.k = (int)(r2 - r3 * nz);
    p.n = (int)r3;
  }
  return p;
}

/* Element offset of (i, j, k, comp) in view v. */
__device__ __forceinline__ int64_t vofs(const bf_kview &v, int i, int j, int k, int comp) {
  return ((int64_t)i - v.lo[0]) + ((int64_t)j - v.lo[1]) * v.js + ((int64_t)k - v.lo[2]) * v.ks +
         (int64_t)comp * v.ns;
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

template <typename T> struct EwParams {
  const int64_t *prefix;
  const bf_ktask *tasks;
  int64_t ntasks, total;
  T s0, s1;
  int acomp, bcomp, ccomp;
};

template <typename T, int OP> __device__ __forceinline__ void apply(T *a, const T *b, const T *c, T s0, T s1) {
  typedef typename OpsOf<T>::type O;
  switch (OP) {
  case BF_KOP_SET: *a = s0; break;
  case BF_KOP_PLUS_S: *a = O::add(*a, s0); break;
  case BF_KOP_MULT_S: *a = O::mul(*a, s0); break;
  case BF_KOP_INVERT: *a = O::div(s0, *a); break;
  case BF_KOP_NEGATE: *a = O::neg(*a); break;
  case BF_KOP_ABS: *a = O::abs_(*a); break;
  case BF_KOP_COPY: *a = *b; break;
  case BF_KOP_ADD: *a = O::add(*a, *b); break;
  case BF_KOP_SUB: *a = O::sub(*a, *b); break;
  case BF_KOP_MUL: *a = O::mul(*a, *b); break;
  case BF_KOP_DIV: *a = O::div(*a, *b); break;
  case BF_KOP_SWAP: {
    T t = *a;
    *a = *b;
    *(T *)b = t;
    break;
  }
  case BF_KOP_SAXPY: *a = O::add(*a, O::mul(s0, *b)); break;
  case BF_KOP_XPAY: *a = O::add(*b, O::mul(s0, *a)); break;
  case BF_KOP_LINCOMB: *a = O::add(O::mul(s0, *b), O::mul(s1, *c)); break;
  case BF_KOP_ADDPRODUCT: *a = O::add(*a, O::mul(*b, *c)); break;
  default: break;
  }
}

template <int OP> struct Uses {
  static const bool b = OP >= BF_KOP_COPY;
  static const bool c = OP == BF_KOP_LINCOMB || OP == BF_KOP_ADDPRODUCT;
};

template <typename T, int OP> __global__ void __launch_bounds__(BF_CUDA_THREADS) ew_kernel(EwParams<T> p) {
  __shared__ int64_t range[2];
  int64_t base = (int64_t)blockIdx.x * TILE;
  if (threadIdx.x == 0) {
    int64_t last = base + TILE - 1 < p.total ? base + TILE - 1 : p.total - 1;
    int64_t t0 = find_task(p.prefix, 0, p.ntasks - 1, base);
    range[0] = t0;
    range[1] = find_task(p.prefix, t0, p.ntasks - 1, last);
  }
  __syncthreads();
  int64_t tlo = range[0], thi = range[1];
#pragma unroll
  for (int r = 0; r < TILE_ITEMS; ++r) {
    int64_t e = base + r * BF_CUDA_THREADS + threadIdx.x;
    if (e >= p.total) break;
    int64_t ti = tlo == thi ? tlo : find_task(p.prefix, tlo, thi, e);
    const bf_ktask &t = p.tasks[ti];
    Pos q = decode(t, e - p.prefix[ti]);
    int i = t.lo[0] + q.i, j = t.lo[1] + q.j, k = t.lo[2] + q.k;
    T *a = (T *)t.a.data + vofs(t.a, i, j, k, p.acomp + q.n);
    const T *b = NULL, *c = NULL;
    if (Uses<OP>::b) b = (const T *)t.b.data + vofs(t.b, i - t.shift[0], j - t.shift[1], k - t.shift[2], p.bcomp + q.n);
    if (Uses<OP>::c) c = (const T *)t.c.data + vofs(t.c, i - t.shift[0], j - t.shift[1], k - t.shift[2], p.ccomp + q.n);
    apply<T, OP>(a, b, c, p.s0, p.s1);
  }
}

template <typename T, int OP> cudaError_t launch_ew(const EwParams<T> &p, cudaStream_t s) {
  int64_t blocks = (p.total + TILE - 1) / TILE;
  if (blocks > 0x7fffffffll) return cudaErrorInvalidConfiguration;
  ew_kernel<T, OP><<<(unsigned)blocks, BF_CUDA_THREADS, 0, s>>>(p);
  return cudaGetLastError();
}

template <typename T> cudaError_t dispatch_ew(int op, const EwParams<T> &p, cudaStream_t s) {
  switch (op) {
  case BF_KOP_SET: return launch_ew<T, BF_KOP_SET>(p, s);
  case BF_KOP_PLUS_S: return launch_ew<T, BF_KOP_PLUS_S>(p, s);
  case BF_KOP_MULT_S: return launch_ew<T, BF_KOP_MULT_S>(p, s);
  case BF_KOP_INVERT: return launch_ew<T, BF_KOP_INVERT>(p, s);
  case BF_KOP_NEGATE: return launch_ew<T, BF_KOP_NEGATE>(p, s);
  case BF_KOP_ABS: return launch_ew<T, BF_KOP_ABS>(p, s);
  case BF_KOP_COPY: return launch_ew<T, BF_KOP_COPY>(p, s);
  case BF_KOP_ADD: return launch_ew<T, BF_KOP_ADD>(p, s);
  case BF_KOP_SUB: return launch_ew<T, BF_KOP_SUB>(p, s);
  case BF_KOP_MUL: return launch_ew<T, BF_KOP_MUL>(p, s);
  case BF_KOP_DIV: return launch_ew<T, BF_KOP_DIV>(p, s);
  case BF_KOP_SWAP: return launch_ew<T, BF_KOP_SWAP>(p, s);
  case BF_KOP_SAXPY: return launch_ew<T, BF_KOP_SAXPY>(p, s);
  case BF_KOP_XPAY: return launch_ew<T, BF_KOP_XPAY>(p, s);
  case BF_KOP_LINCOMB: return launch_ew<T, BF_KOP_LINCOMB>(p, s);
  case BF_KOP_ADDPRODUCT: return launch_ew<T, BF_KOP_ADDPRODUCT>(p, s);
  default: return cudaErrorInvalidValue;
  }
}

/* ---- reductions -------------------------------------------------------------------- */

struct RParams {
  const int64_t *prefix;
  const bf_ktask *tasks;
  int64_t ntasks, total, chunk;
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

template <typename T> __device__ __forceinline__ double as_double(T x) { return (double)x; }

template <typename T> __device__ void reduce_range(const RParams &p, int64_t e0, int64_t e1, bf_cuda_rpart &acc) {
  if (e0 >= e1) return;
  int64_t ti = find_task(p.prefix, 0, p.ntasks - 1, e0);
  for (int64_t e = e0; e < e1; e += BF_CUDA_THREADS) {
    while (ti + 1 < p.ntasks && p.prefix[ti + 1] <= e) ++ti;
    const bf_ktask &t = p.tasks[ti];
    Pos q = decode(t, e - p.prefix[ti]);
    if (t.mask) {
      int64_t nx = (int64_t)t.hi[0] - t.lo[0] + 1, ny = (int64_t)t.hi[1] - t.lo[1] + 1;
      if (!t.mask[((int64_t)q.k * ny + q.j) * nx + q.i]) continue;
    }
    int i = t.lo[0] + q.i, j = t.lo[1] + q.j, k = t.lo[2] + q.k;
    T x = ((const T *)t.a.data)[vofs(t.a, i, j, k, p.acomp + q.n)];
    switch (p.op) {
    case BF_ROP_SUM:
      if (p.dbl) acc.v += as_double(x);
      else acc.isum += (uint64_t)(int64_t)x;
      break;
    case BF_ROP_ABSSUM:
      if (p.dbl) acc.v += fabs(as_double(x));
      else {
        int64_t v = (int64_t)x;
        acc.isum += (uint64_t)(v < 0 ? -v : v);
      }
      break;
    case BF_ROP_SUMSQ:
      if (p.dbl) acc.v += as_double(x) * as_double(x);
      else acc.isum += (uint64_t)((int64_t)x * (int64_t)x);
      break;
    case BF_ROP_DOT: {
      T y = ((const T *)t.b.data)[vofs(t.b, i - t.shift[0], j - t.shift[1], k - t.shift[2], p.bcomp + q.n)];
      if (p.dbl) acc.v += as_double(x) * as_double(y);
      else acc.isum += (uint64_t)((int64_t)x * (int64_t)y);
      break;
    }
    case BF_ROP_MIN:
    case BF_ROP_MAX: {
      double v = as_double(x);
      if (!acc.found || (p.op == BF_ROP_MAX ? v > acc.v : v < acc.v)) {
        acc.found = 1;
        acc.v = v;
        acc.idx = e;
      }
      break;
    }
    case BF_ROP_ABSMAX: {
      double v = fabs(as_double(x));
      acc.v = v > acc.v ? v : acc.v;
      acc.found = 1;
      break;
    }
    case BF_ROP_HASNAN:
      if (p.dbl && isnan(as_double(x))) acc.found = 1;
      break;
    case BF_ROP_HASINF:
      if (p.dbl && isinf(as_double(x))) acc.found = 1;
      break;
    default: break;
    }
  }
}

template <typename T> __global__ void __launch_bounds__(BF_CUDA_THREADS) reduce_stage1(RParams p) {
  __shared__ bf_cuda_rpart sh[BF_CUDA_THREADS];
  bf_cuda_rpart acc;
  rpart_init(acc);
  int64_t b0 = (int64_t)blockIdx.x * p.chunk;
  int64_t b1 = b0 + p.chunk < p.total ? b0 + p.chunk : p.total;
  reduce_range<T>(p, b0 + threadIdx.x, b1, acc);
  /* ABSMAX found means "visited", like the CPU (which starts from 0) */
  block_combine(p.op, acc, sh);
  if (threadIdx.x == 0) p.partials[blockIdx.x] = acc;
}

__global__ void __launch_bounds__(BF_CUDA_THREADS) reduce_stage2(RParams p, int64_t nparts) {
  __shared__ bf_cuda_rpart sh[BF_CUDA_THREADS];
  bf_cuda_rpart acc;
  rpart_init(acc);
  /* thread t combines partials t, t + T, t + 2T, ... in order */
  for (int64_t b = threadIdx.x; b < nparts; b += BF_CUDA_THREADS) rpart_combine(p.op, acc, p.partials[b]);
  block_combine(p.op, acc, sh);
  if (threadIdx.x == 0) *p.result = acc;
}

} // namespace

extern "C" int bf_cuda_launch_elementwise(const bf_kargs *g, const int64_t *prefix, const bf_ktask *tasks,
                                          int64_t ntasks, int64_t total, cudaStream_t s) {
  if (total <= 0 || ntasks <= 0) return cudaSuccess;
  if (g->type == BF_KTYPE_DOUBLE) {
    EwParams<double> p = {prefix, tasks, ntasks, total, g->s0, g->s1, g->acomp, g->bcomp, g->ccomp};
    return dispatch_ew<double>(g->op, p, s);
  }
  EwParams<int> p = {prefix, tasks, ntasks, total, (int)g->s0, (int)g->s1, g->acomp, g->bcomp, g->ccomp};
  return dispatch_ew<int>(g->op, p, s);
}

extern "C" int bf_cuda_launch_reduce(const bf_kargs *g, const int64_t *prefix, const bf_ktask *tasks, int64_t ntasks,
                                     int64_t total, bf_cuda_rpart *partials, bf_cuda_rpart *result, cudaStream_t s) {
  RParams p = {prefix, tasks, ntasks, total, bf_cuda_reduce_chunk(total), g->op, g->type == BF_KTYPE_DOUBLE,
               g->acomp, g->bcomp, partials, result};
  int64_t nb = bf_cuda_reduce_nblocks(total);
  if (nb > 0) {
    if (p.dbl) reduce_stage1<double><<<(unsigned)nb, BF_CUDA_THREADS, 0, s>>>(p);
    else reduce_stage1<int><<<(unsigned)nb, BF_CUDA_THREADS, 0, s>>>(p);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
  }
  reduce_stage2<<<1, BF_CUDA_THREADS, 0, s>>>(p, nb);
  return cudaGetLastError();
}
