// Every captured provider stream in tests/fixtures/providers decodes to
// the values in fixture_expectations.json (an independent reading of the
// fixtures, see tools/make_fixture_expectations.py), whole and split into
// chunks of many sizes.

#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ava/llm/decoder.hpp"
#include "ava/llm/event_json.hpp"
#include "support/fixture.hpp"

using nlohmann::json;
namespace llm = ava::llm;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

llm::WireApi api_for(const std::string& file) {
  if (file.starts_with("anthropic/")) return llm::WireApi::anthropic_messages;
  if (file.starts_with("openai-chat/")) return llm::WireApi::openai_chat;
  return llm::WireApi::openai_responses;
}

std::string text_of(const llm::Response& response) {
  std::string text;
  for (const auto& block : response.message.content) {
    if (const auto* part = std::get_if<llm::TextBlock>(&block)) text += part->text;
  }
  return text;
}

json calls_of(const llm::Response& response) {
  json calls = json::array();
  for (const auto& block : response.message.content) {
    if (const auto* call = std::get_if<llm::ToolCallBlock>(&block)) {
      calls.push_back(json{
          {"id", call->id}, {"name", call->name}, {"arguments", json::parse(call->arguments)}});
    }
  }
  return calls;
}

json usage_of(const llm::Usage& usage) {
  return json{{"input", usage.input_tokens},
              {"output", usage.output_tokens},
              {"cacheRead", usage.cache_read_tokens},
              {"cacheWrite", usage.cache_write_tokens},
              {"reasoning", usage.reasoning_tokens}};
}

void check_response(const json& expected, const llm::Response& response) {
  CHECK(text_of(response) == expected["text"].get<std::string>());
  CHECK(calls_of(response) == expected["toolCalls"]);
  CHECK(std::string(llm::to_string(response.stop.reason)) ==
        expected["stopReason"].get<std::string>());
  CHECK(usage_of(response.usage) == expected["usage"]);
  CHECK(response.error.has_value() == expected["error"].get<bool>());
}

const json& expectations() {
  static const json table =
      json::parse(read_text(AVA_SOURCE_DIR "/tests/llm/fixture_expectations.json"));
  return table;
}

}  // namespace

TEST_CASE("every provider fixture decodes to its expected text, calls, stop and usage",
          "[fixtures]") {
  const json& table = expectations();
  REQUIRE(table.size() >= 80);
  for (const auto& expected : table) {
    std::string file = expected["file"];
    INFO("fixture " << file);
    std::string body = ava::test::read_fixture("providers/" + file);
    std::vector<std::string> events;
    llm::Response response = llm::decode_sse_body(
        api_for(file), body,
        [&](const llm::StreamEvent& event) { events.push_back(llm::event_json_line(event)); });
    check_response(expected, response);
    // The stream always ends with usage then stop, once each.
    REQUIRE(events.size() >= 2);
    CHECK(events[events.size() - 2].find("\"type\":\"usage\"") != std::string::npos);
    CHECK(events.back().find("\"type\":\"stop\"") != std::string::npos);
  }
}

TEST_CASE("every provider fixture decodes the same whatever the chunk size", "[fixtures]") {
  std::mt19937 random(20260702);
  for (const auto& expected : expectations()) {
    std::string file = expected["file"];
    std::string body = ava::test::read_fixture("providers/" + file);
    std::uniform_int_distribution<std::size_t> size(2, 97);
    for (std::size_t chunk :
         {std::size_t{1}, std::size_t{3}, size(random), size(random), std::size_t{4096}}) {
      INFO("fixture " << file << " in chunks of " << chunk);
      check_response(expected, llm::decode_sse_body(api_for(file), body, nullptr, chunk));
    }
  }
}

TEST_CASE("fixture streams cut before their terminal event are errors, never success",
          "[fixtures]") {
  for (const auto& expected : expectations()) {
    std::string file = expected["file"];
    if (expected["error"].get<bool>()) continue;
    std::string body = ava::test::read_fixture("providers/" + file);
    // Cut in the middle of the last event's data.
    auto last_data = body.rfind("data:");
    REQUIRE(last_data != std::string::npos);
    std::string cut = body.substr(0, last_data + 12);
    INFO("fixture " << file);
    llm::Response response = llm::decode_sse_body(api_for(file), cut, nullptr);
    bool chat_after_finish = file.starts_with("openai-chat/");
    if (chat_after_finish) continue;  // a finish_reason already ended the chat response
    REQUIRE(response.error.has_value());
    CHECK(response.error->kind == llm::ErrorKind::protocol);
    CHECK(response.error->retryable);
    CHECK(calls_of(response).empty());
  }
}
