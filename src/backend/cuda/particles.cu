/* CUDA backend: the particle kernels (the table's bf_backend_particles; the
 * contract is in backend.h).  The locator, the periodic wrap and the random
 * coordinates come from src/core/particles/locate.h, shared with the CPU backend, so that both
 * give the same dest codes, positions and random numbers bit for bit.
 *
 * Argument structs and index arrays arrive in host memory: each call packs
 * what its kernel needs (locator tables, part and op descriptors, indices)
 * into one host image, uploads it with one copy on boxfab's stream into
 * stream-ordered scratch, launches one kernel over all parts or ops (a block
 * finds its part by binary search in a table of first blocks), and waits.
 * dest arrays (host memory) are uploaded / downloaded as one block when the
 * parts' dest arrays lie end to end (the core's layout), else part by part. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boxfab/base.h"
#include "impl.h"
#include "pimage.cuh"
#include "particles/locate.h"

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 30;
constexpr int kMaxHostSrc = 256; /* distinct pageable sources in one p_copy call */

size_t align16(size_t n) { return (n + 15) / 16 * 16; }

/* Can kernels reach ptr (device, managed or pinned memory)?  Pageable host
 * memory cannot be read or written by a kernel. */
bool device_reachable(const void *ptr) {
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type != cudaMemoryTypeUnregistered;
}

using bf_cuda_pimage::image;

