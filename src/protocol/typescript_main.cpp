// ava-protocol-ts [OUT]: the API's TypeScript types (web/src/api/protocol.gen.ts),
// written to OUT when it differs (so the web bundle is not rebuilt for
// nothing), or printed.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "ava/protocol/typescript.hpp"

int main(int argc, char** argv) {
  const std::string module = ava::protocol::typescript_module();
  if (argc < 2)
    return std::fwrite(module.data(), 1, module.size(), stdout) == module.size() ? 0 : 1;
  {
    std::ifstream current(argv[1], std::ios::binary);
    const std::string existing{std::istreambuf_iterator<char>(current), {}};
    if (current && existing == module) return 0;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  out << module;
  if (!out) {
    std::fprintf(stderr, "ava-protocol-ts: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
