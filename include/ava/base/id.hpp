#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace ava::base {

// A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then a 12-bit counter that
// keeps ids strictly increasing within one millisecond, then 62 random bits.
// Ids from one process sort in creation order as bytes and as strings.
struct Uuid {
  std::array<std::uint8_t, 16> bytes{};

  std::string str() const;  // canonical lowercase 8-4-4-4-12 form
  std::chrono::milliseconds unix_ms() const;
  auto operator<=>(const Uuid&) const = default;
};

// Thread-safe; never returns the same or a smaller id twice in one process,
// even if the wall clock steps back.
Uuid new_uuid_v7();
inline std::string new_id() { return new_uuid_v7().str(); }

// Parses the canonical form; false for anything else.
bool parse_uuid(std::string_view text, Uuid& out);

// 64 bits from the kernel's generator, to seed a PRNG. One getrandom call:
// std::random_device asks the CPU (cpuid) at each construction, which
// traps to the hypervisor in a VM and cost ~30 us here.
std::uint64_t random_seed();

}  // namespace ava::base
