/* A program whose top level returns a u8[]: prints its bytes. */
#include <stdio.h>
#include "arrays.h"

struct u8s *simple_main(long arg);

int main(void) {
    struct u8s *out = simple_main(0);
    fwrite(out->at, 1, out->len, stdout);
    return 0;
}
