/* A library of the bot's own, shipped in its folder's lib/: the answer when one is owed. */
const char *answer(void) { return "call"; }
