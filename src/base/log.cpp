#include "ava/base/log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace ava::base {

namespace {

// Forwards to an inner sink with credentials masked in the message text.
class RedactingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit RedactingSink(spdlog::sink_ptr inner) : inner_(std::move(inner)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string_view payload(msg.payload.data(), msg.payload.size());
    const std::string clean = redact(payload);
    if (clean == payload) {
      inner_->log(msg);
      return;
    }
    spdlog::details::log_msg copy = msg;
    copy.payload = clean;
    inner_->log(copy);
  }
  void flush_() override { inner_->flush(); }
  void set_pattern_(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  spdlog::sink_ptr inner_;
};

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::trace: return spdlog::level::trace;
    case LogLevel::debug: return spdlog::level::debug;
    case LogLevel::info: return spdlog::level::info;
    case LogLevel::warn: return spdlog::level::warn;
    case LogLevel::error: return spdlog::level::err;
    case LogLevel::off: return spdlog::level::off;
  }
  return spdlog::level::info;
}

}  // namespace

Result<LogLevel> parse_log_level(std::string_view name) {
  if (name == "trace") return LogLevel::trace;
  if (name == "debug") return LogLevel::debug;
  if (name == "info") return LogLevel::info;
  if (name == "warn" || name == "warning") return LogLevel::warn;
  if (name == "error") return LogLevel::error;
  if (name == "off") return LogLevel::off;
  return fail(ErrorCode::invalid_argument,
              fmt::format("unknown log level '{}' (trace, debug, info, warn, error, off)", name));
}

Result<void> setup_logging(const LogOptions& options) {
  std::vector<spdlog::sink_ptr> sinks;
  if (options.to_stderr) {
    sinks.push_back(
        std::make_shared<RedactingSink>(std::make_shared<spdlog::sinks::stderr_sink_mt>()));
  }
  if (options.file) {
    // Create the file owner-only before spdlog opens it for appending.
    const int fd = ::open(options.file->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) return fail_errno("open log file " + options.file->string(), errno);
    ::close(fd);
    try {
      auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file->string());
      sinks.push_back(std::make_shared<RedactingSink>(std::move(file)));
    } catch (const spdlog::spdlog_ex& e) {
      return fail(ErrorCode::io, fmt::format("open log file: {}", e.what()));
    }
  }
  auto logger = std::make_shared<spdlog::logger>("ava", sinks.begin(), sinks.end());
  logger->set_level(to_spdlog(options.level));
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ [%t] %v");
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  return {};
}

}  // namespace ava::base
