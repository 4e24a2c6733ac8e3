/* Strings made in C, hashed and compared by Simple. The hash is cached in
 * the struct, so it is printed from there too. `cs` is not nullable in
 * Simple (the compiler drops the null test), so the empty string stands in
 * for the hash that comes out 0. */
#include <stdio.h>
#include "arrays.h"

struct String { struct u8s *cs; long hash; };

long equals(struct String *a, struct String *b);
long hashCode(struct String *s);

int main(void) {
    struct String s[5] = {
        {new_u8s("hello"), 0},
        {new_u8s("hello"), 0},
        {new_u8s("world"), 0},
        {new_u8s(""), 0},
        {new_u8s("The quick brown fox jumps over the lazy dog"), 0},
    };
    for (int i = 0; i < 5; i++) {
        long h = hashCode(&s[i]);
        printf("hash %d = %ld (cached %ld, again %ld)\n", i, h, s[i].hash, hashCode(&s[i]));
    }
    printf("equals: %ld %ld %ld %ld\n", equals(&s[0], &s[0]), equals(&s[0], &s[1]),
           equals(&s[0], &s[2]), equals(&s[2], &s[4]));
    return 0;
}
