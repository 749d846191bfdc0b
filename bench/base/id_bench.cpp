#include <benchmark/benchmark.h>

#include "ava/base/id.hpp"
#include "ava/base/log.hpp"

static void BM_NewUuidV7(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ava::base::new_uuid_v7());
}
BENCHMARK(BM_NewUuidV7);

static void BM_NewIdString(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(ava::base::new_id());
}
BENCHMARK(BM_NewIdString);

static void BM_RedactLogLine(benchmark::State& state) {
  const std::string line =
      "POST /v1/messages model=claude-sonnet status=200 tokens=1234 elapsed_ms=812 request_id=abc";
  for (auto _ : state) benchmark::DoNotOptimize(ava::base::redact(line));
}
BENCHMARK(BM_RedactLogLine);
