// The official ACP TypeScript SDK's client driving `ava acp` end to end:
//   node acp-sdk-client.mjs AVA PROJECT_DIR
// (AVA_HOME and the provider come from the environment). It initializes,
// opens a session, sends a prompt whose tool call writes a file (allowing
// it when asked), one that reads it through the client's fs/read_text_file
// (its "unsaved buffer"), switches the model with session/set_config_option,
// sends a plain prompt, and checks what came back. Exit 0 when
// everything matched; the reason on stderr otherwise.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";

import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const [ava, project] = process.argv.slice(2);
const child = spawn(ava, ["acp", "--in-process", "--permission-mode", "ask"], {
  stdio: ["pipe", "pipe", "inherit"],
});
const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const updates = [];
const permissions = [];
const reads = [];
function check(condition, what) {
  if (!condition) throw new Error(what);
}
// The SDK may settle a request before it has delivered the notifications
// that came before its answer on the wire: wait for them a little.
async function eventually(condition, what) {
  for (let waited = 0; !condition() && waited < 5000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  check(condition(), what());
}
const answerText = () =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

const app = client({ name: "ava-acp-sdk-test" })
  .onRequest(methods.client.session.requestPermission, async ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  })
  .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
    reads.push(params);
    return { content: "from the SDK's buffer\n" };
  })
  .onNotification(methods.client.session.update, async ({ params }) => {
    updates.push(params.update);
  });

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false } },
    });
    check(init.protocolVersion === 1, "protocol version " + init.protocolVersion);
    check(init.agentCapabilities.loadSession === true, "loadSession");
    const { sessionId, configOptions } = await ctx.request(methods.agent.session.new, {
      cwd: project,
      mcpServers: [],
    });
    check(typeof sessionId === "string" && sessionId.length > 0, "sessionId");
    const model = configOptions.find((o) => o.id === "model");
    check(model && model.category === "model" && model.options.length > 1, "model option");

    const call = JSON.stringify({ path: "sdk.txt", content: "written for the SDK\n" });
    const written = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "tool: write " + call }],
    });
    check(written.stopReason === "end_turn", "stop reason " + written.stopReason);
    check(permissions.length === 1, "permission requests: " + permissions.length);
    await eventually(
      () => updates.some((u) => u.sessionUpdate === "tool_call"),
      () => "no tool call");
    const started = updates.find((u) => u.sessionUpdate === "tool_call");
    check(started && started.kind === "edit", "no edit tool call");
    const diff = started.content.find((c) => c.type === "diff");
    check(diff && diff.path === join(project, "sdk.txt") && diff.newText === "written for the SDK\n",
          "diff " + JSON.stringify(diff));
    await eventually(
      () => updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
      () => "the call did not complete");
    check(readFileSync(join(project, "sdk.txt"), "utf8") === "written for the SDK\n", "file");

    updates.length = 0;
    const read = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: 'tool: read {"path": "sdk.txt"}' }],
    });
    check(read.stopReason === "end_turn", "read stop reason " + read.stopReason);
    check(reads.length === 1 && reads[0].path === join(project, "sdk.txt"), "fs/read_text_file");
    await eventually(
      () => answerText().includes("from the SDK's buffer"),
      () => "read answer " + answerText());

    const other = model.options.find((o) => o.value !== model.currentValue).value;
    const set = await ctx.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: "model",
      value: other,
    });
    check(set.configOptions.find((o) => o.id === "model").currentValue === other, "model set");

    updates.length = 0;
    const plain = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "and hello" }],
    });
    check(plain.stopReason === "end_turn", "second stop reason " + plain.stopReason);
    await eventually(
      () => answerText().includes("echo: and hello"),
      () => "answer " + JSON.stringify(answerText()));
  });
  child.stdin.end();
  const code = await new Promise((resolve) => child.on("exit", resolve));
  check(code === 0, "ava acp exited " + code);
  console.log("ok   acp sdk client");
} catch (error) {
  console.error("acp sdk client: " + (error && error.stack ? error.stack : error));
  child.kill("SIGKILL");
  process.exit(1);
}
