#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "ava/tool/tool.hpp"

namespace ava::tool {

// The tools an agent offers, in the order they are presented to the model.
class ToolRegistry {
 public:
  // Adds a tool; one with the same name is replaced in place.
  void add(std::unique_ptr<Tool> tool);
  Tool* find(std::string_view name) const;
  const std::vector<std::unique_ptr<Tool>>& tools() const { return tools_; }
  std::size_t size() const { return tools_.size(); }
  // Keeps the first `count` tools, dropping the rest.
  void truncate(std::size_t count);
  std::vector<ToolSpec> specs() const;

 private:
  std::vector<std::unique_ptr<Tool>> tools_;
};

// read, write, edit, bash.
ToolRegistry default_tools();

std::unique_ptr<Tool> make_read_tool();
std::unique_ptr<Tool> make_write_tool();
std::unique_ptr<Tool> make_edit_tool();
std::unique_ptr<Tool> make_bash_tool();

}  // namespace ava::tool
