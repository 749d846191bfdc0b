// The typed codec paths (decode_line_fast, write_event_line) against the
// nlohmann DOM paths they stand in for: the same result, or a decline.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ava/session/codec.hpp"
#include "session/codec_paths.hpp"
#include "session/json_text.hpp"
#include "session/samples.hpp"

using namespace ava::session;

namespace {

std::string dom_line(const Event& event) {
  std::string line;
  write_event_line_dom(event, line);
  return line;
}

// Every known kind as in samples.hpp, plus each with its optional fields left
// empty (the typed writer must leave out exactly what the DOM leaves out).
std::vector<EventBody> bodies() {
  auto all = ava::test::every_kind();
  all.emplace_back(InputAcknowledged{.input_id = "in-2", .text = ""});
  all.emplace_back(TurnEnded{.turn_id = "t", .reason = EndReason::interrupted});
  all.emplace_back(StepStarted{.turn_id = "t"});
  all.emplace_back(StepEnded{.turn_id = "t", .step = -3, .reason = EndReason::aborted});
  all.emplace_back(AssistantMessage{});
  all.emplace_back(AssistantMessage{
      .turn_id = "t",
      .content = {ava::content::ToolResultBlock{
                      .call_id = "c", .content = {ava::content::TextBlock{"x"}}, .is_error = true},
                  ava::content::ImageBlock{.media_type = "image/gif", .data = "R0lG"},
                  ava::content::ThinkingBlock{}}});
  all.emplace_back(ToolResult{.turn_id = "t", .call_id = "c", .status = ToolStatus::skipped});
  all.emplace_back(ToolResult{.call_id = "c", .details = {1, "two", nullptr, 2.5, {{"k", true}}}});
  all.emplace_back(UsageRecorded{.usage = {.input_tokens = -1, .reasoning_tokens = INT64_MAX}});
  all.emplace_back(ModelChanged{.model = "m"});
  all.emplace_back(Compacted{.first_kept_seq = UINT64_MAX, .tokens_before = INT64_MIN});
  all.emplace_back(ErrorOccurred{.code = "c", .message = ""});
  all.emplace_back(Recovered{});
  all.emplace_back(ApprovalRequested{});
  all.emplace_back(ApprovalRequested{.approval_id = "a", .arguments = nlohmann::json::object()});
  all.emplace_back(ApprovalDecided{.approval_id = "a", .decision = ApprovalDecision::deny});
  all.emplace_back(PermissionModeChanged{});
  all.emplace_back(HookRan{.hook = "Stop", .exit_code = -1});
  all.emplace_back(InputBlocked{.input_id = "i"});
  all.emplace_back(GoalSet{});
  all.emplace_back(ava::session::CommandOutput{});
  all.emplace_back(TurnStarted{.turn_id = "quote \" backslash \\ \n\t\x01 ünï ✓ 😀 bad \xff"});
  return all;
}

// The fast decoder either declines or decodes exactly what the DOM decodes;
// when the DOM path rejects the line, the fast one must decline.
void check_agrees(std::string_view line) {
  INFO("line: " << line);
  const auto fast = decode_line_fast(line);
  const auto dom = decode_line_dom(line);
  if (!dom) {
    CHECK_FALSE(fast);
    auto chosen = decode_line(line);
    REQUIRE_FALSE(chosen);
    CHECK(chosen.error().message == dom.error().message);
    return;
  }
  if (!fast) return;  // declined: the DOM result stands
  CHECK(fast->seq == dom->seq);
  CHECK(fast->ts_ms == dom->ts_ms);
  CHECK(fast->body.index() == dom->body.index());
  CHECK(fast->extra == dom->extra);
  CHECK(dom_line(*fast) == dom_line(*dom));
}

}  // namespace

TEST_CASE("the typed writer writes what the DOM writes, for every kind", "[codec][fast]") {
  Seq seq = 1;
  for (const auto& body : bodies()) {
    const Event event{.seq = seq++, .ts_ms = 1'796'210'516'123, .body = body};
    std::string typed;
    REQUIRE(write_event_line(event, typed));
    CHECK(typed == dom_line(event));
    CHECK(encode_line(event) == typed);
  }
  // Extreme seq and ts values.
  const Event edge{.seq = UINT64_MAX, .ts_ms = INT64_MIN, .body = Paused{}};
  std::string typed;
  REQUIRE(write_event_line(edge, typed));
  CHECK(typed == dom_line(edge));
}

