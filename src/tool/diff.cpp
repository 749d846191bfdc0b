#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "ava/tool/edit.hpp"

// The diff is built from the known replacements instead of a general LCS:
// each replacement widens to whole lines, lines equal at both ends are
// trimmed, and hunks gather the changes with their context. That keeps a
// one-line edit of a 10 MB file linear and cheap.
namespace ava::tool {
namespace {

struct Line {
  std::string_view text;  // without the newline
  bool newline = true;    // false only for a last line without one
  bool operator==(const Line&) const = default;
};

std::vector<Line> split_lines(std::string_view block) {
  std::vector<Line> out;
  while (!block.empty()) {
    const auto end = block.find('\n');
    if (end == std::string_view::npos) {
      out.push_back({block, false});
      break;
    }
    out.push_back({block.substr(0, end), true});
    block.remove_prefix(end + 1);
  }
  return out;
}

std::size_t byte_size(const std::vector<Line>& lines, std::size_t from, std::size_t to) {
  std::size_t size = 0;
  for (std::size_t i = from; i < to; ++i) size += lines[i].text.size() + (lines[i].newline ? 1 : 0);
  return size;
}

std::size_t line_start(std::string_view text, std::size_t position) {
  if (position == 0) return 0;
  const auto newline = text.rfind('\n', position - 1);
  return newline == std::string_view::npos ? 0 : newline + 1;
}

// The end of the line holding the last replaced byte (after its newline).
std::size_t line_end(std::string_view text, std::size_t begin, std::size_t end) {
  if (end > begin && text[end - 1] == '\n') return end;
  const auto newline = text.find('\n', end);
  return newline == std::string_view::npos ? text.size() : newline + 1;
}

struct Change {
  std::size_t old_line = 0;  // 0-based, first removed (or insertion point)
  std::size_t new_line = 0;
  std::size_t old_begin = 0;  // line-aligned byte range of the removed lines
  std::size_t old_end = 0;
  std::vector<Line> removed;
  std::vector<Line> added;
};

class DiffBuilder {
 public:
  explicit DiffBuilder(std::string_view original) : original_(original) {}

  void add_group(std::size_t begin, std::size_t end, std::string new_block) {
    const auto old_lines = split_lines(original_.substr(begin, end - begin));
    const auto& stored = blocks_.emplace_back(std::move(new_block));
    const auto new_lines = split_lines(stored);
    std::size_t prefix = 0;
    while (prefix < old_lines.size() && prefix < new_lines.size() &&
           old_lines[prefix] == new_lines[prefix]) {
      ++prefix;
    }
    std::size_t suffix = 0;
    while (suffix + prefix < old_lines.size() && suffix + prefix < new_lines.size() &&
           old_lines[old_lines.size() - 1 - suffix] == new_lines[new_lines.size() - 1 - suffix]) {
      ++suffix;
    }
    if (prefix + suffix == old_lines.size() && prefix + suffix == new_lines.size()) return;
    Change change;
    change.old_begin = begin + byte_size(old_lines, 0, prefix);
    change.old_end = change.old_begin + byte_size(old_lines, prefix, old_lines.size() - suffix);
    change.old_line = line_number(change.old_begin);
    change.new_line = static_cast<std::size_t>(static_cast<long long>(change.old_line) + delta_);
    change.removed.assign(old_lines.begin() + static_cast<std::ptrdiff_t>(prefix),
                          old_lines.end() - static_cast<std::ptrdiff_t>(suffix));
    change.added.assign(new_lines.begin() + static_cast<std::ptrdiff_t>(prefix),
                        new_lines.end() - static_cast<std::ptrdiff_t>(suffix));
    delta_ +=
        static_cast<long long>(change.added.size()) - static_cast<long long>(change.removed.size());
    changes_.push_back(std::move(change));
  }

  std::string render(std::string_view label, std::size_t context) const {
    std::string out;
    if (changes_.empty()) return out;
    out += fmt::format("--- a/{}\n+++ b/{}\n", label, label);
    std::size_t first = 0;
    while (first < changes_.size()) {
      std::size_t last = first;
      while (last + 1 < changes_.size() &&
             changes_[last + 1].old_line -
                     (changes_[last].old_line + changes_[last].removed.size()) <=
                 2 * context) {
        ++last;
      }
      render_hunk(out, first, last, context);
      first = last + 1;
    }
    return out;
  }

