/* Private: PODVector helpers shared by podvec.c and particles/tile.c. */
#ifndef BOXFAB_PODVEC_IMPL_H
#define BOXFAB_PODVEC_IMPL_H

#include "boxfab/particles.h"

/* Copy nbytes between memory of two arenas (any kinds; host-only and
 * device-only memory through the backend's mem_copy). */
int bf_pod_copy(bf_arena *dst_arena, void *dst, const bf_arena *src_arena, const void *src, size_t nbytes);
/* Set n elements of esz bytes at dst (memory of `a`) to *value (NULL: zero). */
int bf_pod_fill(bf_arena *a, void *dst, size_t esz, int64_t n, const void *value);
/* Exchange the storage (size, capacity, buffer, arena) of two vectors. */
void bf_podvec_swap_storage(bf_podvec *a, bf_podvec *b);
/* Take buf (at least cap elements; the caller's reference passes to the
 * vector) as the storage of an empty vector. */
void bf_podvec_adopt(bf_podvec *v, bf_buffer *buf, int64_t cap);
/* An empty tile like proto (layout, components, names), vectors in arena. */
int bf_ptile_create_like(const bf_ptile *proto, bf_arena *arena, bf_ptile **out);
/* Set the size without touching memory (n <= capacity). */
void bf_podvec_set_size_raw(bf_podvec *v, int64_t n);
/* Resize every vector of tile t to n without writing the new elements (the
 * caller writes each of them before anyone reads): reserves first, so a
 * failure changes nothing. */
int bf_ptile_resize_raw(bf_ptile *t, int64_t n);
/* Append the first m particles of src to dst (bf_ptile_append of a prefix). */
int bf_ptile_append_n(bf_ptile *dst, const bf_ptile *src, int64_t m);
/* A tile of a particle container is "owned": the public component functions
 * (add_comps, rename_comps, set_*_comp_name) refuse it with BF_ERROR_VALUE,
 * so that all tiles of a container keep the same components; the container
 * uses the unchecked forms. */
void bf_ptile_set_owned(bf_ptile *t, bool owned);
int bf_ptile_add_comps_unchecked(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                                 const char *const *int_names);
int bf_ptile_rename_comps_unchecked(bf_ptile *t, int nreal, const char *const *real_names, int nint,
                                    const char *const *int_names);
int bf_ptile_set_real_comp_name_unchecked(bf_ptile *t, int comp, const char *name);
int bf_ptile_set_int_comp_name_unchecked(bf_ptile *t, int comp, const char *name);

#endif
