/* fcn(ps, i) has a birthday for the person at ps[i], when there is one:
 * the null slots must be left alone. */
#include <stdio.h>
#include "arrays.h"

struct Person { long age; };

void fcn(struct ptrs *ps, long i);

int main(void) {
    struct ptrs *ps = new_ptrs(5);
    struct Person people[3] = {{10}, {20}, {-1}};
    ps->at[0] = &people[0];
    ps->at[2] = &people[1];
    ps->at[4] = &people[2];
    for (long round = 0; round < 3; round++)
        for (long i = 0; i < 5; i++) fcn(ps, i);
    fcn(ps, 2);
    for (int i = 0; i < 3; i++) printf("person %d is %ld\n", i, people[i].age);
    for (int i = 0; i < 5; i++) printf("slot %d %s\n", i, ps->at[i] ? "taken" : "null");
    return 0;
}
