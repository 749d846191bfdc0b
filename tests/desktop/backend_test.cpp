// The desktop's models and SSE client against the real ava-backend (started
// by the client through `ava backend start`) and the loopback fake provider.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>

#include <catch2/catch.hpp>

#include <QUrl>

#include "ava/base/home.hpp"
#include "ava/desktop/workbench.hpp"
#include "ava/remote/machines.hpp"
#include "desktop/backend_harness.hpp"

using ava::desktop::ConversationModel;
using ava::desktop::ViewItem;
using ava::desktop::Workbench;
using ava::test::BackendHome;
using ava::test::process_alive;
using ava::test::spin_until;

namespace {

int count(const ConversationModel& model, ViewItem::Kind kind) {
  int n = 0;
  for (const auto& item : model.items()) n += item.kind == kind ? 1 : 0;
  return n;
}

bool has_answer(const ConversationModel& model, const QString& text) {
  for (const auto& item : model.items())
    if (item.kind == ViewItem::Kind::assistant && item.text == text) return true;
  return false;
}

bool answer_contains(const ConversationModel& model, const QString& text) {
  for (const auto& item : model.items())
    if (item.kind == ViewItem::Kind::assistant && item.text.contains(text)) return true;
  return false;
}

bool connected(Workbench& workbench) {
  return workbench.connection()->state() == QStringLiteral("connected");
}

// Connected, a project registered and a new conversation open.
void open_conversation(BackendHome& env, Workbench& workbench) {
  workbench.start();
  REQUIRE(spin_until([&] { return connected(workbench); }));
  env.track(workbench.connection()->pid());
  workbench.addProject(env.project());
  REQUIRE(spin_until([&] { return !workbench.projectId().isEmpty(); }));
  workbench.newConversation(QStringLiteral("test"));
  REQUIRE(spin_until([&] {
    return !workbench.conversationId().isEmpty() && workbench.conversation()->lastSeq() >= 1;
  }));
}

// Kills the backend as a crash would and waits for the client to have
// started a new one and reconnected.
void crash_backend(BackendHome& env, Workbench& workbench) {
  const auto pid = workbench.connection()->pid();
  const auto epoch = workbench.connection()->epoch();
  REQUIRE(::kill(static_cast<pid_t>(pid), SIGKILL) == 0);
  REQUIRE(spin_until([&] { return !process_alive(pid); }));
  REQUIRE(spin_until([&] {
    return connected(workbench) && workbench.connection()->epoch() > epoch &&
           workbench.connection()->pid() != pid;
  }));
  env.track(workbench.connection()->pid());
}

void check_contiguous(const ConversationModel& model) {
  const auto& seqs = model.applied();
  REQUIRE(!seqs.empty());
  for (std::size_t i = 0; i < seqs.size(); ++i) CHECK(seqs[i] == static_cast<std::int64_t>(i) + 1);
}

}  // namespace

TEST_CASE("a prompt's events arrive in order, and resume after a backend restart",
          "[desktop][backend]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();

  REQUIRE(workbench.send(QStringLiteral("bash: echo first")));
  REQUIRE(spin_until([&] { return has_answer(model, "done: first") && !model.turnOpen(); }));
  CHECK(count(model, ViewItem::Kind::tool) == 1);
  CHECK(model.items()[1].status == "ok");
  CHECK(model.items()[1].command == "echo first");
  const auto seq_before = model.lastSeq();

  crash_backend(env, workbench);
  REQUIRE(workbench.send(QStringLiteral("bash: echo second")));
  REQUIRE(spin_until([&] { return has_answer(model, "done: second") && !model.turnOpen(); }));

  CHECK(model.lastSeq() > seq_before);
  check_contiguous(model);
  CHECK(workbench.duplicates() == 0);  // the stream resumed from its cursor
  CHECK(count(model, ViewItem::Kind::user) == 2);
  CHECK(count(model, ViewItem::Kind::tool) == 2);
  CHECK(workbench.pendingInputs() == 0);
  // The navigation models followed.
  REQUIRE(spin_until([&] { return workbench.conversations()->count() == 1; }));
  CHECK(workbench.projects()->count() == 1);
  CHECK(workbench.machines()->get(0).value("state").toString() == "connected");
}

