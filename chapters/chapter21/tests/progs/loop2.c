/* loop2 is all top level: its code is simple_main. */
#include <stdio.h>

long simple_main(long arg);

int main(void) {
    printf("%ld\n", simple_main(0));
    return 0;
}
