/* Newton's square roots, printed as the bits of the double so that the
 * test compares them exactly (no rounding by printf). */
#include <stdio.h>
#include <string.h>

double test_sqrt(double x);

int main(void) {
    double xs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 0.25, 1e-4, 123456.789};
    for (int i = 0; i < 12; i++) {
        double r = test_sqrt(xs[i]);
        unsigned long bits;
        memcpy(&bits, &r, 8);
        printf("%016lx\n", bits);
    }
    return 0;
}