/* Block b of a launch: its part (last part whose first block is <= b). */
__device__ int64_t part_of_block(const int64_t *bstart, int64_t nparts, int64_t b) {
  int64_t lo = 0, hi = nparts - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    if (bstart[mid] <= b) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* ---- locate / wrap --------------------------------------------------------------------------------- */

__global__ void __launch_bounds__(kThreads) locate_kernel(bf_plocate loc, const bf_ppart *parts, int64_t nparts,
                                                          const int64_t *bstart, int64_t boff, bool wrap) {
  const int64_t b = boff + (int64_t)blockIdx.x;
  const int64_t k = part_of_block(bstart, nparts, b);
  const bf_ppart *p = &parts[k];
  const int64_t j = (b - bstart[k]) * kThreads + (int64_t)threadIdx.x;
  if (wrap) {
    if (j >= (p->list ? p->nlist : p->n)) return;
    bf_pwrap_particle(&loc, p, p->list ? p->list[j] : j);
  } else {
    if (j >= p->n) return;
    p->dest[j] = bf_plocate_particle(&loc, p, j);
  }
}

using bf_cuda_pimage::packed_loc;

/* Locate (wrap = false) or wrap (true) on the device. */
int locate_run(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts, bool wrap) {
  const char *what = wrap ? "particle wrap kernel" : "particle locate kernel";
  if (nparts <= 0) return 0;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  image im;
  packed_loc pl;
  if (!pl.pack(im, loc)) return bf_error_set(BF_ERROR_MEMORY, what, "%s: cannot pack the locator", what);
  size_t parts_off = im.add(nullptr, (size_t)nparts * sizeof(bf_ppart));
  size_t bs_off = im.add(nullptr, (size_t)(nparts + 1) * sizeof(int64_t));
  /* dest codes: one block (n per part); wrap lists go up too */
  int64_t ntot = 0, nlist = 0;
  bool contiguous = true;
  for (int64_t k = 0; k < nparts; ++k) {
    if (parts[k].dest != parts[0].dest + ntot) contiguous = false;
    ntot += parts[k].n;
    if (wrap && parts[k].list) nlist += parts[k].nlist;
  }
  size_t list_off = im.add(nullptr, (size_t)(nlist > 0 ? nlist : 1) * sizeof(int64_t));
  /* dest codes in pinned memory (the core's choice on a GPU): the kernel reads and writes them there */
  const bool direct = contiguous && device_reachable(parts[0].dest);
  size_t dest_off = im.add(nullptr, direct ? 16 : (size_t)(ntot > 0 ? ntot : 1) * sizeof(int32_t));
  if (im.bad) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory for the launch image", what);
  if (wrap) { /* the codes (unless direct) and lists go up with the image */
    int64_t off = 0, loff = 0;
    for (int64_t k = 0; k < nparts; ++k) {
      if (parts[k].n > 0 && !direct) memcpy(im.h + dest_off + off * 4, parts[k].dest, (size_t)parts[k].n * 4);
      off += parts[k].n;
      if (parts[k].list && parts[k].nlist > 0) {
        memcpy(im.h + list_off + loff * 8, parts[k].list, (size_t)parts[k].nlist * 8);
        loff += parts[k].nlist;
      }
    }
  }
  char *d = nullptr;
  cudaError_t e = cudaMallocAsync((void **)&d, im.n, s);
  if (e != cudaSuccess) return bf_cuda_fail(e, what);
  bf_plocate dl = pl.fix(im, loc, d);
  bf_ppart *hp = (bf_ppart *)(im.h + parts_off);
  int64_t *bs = (int64_t *)(im.h + bs_off);
  bs[0] = 0;
  int64_t off = 0, loff = 0;
  for (int64_t k = 0; k < nparts; ++k) {
    hp[k] = parts[k];
    hp[k].dest = direct ? parts[k].dest : (int32_t *)(d + dest_off) + off;
    off += parts[k].n;
    int64_t items = parts[k].n;
    if (wrap && parts[k].list) {
      hp[k].list = (const int64_t *)(d + list_off) + loff;
      loff += parts[k].nlist;
      items = parts[k].nlist;
    } else {
      hp[k].list = nullptr;
    }
    bs[k + 1] = bs[k] + (items + kThreads - 1) / kThreads;
  }
  const int64_t nblocks = bs[nparts];
  /* wrap: the whole image; locate: all but the dest block (the last one) */
  e = cudaMemcpyAsync(d, im.h, wrap ? im.n : dest_off, cudaMemcpyHostToDevice, s);
  for (int64_t b0 = 0; e == cudaSuccess && b0 < nblocks; b0 += kMaxBlocks) {
    const int64_t nb = nblocks - b0 < kMaxBlocks ? nblocks - b0 : kMaxBlocks;
    locate_kernel<<<(unsigned)nb, kThreads, 0, s>>>(dl, (const bf_ppart *)(d + parts_off), nparts,
                                                    (const int64_t *)(d + bs_off), b0, wrap);
    e = cudaGetLastError();
  }
  if (!wrap && !direct && e == cudaSuccess && ntot > 0) {
    if (contiguous) e = cudaMemcpyAsync(parts[0].dest, d + dest_off, (size_t)ntot * 4, cudaMemcpyDeviceToHost, s);
    else {
      off = 0;
      for (int64_t k = 0; e == cudaSuccess && k < nparts; ++k) {
        if (parts[k].n > 0)
          e = cudaMemcpyAsync(parts[k].dest, d + dest_off + off * 4, (size_t)parts[k].n * 4, cudaMemcpyDeviceToHost, s);
        off += parts[k].n;
      }
    }
  }
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  cudaError_t e3 = cudaStreamSynchronize(s); /* the image is in use until here */
  if (e == cudaSuccess) e = e3;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

/* ---- copies ---------------------------------------------------------------------------------------- */

/* One copy op on the device: n items; item k moves `words` 8-byte words (or
 * one 4-byte word when words == 0) from src (or value) to dst, through the
 * index arrays when given. */
struct dop {
  char *dst;
  const char *src;
  const char *value;
  const int64_t *didx, *sidx;
  int64_t n;
  int64_t words; /* 0: 4-byte elements */
  /* a gather by runs (sidx NULL): item k comes from runs[2r] + k - prefix[r],
   * r the run with prefix[r] <= k < prefix[r+1] (nr runs) */
  const int64_t *runs, *prefix;
  int64_t nr;
};

__global__ void __launch_bounds__(kThreads) copy_kernel(const dop *ops, int64_t nops, const int64_t *bstart,
                                                        int64_t boff) {
  const int64_t b = boff + (int64_t)blockIdx.x;
  const int64_t o = part_of_block(bstart, nops, b);
  const dop op = ops[o];
  const int64_t k = (b - bstart[o]) * kThreads + (int64_t)threadIdx.x;
  if (k >= op.n) return;
  const int64_t di = op.didx ? op.didx[k] : k;
  int64_t si = k;
  if (op.sidx) si = op.sidx[k];
  else if (op.runs) {
    int64_t lo = 0, hi = op.nr - 1;
    while (lo < hi) {
      const int64_t mid = (lo + hi + 1) / 2;
      if (op.prefix[mid] <= k) lo = mid;
      else hi = mid - 1;
    }
    si = op.runs[2 * lo] + (k - op.prefix[lo]);
  }
  if (op.words == 0) {
    uint32_t v = op.value ? *(const uint32_t *)op.value : ((const uint32_t *)op.src)[si];
    ((uint32_t *)op.dst)[di] = v;
    return;
  }
  uint64_t *dw = (uint64_t *)op.dst + di * op.words;
  const uint64_t *sw = op.value ? (const uint64_t *)op.value : (const uint64_t *)op.src + si * op.words;
  for (int64_t w = 0; w < op.words; ++w) dw[w] = sw[w];
}

int launch_copies(const dop *d_ops, int64_t nops, const int64_t *h_bs, const int64_t *d_bs, cudaStream_t s) {
  const int64_t nblocks = h_bs[nops];
  cudaError_t e = cudaSuccess;
  for (int64_t b0 = 0; e == cudaSuccess && b0 < nblocks; b0 += kMaxBlocks) {
    const int64_t nb = nblocks - b0 < kMaxBlocks ? nblocks - b0 : kMaxBlocks;
    copy_kernel<<<(unsigned)nb, kThreads, 0, s>>>(d_ops, nops, d_bs, b0);
    e = cudaGetLastError();
  }
  return (int)e;
}

/* The copies.  Indexed and fill ops run as they are (indices uploaded).  A
 * run op (movers to dst2, then stable in-place compaction of dst) becomes,
 * in phase 1, the movers' gather (dst2 is distinct from src) and a gather of
 * the stays that move (from the first run not already in place) into
 * scratch, and in phase 2 a contiguous copy from scratch back into dst: no
 * phase-2 write lands before every phase-1 read is done. */
int copy_run(int64_t nops, const bf_pcopy *ops) {
  const char *what = "particle copy kernel";
  if (nops <= 0) return 0;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  image im;
  struct pending {
    size_t didx_off, sidx_off, value_off, scratch_off, src_off;
    bool has_didx, has_sidx, has_value, has_src, src_known, src_host;
    int64_t n;  /* items of the op's main phase-1 copy */
    int64_t w0; /* run ops: first destination element that moves */
    int64_t nr; /* run ops: runs that move (at src_off; their prefix at value_off) */
  };
  pending *pd = (pending *)calloc((size_t)nops, sizeof(pending));
  if (!pd) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  size_t scratch = 0;
  int64_t nextra = 0; /* run ops: their movers' gathers (phase 1) and copy-backs (phase 2) */
  struct host_src {
    const void *ptr;
    size_t bytes, off;
  } hosts[kMaxHostSrc];
  int64_t nhost = 0;
  for (int64_t o = 0; o < nops && !im.bad; ++o) {
    const bf_pcopy *op = &ops[o];
    pending *p = &pd[o];
    if (op->elem % 8 != 0 && op->elem != 4) {
      free(pd);
      return bf_error_set(BF_ERROR_VALUE, what, "%s: element size %zu not supported", what, op->elem);
    }
    if (op->runs) {
      /* the vectors of one tile share their movers' indices and runs (consecutive ops): uploaded once */
      const bf_pcopy *prev = o > 0 && ops[o - 1].runs ? &ops[o - 1] : nullptr;
      if (op->n2 > 0) {
        if (prev && prev->n2 == op->n2 && prev->didx == op->didx && prev->sidx == op->sidx) {
          p->didx_off = pd[o - 1].didx_off, p->sidx_off = pd[o - 1].sidx_off;
        } else {
          p->didx_off = im.add(op->didx, (size_t)op->n2 * 8);
          p->sidx_off = im.add(op->sidx, (size_t)op->n2 * 8);
        }
        p->has_didx = true;
        ++nextra;
      }
      if (prev && prev->runs == op->runs && prev->n == op->n && prev->dst == prev->src && op->dst == op->src) {
        p->w0 = pd[o - 1].w0, p->n = pd[o - 1].n, p->nr = pd[o - 1].nr;
        p->src_off = pd[o - 1].src_off, p->value_off = pd[o - 1].value_off;
      } else {
        int64_t r = 0, w = 0, count = 0;
        while (r < op->n && op->runs[2 * r] == w && op->dst == op->src) w += op->runs[2 * r + 1], ++r;
        p->w0 = w;
        p->nr = op->n - r;
        if (p->nr > 0) {
          p->src_off = im.add(op->runs + 2 * r, (size_t)p->nr * 16); /* the runs that move */
          p->value_off = im.add(nullptr, (size_t)(p->nr + 1) * 8);   /* their prefix */
          if (im.bad) break;
          int64_t *pre = (int64_t *)(im.h + p->value_off);
          for (int64_t q = 0; q < p->nr; ++q) pre[q] = count, count += op->runs[2 * (r + q) + 1];
          pre[p->nr] = count;
        }
        p->n = count;
      }
      if (p->n > 0) {
        p->scratch_off = scratch;
        scratch += align16((size_t)p->n * op->elem);
        ++nextra;
      }
      continue;
    }
    p->n = op->n;
    /* (the destination is memory of this table's kind, as the contract says; a source may be the
     * core's staging in pageable host memory: classified once per distinct pointer, uploaded below
     * once per distinct pointer with the largest extent any op reads) */
    if (!op->value && op->src) {
      if (o > 0 && pd[o - 1].src_known && ops[o - 1].src == op->src) p->src_host = pd[o - 1].src_host;
      else {
        int64_t h = -1;
        for (int64_t q = 0; q < nhost && h < 0; ++q)
          if (hosts[q].ptr == op->src) h = q;
        if (h < 0 && !device_reachable(op->src)) {
          if (nhost == kMaxHostSrc) {
            free(pd);
            return bf_error_set(BF_ERROR_VALUE, what, "%s: more than %d distinct host sources in one call", what,
                                kMaxHostSrc);
          }
          hosts[nhost].ptr = op->src, hosts[nhost].bytes = 0, h = nhost++;
        }
        p->src_host = h >= 0;
      }
      p->src_known = true;
      if (p->src_host && op->n > 0) {
        int64_t ext = op->n;
        if (op->sidx) {
          ext = 0;
          for (int64_t k = 0; k < op->n; ++k)
            if (op->sidx[k] + 1 > ext) ext = op->sidx[k] + 1;
        }
        for (int64_t q = 0; q < nhost; ++q)
          if (hosts[q].ptr == op->src && hosts[q].bytes < (size_t)ext * op->elem) hosts[q].bytes = (size_t)ext * op->elem;
        p->has_src = true;
      }
    }
    if (op->value) p->has_value = true, p->value_off = im.add(op->value, op->elem);
    if (op->didx && op->n > 0 && !op->value) p->has_didx = true, p->didx_off = im.add(op->didx, (size_t)op->n * 8);
    if (op->sidx && op->n > 0 && !op->value) p->has_sidx = true, p->sidx_off = im.add(op->sidx, (size_t)op->n * 8);
  }
  for (int64_t q = 0; q < nhost; ++q) hosts[q].off = hosts[q].bytes ? im.add(hosts[q].ptr, hosts[q].bytes) : 0;
  const int64_t n1 = nops + nextra;
  size_t ops1_off = im.add(nullptr, (size_t)n1 * sizeof(dop));
  size_t bs1_off = im.add(nullptr, (size_t)(n1 + 1) * sizeof(int64_t));
  size_t ops2_off = im.add(nullptr, (size_t)(nextra > 0 ? nextra : 1) * sizeof(dop));
  size_t bs2_off = im.add(nullptr, (size_t)(nextra + 1) * sizeof(int64_t));
  if (im.bad) {
    free(pd);
    return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory for the launch image", what);
  }
  char *d = nullptr;
  const size_t scratch_at = align16(im.n);
  cudaError_t e = cudaMallocAsync((void **)&d, scratch_at + scratch, s);
  if (e != cudaSuccess) {
    free(pd);
    return bf_cuda_fail(e, what);
  }
  dop *h1 = (dop *)(im.h + ops1_off), *h2 = (dop *)(im.h + ops2_off);
  int64_t *bs1 = (int64_t *)(im.h + bs1_off), *bs2 = (int64_t *)(im.h + bs2_off);
  int64_t m1 = 0, m2 = 0;
  bs1[0] = 0, bs2[0] = 0;
  auto push1 = [&](const dop &x) {
    h1[m1] = x;
    bs1[m1 + 1] = bs1[m1] + (x.n + kThreads - 1) / kThreads;
    ++m1;
  };
  auto push2 = [&](const dop &x) {
    h2[m2] = x;
    bs2[m2 + 1] = bs2[m2] + (x.n + kThreads - 1) / kThreads;
    ++m2;
  };
  for (int64_t o = 0; o < nops; ++o) {
    const bf_pcopy *op = &ops[o];
    const pending *p = &pd[o];
    dop x;
    memset(&x, 0, sizeof x);
    x.words = op->elem == 4 ? 0 : (int64_t)(op->elem / 8);
    if (op->runs) {
      if (op->n2 > 0) { /* the movers: dst2[didx[k]] = src[sidx[k]] */
        dop m = x;
        m.n = op->n2;
        m.dst = (char *)op->dst2;
        m.src = (const char *)op->src;
        m.didx = (const int64_t *)(d + p->didx_off);
        m.sidx = (const int64_t *)(d + p->sidx_off);
        push1(m);
      }
      if (p->n > 0) { /* the stays that move: gather into scratch, then copy back */
        dop g = x;
        g.n = p->n;
        g.dst = d + scratch_at + p->scratch_off;
        g.src = (const char *)op->src;
        g.runs = (const int64_t *)(d + p->src_off);
        g.prefix = (const int64_t *)(d + p->value_off);
        g.nr = p->nr;
        push1(g);
        dop y = x;
        y.n = p->n;
        y.dst = (char *)op->dst + (size_t)p->w0 * op->elem;
        y.src = g.dst;
        push2(y);
      }
      continue;
    }
    x.n = p->n;
    x.dst = (char *)op->dst;
    size_t soff = 0;
    for (int64_t q = 0; p->has_src && q < nhost; ++q)
      if (hosts[q].ptr == op->src) soff = hosts[q].off;
    x.src = p->has_src ? d + soff : (const char *)op->src;
    x.value = p->has_value ? d + p->value_off : nullptr;
    x.didx = p->has_didx ? (const int64_t *)(d + p->didx_off) : nullptr;
    x.sidx = p->has_sidx ? (const int64_t *)(d + p->sidx_off) : nullptr;
    push1(x);
  }
  free(pd);
  e = cudaMemcpyAsync(d, im.h, im.n, cudaMemcpyHostToDevice, s);
  if (e == cudaSuccess && m1 > 0)
    e = (cudaError_t)launch_copies((const dop *)(d + ops1_off), m1, bs1, (const int64_t *)(d + bs1_off), s);
  if (e == cudaSuccess && m2 > 0)
    e = (cudaError_t)launch_copies((const dop *)(d + ops2_off), m2, bs2, (const int64_t *)(d + bs2_off), s);
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  cudaError_t e3 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e3;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

/* ---- random positions ------------------------------------------------------------------------------ */

struct posptrs {
  double *p[3];
};

__global__ void __launch_bounds__(kThreads) random_kernel(bf_prandom r, uint64_t key, int64_t n, posptrs pos,
                                                          int64_t i0) {
  const int64_t i = i0 + (int64_t)blockIdx.x * kThreads + (int64_t)threadIdx.x;
  if (i >= n) return;
  for (int d = 0; d < r.dim; ++d) pos.p[d][i] = random_coord(&r, key, (uint64_t)(r.first + i), d);
}

int random_run(const bf_prandom *r, int64_t n, double *const *pos) {
  const char *what = "particle random kernel";
  if (n <= 0) return 0;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  posptrs pp = {{nullptr, nullptr, nullptr}};
  for (int d = 0; d < r->dim; ++d) pp.p[d] = pos[d];
  cudaError_t e = cudaSuccess;
  const int64_t step = kMaxBlocks * kThreads;
  for (int64_t i0 = 0; e == cudaSuccess && i0 < n; i0 += step) {
    const int64_t m = n - i0 < step ? n - i0 : step;
    random_kernel<<<(unsigned)((m + kThreads - 1) / kThreads), kThreads, 0, s>>>(*r, bf_prng_key(r->seed), n, pp,
                                                                                  i0);
    e = cudaGetLastError();
  }
  cudaError_t e2 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e2;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

/* Dest codes of random particles (p_random_locate): position in registers,
 * located as p_locate does with idcpu NULL and no shortcut. */
__global__ void __launch_bounds__(kThreads) random_locate_kernel(bf_prandom r, uint64_t key, bf_plocate loc,
                                                                 int64_t n, int32_t *dest, int64_t i0) {
  const int64_t i = i0 + (int64_t)blockIdx.x * kThreads + (int64_t)threadIdx.x;
  if (i >= n) return;
  double x[3] = {0, 0, 0};
  for (int d = 0; d < r.dim; ++d) x[d] = random_coord(&r, key, (uint64_t)(r.first + i), d);
  bf_ppart p;
  memset(&p, 0, sizeof p);
  p.n = 1;
  p.pos[0] = &x[0], p.pos[1] = &x[1], p.pos[2] = &x[2];
  p.pstride = 1;
  p.own_slot = -1;
  dest[i] = bf_plocate_particle(&loc, &p, 0);
}

int random_locate_run(const bf_prandom *r, const bf_plocate *loc, int64_t n, int32_t *dest) {
  const char *what = "particle random locate kernel";
  if (n <= 0) return 0;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  image im;
  packed_loc pl;
  if (!pl.pack(im, loc)) return bf_error_set(BF_ERROR_MEMORY, what, "%s: cannot pack the locator", what);
  const size_t dest_off = im.add(nullptr, 16);
  if (im.bad) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory for the launch image", what);
  const bool direct = device_reachable(dest); /* pinned: the kernel writes the codes there */
  char *d = nullptr;
  cudaError_t e = cudaMallocAsync((void **)&d, dest_off + (direct ? 16 : (size_t)n * 4), s);
  if (e != cudaSuccess) return bf_cuda_fail(e, what);
  bf_plocate dl = pl.fix(im, loc, d);
  int32_t *ddest = direct ? dest : (int32_t *)(d + dest_off);
  e = cudaMemcpyAsync(d, im.h, dest_off, cudaMemcpyHostToDevice, s);
  const uint64_t key = bf_prng_key(r->seed);
  const int64_t step = kMaxBlocks * kThreads;
  for (int64_t i0 = 0; e == cudaSuccess && i0 < n; i0 += step) {
    const int64_t m = n - i0 < step ? n - i0 : step;
    random_locate_kernel<<<(unsigned)((m + kThreads - 1) / kThreads), kThreads, 0, s>>>(
        *r, key, dl, n, ddest, i0);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess && !direct) e = cudaMemcpyAsync(dest, d + dest_off, (size_t)n * 4, cudaMemcpyDeviceToHost, s);
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  cudaError_t e3 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e3;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

/* Random particles placed into tiles (p_random_place). */
__global__ void __launch_bounds__(kThreads) random_place_kernel(bf_prandom r, uint64_t key, uint64_t idcpu0,
                                                                const bf_pplace *parts, int64_t nparts,
                                                                const int64_t *bstart, int64_t boff) {
  const int64_t b = boff + (int64_t)blockIdx.x;
  const int64_t k = part_of_block(bstart, nparts, b);
  const bf_pplace *p = &parts[k];
  const int64_t j = (b - bstart[k]) * kThreads + (int64_t)threadIdx.x;
  if (j >= p->n) return;
  const uint64_t i = (uint64_t)p->idx[j];
  for (int d = 0; d < r.dim; ++d) p->pos[d][j * p->pstride] = random_coord(&r, key, (uint64_t)r.first + i, d);
  p->idcpu[j * p->istride] = idcpu0 + (i << 24);
}

int random_place_run(const bf_prandom *r, uint64_t idcpu0, int64_t nparts, const bf_pplace *parts) {
  const char *what = "particle random place kernel";
  if (nparts <= 0) return 0;
  cudaStream_t s = (cudaStream_t)bf_cuda_stream();
  if (!s) return bf_error_set(BF_ERROR_RUNTIME, what, "%s: could not create boxfab's CUDA stream", what);
  image im;
  size_t *idx_off = (size_t *)calloc((size_t)nparts, sizeof(size_t));
  if (!idx_off) return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory", what);
  /* pinned indices, all slices of one array in order (the core's layout): read in place */
  bool direct = nparts > 0 && device_reachable(parts[0].idx);
  for (int64_t k = 0, off = 0; direct && k < nparts; off += parts[k].n, ++k)
    if (parts[k].n > 0 && parts[k].idx != parts[0].idx + off) direct = false;
  for (int64_t k = 0; k < nparts; ++k)
    idx_off[k] = parts[k].n > 0 && !direct ? im.add(parts[k].idx, (size_t)parts[k].n * 8) : 0;
  const size_t parts_off = im.add(nullptr, (size_t)nparts * sizeof(bf_pplace));
  const size_t bs_off = im.add(nullptr, (size_t)(nparts + 1) * sizeof(int64_t));
  if (im.bad) {
    free(idx_off);
    return bf_error_set(BF_ERROR_MEMORY, what, "%s: out of host memory for the launch image", what);
  }
  char *d = nullptr;
  cudaError_t e = cudaMallocAsync((void **)&d, im.n, s);
  if (e != cudaSuccess) {
    free(idx_off);
    return bf_cuda_fail(e, what);
  }
  bf_pplace *hp = (bf_pplace *)(im.h + parts_off);
  int64_t *bs = (int64_t *)(im.h + bs_off);
  bs[0] = 0;
  for (int64_t k = 0; k < nparts; ++k) {
    hp[k] = parts[k];
    hp[k].idx = direct ? parts[k].idx : (const int64_t *)(d + idx_off[k]);
    bs[k + 1] = bs[k] + (parts[k].n + kThreads - 1) / kThreads;
  }
  free(idx_off);
  const int64_t nblocks = bs[nparts];
  const uint64_t key = bf_prng_key(r->seed);
  e = cudaMemcpyAsync(d, im.h, im.n, cudaMemcpyHostToDevice, s);
  for (int64_t b0 = 0; e == cudaSuccess && b0 < nblocks; b0 += kMaxBlocks) {
    const int64_t nb = nblocks - b0 < kMaxBlocks ? nblocks - b0 : kMaxBlocks;
    random_place_kernel<<<(unsigned)nb, kThreads, 0, s>>>(*r, key, idcpu0, (const bf_pplace *)(d + parts_off), nparts,
                                                          (const int64_t *)(d + bs_off), b0);
    e = cudaGetLastError();
  }
  cudaError_t e2 = cudaFreeAsync(d, s);
  if (e == cudaSuccess) e = e2;
  cudaError_t e3 = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = e3;
  return e == cudaSuccess ? 0 : bf_cuda_fail(e, what);
}

} // namespace

extern "C" int bf_cuda_p_locate(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts) {
  return locate_run(loc, nparts, parts, false);
}
extern "C" int bf_cuda_p_wrap(const bf_plocate *loc, int64_t nparts, const bf_ppart *parts) {
  return locate_run(loc, nparts, parts, true);
}
extern "C" int bf_cuda_p_copy(int64_t nops, const bf_pcopy *ops) { return copy_run(nops, ops); }
extern "C" int bf_cuda_p_random(const bf_prandom *r, int64_t n, double *const *pos) { return random_run(r, n, pos); }
extern "C" int bf_cuda_p_random_locate(const bf_prandom *r, const bf_plocate *loc, int64_t n, int32_t *dest) {
  return random_locate_run(r, loc, n, dest);
}
extern "C" int bf_cuda_p_random_place(const bf_prandom *r, uint64_t idcpu0, int64_t nparts, const bf_pplace *parts) {
  return random_place_run(r, idcpu0, nparts, parts);
}
