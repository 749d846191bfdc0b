// Reads web.json with nlohmann's SAX interface straight into the registry's
// structs: no JSON tree is built, which makes loading 10,000 conversations
// several times faster and keeps the tree's memory from ever existing.
#include "registry/registry_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "ava/base/unique_fd.hpp"

namespace ava::registry {
namespace {

using nlohmann::json;

enum class Scope { root, projects, project, conversations, conversation, model, usage, skipped };

class RegistryHandler final : public nlohmann::json_sax<json> {
 public:
  explicit RegistryHandler(RegistryContents& out) : out_(out) {}
  std::string error;
  bool missing_id = false;

  bool null() override { return true; }
  bool boolean(bool value) override {
    if (top() == Scope::conversation) {
      if (key_ == "pinned") conversation_.pinned = value;
      if (key_ == "archived") conversation_.archived = value;
    }
    return true;
  }
  bool number_integer(number_integer_t value) override { return integer(value); }
  bool number_unsigned(number_unsigned_t value) override {
    return integer(static_cast<std::int64_t>(value));
  }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }

  bool string(string_t& value) override {
    switch (top()) {
      case Scope::project: {
        auto& project = out_.projects.back();
        if (key_ == "id") {
          project.id = std::move(value);
        } else if (key_ == "path") {
          project.path = std::move(value);
        } else if (key_ == "name") {
          project.name = std::move(value);
        }
        break;
      }
      case Scope::conversation: {
        auto& conversation = conversation_;
        if (key_ == "id") {
          conversation.id = std::move(value);
        } else if (key_ == "projectId") {
          conversation.project_id = std::move(value);
        } else if (key_ == "title") {
          conversation.title = std::move(value);
        } else if (key_ == "automationId") {
          conversation.automation_id = std::move(value);
        }
        break;
      }
      case Scope::model: {
        auto& model = conversation_.model;
        if (key_ == "provider") {
          model.provider = std::move(value);
        } else if (key_ == "model") {
          model.model = std::move(value);
        }
        break;
      }
      default: break;
    }
    return true;
  }

  bool start_object(std::size_t) override {
    const Scope parent = top();
    Scope next = Scope::skipped;
    if (parent == Scope::root && depth_ == 0) {
      next = Scope::root;
    } else if (parent == Scope::projects) {
      out_.projects.emplace_back();
      next = Scope::project;
    } else if (parent == Scope::conversations) {
      conversation_ = protocol::Conversation();
      next = Scope::conversation;
    } else if (parent == Scope::conversation && key_ == "model") {
      next = Scope::model;
    } else if (parent == Scope::conversation && key_ == "usage") {
      next = Scope::usage;
    }
    ++depth_;
    stack_.push_back(next);
    return true;
  }
  bool end_object() override {
    if (top() == Scope::conversation) {
      // Straight into the registry's map: no vector of them first.
      if (conversation_.id.empty()) missing_id = true;
      std::string id = conversation_.id;
      out_.conversations.emplace(std::move(id), std::move(conversation_));
    }
    return pop();
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) {
      error = "not a JSON object";
      return false;
    }
    Scope next = Scope::skipped;
    if (top() == Scope::root && depth_ == 1 && key_ == "projects") next = Scope::projects;
    if (top() == Scope::root && depth_ == 1 && key_ == "conversations") next = Scope::conversations;
    ++depth_;
    stack_.push_back(next);
    return true;
  }
  bool end_array() override { return pop(); }
  bool key(string_t& value) override {
    key_ = std::move(value);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& failure) override {
    error = "invalid JSON at byte " + std::to_string(position) + ": " + failure.what();
    return false;
  }

 private:
  Scope top() const { return stack_.empty() ? Scope::root : stack_.back(); }
  bool pop() {
    if (!stack_.empty()) stack_.pop_back();
    --depth_;
    return true;
  }
  bool integer(std::int64_t value) {
    switch (top()) {
      case Scope::project:
        if (key_ == "createdMs") out_.projects.back().created_ms = value;
        break;
      case Scope::conversation: {
        auto& c = conversation_;
        if (key_ == "createdMs") c.created_ms = value;
        if (key_ == "updatedMs") c.updated_ms = value;
        if (key_ == "reviewedSeq") c.reviewed_seq = value;
        if (key_ == "lastSeq") c.last_seq = value;
        break;
      }
      case Scope::usage: {
        auto& usage = conversation_.usage;
        if (key_ == "inputTokens") usage.input = value;
        if (key_ == "outputTokens") usage.output = value;
        if (key_ == "cacheReadTokens") usage.cache_read = value;
        if (key_ == "cacheWriteTokens") usage.cache_write = value;
        break;
      }
      default: break;
    }
    return true;
  }

