#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <utility>

#include "ava/base/unique_fd.hpp"

namespace {
bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }
}  // namespace

TEST_CASE("UniqueFd closes its descriptor once, and moves it", "[base]") {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(raw >= 0);
  {
    ava::base::UniqueFd first(raw);
    ava::base::UniqueFd second(std::move(first));
    CHECK_FALSE(first.valid());  // NOLINT(bugprone-use-after-move): moved-from state is defined
    CHECK(second.get() == raw);
    ava::base::UniqueFd third;
    third = std::move(second);
    CHECK(third.get() == raw);
    CHECK(is_open(raw));
  }
  CHECK_FALSE(is_open(raw));
  const int kept = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ava::base::UniqueFd released(kept);
  CHECK(released.release() == kept);
  CHECK(is_open(kept));
  ::close(kept);
}