TEST_CASE("the typed writer leaves unknown kinds and extra fields to the DOM", "[codec][fast]") {
  std::string out = "kept";
  const Event unknown{.seq = 1, .body = UnknownEvent{.type = "x", .raw = {{"type", "x"}}}};
  CHECK_FALSE(write_event_line(unknown, out));
  Event extra{.seq = 2, .body = TurnStarted{.turn_id = "t"}};
  extra.extra["added_later"] = {1, 2};
  extra.extra["turn_id"] = "loses to the known field";
  CHECK_FALSE(write_event_line(extra, out));
  CHECK(out == "kept");
  CHECK(encode_line(unknown) == dom_line(unknown));
  CHECK(encode_line(extra) == dom_line(extra));
}

TEST_CASE("the fast decoder decodes what the DOM decodes, for every kind", "[codec][fast]") {
  Seq seq = 1;
  for (const auto& body : bodies()) {
    const std::string line = dom_line({.seq = seq++, .ts_ms = 1'796'210'516'123, .body = body});
    const std::string_view text(line.data(), line.size() - 1);
    INFO(text);
    // Everything Ava itself writes takes the fast path.
    REQUIRE(decode_line_fast(text));
    check_agrees(text);
  }
}

TEST_CASE("the fast decoder keeps extra fields and declines unknown kinds", "[codec][fast]") {
  const std::string extra =
      R"({"seq":1,"ts":2,"type":"tool_result","turn_id":"t","step":1,"call_id":"c",)"
      R"("tool_name":"bash","status":"ok","content":[],"added":{"a":[1,2.5,-3,"x",null,true]},)"
      R"("n":-0,"big":18446744073709551616,"f":-1.5e300,"s":"\u00fc\ud83d\ude00"})";
  const auto fast = decode_line_fast(extra);
  REQUIRE(fast);
  CHECK(fast->extra.size() == 5);
  check_agrees(extra);

  const std::string unknown = R"({"seq":9,"ts":42,"type":"future_thing","nested":{"a":[1]}})";
  CHECK_FALSE(decode_line_fast(unknown));
  auto decoded = decode_line(unknown);
  REQUIRE(decoded);
  CHECK(std::holds_alternative<UnknownEvent>(decoded->body));
  check_agrees(unknown);
}

