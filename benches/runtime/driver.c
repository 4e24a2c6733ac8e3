/* The timing driver of `benches/runtime.rs`: calls one program's function
 * in a loop and prints the nanoseconds per call of each repetition, then
 * a checksum of what the calls computed. The same driver is linked with
 * the object chapter 21 wrote and with the C twin gcc -O2 compiled, so
 * the two differ only in the code under test.
 *
 * Build with one of -DPROG_SIEVE, -DPROG_FIB, -DPROG_SORT; run as
 * `driver REPS CALLS`. Output: one line `rep NS` per repetition (the
 * median is the benchmark's), then `checksum N`. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Simple's array layout: a 32-bit length, then the elements; 8-byte
 * elements start at offset 8. */
struct u32s { unsigned len; unsigned at[]; };
struct longs { unsigned len; unsigned pad; long at[]; };

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Each program: `one(i)` makes call number i and returns the time it
 * took in ns (only the call is timed), adding what it computed to the
 * checksum. */
static unsigned long checksum = 0;

#if defined(PROG_SIEVE)
/* The primes below N, as a fresh u32[]. */
struct u32s *sieve(long n);
#define SIEVE_N 1000000L
static long one(long i) {
    (void)i;
    long t0 = now_ns();
    struct u32s *p = sieve(SIEVE_N);
    long t1 = now_ns();
    unsigned long sum = p->len;
    for (unsigned k = 0; k < p->len; k++) sum = sum * 31 + p->at[k];
    checksum += sum;
    return t1 - t0;
}
#elif defined(PROG_FIB)
/* Iterative Fibonacci; fib(90) still fits in 64 bits. Far too quick to
 * time one call: a batch of FIB_BATCH calls is timed and divided. */
long fib(long n);
#define FIB_N 90L
#define FIB_BATCH 100000L
static long one(long i) {
    (void)i;
    unsigned long sum = 0;
    long t0 = now_ns();
    for (long k = 0; k < FIB_BATCH; k++) sum += (unsigned long)fib(FIB_N);
    long t1 = now_ns();
    checksum += sum;
    return (t1 - t0) / FIB_BATCH;
}
#elif defined(PROG_SORT)
/* Top-down merge sort of an int[] in place. Every call sorts the same
 * SORT_N pseudo-random numbers, refilled (untimed) before the call. */
void merge_sort(struct longs *a);
#define SORT_N 100000u
static struct longs *data;
static long one(long i) {
    (void)i;
    if (!data) {
        data = calloc(1, 8 + 8 * (size_t)SORT_N);
        data->len = SORT_N;
    }
    unsigned long x = 42;
    for (unsigned k = 0; k < SORT_N; k++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        data->at[k] = (long)(x >> 33);
    }
    long t0 = now_ns();
    merge_sort(data);
    long t1 = now_ns();
    unsigned long sum = 0;
    for (unsigned k = 0; k < SORT_N; k++) {
        if (k > 0 && data->at[k - 1] > data->at[k]) {
            fprintf(stderr, "not sorted at %u\n", k);
            exit(1);
        }
        sum = sum * 31 + (unsigned long)data->at[k];
    }
    checksum += sum;
    return t1 - t0;
}
#else
#error "build with -DPROG_SIEVE, -DPROG_FIB or -DPROG_SORT"
#endif

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s REPS CALLS\n", argv[0]);
        return 2;
    }
    long reps = strtol(argv[1], 0, 10), calls = strtol(argv[2], 0, 10);
    /* One untimed call first: page in the code and the allocator. */
    one(-1);
    checksum = 0;
    for (long r = 0; r < reps; r++) {
        long total = 0;
        for (long c = 0; c < calls; c++) total += one(c);
        printf("rep %ld\n", total / calls);
    }
    printf("checksum %lu\n", checksum);
    return 0;
}
