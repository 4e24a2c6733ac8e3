/* The C twin of chapter 21's sieve.smp, for `benches/runtime.rs`: the
 * same sieve of Eratosthenes over a bool[] of N, the primes gathered in a
 * u32[] of N/2, then copied into a u32[] of exactly their number. Simple
 * has no `free`, so neither does this: the arrays come from calloc as
 * Simple's `new` does and are left allocated, to give the allocator the
 * same work on both sides. */
#include <stdlib.h>

struct u8s { unsigned len; unsigned char at[]; };
struct u32s { unsigned len; unsigned at[]; };

struct u32s *sieve(long n) {
    struct u8s *ary = calloc(1, 4 + (size_t)n);
    ary->len = (unsigned)n;
    struct u32s *primes = calloc(1, 4 + 4 * (size_t)(n >> 1));
    primes->len = (unsigned)(n >> 1);
    long nprimes = 0, p = 2;
    while (p * p < n) {
        while (ary->at[p]) p++;
        primes->at[nprimes++] = (unsigned)p;
        for (long i = p + p; i < ary->len; i += p) ary->at[i] = 1;
        p++;
    }
    for (; p < n; p++)
        if (!ary->at[p]) primes->at[nprimes++] = (unsigned)p;
    struct u32s *rez = calloc(1, 4 + 4 * (size_t)nprimes);
    rez->len = (unsigned)nprimes;
    for (long j = 0; j < nprimes; j++) rez->at[j] = primes->at[j];
    return rez;
}
