#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "ava/base/clock.hpp"
#include "ava/base/id.hpp"

using ava::base::new_uuid_v7;
using ava::base::Uuid;

TEST_CASE("ids are strictly increasing in a tight loop", "[id]") {
  constexpr int count = 200'000;  // far more than 4096 per millisecond
  Uuid previous = new_uuid_v7();
  std::string previous_text = previous.str();
  for (int i = 0; i < count; ++i) {
    const Uuid next = new_uuid_v7();
    REQUIRE(previous < next);
    const std::string text = next.str();
    REQUIRE(previous_text < text);
    previous = next;
    previous_text = text;
  }
}

TEST_CASE("ids from several threads are unique and each thread sees them increase", "[id]") {
  constexpr std::size_t threads = 4;
  constexpr std::size_t per_thread = 20'000;
  std::vector<std::vector<Uuid>> made(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    workers.emplace_back([&made, t] {
      for (std::size_t i = 0; i < per_thread; ++i) made[t].push_back(new_uuid_v7());
    });
  }
  for (auto& worker : workers) worker.join();
  std::set<Uuid> all;
  for (const auto& ids : made) {
    REQUIRE(std::ranges::is_sorted(ids));
    all.insert(ids.begin(), ids.end());
  }
  CHECK(all.size() == threads * per_thread);
}

TEST_CASE("ids are RFC 9562 version 7 with the current time", "[id]") {
  const auto before = ava::base::unix_ms_now();
  const Uuid id = new_uuid_v7();
  const auto after = ava::base::unix_ms_now();
  CHECK((id.bytes[6] >> 4) == 7);
  CHECK((id.bytes[8] >> 6) == 2);
  // The generator may run ahead of the wall clock by a few ms under bursts.
  CHECK(id.unix_ms().count() >= before);
  CHECK(id.unix_ms().count() <= after + 1000);
  const std::string text = id.str();
  REQUIRE(text.size() == 36);
  CHECK(text[14] == '7');
  Uuid parsed;
  REQUIRE(ava::base::parse_uuid(text, parsed));
  CHECK(parsed == id);
}

TEST_CASE("parse_uuid rejects malformed text", "[id]") {
  Uuid out;
  CHECK_FALSE(ava::base::parse_uuid("", out));
  CHECK_FALSE(ava::base::parse_uuid("0190a3b2-7c4d-7e8f-9a0b-1c2d3e4f5a6", out));
  CHECK_FALSE(ava::base::parse_uuid("0190a3b2x7c4d-7e8f-9a0b-1c2d3e4f5a6b", out));
  CHECK_FALSE(ava::base::parse_uuid("0190a3b2-7c4d-7e8f-9a0b-1c2d3e4f5a6g", out));
  CHECK(ava::base::parse_uuid("0190A3B2-7C4D-7E8F-9A0B-1C2D3E4F5A6B", out));
}

TEST_CASE("random_seed gives fresh bits on every call", "[id]") {
  // 64 random bits: a repeat or an all-zero seed among 16 would mean the
  // generator is not being read (chance otherwise about 2^-57).
  std::vector<std::uint64_t> seeds;
  for (int i = 0; i < 16; ++i) seeds.push_back(ava::base::random_seed());
  std::sort(seeds.begin(), seeds.end());
  CHECK(std::adjacent_find(seeds.begin(), seeds.end()) == seeds.end());
  CHECK(seeds.front() != 0);
}