  RegistryContents& out_;
  protocol::Conversation conversation_;  // the one being read
  std::vector<Scope> stack_;
  std::string key_;
  int depth_ = 0;
};

// Hands a file to the parser in 64 KB pieces: web.json can be megabytes,
// and reading it whole touched every page of it, twice over while the
// string grew (each fresh page is a page fault).
class FileChunks {
 public:
  FileChunks(int fd, std::size_t limit) : fd_(fd), limit_(limit), buffer_(64 * 1024) {}
  bool at_end() {
    if (position_ == length_) refill();
    return position_ == length_;
  }
  char current() const { return buffer_[position_]; }
  void advance() { ++position_; }
  const std::optional<Error>& error() const { return error_; }

 private:
  void refill() {
    position_ = length_ = 0;
    if (error_) return;
    ssize_t got = -1;
    do {
      got = ::read(fd_, buffer_.data(), buffer_.size());
    } while (got < 0 && errno == EINTR);
    if (got < 0) {
      error_ =
          Error{.code = ErrorCode::io, .message = std::string("read: ") + std::strerror(errno)};
      return;
    }
    total_ += static_cast<std::size_t>(got);
    if (total_ > limit_) {
      error_ = Error{.code = ErrorCode::limit_exceeded,
                     .message = "larger than " + std::to_string(limit_) + " bytes"};
      return;
    }
    length_ = static_cast<std::size_t>(got);
  }

  int fd_;
  std::size_t limit_;
  std::vector<char> buffer_;
  std::size_t position_ = 0;
  std::size_t length_ = 0;
  std::size_t total_ = 0;
  std::optional<Error> error_;
};

// The input iterator nlohmann's parser reads FileChunks through; a null
// one is the end.
struct FileIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  FileChunks* chunks = nullptr;

  char operator*() const { return chunks->current(); }
  FileIterator& operator++() {
    chunks->advance();
    return *this;
  }
  FileIterator operator++(int) {
    FileIterator before = *this;
    chunks->advance();
    return before;
  }
  bool at_end() const { return chunks == nullptr || chunks->at_end(); }
  friend bool operator==(const FileIterator& a, const FileIterator& b) {
    return a.at_end() == b.at_end();
  }
};

template <typename Iterator>
Result<RegistryContents> parse(Iterator first, Iterator last, std::string_view origin,
                               const FileChunks* chunks) {
  RegistryContents contents;
  RegistryHandler handler(contents);
  const bool parsed = json::sax_parse(std::move(first), std::move(last), &handler);
  if (chunks != nullptr && chunks->error()) {
    return fail(chunks->error()->code, std::string(origin) + ": " + chunks->error()->message);
  }
  if (!parsed) {
    return fail(ErrorCode::parse, std::string(origin) + ": " +
                                      (handler.error.empty() ? "not a registry" : handler.error) +
                                      "; move it aside to start with an empty registry");
  }
  for (const auto& project : contents.projects) {
    if (project.id.empty() || project.path.empty()) {
      return fail(ErrorCode::parse, std::string(origin) + ": a project needs an id and a path");
    }
  }
  if (handler.missing_id)
    return fail(ErrorCode::parse, std::string(origin) + ": a conversation needs an id");
  return contents;
}

}  // namespace

Result<RegistryContents> parse_registry(std::string_view text, std::string_view origin) {
  return parse(text.begin(), text.end(), origin, nullptr);
}

Result<RegistryContents> read_registry(const std::filesystem::path& file, std::size_t limit) {
  base::UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return fail(ErrorCode::not_found, file.string() + " does not exist");
    return base::fail_errno("open " + file.string(), errno);
  }
  FileChunks chunks(fd.get(), limit);
  return parse(FileIterator{&chunks}, FileIterator{}, file.string(), &chunks);
}

}  // namespace ava::registry
