/* CUDA backend, private: the host images that the particle kernels upload in
 * one copy (cuda/particles.cu, cuda/psort.cu).  An image is a growing host
 * buffer: append bytes, get their offset; packed_loc packs a locator's level
 * tables (src/core/particles/locate.h) into one and, once the image has a device copy, makes
 * the device locator whose pointers point into that copy. */
#ifndef BOXFAB_CUDA_PIMAGE_CUH
#define BOXFAB_CUDA_PIMAGE_CUH

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "particles/locate.h"

namespace bf_cuda_pimage {

/* the levels a locator may have on the device */
constexpr int kMaxLevels = 64;

/* A host image being packed: append bytes (16-byte aligned), get their offset. */
struct image {
  char *h = nullptr;
  size_t n = 0, cap = 0;
  bool bad = false;
  size_t add(const void *src, size_t bytes) {
    size_t off = (n + 15) / 16 * 16;
    if (off + bytes > cap) {
      size_t nc = cap ? cap : 4096;
      while (nc < off + bytes) nc *= 2;
      char *p = (char *)realloc(h, nc);
      if (!p) {
        bad = true;
        return 0;
      }
      h = p, cap = nc;
    }
    if (bytes) {
      if (src) memcpy(h + off, src, bytes);
      else memset(h + off, 0, bytes);
    }
    n = off + bytes;
    return off;
  }
  ~image() { free(h); }
};

/* The locator tables of levels 0..lev_max packed into an image (offsets
 * recorded), to be pointed at the device copy with fix(). */
struct packed_loc {
  int nlev = 0;
  bf_ploc_level levs[kMaxLevels];
  size_t bs[kMaxLevels], bg[kMaxLevels], be[kMaxLevels], gr[kMaxLevels];
  size_t levs_off = 0;
  bool pack(image &im, const bf_plocate *loc) {
    nlev = loc->lev_max + 1;
    if (nlev > kMaxLevels) return false;
    for (int l = 0; l < nlev; ++l) {
      const bf_ploc_level *L = &loc->levels[l];
      levs[l] = *L;
      int64_t nb = (int64_t)L->nbins[0] * L->nbins[1] * L->nbins[2];
      int64_t ng = L->bin_start && nb > 0 ? L->bin_start[nb] : 0;
      bs[l] = L->bin_start ? im.add(L->bin_start, (size_t)(nb + 1) * sizeof(int64_t)) : 0;
      bg[l] = L->bin_grid && ng > 0 ? im.add(L->bin_grid, (size_t)ng * sizeof(int32_t)) : 0;
      be[l] = L->bin_exact && nb > 0 ? im.add(L->bin_exact, (size_t)nb * sizeof(int32_t)) : 0;
      gr[l] = L->grids && L->ngrids > 0 ? im.add(L->grids, (size_t)L->ngrids * sizeof(bf_ploc_grid)) : 0;
    }
    levs_off = im.add(nullptr, (size_t)nlev * sizeof(bf_ploc_level));
    return !im.bad;
  }
  /* write the level table with device pointers (d = device copy of the image) into the image; the device locator */
  bf_plocate fix(image &im, const bf_plocate *loc, char *d) {
    bf_ploc_level *hl = (bf_ploc_level *)(im.h + levs_off);
    for (int l = 0; l < nlev; ++l) {
      hl[l] = levs[l];
      hl[l].bin_start = levs[l].bin_start ? (const int64_t *)(d + bs[l]) : nullptr;
      hl[l].bin_grid = levs[l].bin_grid ? (const int32_t *)(d + bg[l]) : nullptr;
      hl[l].bin_exact = levs[l].bin_exact ? (const int32_t *)(d + be[l]) : nullptr;
      hl[l].grids = levs[l].grids ? (const bf_ploc_grid *)(d + gr[l]) : nullptr;
    }
    bf_plocate dl = *loc;
    dl.levels = (const bf_ploc_level *)(d + levs_off);
    return dl;
  }
};

}  // namespace bf_cuda_pimage

#endif