TEST_CASE("a crash mid-turn shows the recovery and never resends the prompt",
          "[desktop][backend]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();

  REQUIRE(workbench.send(QStringLiteral("slow: 300: one two three four five six seven eight")));
  // Live text from the status stream means the turn is streaming.
  REQUIRE(spin_until([&] { return !model.liveText().isEmpty(); }));
  CHECK(model.turnOpen());
  crash_backend(env, workbench);

  // Recovery closes the open turn; the view hears it through the resumed stream.
  REQUIRE(spin_until([&] { return !model.turnOpen(); }));
  CHECK(model.liveText().isEmpty());
  check_contiguous(model);
  CHECK(workbench.duplicates() == 0);
  CHECK(count(model, ViewItem::Kind::user) == 1);
  bool recovered = false;
  for (const auto& item : model.items())
    recovered = recovered || item.text.startsWith(QStringLiteral("Recovered after a crash"));
  CHECK(recovered);
}

TEST_CASE("the machines list shows this computer with the turns running on it",
          "[desktop][backend]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto machine = [&] { return workbench.machines()->get(0); };
  CHECK(machine().value("id").toString() == "local");
  CHECK(machine().value("selected").toBool());
  CHECK_FALSE(machine().value("remote").toBool());
  CHECK(workbench.machineName() == "local");
  // A machine added elsewhere (`ava machine add`) shows up without a restart.
  auto home = ava::base::Home::at(env.home().toStdString());
  REQUIRE(home);
  ava::remote::Machine box{.name = "box", .destination = "alice@127.0.0.1:1"};
  REQUIRE(ava::remote::MachineStore(*home).add(box));
  REQUIRE(spin_until([&] { return workbench.machines()->count() == 2; }));
  CHECK(workbench.machines()->get(1).value("id").toString() == "box");
  CHECK(workbench.machines()->get(1).value("state").toString() == "idle");
  REQUIRE(workbench.send(
      QStringLiteral("slow: 500: one two three four five six seven eight nine ten eleven twelve")));
  REQUIRE(spin_until([&] { return machine().value("runningTurns").toInt() == 1; }));
  REQUIRE(spin_until([&] {
    return !workbench.conversation()->turnOpen() && machine().value("runningTurns").toInt() == 0;
  }));
}

TEST_CASE("input sent while the backend is away is delivered once after the reconnect",
          "[desktop][backend]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();

  const auto pid = workbench.connection()->pid();
  REQUIRE(::kill(static_cast<pid_t>(pid), SIGKILL) == 0);
  REQUIRE(spin_until([&] { return !connected(workbench); }));
  REQUIRE(workbench.send(QStringLiteral("hello while away")));
  CHECK(workbench.pendingInputs() == 1);
  REQUIRE(spin_until([&] { return connected(workbench) && workbench.connection()->pid() != pid; }));
  env.track(workbench.connection()->pid());
  REQUIRE(
      spin_until([&] { return has_answer(model, "echo: hello while away") && !model.turnOpen(); }));
  CHECK(workbench.pendingInputs() == 0);
  CHECK(count(model, ViewItem::Kind::user) == 1);
  check_contiguous(model);
  CHECK(workbench.duplicates() == 0);
}

TEST_CASE("pins, archives and the review marker reach the backend and come back in the list",
          "[desktop][backend]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();
  const auto id = workbench.conversationId();
  auto row = [&] { return workbench.conversations()->get(workbench.conversations()->indexOf(id)); };

  REQUIRE(workbench.send(QStringLiteral("hello")));
  REQUIRE(spin_until([&] { return has_answer(model, "echo: hello") && !model.turnOpen(); }));
  // The view showed everything: the marker follows, and nothing is unread.
  REQUIRE(spin_until([&] {
    return row().value("reviewedSeq").toLongLong() == model.lastSeq() &&
           !row().value("unread").toBool();
  }));

  workbench.setPinned(id, true);
  REQUIRE(spin_until([&] { return row().value("pinned").toBool(); }));
  workbench.setArchived(id, true);
  REQUIRE(spin_until([&] { return workbench.conversations()->count() == 0; }));
  workbench.setShowArchived(true);
  REQUIRE(spin_until([&] { return workbench.conversations()->count() == 1; }));
  CHECK(row().value("archived").toBool());
  CHECK(row().value("title").toString() == "test");

  // Deleting the open conversation: gone from the list, the selection and the disk.
  const auto log = std::filesystem::path(env.home().toStdString()) / "sessions" /
                   (id.toStdString() + ".jsonl.zst");
  REQUIRE(std::filesystem::exists(log));
  workbench.deleteConversation(id);
  REQUIRE(spin_until([&] { return workbench.conversations()->count() == 0; }));
  CHECK(workbench.conversationId().isEmpty());
  CHECK_FALSE(std::filesystem::exists(log));
  CHECK(workbench.lastError().isEmpty());
}

