#include <catch2/catch.hpp>

#include <variant>

#include "ava/content/items.hpp"

using namespace ava::content;

TEST_CASE("content: usage adds up field by field", "[content]") {
  Usage total{.input_tokens = 10, .output_tokens = 2, .cache_read_tokens = 5};
  total +=
      Usage{.input_tokens = 1, .output_tokens = 3, .cache_write_tokens = 7, .reasoning_tokens = 4};
  CHECK(total == Usage{.input_tokens = 11,
                       .output_tokens = 5,
                       .cache_read_tokens = 5,
                       .cache_write_tokens = 7,
                       .reasoning_tokens = 4});
}

TEST_CASE("content: a tool's result blocks are message blocks as they are", "[content]") {
  // What a tool returns (ToolResultContent) goes into a ToolResultBlock and
  // a Message unchanged: equality sees every field, so a replayed item
  // compares equal to the one recorded.
  const ToolResultBlock result{.call_id = "c1",
                               .content = {TextBlock{"ok"}, ImageBlock{"image/png", "iVBO"}},
                               .is_error = false};
  const Message message{.role = Role::tool, .content = {result}};
  CHECK(std::get<ToolResultBlock>(message.content[0]) == result);
  ToolResultBlock changed = result;
  std::get<ImageBlock>(changed.content[1]).data = "other";
  CHECK_FALSE(changed == result);
  const ThinkingBlock thinking{.text = "t", .signature = "sig"};
  CHECK_FALSE(thinking == ThinkingBlock{.text = "t"});
}
