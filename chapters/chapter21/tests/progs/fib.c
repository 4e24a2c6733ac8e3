/* fib(n) for n from 0 to 90: the last ones need all 64 bits. */
#include <stdio.h>

long fib(long n);

int main(void) {
    for (long n = 0; n <= 90; n += (n < 20 ? 1 : 10))
        printf("fib(%ld) = %ld\n", n, fib(n));
    return 0;
}