TEST_CASE("an approval waits in the model, across a backend crash, and the answer runs the tool",
          "[desktop][backend][permissions]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();
  REQUIRE(spin_until([&] { return workbench.permissions().value("mode").toString() == "auto"; }));
  workbench.setPermissionMode(QStringLiteral("ask"));
  REQUIRE(spin_until([&] { return model.permissionMode() == "ask"; }));
  // The header's mode and rules follow the log's permission_mode event.
  REQUIRE(spin_until([&] { return workbench.permissions().value("mode").toString() == "ask"; }));
  CHECK(workbench.permissions().value("modeSource").toString() == "this conversation");

  REQUIRE(workbench.send(QStringLiteral("bash: touch approved.txt")));
  REQUIRE(spin_until([&] { return model.waitingApprovals() == 1; }));
  auto pending = model.pendingApproval();
  CHECK(pending.value("toolName").toString() == "bash");
  CHECK(pending.value("preview").toString() == "touch approved.txt");
  CHECK(pending.value("suggestedRules").toStringList() == QStringList{"bash(touch:*)"});
  const auto marker = std::filesystem::path(env.project().toStdString()) / "approved.txt";
  CHECK_FALSE(std::filesystem::exists(marker));
  REQUIRE(spin_until([&] {
    for (int i = 0; i < workbench.conversations()->count(); ++i)
      if (workbench.conversations()->get(i).value("state").toString() == "waiting") return true;
    return false;
  }));

  // The approval is in the log: a crashed backend's successor waits for it too.
  crash_backend(env, workbench);
  REQUIRE(spin_until([&] { return model.waitingApprovals() == 1; }));
  CHECK(model.pendingApproval().value("approvalId") == pending.value("approvalId"));

  workbench.decideApproval(pending.value("approvalId").toString(), QStringLiteral("allow"));
  REQUIRE(spin_until([&] {
    for (const auto& item : model.items())
      if (item.kind == ViewItem::Kind::tool && item.status == "ok") return !model.turnOpen();
    return false;
  }));
  CHECK(model.waitingApprovals() == 0);
  CHECK(std::filesystem::exists(marker));
  // A second answer is refused (409) and says so.
  workbench.decideApproval(pending.value("approvalId").toString(), QStringLiteral("allow"));
  REQUIRE(spin_until([&] { return !workbench.lastError().isEmpty(); }));
  CHECK(workbench.lastError().contains("no pending approval"));
}

TEST_CASE("the project's slash commands reach the composer, and one runs expanded",
          "[desktop][backend][commands]") {
  BackendHome env;
  const std::filesystem::path commands =
      std::filesystem::path(env.project().toStdString()) / ".ava" / "commands";
  std::filesystem::create_directories(commands);
  std::ofstream(commands / "greet.md")
      << "---\ndescription: Say hello\n---\nbash: echo hi $ARGUMENTS";
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  // The built-ins come first, then the project's own.
  REQUIRE(spin_until([&] { return workbench.commands().size() == 10; }));
  CHECK(workbench.commands().at(0).toMap().value("scope").toString() == "builtin");
  const auto greet = workbench.commands().at(9).toMap();
  CHECK(greet.value("name").toString() == "greet");
  CHECK(greet.value("description").toString() == "Say hello");
  CHECK(greet.value("scope").toString() == "project");

  auto& model = *workbench.conversation();
  REQUIRE(workbench.send(QStringLiteral("/greet there")));
  REQUIRE(spin_until([&] { return has_answer(model, "done: hi there") && !model.turnOpen(); }));
  CHECK(model.items()[0].text == "/greet there");  // as typed
  CHECK(model.items()[1].command == "echo hi there");
}

