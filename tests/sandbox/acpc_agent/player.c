/*
 * An ACPC agent written for dp-arena's tests from the ACPC protocol's description alone
 * (protocol version 2.0.0): it is started as `./player GAME HOST PORT`, reads the game
 * definition, connects, says VERSION:2.0.0 and follows every MATCHSTATE line it is sent,
 * replaying the betting with the game's rules to find whose turn it is, exactly as an
 * ACPC client must. When it is its turn it answers the state with ":" and an action:
 * with a pair, an ace or a king it raises the minimum on its first action of a round,
 * it folds anything else to a bet of over four big blinds, and otherwise it calls. It
 * writes a line per hand to stderr (the bot's log) and leaves when the dealer closes.
 *
 * A fifth argument makes it misbehave, for the tests of faults: "garbage" answers with
 * an action that is none, "tiny" raises by one chip (below any minimum), "stale" answers
 * the state before the one it is asked.
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PLAYERS 10
#define MAX_ROUNDS 4

static int players, rounds = 4, stack[MAX_PLAYERS], blind[MAX_PLAYERS], first[MAX_ROUNDS];

static void read_game(const char *path) {
    FILE *file = fopen(path, "r");
    char line[512];
    if (!file) { perror(path); exit(2); }
    while (fgets(line, sizeof line, file)) {
        int *into = NULL, count = 0;
        char *p = line;
        if (!strncasecmp(line, "numplayers", 10)) { players = atoi(strchr(line, '=') + 1); continue; }
        if (!strncasecmp(line, "numrounds", 9)) { rounds = atoi(strchr(line, '=') + 1); continue; }
        if (!strncasecmp(line, "stack", 5)) into = stack;
        else if (!strncasecmp(line, "blind", 5)) into = blind;
        else if (!strncasecmp(line, "firstplayer", 11)) into = first;
        if (!into || !(p = strchr(line, '='))) continue;
        for (p++; *p && count < MAX_PLAYERS; ) {
            while (*p == ' ' || *p == '\t') p++;
            if (!isdigit((unsigned char)*p)) break;
            into[count++] = (int)strtol(p, &p, 10);
        }
    }
    fclose(file);
    if (players < 2 || players > MAX_PLAYERS) { fprintf(stderr, "bad game\n"); exit(2); }
}

/* The state of a hand, replayed from its betting string. */
struct hand {
    int spent[MAX_PLAYERS], folded[MAX_PLAYERS];
    int round, actions_in_round, last_actor, max_spent, min_raise_to;
    int acted_this_round[MAX_PLAYERS];
    char action[MAX_ROUNDS][64];   /* each round's actions: 'f', 'c' or 'r' */
    int actor[MAX_ROUNDS][64];
    int raised_all_in[MAX_ROUNDS][64];
};

static int acting(const struct hand *h, int p) { return !h->folded[p] && h->spent[p] < stack[p]; }

static int next_player(const struct hand *h, int p) {
    for (int step = 0; step < players; step++) {
        p = (p + 1) % players;
        if (acting(h, p)) return p;
    }
    return -1;
}

static int current_player(const struct hand *h) {
    if (h->actions_in_round) return next_player(h, h->last_actor);
    return next_player(h, (first[h->round] - 1 + players - 1) % players);
}

static int max_blind(void) {
    int most = 0;
    for (int p = 0; p < players; p++) if (blind[p] > most) most = blind[p];
    return most;
}

static void start_round(struct hand *h) {
    h->actions_in_round = 0;
    h->min_raise_to = h->max_spent + max_blind();
    memset(h->acted_this_round, 0, sizeof h->acted_this_round);
}

/* Replays a betting string; returns 0 when it is malformed. */
static int replay(struct hand *h, const char *betting) {
    memset(h, 0, sizeof *h);
    for (int p = 0; p < players; p++) {
        h->spent[p] = blind[p];
        if (blind[p] > h->max_spent) h->max_spent = blind[p];
    }
    h->min_raise_to = 2 * h->max_spent;
    for (const char *c = betting; *c; ) {
        if (*c == '/') { h->round++; start_round(h); c++; continue; }
        if (h->round >= rounds || h->actions_in_round >= 63) return 0;
        int p = current_player(h);
        if (p < 0) return 0;
        char kind = *c++;
        if (kind == 'f') h->folded[p] = 1;
        else if (kind == 'c') h->spent[p] = h->max_spent < stack[p] ? h->max_spent : stack[p];
        else if (kind == 'r') {
            long to = strtol(c, (char **)&c, 10);
            if (to + (to - h->max_spent) > h->min_raise_to) h->min_raise_to = (int)(to + (to - h->max_spent));
            h->max_spent = h->spent[p] = (int)to;
        } else return 0;
        h->action[h->round][h->actions_in_round] = kind;
        h->actor[h->round][h->actions_in_round] = p;
        h->actions_in_round++;
        h->acted_this_round[p] = 1;
        h->last_actor = p;
    }
    return 1;
}

