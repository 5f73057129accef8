/*
 * A bot that links a library of its own (lib/libanswer.so, beside it in its folder),
 * found at run time through its run path: cc ... -Wl,-rpath,'$ORIGIN/lib'. It checks when
 * nothing is owed and asks the library otherwise.
 */
#include <stdio.h>
#include <string.h>

const char *answer(void);

int main(void) {
    static char line[1 << 16];
    long id;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\":\"hello\"")) {
            printf("{\"type\":\"hello\",\"protocol\":1,\"name\":\"origin\",\"hooks\":[]}\n");
        } else if (sscanf(line, "{\"type\":\"act\",\"id\":%ld", &id) == 1) {
            const char *action = strstr(line, "\"to_call\":0,") ? "check" : answer();
            printf("{\"type\":\"action\",\"id\":%ld,\"action\":\"%s\"}\n", id, action);
        } else if (strstr(line, "\"type\":\"goodbye\"")) {
            break;
        }
    }
    return 0;
}