TEST_CASE("a /plan turn waits for approval, approving switches the mode and runs it",
          "[desktop][backend][workflows]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();
  REQUIRE(workbench.send(QStringLiteral("/goal ship it")));
  REQUIRE(spin_until([&] { return model.goal() == "ship it"; }));
  REQUIRE(workbench.send(QStringLiteral("/goal clear")));
  REQUIRE(spin_until([&] { return model.goal().isEmpty(); }));
  // The goal_set event comes before the command's output: wait for both.
  REQUIRE(spin_until([&] { return count(model, ViewItem::Kind::command) == 2; }));

  REQUIRE(workbench.send(QStringLiteral("/plan tidy the readme")));
  REQUIRE(spin_until([&] { return model.planAwaitingApproval(); }));
  CHECK(answer_contains(model, "echo: tidy the readme"));
  workbench.approvePlan(QStringLiteral("accept-edits"));
  REQUIRE(spin_until(
      [&] { return answer_contains(model, "echo: The plan is approved") && !model.turnOpen(); }));
  CHECK_FALSE(model.planAwaitingApproval());
  CHECK(model.permissionMode() == "accept-edits");
}

TEST_CASE("a task card's subagent log opens beside the conversation",
          "[desktop][backend][workflows]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();
  REQUIRE(workbench.send(QStringLiteral(
      R"(tool: task {"agent": "explore", "description": "look", "prompt": "bash: echo from-child"})")));
  std::optional<ViewItem> task;  // a copy: the model's rows move as they grow
  REQUIRE(spin_until([&] {
    for (const auto& item : model.items()) {
      if (item.kind == ViewItem::Kind::tool && item.tool_name == "task" &&
          !item.subagent_session.isEmpty())
        task = item;
    }
    return task.has_value() && !model.turnOpen();
  }));
  CHECK(task->subagent_agent == "explore");
  CHECK(task->output.contains("done: from-child"));
  workbench.openSubagent(task->subagent_session, task->subagent_agent);
  CHECK(workbench.subagentAgent() == "explore");
  auto& sub = *workbench.subagent();
  REQUIRE(spin_until([&] { return count(sub, ViewItem::Kind::tool) == 1 && !sub.turnOpen(); }));
  CHECK(sub.items()[0].kind == ViewItem::Kind::user);
  CHECK(sub.items()[0].text == "bash: echo from-child");
  CHECK(has_answer(sub, "done: from-child"));
  workbench.closeSubagent();
  CHECK(workbench.subagentAgent().isEmpty());
}

TEST_CASE("automations: the schedule's next runs, added, run now, history, a failure noticed",
          "[desktop][backend][automations]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  QStringList failures;
  QObject::connect(&workbench, &Workbench::automationFailed,
                   [&](const QString& name, const QString&, const QString&) { failures << name; });

  workbench.previewSchedule("cron", "0 9 * * mon-fri", "Europe/Berlin");
  REQUIRE(spin_until([&] { return workbench.schedulePreview().size() == 5; }));
  CHECK(workbench.schedulePreview().at(0).contains("09:00"));
  workbench.previewSchedule("cron", "61 * * * *", "UTC");
  REQUIRE(spin_until([&] { return !workbench.schedulePreviewError().isEmpty(); }));

  workbench.addAutomation({{"name", "hello"},
                           {"project", env.project()},
                           {"prompt", "bash: echo from-desktop"},
                           {"every", "1h"}});
  REQUIRE(spin_until([&] { return workbench.automations()->count() == 1; }));
  const auto row = workbench.automations()->get(0);
  CHECK(row.value("name").toString() == "hello");
  CHECK(row.value("nextRunMs").toLongLong() > 0);
  const QString id = row.value("id").toString();
  workbench.runAutomation(id);
  REQUIRE(spin_until(
      [&] { return workbench.automations()->get(0).value("lastState").toString() == "finished"; }));
  workbench.loadAutomationHistory(id);
  REQUIRE(spin_until([&] { return workbench.automationHistory().size() == 1; }));
  const auto run = workbench.automationHistory().at(0).toMap();
  CHECK(run.value("trigger").toString() == "manual");
  CHECK_FALSE(run.value("conversationId").toString().isEmpty());

  // A run past its time limit fails, and the desktop is told.
  workbench.addAutomation({{"name", "slow"},
                           {"project", env.project()},
                           {"prompt", "bash: sleep 30"},
                           {"cron", "0 0 1 1 *"},
                           {"timeLimitSeconds", 1}});
  REQUIRE(spin_until([&] { return workbench.automations()->count() == 2; }));
  const auto slow = workbench.automations()->get(1);  // the list is by name
  REQUIRE(slow.value("name").toString() == "slow");
  workbench.runAutomation(slow.value("id").toString());
  REQUIRE(spin_until([&] { return failures.contains("slow"); }));
  CHECK(workbench.lastError().contains("Automation slow failed"));
}

