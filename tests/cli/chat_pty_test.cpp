// `ava chat` through a pseudo-terminal, as a person uses it: the built
// binary on proc's PTY with its own AVA_HOME, the mock provider scripted
// (AVA_MOCK_SCRIPT) or echoing, keys written to the terminal and the screen
// read back. Covers a streamed answer, an approval answered inline, slash
// commands with Tab completion, Ctrl-C aborting a turn and a second one
// quitting, and resuming a conversation (ava chat --resume, ava -c).

#include <catch2/catch.hpp>

#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "ava/proc/pty.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using nlohmann::json;

// Generous: the binary is built with sanitizers and the machine is shared.
constexpr auto patience = 30s;

class Terminal {
 public:
  Terminal(const std::vector<std::string>& args, const std::filesystem::path& home,
           const std::filesystem::path& cwd, std::map<std::string, std::string> env = {}) {
    ava::proc::SpawnOptions options;
    options.argv = {AVA_BIN};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    options.cwd = cwd;
    env["AVA_HOME"] = home.string();
    env["TERM"] = "xterm-256color";
    env["COLUMNS"] = "100";
    options.env_remove = {"AVA_PROVIDER", "AVA_MODEL", "ANTHROPIC_API_KEY", "OPENAI_API_KEY",
                          "AVA_MOCK_SCRIPT"};
    if (!env.contains("NO_COLOR")) options.env_remove.emplace_back("NO_COLOR");
    options.env = std::move(env);
    auto spawned = ava::proc::PtyProcess::spawn(io_.get_executor(), options);
    REQUIRE(spawned);
    process_.emplace(std::move(*spawned));
    REQUIRE(process_->resize({.rows = 40, .cols = 100}));
  }

  // Reads until `text` appears after what earlier expects consumed.
  std::string expect(const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    for (;;) {
      const auto found = screen_.find(text, consumed_);
      if (found != std::string::npos) {
        std::string before = screen_.substr(consumed_, found - consumed_);
        consumed_ = found + text.size();
        return before;
      }
      if (std::chrono::steady_clock::now() > deadline || !read_some(200ms)) {
        FAIL("waited for \"" << text << "\"; the terminal showed:\n" << screen_.substr(consumed_));
      }
    }
  }

  // Waits until the terminal has been quiet for `quiet`. A Ctrl-D written
  // within microseconds of the prompt showing was, under load, sometimes
  // taken by libedit as a quoted insert (6 of 40 runs on two busy cores; 0
  // of 40 with this wait): a timing window in the line editor's start that
  // no person types into, so this key waits for the editor to be ready.
  void settle(std::chrono::milliseconds quiet = 100ms) {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    for (;;) {
      const auto before = screen_.size();
      if (!read_some(quiet) || (screen_.size() == before)) return;
      if (std::chrono::steady_clock::now() > deadline) return;
    }
  }

  void type(std::string_view keys) {
    std::size_t written = 0;
    while (written < keys.size()) {
      const auto n = ::write(fd(), keys.data() + written, keys.size() - written);
      REQUIRE(n > 0);
      written += static_cast<std::size_t>(n);
    }
  }

  // The exit code after the terminal's output ends.
  int wait() {
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (read_some(200ms)) {
      if (std::chrono::steady_clock::now() > deadline) {
        FAIL("the process did not end; the terminal showed:\n" << screen_.substr(consumed_));
      }
    }
    std::optional<int> code;
    asio::co_spawn(
        io_,
        [&]() -> asio::awaitable<void> {
          auto status = co_await process_->wait();
          code = status ? status->code : -1;
        },
        [](const std::exception_ptr&) {});
    io_.run();
    return code.value_or(-1);
  }

  const std::string& screen() const { return screen_; }

 private:
  int fd() { return process_->terminal().native_handle(); }

  // False once the child side is closed (EIO) or nothing came for a while.
  bool read_some(std::chrono::milliseconds wait) {
    pollfd ready{.fd = fd(), .events = POLLIN, .revents = 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(wait.count()));
    if (polled == 0) return true;  // nothing yet; the caller's deadline decides
    char buffer[4096];
    const auto n = ::read(fd(), buffer, sizeof buffer);
    if (n <= 0) return false;
    screen_.append(buffer, static_cast<std::size_t>(n));
    return true;
  }

  asio::io_context io_;
  std::optional<ava::proc::PtyProcess> process_;
  std::string screen_;
  std::size_t consumed_ = 0;
};

struct Workspace {
  ava::test::TempDir dir;
  std::filesystem::path home = dir.path() / "home";
  std::filesystem::path project = dir.path() / "project";
  Workspace() { std::filesystem::create_directories(project); }

  std::string script(const json& responses) {
    const auto file = dir.path() / ("script-" + std::to_string(++scripts) + ".json");
    ava::test::write_file(file, json{{"responses", responses}}.dump());
    return file.string();
  }
  int scripts = 0;
};

const std::vector<std::string> mock = {"chat", "--provider", "mock", "--no-mcp"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

}  // namespace

