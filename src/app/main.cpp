#include "ava/app/cli.hpp"

int main(int argc, char** argv) { return ava::app::run_cli(argc, argv); }