TEST_CASE("malformed lines are rejected with the DOM path's errors", "[codec][fast]") {
  const std::vector<std::string> lines = {
      "",
      " ",
      "{",
      "}",
      "[1,2]",
      "null",
      R"({"seq":1,"ts":2,"type":"paused"} x)",
      R"({"seq":1,"ts":2,"type":"paused",})",
      R"({"seq":1,"ts":2,"type":"paused"}})",
      R"({"seq":1,"ts":2,"type":"paused" "x":1})",
      R"({"seq":01,"ts":2,"type":"paused"})",
      R"({"seq":1.0,"ts":2,"type":"paused"})",
      R"({"seq":1e0,"ts":2,"type":"paused"})",
      R"({"seq":-1,"ts":2,"type":"paused"})",
      R"({"seq":-0,"ts":2,"type":"paused"})",
      R"({"seq":18446744073709551616,"ts":2,"type":"paused"})",
      R"({"seq":"1","ts":2,"type":"paused"})",
      R"({"seq":null,"ts":2,"type":"paused"})",
      R"({"ts":2,"type":"paused"})",
      R"({"seq":1,"ts":2.5,"type":"paused"})",
      R"({"seq":1,"ts":-,"type":"paused"})",
      R"({"seq":1,"ts":2,"type":7})",
      R"({"seq":1,"ts":2,"type":"turn_start"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":null})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":7})",
      R"({"seq":1,"ts":2,"type":"turn_end","turn_id":"t","reason":"exploded"})",
      R"({"seq":1,"ts":2,"type":"step_start","turn_id":"t","step":"1"})",
      R"({"seq":1,"ts":2,"type":"step_start","turn_id":"t","step":1,"model":3})",
      R"({"seq":1,"ts":2,"type":"input_claimed","turn_id":"t","step":1,"input_ids":[1]})",
      R"({"seq":1,"ts":2,"type":"input_claimed","turn_id":"t","step":1,"input_ids":"a"})",
      R"({"seq":1,"ts":2,"type":"input_blocked","hook":"UserPromptSubmit"})",
      R"({"seq":1,"ts":2,"type":"input_blocked","input_id":3,"hook":"UserPromptSubmit"})",
      R"({"seq":1,"ts":2,"type":"input","input_id":"i","kind":"x","text":""})",
      R"({"seq":1,"ts":2,"type":"input","input_id":"i","kind":"steer","text":"","attachments":[1]})",
      R"({"seq":1,"ts":2,"type":"input","input_id":"i","kind":"steer","text":"","attachments":{}})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":[{"type":"video"}]})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":["text"]})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":[{"text":"x"}]})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":[{"type":"tool_result","call_id":"c","is_error":1,"content":[]}]})",
      R"({"seq":1,"ts":2,"type":"tool_result","turn_id":"t","step":1,"call_id":"c","tool_name":"b","status":"ok","content":[{"type":"image","data":"x"}]})",
      R"({"seq":1,"ts":2,"type":"usage","turn_id":"t","step":1})",
      R"({"seq":1,"ts":2,"type":"usage","turn_id":"t","step":1,"usage":[]})",
      R"({"seq":1,"ts":2,"type":"usage","turn_id":"t","step":1,"usage":{"input_tokens":1.5}})",
      R"({"seq":1,"ts":2,"type":"compaction","summary":"s","first_kept_seq":-1})",
      R"({"seq":1,"ts":2,"type":"recovered","dropped_bytes":"0"})",
      "{\"seq\":1,\"ts\":2,\"type\":\"turn_start\",\"turn_id\":\"a\x01\"}",
      "{\"seq\":1,\"ts\":2,\"type\":\"turn_start\",\"turn_id\":\"bad \xff\"}",
      "{\"seq\":1,\"ts\":2,\"type\":\"turn_start\",\"turn_id\":\"overlong \xc0\xaf\"}",
      "{\"seq\":1,\"ts\":2,\"type\":\"turn_start\",\"turn_id\":\"surrogate \xed\xa0\x80\"}",
      "{\"seq\":1,\"ts\":2,\"type\":\"turn_start\",\"turn_id\":\"cut \xe2\x82\"}",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"\x"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"\u12"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"\ud800"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"\ud800\u0041"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"\udc00"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":[1,]})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":tru})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":nul})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":1.})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":.5})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":1e})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":+1})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":1e400})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"x","extra":-1e400})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":[{"type":"text","text":"x","dropped":1e999}]})",
  };
  for (const auto& line : lines) {
    INFO("line: " << line);
    CHECK_FALSE(decode_line_dom(line));
    check_agrees(line);
  }
}

TEST_CASE("odd but valid JSON decodes the same on both paths", "[codec][fast]") {
  std::string deep = R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"t","deep":)";
  for (int i = 0; i < 100; ++i) deep += "[";
  for (int i = 0; i < 100; ++i) deep += "]";
  deep += "}";
  std::string wide = R"({"seq":1,"ts":2,"type":"paused")";
  for (int i = 0; i < 40; ++i) wide += ",\"k" + std::to_string(i) + "\":" + std::to_string(i);
  wide += "}";
  const std::vector<std::string> lines = {
      " \t\r\n{ \"seq\" : 1 , \"ts\" : 2 , \"type\" : \"paused\" } \r\n\t ",
      R"({"type":"paused","ts":-9223372036854775808,"seq":18446744073709551615})",
      R"({"seq":1,"ts":9223372036854775807,"type":"paused"})",
      R"({"seq":1,"ts":9223372036854775808,"type":"paused"})",
      R"({"seq":1,"ts":-0,"type":"paused"})",
      R"({"seq":1,"ts":2,"type":"paused","seq":3})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"a","turn_id":"b"})",
      R"({"seq":1,"ts":2,"t\u0079pe":"turn_start","type":"paused"})",
      R"({"seq":1,"ts":2,"type":"turn_start","turn_id":"\"\\\/\b\f\n\r\t\u0000\u00e9\u20AC\uD834\uDD1E"})",
      R"({"seq":1,"ts":2,"type":"step_start","turn_id":"t","step":4294967297,"model":null})",
      R"({"seq":1,"ts":2,"type":"step_start","turn_id":"t","step":-2147483649})",
      R"({"seq":1,"ts":2,"type":"turn_end","turn_id":"t","reason":"error","message":null})",
      R"({"seq":1,"ts":2,"type":"tool_result","turn_id":"t","step":1,"call_id":"c","tool_name":"b","status":"ok","content":[],"details":null})",
      R"({"seq":1,"ts":2,"type":"tool_result","turn_id":"t","step":1,"call_id":"c","tool_name":"b","status":"ok","content":[{"type":"text","text":"x","more":[{}]}],"details":"s"})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":[{"type":"tool_result","call_id":"c","is_error":null,"content":[]},{"type":"thinking","text":"","signature":null}]})",
      R"({"seq":1,"ts":2,"type":"assistant","turn_id":"t","step":1,"content":[{"type":"text","type":"thinking","text":"x"}]})",
      R"({"seq":1,"ts":2,"type":"input","input_id":"i","kind":"steer","text":"","attachments":null})",
      R"({"seq":1,"ts":2,"type":"input","input_id":"i","kind":"steer","text":"","attachments":[{"media_type":"m","data":"d","type":"ignored"}]})",
      R"({"seq":1,"ts":2,"type":"usage","turn_id":"t","step":1,"usage":{"input_tokens":null,"other":1}})",
      R"({"seq":1,"ts":2,"type":"recovered","dropped_bytes":0,"notes":["a",1,null,"b"]})",
      R"({"seq":1,"ts":2,"type":"compaction","summary":"s","first_kept_seq":0,"tokens_before":null})",
      "\xEF\xBB\xBF{\"seq\":1,\"ts\":2,\"type\":\"paused\"}",
      R"({"seq":1,"ts":2,"type":"paused","tiny":1e-400,"huge":1e300,"long":1234567890123456789012345})",
      deep,
      wide,
  };
  for (const auto& line : lines) {
    INFO("line: " << line);
    CHECK(decode_line_dom(line));
    check_agrees(line);
  }
}