 private:
  // Counts lines incrementally; groups arrive in file order.
  std::size_t line_number(std::size_t position) {
    counted_lines_ += static_cast<std::size_t>(
        std::count(original_.begin() + static_cast<std::ptrdiff_t>(counted_to_),
                   original_.begin() + static_cast<std::ptrdiff_t>(position), '\n'));
    counted_to_ = position;
    return counted_lines_;
  }

  std::vector<Line> lines_before(std::size_t position, std::size_t count) const {
    std::size_t start = position;
    for (std::size_t i = 0; i < count && start > 0; ++i) start = line_start(original_, start - 1);
    return split_lines(original_.substr(start, position - start));
  }

  std::vector<Line> lines_after(std::size_t position, std::size_t count) const {
    auto lines = split_lines(original_.substr(
        position, std::min<std::size_t>(original_.size() - position, std::size_t{64} * 1024)));
    if (lines.size() > count) lines.resize(count);
    return lines;
  }

  static void emit(std::string& out, char prefix, const std::vector<Line>& lines) {
    for (const auto& line : lines) {
      out += prefix;
      out += line.text;
      out += '\n';
      if (!line.newline) out += "\\ No newline at end of file\n";
    }
  }

  void render_hunk(std::string& out, std::size_t first, std::size_t last,
                   std::size_t context) const {
    std::string body;
    const auto before = lines_before(changes_[first].old_begin, context);
    emit(body, ' ', before);
    std::size_t old_count = before.size();
    std::size_t new_count = before.size();
    for (std::size_t i = first; i <= last; ++i) {
      const auto& change = changes_[i];
      if (i > first) {
        const std::size_t gap_from = changes_[i - 1].old_end;
        const auto gap = split_lines(original_.substr(gap_from, change.old_begin - gap_from));
        emit(body, ' ', gap);
        old_count += gap.size();
        new_count += gap.size();
      }
      emit(body, '-', change.removed);
      emit(body, '+', change.added);
      old_count += change.removed.size();
      new_count += change.added.size();
    }
    const auto after = lines_after(changes_[last].old_end, context);
    emit(body, ' ', after);
    old_count += after.size();
    new_count += after.size();
    const std::size_t old_start = changes_[first].old_line - before.size();
    const std::size_t new_start = changes_[first].new_line - before.size();
    out += fmt::format("@@ -{},{} +{},{} @@\n", old_count == 0 ? old_start : old_start + 1,
                       old_count, new_count == 0 ? new_start : new_start + 1, new_count);
    out += body;
  }

  std::string_view original_;
  std::deque<std::string> blocks_;  // new text the added lines point into
  std::vector<Change> changes_;
  long long delta_ = 0;
  std::size_t counted_to_ = 0;
  std::size_t counted_lines_ = 0;
};

}  // namespace

std::string unified_diff(std::string_view original, const std::vector<Replacement>& replacements,
                         std::string_view label, std::size_t context) {
  DiffBuilder builder(original);
  std::size_t i = 0;
  while (i < replacements.size()) {
    const std::size_t begin = line_start(original, replacements[i].begin);
    std::size_t end = line_end(original, replacements[i].begin, replacements[i].end);
    std::size_t last = i;
    // Replacements sharing a line form one group.
    while (last + 1 < replacements.size() && replacements[last + 1].begin < end) {
      ++last;
      end = std::max(end, line_end(original, replacements[last].begin, replacements[last].end));
    }
    std::string block(original.substr(begin, replacements[i].begin - begin));
    for (std::size_t k = i; k <= last; ++k) {
      block += replacements[k].text;
      const std::size_t next = k < last ? replacements[k + 1].begin : end;
      block += original.substr(replacements[k].end, next - replacements[k].end);
    }
    builder.add_group(begin, end, std::move(block));
    i = last + 1;
  }
  return builder.render(label, context);
}

}  // namespace ava::tool