TEST_CASE("ava chat streams an answer, completes and runs slash commands, and resumes") {
  Workspace work;
  const auto script = work.script(json::array({
      {{"steps",
        json::array({{{"text", "# Plan\n\nFirst **do** this:\n\n```cpp\nint x = 1;\n```\n"}}})}},
  }));
  {
    Terminal chat(mock, work.home, work.project, {{"AVA_MOCK_SCRIPT", script}});
    chat.expect("Ctrl-D quits");
    chat.expect("› ");
    chat.type("make a plan\r");
    const auto answer = chat.expect("› ");
    // Rendered for the terminal: the heading bold, the code block framed.
    CHECK(answer.find("Plan") != std::string::npos);
    CHECK(answer.find("\x1b[1m") != std::string::npos);
    CHECK(answer.find("int x = 1;") != std::string::npos);
    CHECK(answer.find("│") != std::string::npos);
    CHECK(answer.find("```") == std::string::npos);
    CHECK(answer.find(" out") != std::string::npos);  // the turn's usage line

    // Tab completes "/cos" to "/cost " (the line editor adds "t ").
    chat.type("/cos\t");
    chat.expect("t ");
    chat.type("\r");
    const auto cost = chat.expect("› ");
    // The agent's own answer, never sent to the model.
    CHECK((cost.find(" in, ") != std::string::npos ||
           cost.find("No tokens used yet") != std::string::npos));

    chat.type("/nosuchcommand\r");
    const auto unknown = chat.expect("› ");
    CHECK(unknown.find("unknown command /nosuchcommand") != std::string::npos);

    chat.settle();
    chat.type("\x04");  // Ctrl-D at an empty prompt
    CHECK(chat.wait() == 0);
  }

  // --resume: the last exchange is shown again, and the conversation goes on
  // with the same log (the mock echoes now: no script).
  {
    Terminal chat(with(mock, {"--resume"}), work.home, work.project);
    chat.expect("resumed ");
    const auto recap = chat.expect("› ");
    CHECK(recap.find("make a plan") != std::string::npos);
    CHECK(recap.find("int x = 1;") != std::string::npos);
    chat.type("/exit\r");
    CHECK(chat.wait() == 0);
  }
  // `ava -c` is the same.
  {
    Terminal chat({"-c", "--provider", "mock", "--no-mcp"}, work.home, work.project);
    chat.expect("resumed ");
    chat.expect("› ");
    chat.type("again\r");
    const auto echoed = chat.expect("› ");
    CHECK(echoed.find("again") != std::string::npos);
    chat.type("/exit\r");
    CHECK(chat.wait() == 0);
  }
  // All three ran in one conversation, which `ava session list` shows.
  {
    Terminal list({"session", "list", "--json"}, work.home, work.project);
    CHECK(list.wait() == 0);
    const auto start = list.screen().find('[');
    REQUIRE(start != std::string::npos);
    const auto sessions = json::parse(list.screen().substr(start));
    REQUIRE(sessions.size() == 1);
    CHECK(sessions[0]["first_input"] == "make a plan");
  }
}

TEST_CASE("ava chat asks before a command runs and takes the answer inline") {
  Workspace work;
  const auto script = work.script(json::array({
      {{"steps", json::array({{{"toolCall",
                                {{"id", "c1"},
                                 {"name", "bash"},
                                 {"arguments", {{"command", "echo approved > out.txt"}}}}}}})}},
      {{"steps", json::array({{{"text", "Wrote it.\n"}}})}},
      {{"steps", json::array({{{"toolCall",
                                {{"id", "c2"},
                                 {"name", "bash"},
                                 {"arguments", {{"command", "echo refused > no.txt"}}}}}}})}},
      {{"steps", json::array({{{"text", "Understood.\n"}}})}},
  }));
  Terminal chat(with(mock, {"--permission-mode", "ask", "--sandbox", "off"}), work.home,
                work.project, {{"AVA_MOCK_SCRIPT", script}});
  chat.expect("› ");
  chat.type("write the file\r");
  const auto asked = chat.expect("allow? [y/");
  CHECK(asked.find("echo approved > out.txt") != std::string::npos);
  chat.type("maybe\r");  // not an answer: asked again
  chat.expect("allow? [y/");
  chat.type("y\r");
  const auto ran = chat.expect("› ");
  CHECK(ran.find("Wrote it.") != std::string::npos);
  CHECK(ava::test::read_text(work.project / "out.txt") == "approved\n");

  chat.type("another\r");
  chat.expect("allow? [y/");
  chat.type("n\r");
  chat.expect("why, for the model (optional): ");
  chat.type("not now\r");
  const auto denied = chat.expect("› ");
  CHECK(denied.find("Understood.") != std::string::npos);
  CHECK(!std::filesystem::exists(work.project / "no.txt"));
  chat.type("/exit\r");
  CHECK(chat.wait() == 0);
}

