// The official ACP TypeScript SDK's client driving `ava acp` end to end:
//   node acp-sdk-client.mjs AVA PROJECT_DIR
// (AVA_HOME and the provider come from the environment). It initializes,
// opens a session, sends a prompt whose tool call writes a file (allowing
// it when asked), a plain prompt, and checks what came back. Exit 0 when
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
function check(condition, what) {
  if (!condition) throw new Error(what);
}

const app = client({ name: "ava-acp-sdk-test" })
  .onRequest(methods.client.session.requestPermission, async ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  })
  .onNotification(methods.client.session.update, async ({ params }) => {
    updates.push(params.update);
  });

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
    });
    check(init.protocolVersion === 1, "protocol version " + init.protocolVersion);
    check(init.agentCapabilities.loadSession === true, "loadSession");
    const { sessionId } = await ctx.request(methods.agent.session.new, {
      cwd: project,
      mcpServers: [],
    });
    check(typeof sessionId === "string" && sessionId.length > 0, "sessionId");

    const call = JSON.stringify({ path: "sdk.txt", content: "written for the SDK\n" });
    const written = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "tool: write " + call }],
    });
    check(written.stopReason === "end_turn", "stop reason " + written.stopReason);
    check(permissions.length === 1, "permission requests: " + permissions.length);
    const started = updates.find((u) => u.sessionUpdate === "tool_call");
    check(started && started.kind === "edit", "no edit tool call");
    const diff = started.content.find((c) => c.type === "diff");
    check(diff && diff.path === join(project, "sdk.txt") && diff.newText === "written for the SDK\n",
          "diff " + JSON.stringify(diff));
    check(updates.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed"),
          "the call did not complete");
    check(readFileSync(join(project, "sdk.txt"), "utf8") === "written for the SDK\n", "file");

    updates.length = 0;
    const plain = await ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "and hello" }],
    });
    check(plain.stopReason === "end_turn", "second stop reason " + plain.stopReason);
    const text = updates
      .filter((u) => u.sessionUpdate === "agent_message_chunk")
      .map((u) => u.content.text)
      .join("");
    check(text.includes("echo: and hello"), "answer " + JSON.stringify(text));
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
