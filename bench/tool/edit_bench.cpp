#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "ava/tool/edit.hpp"
#include "ava/tool/registry.hpp"
#include "support/temp_dir.hpp"

namespace {

std::string ten_megabytes() {
  std::string big;
  for (int i = 0; big.size() < 10 * 1024 * 1024; ++i) {
    big += "line " + std::to_string(i) + " of a ten megabyte file\n";
  }
  return big;
}

}  // namespace

// Locate, apply and diff one line in 10 MB, in memory.
static void BM_EditOneLineIn10MB_Memory(benchmark::State& state) {
  const std::string original = ten_megabytes();
  const std::vector<ava::tool::TextEdit> edits{{"line 200000 of", "LINE 200000 of"}};
  for (auto _ : state) {
    auto located = ava::tool::locate_edits(original, edits);
    if (!located) state.SkipWithError("not located");
    auto updated = ava::tool::apply_replacements(original, *located);
    auto diff = ava::tool::unified_diff(original, *located, "big.txt");
    benchmark::DoNotOptimize(updated);
    benchmark::DoNotOptimize(diff);
  }
}
BENCHMARK(BM_EditOneLineIn10MB_Memory)->Unit(benchmark::kMillisecond);

// The whole edit tool call: read, validate, locate, atomic write with fsync,
// diff. Each iteration flips the line back and forth.
static void BM_EditToolOneLineIn10MB(benchmark::State& state) {
  ava::test::TempDir dir;
  {
    std::ofstream out(dir.path() / "big.txt", std::ios::binary);
    out << ten_megabytes();
  }
  const auto registry = ava::tool::default_tools();
  auto* edit = registry.find("edit");
  ava::tool::ToolContext context{.cwd = dir.path()};
  boost::asio::io_context io;
  bool upper = false;
  for (auto _ : state) {
    const std::string from = upper ? "LINE 200000 of" : "line 200000 of";
    const std::string to = upper ? "line 200000 of" : "LINE 200000 of";
    upper = !upper;
    const nlohmann::json arguments{{"path", "big.txt"},
                                   {"edits", {{{"oldText", from}, {"newText", to}}}}};
    auto future = boost::asio::co_spawn(io, ava::tool::invoke(*edit, arguments, context),
                                        boost::asio::use_future);
    io.run();
    io.restart();
    auto result = future.get();
    if (!result || result->is_error) state.SkipWithError("edit failed");
  }
}
BENCHMARK(BM_EditToolOneLineIn10MB)->Unit(benchmark::kMillisecond);