static int finished(const struct hand *h) {
    int in = 0, can_act = 0, owing = 0;
    for (int p = 0; p < players; p++) {
        if (!h->folded[p]) in++;
        if (acting(h, p)) { can_act++; if (h->spent[p] < h->max_spent) owing++; }
    }
    if (in <= 1) return 1;
    if (can_act == 0 || (can_act == 1 && owing == 0)) return 1;
    if (h->round == rounds - 1 && h->actions_in_round) {
        /* the last round is over when every acting player has called the last raise */
        int called = 0;
        for (int i = h->actions_in_round - 1; i >= 0; i--) {
            int p = h->actor[h->round][i];
            if (h->action[h->round][i] == 'r') { if (acting(h, p)) called++; break; }
            if (h->action[h->round][i] == 'c' && acting(h, p)) called++;
        }
        if (called >= can_act) return 1;
    }
    return 0;
}

static int rank_of(char c) { const char *r = strchr("23456789TJQKA", c); return r && c ? (int)(r - "23456789TJQKA") : -1; }

static int hands_seen = 0;
static const char *mode = "";
static char previous[1024];

static int decide(const char *state, char *answer, size_t size) {
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", state);
    char *fields[4], *p = copy + strlen("MATCHSTATE:");
    /* position:hand:betting:cards (betting may be empty) */
    for (int i = 0; i < 4; i++) {
        char *colon = i < 3 ? strchr(p, ':') : NULL;
        fields[i] = p;
        if (i < 3) { if (!colon) return 0; *colon = '\0'; p = colon + 1; }
    }
    int me = atoi(fields[0]);
    struct hand h;
    if (!replay(&h, fields[2])) { fprintf(stderr, "cannot read the betting of %s\n", state); return 0; }
    if (finished(&h)) {
        hands_seen++;
        fprintf(stderr, "hand %s over: %s %s\n", fields[1], fields[2], fields[3]);
        return 0;
    }
    if (current_player(&h) != me) return 0;
    /* my two cards: the me-th section of the hole cards */
    char *cards = fields[3];
    for (int i = 0; i < me && cards; i++) { cards = strchr(cards, '|'); if (cards) cards++; }
    if (!cards || strlen(cards) < 4) { fprintf(stderr, "no cards of mine in %s\n", state); return 0; }
    int a = rank_of(cards[0]), b = rank_of(cards[2]);
    int strong = a == b || a >= 11 || b >= 11;  /* a pair, a king or an ace */
    int to_call = h.max_spent - h.spent[me];
    int others_acting = 0;
    for (int q = 0; q < players; q++) if (q != me && acting(&h, q)) others_acting++;
    int can_raise = h.max_spent < stack[me] && others_acting > 0;
    if (!strcmp(mode, "garbage")) { snprintf(answer, size, "%s:x", state); return 1; }
    if (!strcmp(mode, "tiny") && can_raise) { snprintf(answer, size, "%s:r%d", state, h.max_spent + 1); return 1; }
    if (!strcmp(mode, "stale") && previous[0]) { snprintf(answer, size, "%s:c", previous); return 1; }
    if (strong && can_raise && !h.acted_this_round[me]) {
        int to = h.min_raise_to <= stack[me] ? h.min_raise_to : stack[me];
        snprintf(answer, size, "%s:r%d", state, to);
    } else if (!strong && to_call > 4 * max_blind()) {
        snprintf(answer, size, "%s:f", state);
    } else {
        snprintf(answer, size, "%s:c", state);
    }
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) { fprintf(stderr, "usage: %s GAME HOST PORT [MODE]\n", argv[0]); return 2; }
    if (argc == 5) mode = argv[4];
    read_game(argv[1]);
    int sock = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)atoi(argv[3]));
    if (inet_pton(AF_INET, argv[2], &address.sin_addr) != 1 ||
        connect(sock, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("connect");
        return 1;
    }
    FILE *in = fdopen(sock, "r");
    FILE *out = fdopen(dup(sock), "w");
    fprintf(out, "VERSION:2.0.0\r\n");
    fflush(out);
    char line[1024], answer[1100];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == ';' || strncmp(line, "MATCHSTATE:", 11)) continue;
        if (decide(line, answer, sizeof answer)) {
            fprintf(out, "%s\r\n", answer);
            fflush(out);
        }
        snprintf(previous, sizeof previous, "%s", line);
    }
    fprintf(stderr, "the dealer closed the connection after %d hands\n", hands_seen);
    return 0;
}
