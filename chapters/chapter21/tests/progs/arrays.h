/* How Simple lays out its arrays: a 32-bit length first, then the
 * elements; elements of fewer than 8 bytes start right after the length
 * (offset 4), 8-byte ones at offset 8 so that they stay aligned. */
#include <stdlib.h>

struct u8s { unsigned len; unsigned char at[]; };
struct u32s { unsigned len; unsigned at[]; };
struct longs { unsigned len; unsigned pad; long at[]; };
struct ptrs { unsigned len; unsigned pad; void *at[]; };

/* Arrays the harness hands to Simple, zeroed as Simple's `new` would. */
static inline struct longs *new_longs(unsigned n) {
    struct longs *a = calloc(1, 8 + 8 * (size_t)n);
    a->len = n;
    return a;
}
static inline struct ptrs *new_ptrs(unsigned n) {
    struct ptrs *a = calloc(1, 8 + 8 * (size_t)n);
    a->len = n;
    return a;
}
static inline struct u8s *new_u8s(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    struct u8s *a = calloc(1, 4 + n);
    a->len = (unsigned)n;
    for (size_t i = 0; i < n; i++) a->at[i] = (unsigned char)s[i];
    return a;
}