TEST_CASE("with nothing configured, the first-run choices come from the backend and one is saved",
          "[desktop][backend]") {
  BackendHome env;
  // No key: the fake provider poses as a running Ollama (it lists
  // "echo-local:1b" at /api/tags), where the backend is told to look.
  qunsetenv("ANTHROPIC_API_KEY");
  qunsetenv("ANTHROPIC_BASE_URL");
  const auto port = QUrl(env.provider_url()).port();
  qputenv("AVA_LOCAL_PROBE", QStringLiteral("ollama=127.0.0.1:%1").arg(port).toUtf8());
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  workbench.start();
  REQUIRE(spin_until([&] { return connected(workbench); }));
  env.track(workbench.connection()->pid());
  qunsetenv("AVA_LOCAL_PROBE");
  REQUIRE(
      spin_until([&] { return workbench.needsSetup() && !workbench.detectedServers().isEmpty(); }));
  const auto server = workbench.detectedServers().front().toMap();
  CHECK(server.value("name").toString() == "ollama");
  CHECK(server.value("inUse").toBool());
  CHECK(server.value("models").toStringList() == QStringList{QStringLiteral("echo-local:1b")});
  CHECK(workbench.defaultProvider() == "ollama");  // used meanwhile

  workbench.saveProviderKey(QStringLiteral("anthropic"), QStringLiteral("sk bad"));
  REQUIRE(spin_until([&] { return !workbench.setupBusy() && !workbench.setupError().isEmpty(); }));
  CHECK(workbench.setupError().contains("apiKey"));
  CHECK(workbench.needsSetup());

  workbench.useDetectedServer(server.value("name").toString(), server.value("baseUrl").toString(),
                              QStringLiteral("echo-local:1b"));
  REQUIRE(spin_until([&] { return !workbench.needsSetup(); }));
  CHECK(workbench.setupError().isEmpty());
  CHECK(workbench.defaultProvider() == "ollama");
  std::ifstream saved(std::filesystem::path(env.home().toStdString()) / "settings.json");
  std::string text((std::istreambuf_iterator<char>(saved)), std::istreambuf_iterator<char>());
  CHECK(text.find(R"("provider": "ollama")") != std::string::npos);
}

TEST_CASE(
    "images attached in the composer reach the conversation; a file that is not one is refused",
    "[desktop][backend]") {
  BackendHome env;
  Workbench workbench({.home = env.home(), .ava_binary = QStringLiteral(AVA_BIN)});
  open_conversation(env, workbench);
  auto& model = *workbench.conversation();
  ava::test::TempDir dir;
  // A 1x1 PNG, and a text file named like an image.
  const auto png = dir.path() / "pixel.png";
  ava::test::write_file(
      png, QByteArray::fromHex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                               "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f6a6e6"
                               "0000000049454e44ae426082")
               .toStdString());
  const auto fake = dir.path() / "fake.png";
  ava::test::write_file(fake, "not an image");
  const auto png_path = QString::fromStdString(png.string());
  const auto fake_path = QString::fromStdString(fake.string());

  const auto info = workbench.imageInfo(QUrl::fromLocalFile(png_path).toString());
  CHECK(info.value("ok").toBool());
  CHECK(info.value("mediaType").toString() == "image/png");
  CHECK(info.value("path").toString() == png_path);
  const auto refused = workbench.imageInfo(fake_path);
  CHECK(!refused.value("ok").toBool());
  CHECK(refused.value("error").toString() == "fake.png is not a png, jpeg, gif or webp image.");

  CHECK(!workbench.send(QStringLiteral("look"), QStringLiteral("followup"), {fake_path}));
  CHECK(workbench.lastError() == "fake.png is not a png, jpeg, gif or webp image.");
  CHECK(workbench.pendingInputs() == 0);  // nothing half sent

  REQUIRE(workbench.send(QStringLiteral("look at this"), QStringLiteral("followup"), {png_path}));
  REQUIRE(spin_until([&] {
    for (const auto& item : model.items()) {
      if (item.kind == ViewItem::Kind::user && item.text.contains("[1 image(s) attached]"))
        return true;
    }
    return false;
  }));
  REQUIRE(spin_until([&] { return !model.turnOpen() && workbench.pendingInputs() == 0; }));
}
