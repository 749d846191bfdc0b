#include "ava/cli/cli.hpp"

int main(int argc, char** argv) { return ava::cli::run_cli(argc, argv); }
