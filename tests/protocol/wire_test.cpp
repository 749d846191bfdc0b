#include <catch2/catch.hpp>

#include "ava/protocol/wire.hpp"

using namespace ava;
using nlohmann::json;

TEST_CASE("input requests: kinds, client ids, attachments and clear errors", "[protocol][wire]") {
  auto input = protocol::parse_input_request(json::parse(
      R"({"kind":"steer","text":"go","inputId":"a-1","attachments":[{"mediaType":"image/png","data":"iVBORw0KGgo="}]})"));
  REQUIRE(input);
  CHECK(input->kind == protocol::InputKind::steer);
  CHECK(input->input_id == "a-1");
  CHECK(input->attachments.size() == 1);
  CHECK(protocol::parse_input_request(json::parse(R"({"text":"x"})"))->kind ==
        protocol::InputKind::followup);

  auto error_of = [](const char* text) {
    return protocol::parse_input_request(json::parse(text)).error().message;
  };
  CHECK(error_of(R"({"kind":"later","text":"x"})") == "kind must be \"followup\" or \"steer\"");
  CHECK(error_of(R"({"text":5})") == "text must be a string");
  CHECK(error_of(R"({})") == "input needs text or attachments");
  CHECK_FALSE(protocol::parse_input_request(json::array()));
}

TEST_CASE("input attachments are checked before they can poison a conversation",
          "[protocol][wire]") {
  auto attachment_error = [](const std::string& media_type, const std::string& data) {
    json body{{"text", "x"},
              {"attachments", json::array({{{"mediaType", media_type}, {"data", data}}})}};
    auto parsed = protocol::parse_input_request(body);
    REQUIRE_FALSE(parsed);
    return parsed.error();
  };
  CHECK(attachment_error("image/png", "").message == "attachment 1 needs base64 data");
  CHECK(attachment_error("image/png", "iVBORw0KGgo").message == "attachment 1 is not valid base64");
  CHECK(attachment_error("image/png", "iVBO Rw0KGgo=").message ==
        "attachment 1 is not valid base64");
  CHECK(attachment_error("text/plain", "aGVsbG8=").message ==
        "attachment 1 is not a png, jpeg, gif or webp image");
  CHECK(attachment_error("image/jpeg", "iVBORw0KGgo=").message ==
        "attachment 1 is image/png, not image/jpeg");
  const auto big = attachment_error("image/png", std::string(8 * 1024 * 1024, 'A'));
  CHECK(big.code == ErrorCode::limit_exceeded);
  CHECK(big.message == "attachment 1 is larger than the 5 MiB image limit");
}

TEST_CASE("patches change only what they name", "[protocol][wire]") {
  auto patch = protocol::parse_conversation_patch(json::parse(R"({"pinned":true,"title":""})"));
  REQUIRE(patch);
  CHECK(patch->pinned == true);
  CHECK(patch->title == "");
  CHECK_FALSE(patch->archived);
  CHECK_FALSE(protocol::parse_conversation_patch(json::parse(R"({"pinned":"yes"})")));
  CHECK_FALSE(protocol::parse_conversation_patch(json::parse(R"({"reviewedSeq":-1})")));
}

TEST_CASE("skill updates say enabled, or null to remove the switch", "[protocol][wire]") {
  auto off = protocol::parse_skill_update(json::parse(R"({"enabled":false,"projectId":"p1"})"));
  REQUIRE(off);
  CHECK(off->enabled == false);
  CHECK(off->project_id == "p1");
  auto reset = protocol::parse_skill_update(json::parse(R"({"enabled":null})"));
  REQUIRE(reset);
  CHECK_FALSE(reset->enabled);
  CHECK(reset->project_id.empty());
  CHECK_FALSE(protocol::parse_skill_update(json::parse(R"({})")));
  CHECK_FALSE(protocol::parse_skill_update(json::parse(R"({"enabled":"yes"})")));
  CHECK_FALSE(protocol::parse_skill_update(json::parse(R"({"enabled":true,"projectId":3})")));
  CHECK_FALSE(protocol::parse_skill_update(json::parse(R"([true])")));
}

TEST_CASE("conversations round-trip through the registry's JSON", "[protocol][wire]") {
  const protocol::Conversation original{
      .id = "c",
      .project_id = "p",
      .title = "T",
      .model = {.provider = "openai", .model = "gpt-5"},
      .created_ms = 1,
      .updated_ms = 2,
      .pinned = true,
      .reviewed_seq = 3,
      .last_seq = 9,
      .usage = {.input = 4, .output = 5, .cache_read = 6, .cache_write = 7}};
  auto back = protocol::conversation_from_json(protocol::to_json(original));
  REQUIRE(back);
  CHECK(protocol::to_json(*back) == protocol::to_json(original));
  CHECK_FALSE(protocol::conversation_from_json(json::parse(R"({"title":"no id"})")));
}
