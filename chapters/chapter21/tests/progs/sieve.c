/* The primes below 100 in full, then only how many there are below a few
 * larger bounds and the largest (the array Simple allocated is read back). */
#include <stdio.h>
#include "arrays.h"

struct u32s *sieve(long n);

int main(void) {
    struct u32s *p = sieve(100);
    printf("below 100:");
    for (unsigned i = 0; i < p->len; i++) printf(" %u", p->at[i]);
    printf("\n");
    long bounds[] = {2, 3, 10, 1000, 100000};
    for (int b = 0; b < 5; b++) {
        p = sieve(bounds[b]);
        printf("below %ld: %u primes, largest %u\n", bounds[b], p->len,
               p->len ? p->at[p->len - 1] : 0);
    }
    return 0;
}
