// Change notices: real inotify on a real Git project.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ava/files/watcher.hpp"
#include "files/files_fixture.hpp"
#include "support/run_awaitable.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;
using ava::files::Watcher;

namespace {

bool holds(const ava::protocol::FileChanges& changes, const std::string& folder) {
  return std::ranges::find(changes.dirs, folder) != changes.dirs.end();
}

}  // namespace

TEST_CASE("a watch reports the folders whose entries change, new folders included", "[files]") {
  ava::test::GitProject project;
  ava::test::run_awaitable([&]() -> asio::awaitable<void> {
    auto watcher = co_await Watcher::start(project.root());
    REQUIRE(watcher);
    // The top, docs, src and src/util; never build (ignored) or .git.
    CHECK((*watcher)->folders_watched() == 4);
    CHECK(!(*watcher)->incomplete());

    auto quiet = co_await (*watcher)->next(50ms);
    REQUIRE(quiet);
    CHECK(quiet->dirs.empty());

    ava::test::write_file(project.path() / "src/util/new.hpp", "x");
    auto written = co_await (*watcher)->next(5s);
    REQUIRE(written);
    CHECK(written->dirs == std::vector<std::string>{"src/util"});

    std::filesystem::create_directories(project.path() / "lib");
    auto created = co_await (*watcher)->next(5s);
    REQUIRE(created);
    CHECK(holds(*created, ""));
    // The new folder is watched from then on.
    ava::test::write_file(project.path() / "lib/a.c", "x");
    auto inside = co_await (*watcher)->next(5s);
    REQUIRE(inside);
    CHECK(holds(*inside, "lib"));

    // Inside an ignored folder nothing is watched.
    ava::test::write_file(project.path() / "build/more.o", "x");
    auto ignored = co_await (*watcher)->next(300ms);
    REQUIRE(ignored);
    CHECK(ignored->dirs.empty());

    std::filesystem::remove_all(project.path() / "docs");
    auto removed = co_await (*watcher)->next(5s);
    REQUIRE(removed);
    CHECK(holds(*removed, ""));
  }());
}