TEST_CASE("damaged copies of every kind decode the same or are declined", "[codec][fast]") {
  // Each sample cut short at every length, and each of its bytes replaced by
  // characters that matter to JSON.
  const std::string replacements = "\"\\}],0 x\x01\xff";
  const auto all = bodies();
  const std::size_t kinds = ava::test::every_kind().size();  // the rest are variants: cuts only
  for (std::size_t k = 0; k < all.size(); ++k) {
    std::string line = dom_line({.seq = k + 1, .ts_ms = 7, .body = all[k]});
    line.pop_back();
    for (std::size_t at = 0; at < line.size(); ++at) {
      check_agrees(std::string_view(line).substr(0, at));
      if (k >= kinds) continue;
      for (const char c : replacements) {
        std::string damaged = line;
        damaged[at] = c;
        check_agrees(damaged);
      }
    }
  }
}

TEST_CASE("the JSON scanner never accepts what nlohmann rejects", "[codec][fast]") {
  using ava::session::json_text::parse_document;
  using ava::session::json_text::Value;
  const auto accepted = [](const std::string& text) {
    Value value;
    return parse_document(text, value);
  };
  const auto nlohmann_accepts = [](const std::string& text) {
    return !nlohmann::json::parse(text, nullptr, false).is_discarded();
  };
  const std::vector<std::string> valid = {"0",
                                          "-0",
                                          "1.5e+3",
                                          "1E-2",
                                          "\"\"",
                                          "[]",
                                          "{}",
                                          "[[],{}]",
                                          "true",
                                          "false",
                                          "null",
                                          R"("\u0000")",
                                          "1e300",
                                          "-1.7e308",
                                          R"("\uD800\uDC00")",
                                          "\"\xc3\xa9\"",
                                          "\"\xf0\x9f\x98\x80\"",
                                          " [ 1 , 2 ] "};
  for (const auto& text : valid) {
    INFO("valid: " << text);
    CHECK(nlohmann_accepts(text));
    CHECK(accepted(text));
  }
  const std::vector<std::string> invalid = {"01",
                                            "1.",
                                            ".1",
                                            "-",
                                            "--1",
                                            "1e",
                                            "1e+",
                                            "+1",
                                            "tru",
                                            "nulll",
                                            "[1,]",
                                            "{\"a\"}",
                                            "{,}",
                                            "[,1]",
                                            "\"\t\"",
                                            R"("\a")",
                                            R"("\u)",
                                            "\"abc",
                                            "{\"a\":1,}",
                                            "[1 2]",
                                            "1 1",
                                            "1e400",
                                            "-1e400",
                                            "\"\xe0\x80\x80\"",
                                            "\"\xf4\x90\x80\x80\"",
                                            R"("\uDC00")",
                                            ""};
  for (const auto& text : invalid) {
    INFO("invalid: " << text);
    CHECK_FALSE(nlohmann_accepts(text));
    CHECK_FALSE(accepted(text));
  }
  // Valid, but left to nlohmann: very deep nesting.
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  CHECK(nlohmann_accepts(deep));
  CHECK_FALSE(accepted(deep));
}
