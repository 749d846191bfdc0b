// Gate 1: durable input is acknowledged and claimed exactly once, in
// acknowledgement order, however input races the driver.

#include <atomic>
#include <cstdlib>
#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "agent_test_util.hpp"

using namespace ava;

TEST_CASE("10,000 inputs from several threads are each claimed once, in order", "[agent][inbox]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto agent = agent::Agent::create(runtime.executor(), dir.path() / "s.jsonl.zst",
                                    test::basic_options(test::echo_factory(), dir.path()));
  REQUIRE(agent);

  constexpr int threads = 4;
  const int per_thread =
      std::getenv("AVA_INBOX_PER_THREAD") ? std::atoi(std::getenv("AVA_INBOX_PER_THREAD")) : 2500;
  std::atomic<int> failures{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < threads; ++t) {
    senders.emplace_back([&, t] {
      std::mt19937 random(static_cast<unsigned>(t));
      for (int i = 0; i < per_thread; ++i) {
        const std::string text = std::to_string(t) + ":" + std::to_string(i);
        // Mostly steers: each follow-up costs a turn and its fsync.
        auto receipt = random() % 8 == 0 ? (*agent)->followup(text) : (*agent)->steer(text);
        if (!receipt) ++failures;
      }
    });
  }
  for (auto& sender : senders) sender.join();
  CHECK(failures == 0);
  const auto started = std::chrono::steady_clock::now();
  try {
    runtime.wait_idle(**agent);
  } catch (...) {
    const auto status = (*agent)->status();
    FAIL("not idle: state " << agent::to_string(status.state) << " pending "
                            << status.pending_inputs << " seq " << status.last_seq);
  }
  WARN("drained in " << std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - started)
                            .count()
                     << " ms");
  CHECK((*agent)->status().pending_inputs == 0);
  runtime.close(**agent);

  const auto events = test::read_events((*agent)->log_path());
  std::map<std::string, session::Seq> acknowledged;  // id -> seq
  std::map<std::string, session::InputKind> kinds;
  std::vector<std::string> followups_claimed;
  std::vector<std::string> steers_claimed;
  std::map<std::string, int> claims;
  for (const auto& event : events) {
    if (const auto* input = std::get_if<session::InputAcknowledged>(&event.body)) {
      acknowledged[input->input_id] = event.seq;
      kinds[input->input_id] = input->kind;
    } else if (const auto* claimed = std::get_if<session::InputClaimed>(&event.body)) {
      session::Seq previous = 0;
      for (const auto& id : claimed->input_ids) {
        REQUIRE(acknowledged.contains(id));  // never claimed before it was durable
        CHECK(acknowledged[id] > previous);  // within a claim: acknowledgement order
        previous = acknowledged[id];
        ++claims[id];
        (kinds[id] == session::InputKind::steer ? steers_claimed : followups_claimed).push_back(id);
      }
    }
  }
  CHECK(acknowledged.size() == static_cast<std::size_t>(threads * per_thread));
  CHECK(claims.size() == acknowledged.size());
  int duplicates = 0;
  for (const auto& [id, count] : claims) duplicates += count != 1;
  CHECK(duplicates == 0);
  // Each kind is claimed in the order it was acknowledged.
  auto in_order = [&](const std::vector<std::string>& ids) {
    for (std::size_t i = 1; i < ids.size(); ++i) {
      if (acknowledged[ids[i - 1]] > acknowledged[ids[i]]) return false;
    }
    return true;
  };
  CHECK(in_order(followups_claimed));
  CHECK(in_order(steers_claimed));
  // A turn's first step claims exactly one follow-up.
  for (const auto& event : events) {
    if (const auto* claimed = std::get_if<session::InputClaimed>(&event.body)) {
      int followups = 0;
      for (const auto& id : claimed->input_ids)
        followups += kinds[id] == session::InputKind::followup;
      CHECK(followups <= (claimed->step == 1 ? 1 : 0));
    }
  }
}

TEST_CASE("a steer while a turn runs is claimed by that turn's next step", "[agent][inbox]") {
  test::TempDir dir;
  test::Runtime runtime;
  auto journal = std::make_shared<test::ProviderJournal>();
  auto script = test::script_from(R"({"responses": [
    {"steps": [{"toolCall": {"id": "c1", "name": "bash", "arguments": {"command": "sleep 0.3"}}}]},
    {"steps": [{"text": "done, and noted the steer"}]}
  ]})");
  auto agent = agent::Agent::create(
      runtime.executor(), dir.path() / "s.jsonl.zst",
      test::basic_options(test::scripted_factory(script, journal), dir.path()));
  REQUIRE(agent);
  std::promise<void> tool_started;
  std::atomic<bool> signalled{false};
  (*agent)->subscribe_live([&](const agent::LiveEvent& event) {
    if (std::holds_alternative<agent::ToolActivity>(event) && !signalled.exchange(true)) {
      tool_started.set_value();
    }
  });
  REQUIRE((*agent)->followup("start"));
  tool_started.get_future().wait();
  auto steer = (*agent)->steer("also check the README");
  REQUIRE(steer);
  runtime.wait_idle(**agent);
  runtime.close(**agent);

  const auto events = test::read_events((*agent)->log_path());
  const auto claims = test::events_of<session::InputClaimed>(events);
  REQUIRE(claims.size() == 2);
  CHECK(claims[1].input_ids == std::vector<std::string>{steer->input_id});
  CHECK(claims[1].turn_id == claims[0].turn_id);
  CHECK(claims[1].step == 2);
  CHECK(test::events_of<session::TurnStarted>(events).size() == 1);
  // The step-2 request carries the result and the steer.
  const auto requests = journal->snapshot();
  REQUIRE(requests.size() == 2);
  const auto& last = requests[1].messages.back();
  CHECK(last.role == llm::Role::user);
  CHECK(std::get<llm::TextBlock>(last.content.at(0)).text == "also check the README");
}
