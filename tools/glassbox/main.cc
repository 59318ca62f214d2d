#include "src/cli/run_cli.h"

int main(int argc, char** argv) { return glassbox::cli::run_cli(argc, argv); }