TEST_CASE("Ctrl-C aborts a chat turn; a second one quits") {
  Workspace work;
  const auto script = work.script(json::array({
      {{"steps",
        json::array({{{"text", "starting\n"}}, {{"delayMs", 60000}}, {{"text", "late"}}})}},
      {{"steps", json::array({{{"text", "after the abort\n"}}})}},
      {{"steps", json::array({{{"delayMs", 60000}}})}},
  }));
  Terminal chat(mock, work.home, work.project, {{"AVA_MOCK_SCRIPT", script}});
  chat.expect("› ");
  chat.type("take your time\r");
  chat.expect("starting");
  chat.type("\x03");
  const auto aborted = chat.expect("› ");
  CHECK(aborted.find("Turn aborted.") != std::string::npos);
  CHECK(aborted.find("late") == std::string::npos);

  // The conversation goes on after an abort.
  chat.type("go on\r");
  const auto next = chat.expect("› ");
  CHECK(next.find("after the abort") != std::string::npos);

  // Ctrl-C at the prompt only warns; during a turn, twice quits with 130.
  chat.type("\x03");
  chat.expect("Ctrl-C again");
  chat.type("stall\r");
  chat.expect("Thinking");
  // Two presses as a person makes them (one write of both would reach the
  // process as a single signal): the second quits, whether the first one's
  // abort has already ended the turn or not.
  chat.type("\x03");
  chat.expect("Ctrl-C again to quit");
  chat.type("\x03");
  CHECK(chat.wait() == 130);
}

TEST_CASE("ava chat honours NO_COLOR") {
  // NO_COLOR on a terminal: the answer as written, no colour or bold.
  Workspace work;
  const auto script = work.script(json::array({
      {{"steps", json::array({{{"text", "**plain** answer\n"}}})}},
  }));
  Terminal chat(mock, work.home, work.project, {{"AVA_MOCK_SCRIPT", script}, {"NO_COLOR", "1"}});
  chat.expect("› ");
  chat.type("hello\r");
  const auto answer = chat.expect("› ");
  CHECK(answer.find("**plain** answer") != std::string::npos);
  CHECK(answer.find("\x1b[1m") == std::string::npos);
  chat.type("/exit\r");
  CHECK(chat.wait() == 0);
}

namespace {

// `ava backend start|stop` for one home, run as a user would, not on a
// terminal (the backend detaches from it).
int backend(const std::string& verb, const Workspace& work, const std::string& script = {}) {
  std::string command = "AVA_HOME='" + work.home.string() + "' ";
  if (!script.empty()) command += "AVA_MOCK_SCRIPT='" + script + "' ";
  command += std::string("'") + AVA_BIN + "' backend " + verb + " > /dev/null 2>&1";
  return std::system(command.c_str());  // NOLINT(concurrency-mt-unsafe)
}

}  // namespace

TEST_CASE("ava chat attaches to the backend that owns the home") {
  Workspace work;
  const auto script = work.script(json::array({
      {{"steps",
        json::array({{{"toolCall",
                       {{"id", "c1"},
                        {"name", "bash"},
                        {"arguments", {{"command", "echo attached > attached.txt"}}}}}}})}},
      {{"steps", json::array({{{"text", "Done **in the backend**.\n"}}})}},
      {{"steps", json::array({{{"text", "Second answer.\n"}}})}},
  }));
  REQUIRE(backend("start", work, script) == 0);
  struct Stop {
    const Workspace& work;
    ~Stop() { backend("stop", work); }
  } stop{work};

  std::string conversation;
  {
    Terminal chat({"chat", "--provider", "mock", "--permission-mode", "ask"}, work.home,
                  work.project);
    const auto banner = chat.expect("in the backend (pid ");
    chat.expect("› ");
    chat.type("write it\r");
    const auto asked = chat.expect("allow? [y/");
    CHECK(asked.find("echo attached > attached.txt") != std::string::npos);
    chat.type("y\r");
    const auto answer = chat.expect("› ");
    CHECK(answer.find("in the backend") != std::string::npos);
    CHECK(ava::test::read_text(work.project / "attached.txt") == "attached\n");
    chat.type("/exit\r");
    CHECK(chat.wait() == 0);
    const auto at = banner.find("session ");
    REQUIRE(at != std::string::npos);
    conversation = banner.substr(at + 8, 36);
  }
  // A flag only an agent in this process takes is refused, not ignored.
  {
    Terminal refused({"chat", "--sandbox", "off"}, work.home, work.project);
    refused.expect("--sandbox does not apply when ava chat attaches to the backend");
    CHECK(refused.wait() == 2);
  }
  // The conversation stays in the backend; --resume picks it up there.
  {
    Terminal chat({"chat", "--resume"}, work.home, work.project);
    const auto banner = chat.expect("in the backend (pid ");
    CHECK(banner.find("resumed " + conversation) != std::string::npos);
    const auto recap = chat.expect("› ");
    CHECK(recap.find("write it") != std::string::npos);
    chat.type("again\r");
    const auto answer = chat.expect("› ");
    CHECK(answer.find("Second answer.") != std::string::npos);
    chat.type("/exit\r");
    CHECK(chat.wait() == 0);
  }
}
