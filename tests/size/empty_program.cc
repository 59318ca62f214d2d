// The size test's baseline: an empty program built with the same flags, so
// a report can tell the toolchain's fixed cost (ELF headers, startup code,
// dynamic linking tables) from Glassbox's.
int main() { return 0; }
