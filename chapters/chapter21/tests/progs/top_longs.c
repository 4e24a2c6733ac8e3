/* A program whose top level returns an int[] for its argument: prints it
 * for a few arguments. */
#include <stdio.h>
#include "arrays.h"

struct longs *simple_main(long arg);

int main(void) {
    long args[] = {0, 1, 2, 11, 100};
    for (int i = 0; i < 5; i++) {
        struct longs *a = simple_main(args[i]);
        printf("%ld:", args[i]);
        for (unsigned j = 0; j < a->len; j++) printf(" %ld", a->at[j]);
        printf("\n");
    }
    return 0;
}
