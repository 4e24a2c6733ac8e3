/* brain_fuck() returns the text its Brainfuck program printed. */
#include <stdio.h>
#include "arrays.h"

struct u8s *brain_fuck(void);

int main(void) {
    struct u8s *out = brain_fuck();
    fwrite(out->at, 1, out->len, stdout);
    printf("(%u bytes)\n", out->len);
    return 0;
}
