/* The C twin of chapter 21's sort.smp, for `benches/runtime.rs`: a
 * top-down merge sort of an int[] (64-bit), with a scratch array of the
 * same length from calloc (left allocated, as Simple's `new` leaves it),
 * the two arrays swapping roles at each level of the recursion. */
#include <stdlib.h>

struct longs { unsigned len; unsigned pad; long at[]; };

static void copy_array(const long *a, long begin, long end, long *b) {
    for (long k = begin; k < end; k++) b[k] = a[k];
}

/* Merges a[begin, middle) and a[middle, end) into b[begin, end). */
static void merge(long *b, long begin, long middle, long end, const long *a) {
    long i = begin, j = middle;
    for (long k = begin; k < end; k++) {
        if (i < middle && (j >= end || a[i] <= a[j]))
            b[k] = a[i++];
        else
            b[k] = a[j++];
    }
}

/* Sorts b[begin, end), using a (which holds the same values) as the
 * source of the final merge. */
static void split_merge(long *b, long begin, long end, long *a) {
    if (end - begin <= 1) return;
    long middle = (end + begin) / 2;
    split_merge(a, begin, middle, b);
    split_merge(a, middle, end, b);
    merge(b, begin, middle, end, a);
}

void merge_sort(struct longs *a) {
    struct longs *b = calloc(1, 8 + 8 * (size_t)a->len);
    b->len = a->len;
    copy_array(a->at, 0, a->len, b->at);
    split_merge(a->at, 0, a->len, b->at);
}
