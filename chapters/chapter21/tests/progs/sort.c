/* Sorts arrays made in C: scrambled, already sorted, with duplicates and
 * negative numbers, of one element and empty. */
#include <stdio.h>
#include "arrays.h"

void merge_sort(struct longs *a);

static void show(const char *what, struct longs *a) {
    merge_sort(a);
    printf("%s:", what);
    for (unsigned i = 0; i < a->len; i++) printf(" %ld", a->at[i]);
    printf("\n");
}

int main(void) {
    struct longs *a = new_longs(20);
    /* 7 is coprime to 20: i*7 mod 20 visits every value once. */
    for (unsigned i = 0; i < 20; i++) a->at[i] = (long)(i * 7 % 20) - 5;
    show("scrambled", a);
    show("sorted", a);
    a = new_longs(9);
    long dups[] = {3, -1, 3, 1L << 40, 0, -1, 7, -(1L << 40), 3};
    for (unsigned i = 0; i < 9; i++) a->at[i] = dups[i];
    show("duplicates", a);
    a = new_longs(1);
    a->at[0] = 42;
    show("one", a);
    show("empty", new_longs(0));
    return 0;
}
