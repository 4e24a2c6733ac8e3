/* The C twin of chapter 21's fib.smp, for `benches/runtime.rs`: the
 * iterative Fibonacci loop, f1 = f2 = 1 and n - 1 steps. */
long fib(long n) {
    long f1 = 1, f2 = 1;
    while (n-- > 1) {
        long temp = f1 + f2;
        f1 = f2;
        f2 = temp;
    }
    return f2;
}
