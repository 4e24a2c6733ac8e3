/* Twenty arguments, ints and doubles alternating: past the argument
 * registers of every CPU, so some go on the stack. Each value is a small
 * power of two, so the sum is exact and shows a missing or misplaced one. */
#include <stdio.h>

double addAll(long i0, double f1, long i2, double f3, long i4, double f5,
              long i6, double f7, long i8, double f9, long i10, double f11,
              long i12, double f13, long i14, double f15, long i16,
              double f17, long i18, double f19);

int main(void) {
    printf("%.1f\n", addAll(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048,
                            4096, 8192, 16384, 32768, 65536, 131072, 262144,
                            524288));
    printf("%.4f\n", addAll(-1, 0.5, -2, 0.25, -3, 0.125, -4, 0.0625, -5,
                            0.03125, -6, 0.015625, -7, 0.0078125, -8,
                            0.00390625, -9, 0.001953125, -10, 0.0009765625));
    return 0;
}
