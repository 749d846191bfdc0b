#!/usr/bin/env node
// End-to-end test of the web UI against the real `ava --serve` and the
// loopback fake provider, driving Debian's Chromium with playwright-core.
//
//   node e2e/run.mjs --ava PATH/ava --fake PATH/ava-fake-provider --out DIR
//        [--web DIR (default: web/dist)] [--chromium /usr/bin/chromium] [--headed]
//
// Exits non-zero with a message on the first failure; screenshots go to --out.
//
// Sign-in: `ava --serve` prints `Ava is serving http://127.0.0.1:PORT/?login=CODE`.
// The browser opens that link (the server sets the session cookie), the
// script's own requests carry the browser context's cookies, and after the
// restart the new code is traded through POST /api/login. A server that
// prints a plain URL (no login yet) is driven without any of that.
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const args = { web: path.resolve(here, "../dist"), chromium: "/usr/bin/chromium", out: path.resolve(here, "../e2e-out"), headed: false };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    if (name === "--headed") args.headed = true;
    else if (["--ava", "--fake", "--out", "--web", "--chromium", "--mcp-server"].includes(name)) args[name.slice(2)] = path.resolve(argv[++i] ?? "");
    else throw new Error(`unknown argument ${name}`);
  }
  for (const need of ["ava", "fake"]) if (!args[need]) throw new Error(`--${need} is required`);
  return args;
}

class Failure extends Error {}
const check = (cond, message) => {
  if (!cond) throw new Failure(message);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log(`[e2e ${new Date().toISOString().slice(11, 23)}]`, ...a);

/**
 * Copies a binary once it has not changed for a few seconds, so that a
 * rebuild of the original while the test runs (another engineer's ninja)
 * cannot pull it away from under the restart.
 */
async function stableCopy(source, dest) {
  const deadline = Date.now() + 120000;
  for (;;) {
    try {
      const before = statSync(source);
      if (Date.now() - before.mtimeMs > 3000) {
        copyFileSync(source, dest);
        const after = statSync(source);
        if (after.mtimeMs === before.mtimeMs && statSync(dest).size === after.size) {
          chmodSync(dest, 0o755);
          return dest;
        }
      }
    } catch {
      /* missing for a moment while it is relinked */
    }
    if (Date.now() > deadline) throw new Failure(`${source} did not settle (being rebuilt?)`);
    log(`waiting for ${source} to settle`);
    await sleep(2000);
  }
}

/** Starts a process and resolves with its first stdout line. */
function startWithFirstLine(command, args, options, logFile, what) {
  const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  const logStream = createWriteStream(logFile, { flags: "a" });
  child.stderr.pipe(logStream);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Failure(`${what} printed nothing within 60 s (log: ${logFile})`)), 60000);
    const lines = createInterface({ input: child.stdout });
    let first = true;
    lines.on("line", (line) => {
      logStream.write(`[stdout] ${line}\n`);
      if (first) {
        first = false;
        clearTimeout(timer);
        resolve({ child, line });
      }
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (first) reject(new Failure(`${what} exited (${code ?? signal}) before printing its address; log: ${logFile}`));
    });
    child.on("error", (error) => reject(new Failure(`${what}: ${error.message}`)));
  });
}

/** Clicks the middle of the first occurrence of text inside an element (bare text, not an element of its own). */
async function clickText(page, locator, text) {
  const point = await locator.evaluate((element, wanted) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(wanted);
      if (at < 0) continue;
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + wanted.length);
      const box = range.getBoundingClientRect();
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    }
    return null;
  }, text);
  check(point, `no text ${JSON.stringify(text)} to click`);
  await page.mouse.click(point.x, point.y);
}

/** Records dialogs (dismissing them) and pages opened while `work` runs. */
async function watchForEscapes(page, work) {
  const dialogs = [];
  const opened = [];
  const onDialog = (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => undefined);
  };
  const onPage = (other) => opened.push(other);
  page.on("dialog", onDialog);
  page.context().on("page", onPage);
  const url = page.url();
  try {
    await work();
    await sleep(800); // time for a dialog, a navigation or a tab to show up
  } finally {
    page.off("dialog", onDialog);
    page.context().off("page", onPage);
  }
  check(dialogs.length === 0, `a dialog opened: ${dialogs.join("; ")}`);
  check(page.url() === url, `the page navigated to ${page.url()}`);
  const open = opened.filter((other) => !other.isClosed());
  check(open.length === 0, `a page stayed open: ${open.map((other) => other.url()).join(", ")}`);
  check(opened.every((other) => !/^javascript:/i.test(other.url())), "a javascript: page was opened");
}

// A year of analytics: what a heavy user's index answers for "Last year".
function syntheticYear() {
  const bucket = (key, i) => ({
    key,
    inputTokens: 400_000 + ((i * 7919) % 300_000),
    outputTokens: 20_000 + ((i * 104_729) % 15_000),
    cacheReadTokens: 1_200_000 + ((i * 1299) % 800_000),
    cacheWriteTokens: 50_000,
    steps: 120 + (i % 80),
    costUsd: 2 + (i % 13) / 4,
  });
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const byDay = Array.from({ length: 365 }, (_, i) => bucket(new Date(today - (364 - i) * 86_400_000).toISOString().slice(0, 10), i));
  const names = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
  const sum = (field) => byDay.reduce((total, b) => total + b[field], 0);
  return {
    sessions: 4_000,
    turns: 30_000,
    steps: sum("steps"),
    toolCalls: 120_000,
    inputTokens: sum("inputTokens"),
    outputTokens: sum("outputTokens"),
    cacheReadTokens: sum("cacheReadTokens"),
    cacheWriteTokens: sum("cacheWriteTokens"),
    costUsd: sum("costUsd"),
    cacheHitRatio: 0.74,
    medianFirstTokenMs: 850,
    byDay,
    byProject: names("/home/me/src/project", 12).map(bucket),
    byModel: names("model", 6).map(bucket),
    byProvider: ["anthropic", "openai", "ollama"].map(bucket),
    tools: names("tool", 24).map((tool, i) => ({ tool, calls: 5_000 - i * 100, errors: i * 3, interrupted: i, meanMs: 200 + i * 40 })),
  };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  check(existsSync(path.join(args.web, "index.html")), `no built UI in ${args.web}: run \`npm run build\` first`);
  check(existsSync(args.chromium), `no Chromium at ${args.chromium}`);
  mkdirSync(args.out, { recursive: true });
  const temp = mkdtempSync(path.join(tmpdir(), "ava-web-e2e-"));
  const home = path.join(temp, "home");
  const project = path.join(temp, "project");
  mkdirSync(home);
  mkdirSync(project);
  // A project slash command, for the composer's completion below.
  mkdirSync(path.join(project, ".ava", "commands"), { recursive: true });
  writeFileSync(path.join(project, ".ava", "commands", "greet.md"), "---\ndescription: Say hello through bash\n---\nbash: echo hi $ARGUMENTS");
  writeFileSync(path.join(home, "settings.json"), JSON.stringify({ permissions: { defaultMode: "auto" } }));
  const children = [];
  let browser = null;
  let shot = 0;
  let page = null;
  // Set once the main conversation exists: on a failure, prints what the
  // backend logged beside what the page shows, to tell a UI bug from a
  // backend one.
  let diagnose = null;
  const screenshot = async (name) => {
    shot += 1;
    const file = path.join(args.out, `${String(shot).padStart(2, "0")}-${name}.png`);
    await page.screenshot({ path: file, fullPage: false });
    log("screenshot", file);
  };

  try {
    const avaBinary = await stableCopy(args.ava, path.join(temp, "ava"));
    const fakeBinary = await stableCopy(args.fake, path.join(temp, "ava-fake-provider"));
    const fake = await startWithFirstLine(fakeBinary, ["--format", "anthropic", "--echo"], {}, path.join(args.out, "fake-provider.log"), "ava-fake-provider");
    children.push(fake.child);
    const fakeUrl = fake.line.trim();
    check(fakeUrl.startsWith("http://"), `fake provider printed ${JSON.stringify(fake.line)}`);
    log("fake provider", fakeUrl);

    const env = { ...process.env };
    for (const name of ["AVA_PROVIDER", "AVA_MODEL", "AVA_BASE_URL", "AVA_API_KEY", "OPENAI_API_KEY", "DISPLAY", "WAYLAND_DISPLAY"]) delete env[name];
    // CODEX_HOME: a Codex login of the user's stays out of the run.
    Object.assign(env, { AVA_HOME: home, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fakeUrl, no_proxy: "*", AVA_WEB_ROOT: args.web, CODEX_HOME: path.join(temp, "codex") });

    let server = null;
    const startServer = async (port) => {
      const started = await startWithFirstLine(avaBinary, ["--serve", "--port", String(port), "--no-open"], { env }, path.join(args.out, "server.log"), "ava --serve");
      children.push(started.child);
      const match = /(http:\/\/127\.0\.0\.1:(\d+))\/?(?:\?login=([A-Za-z0-9_-]+))?/.exec(started.line);
      check(match, `ava --serve printed ${JSON.stringify(started.line)}`);
      const code = match[3] ?? null;
      return { child: started.child, url: match[1], port: Number(match[2]), code, loginUrl: code ? `${match[1]}/?login=${code}` : `${match[1]}/` };
    };
    server = await startServer(0);
    log("server", server.url, server.code ? "(with a login link)" : "(no login link: sign-in checks skipped)");

    browser = await chromium.launch({ executablePath: args.chromium, headless: !args.headed, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // Any Content-Security-Policy violation is a failure, whatever the server sends.
    await context.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    });
    page = await context.newPage();
    page.setDefaultTimeout(30000);
    const pageErrors = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" && !/Failed to load resource|ERR_CONNECTION_REFUSED|net::/.test(message.text())) pageErrors.push(`console: ${message.text()}`);
    });

    // The script's own API calls: the browser's session cookie, as the page sends it.
    const cookieHeader = async () =>
      (await context.cookies(server.url)).map((c) => `${c.name}=${c.value}`).join("; ");
    const apiCall = async (method, route, json) => {
      const headers = json ? { "Content-Type": "application/json" } : {};
      const cookie = await cookieHeader();
      if (cookie) headers.Cookie = cookie;
      const response = await fetch(server.url + route, { method, headers, body: json ? JSON.stringify(json) : undefined });
      const text = await response.text();
      check(response.ok, `${method} ${route} -> ${response.status} ${text.slice(0, 200)}`);
      return text ? JSON.parse(text) : null;
    };

    // --- sign-in: nothing without the cookie; the login link sets it once
    if (server.code) {
      const bare = await fetch(server.url + "/", { redirect: "manual" });
      check(bare.status === 401, `/ without a session -> ${bare.status}, not 401`);
      const api = await fetch(server.url + "/api/projects");
      const apiBody = await api.json().catch(() => null);
      check(api.status === 401 && apiBody?.error?.code === "unauthorized", `/api/projects without a session -> ${api.status} ${JSON.stringify(apiBody)}`);
      const wrong = await fetch(server.url + "/api/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code: "not-the-code" }) });
      check(wrong.status === 401, `POST /api/login with a wrong code -> ${wrong.status}, not 401`);
      log("ok: / and the API answer 401 without a session");
    }
    const loginResponse = await page.goto(server.loginUrl);
    check(loginResponse && loginResponse.ok(), `opening the login link -> ${loginResponse?.status()}`);
    check(new URL(page.url()).pathname === "/" && !page.url().includes("login="), `the login link did not lead to / : ${page.url()}`);
    await page.getByRole("button", { name: "New project" }).waitFor();
    if (server.code) {
      check((await context.cookies(server.url)).some((c) => c.name === `ava_${server.port}` && c.httpOnly && c.sameSite === "Strict"), "no HttpOnly SameSite=Strict session cookie after the login link");
      const spent = await fetch(server.loginUrl, { redirect: "manual" });
      check(spent.status === 401, `a spent login link without the cookie -> ${spent.status}, not 401`);
      const again = await page.goto(server.loginUrl); // spent, but this browser holds a session
      check(again && again.ok(), `a spent login link with a session -> ${again?.status()}`);
      await page.getByRole("button", { name: "New project" }).waitFor();
      log("ok: the login link signs the browser in, once");
    }

    // --- a project and a conversation
    await page.getByRole("button", { name: "New project" }).click();
    await page.getByLabel("Folder path on the server").fill(project);
    await page.getByRole("button", { name: "Add project" }).click();
    const projectName = path.basename(project);
    await page.getByRole("button", { name: `New conversation in ${projectName}` }).click();
    await page.waitForURL(/\/c\//);
    const conversationId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]);
    log("conversation", conversationId);
    diagnose = async () => {
      const cookie = await cookieHeader();
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 1500);
      let text = "";
      try {
        const response = await fetch(`${server.url}/api/conversations/${conversationId}/events?after=0`, { headers: cookie ? { Cookie: cookie } : {}, signal: abort.signal });
        const reader = response.body.getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += Buffer.from(value).toString("utf8");
        }
      } catch {
        // the stream stays open: the abort ends the read
      } finally {
        clearTimeout(timer);
      }
      const events = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)));
      for (const event of events.slice(-25)) {
        const said = (event.content ?? []).map((block) => block.text ?? block.name ?? "").join("") || event.text || event.reason || "";
        console.error(`[e2e] log: ${event.seq} ${event.type} ${String(said).slice(0, 80)}`);
      }
      const shown = await page.evaluate(() => {
        const el = document.querySelector('[role="log"][aria-label="Conversation"]');
        if (!el) return null;
        return { count: el.dataset.count, scrollTop: el.scrollTop, scrollHeight: el.scrollHeight, clientHeight: el.clientHeight, rows: [...el.querySelectorAll(".msg")].map((m) => `${m.className}: ${m.textContent.slice(0, 60)}`) };
      });
      console.error(`[e2e] page: ${JSON.stringify(shown)}`);
    };
    const composer = page.getByLabel("Message");
    const list = page.getByRole("log", { name: "Conversation" });
    const state = page.getByTestId("driver-state");

    // --- a prompt: the bash card and the final answer
    await composer.fill("bash: echo hello");
    await composer.press("Enter");
    const bashCard = list.locator('[data-tool="bash"]').first();
    await list.locator('[data-tool="bash"][data-status="ok"]').first().waitFor();
    check((await bashCard.getByLabel("Command").innerText()).includes("echo hello"), "the bash card does not show the command");
    check((await bashCard.getByTestId("exit-status").innerText()).includes("exit 0"), "the bash card does not show exit 0");
    await list.locator(".msg.assistant:not(.live)", { hasText: "done: hello" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    await screenshot("bash-and-answer");
    log("ok: bash card and final answer");

    // --- a slash command: completed from "/gr", expanded by the agent
    await composer.fill("/gr");
    const option = page.getByRole("option", { name: /\/greet/ });
    await option.waitFor();
    check((await option.innerText()).includes("Say hello through bash"), "the completion does not show the description");
    await screenshot("slash-completion");
    await composer.press("Enter");
    check((await composer.inputValue()) === "/greet ", `completion left ${JSON.stringify(await composer.inputValue())}`);
    await composer.pressSequentially("there");
    await composer.press("Enter");
    await list.locator('[data-tool="bash"][data-status="ok"]', { hasText: "echo hi there" }).waitFor();
    await list.locator(".msg.user", { hasText: "/greet there" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    log("ok: slash command completed and expanded");

    // --- built-ins: /goal answered by the agent itself, shown in the header
    await composer.fill("/goal keep the tests green");
    await composer.press("Enter");
    await list.locator(".card.command", { hasText: "Goal set: keep the tests green" }).waitFor();
    await page.getByTestId("goal").filter({ hasText: "keep the tests green" }).waitFor();
    await composer.fill("/goal clear");
    await composer.press("Enter");
    await list.locator(".card.command", { hasText: "Goal cleared" }).waitFor();
    check((await page.getByTestId("goal").count()) === 0, "the goal stayed in the header after /goal clear");
    log("ok: /goal set and cleared");

    // --- a /plan turn: the plan waits for approval, which runs it in the chosen mode
    await composer.fill("/plan tidy the readme");
    await composer.press("Enter");
    await list.locator(".msg.user", { hasText: "/plan tidy the readme" }).locator(".badge.plan").waitFor();
    await list.locator(".msg.assistant:not(.live)", { hasText: "echo: tidy the readme" }).waitFor();
    const planCard = page.getByTestId("plan-card");
    await planCard.waitFor();
    await screenshot("plan-awaiting-approval");
    await planCard.getByLabel("Mode to run the plan in").selectOption("accept-edits");
    await planCard.getByTestId("approve-plan").click();
    await list.locator(".msg.assistant:not(.live)", { hasText: "echo: The plan is approved" }).waitFor();
    check((await page.getByTestId("plan-card").count()) === 0, "the plan card stayed after the approval");
    check((await page.getByTestId("permission-mode").inputValue()) === "accept-edits", "approving did not switch to the chosen mode");
    await page.getByTestId("permission-mode").selectOption("auto");
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    log("ok: plan approved and run");

    // --- a subagent: the task card links to the child's own log
    await composer.fill('tool: task {"agent": "explore", "description": "look around", "prompt": "bash: echo from-child"}');
    await composer.press("Enter");
    const taskCard = list.locator('[data-tool="task"]').last();
    await list.locator('[data-tool="task"][data-status="ok"]').last().waitFor();
    check((await taskCard.innerText()).includes("done: from-child"), "the task card does not show the subagent's report");
    await taskCard.getByTestId("open-subagent").click();
    const panel = page.getByTestId("subagent-panel");
    await panel.locator('[data-tool="bash"]', { hasText: "echo from-child" }).waitFor();
    await panel.locator(".msg.assistant", { hasText: "done: from-child" }).waitFor();
    await screenshot("subagent-log");
    await panel.getByRole("button", { name: "Close the subagent's log" }).click();
    check((await page.getByTestId("subagent-panel").count()) === 0, "the subagent panel did not close");
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    // The click on the card was not a scroll: the list still follows the bottom.
    await page.waitForFunction(() => {
      const el = document.querySelector('[role="log"][aria-label="Conversation"]');
      return el && el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    }, null, { timeout: 5000 });
    log("ok: subagent log opened from its task card");

    // --- an image attached through the file picker goes with the message and shows in it
    const pngFile = path.join(temp, "dot.png");
    writeFileSync(pngFile, Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"));
    await page.locator('input[type="file"]').setInputFiles(pngFile);
    await page.getByRole("list", { name: "Images to send" }).getByRole("img", { name: "dot.png" }).waitFor();
    await composer.fill("what is in this image?");
    await composer.press("Enter");
    const withImage = list.locator(".msg.user", { hasText: "what is in this image?" });
    await withImage.getByRole("img", { name: "Attached image 1" }).waitFor();
    await list.locator(".msg.assistant:not(.live)", { hasText: "echo: what is in this image?" }).waitFor();
    check((await page.getByRole("list", { name: "Images to send" }).count()) === 0, "the attachment stayed in the composer after sending");
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    await screenshot("image-attached");
    log("ok: image attachment");

    // --- steer while running
    await composer.fill("slow: 200: one two three four five six seven eight nine ten");
    await composer.press("Enter");
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "running");
    await list.locator('.msg.assistant.live').waitFor(); // live deltas stream in
    check((await page.getByTestId("send-mode").innerText()).includes("steer"), "the composer does not switch to steer while running");
    await composer.fill("steer now");
    await composer.press("Enter");
    await list.locator(".msg.user", { hasText: "steer now" }).locator(".who", { hasText: "steer" }).waitFor();
    await list.locator(".msg.assistant:not(.live)", { hasText: "one two three four five six seven eight nine ten" }).waitFor();
    await list.locator(".msg.assistant:not(.live)", { hasText: "echo: steer now" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    check((await list.locator(".msg.assistant.live").count()) === 0, "live text stayed after the durable answer");
    await screenshot("steered");
    log("ok: steer while running");

    // --- abort mid-tool
    await composer.fill("bash: sleep 30");
    await composer.press("Enter");
    await page.getByTestId("activity").filter({ hasText: "sleep 30" }).waitFor();
    await list.locator('[data-tool="bash"][data-status="running"]').waitFor();
    await screenshot("running-tool");
    await page.getByRole("button", { name: "Abort the running turn" }).click();
    await list.locator('[data-tool="bash"][data-status="interrupted"]').waitFor();
    await list.locator(".notice", { hasText: "Turn aborted" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    await screenshot("aborted");
    log("ok: abort mid-tool shows the interrupted card");

    // --- pause at the step boundary, then resume
    await composer.fill("bash: sleep 2; echo paused-ok");
    await composer.press("Enter");
    await list.locator('[data-tool="bash"][data-status="running"]').waitFor();
    await page.getByRole("button", { name: "Pause at the next step boundary" }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "paused", null, { timeout: 30000 });
    await list.locator(".notice", { hasText: "Paused" }).waitFor();
    await screenshot("paused");
    await page.getByRole("button", { name: "Resume" }).click();
    await list.locator(".msg.assistant:not(.live)", { hasText: "done: paused-ok" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    log("ok: pause and resume");

    // --- approvals: in "ask" mode a command waits for a person on a card
    await page.getByTestId("permission-mode").selectOption("ask");
    await list.locator(".notice", { hasText: "Permission mode set to ask" }).waitFor();
    await composer.fill("bash: touch approved.txt");
    await composer.press("Enter");
    const card = page.getByTestId("approval-card");
    await card.waitFor();
    check((await card.getByLabel("Command to run").innerText()).includes("touch approved.txt"), "the approval card does not show the command");
    check((await card.innerText()).includes("bash(touch:*)"), "the approval card offers no rule");
    await list.locator('[data-tool="bash"][data-status="waiting"]').waitFor();
    await page.getByTestId("needs-approval").waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "waiting");
    check(!existsSync(path.join(project, "approved.txt")), "the command ran before it was approved");
    await screenshot("approval-card");
    await card.getByRole("button", { name: /Allow once/ }).click();
    await list.locator('[data-tool="bash"][data-status="ok"]', { hasText: "touch approved.txt" }).waitFor();
    await card.waitFor({ state: "detached" });
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    check(existsSync(path.join(project, "approved.txt")), "the approved command did not run");
    check((await page.getByTestId("needs-approval").count()) === 0, "the sidebar still says the conversation needs you");
    // Denied from the keyboard, with a note the model gets.
    await composer.fill("bash: touch denied.txt");
    await composer.press("Enter");
    await card.waitFor();
    await composer.press("y"); // typing in the composer never answers the card
    await composer.evaluate((el) => el.blur());
    await page.keyboard.press("n");
    await card.getByPlaceholder("What to do instead (optional)").fill("not that file");
    await card.getByPlaceholder("What to do instead (optional)").press("Enter");
    await list.locator('[data-tool="bash"][data-status="error"]', { hasText: "touch denied.txt" }).waitFor();
    check((await list.locator('[data-tool="bash"][data-status="error"]', { hasText: "touch denied.txt" }).innerText()).includes("not that file"), "the denial's note is not in the result");
    check(!existsSync(path.join(project, "denied.txt")), "a denied command ran");
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    await page.getByTestId("permission-mode").selectOption("auto");
    await list.locator(".notice", { hasText: "Permission mode set to auto" }).waitFor();
    log("ok: approval card: allow once, deny with a note from the keyboard, the sidebar badge");

    // --- links in an answer: javascript: in any disguise is text, clicking it does nothing;
    // an image is a link to its address and is never fetched
    const fetched = [];
    const onRequest = (request) => {
      if (request.url().includes("127.0.0.1:9/")) fetched.push(request.url());
    };
    page.on("request", onRequest);
    const hostile = "links: [jslink](javascript:alert(1)) [tablink](<java\tscript:alert(2)>) [entlink](&#106;avascript:alert(3)) " +
      "[pctlink](javascript%3Aalert(4)) <javascript:alert(5)> <img src=x onerror=alert(6)> ![leak](http://127.0.0.1:9/leak.png) [safe](https://example.com/)";
    await composer.fill(hostile);
    await composer.press("Enter");
    const answer = list.locator(".msg.assistant:not(.live)", { hasText: "echo: links:" });
    await answer.waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    const anchors = await answer.locator("a").evaluateAll((all) => all.map((a) => [a.textContent, a.protocol, a.href]));
    check(
      JSON.stringify(anchors.map(([text, protocol]) => [text, protocol])) === JSON.stringify([["http://127.0.0.1:9/leak.png", "http:"], ["safe", "https:"]]),
      `the answer's links: ${JSON.stringify(anchors)}`,
    );
    check((await answer.locator("img").count()) === 0, "an image in the answer was rendered as an image");
    check((await answer.innerText()).includes("<img src=x onerror=alert(6)>"), "raw HTML in the answer is not shown as text");
    await watchForEscapes(page, async () => {
      for (const text of ["jslink", "tablink", "entlink", "pctlink", "javascript:alert(5)", "onerror=alert(6)"]) await clickText(page, answer, text);
    });
    page.off("request", onRequest);
    check(fetched.length === 0, `the page fetched what an answer pointed at: ${fetched.join(", ")}`);
    await screenshot("hostile-links");
    log("ok: javascript: links in an answer are text and clicking them does nothing; images are not loaded");

    // --- review markers: activity elsewhere marks a conversation; opening it clears the marker
    const projects = (await apiCall("GET", "/api/projects")).projects;
    const other = await apiCall("POST", "/api/conversations", { projectId: projects[0].id, title: "Background work" });
    await apiCall("POST", `/api/conversations/${other.id}/input`, { text: "marker please" });
    const otherRow = page.getByRole("button", { name: /^Background work, new activity/ });
    await otherRow.waitFor();
    await otherRow.locator('[data-testid="unread"]').waitFor();
    await screenshot("review-marker");
    await otherRow.click();
    await page.locator(".msg.assistant:not(.live)", { hasText: "echo: marker please" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    for (let waited = 0; ; waited += 250) {
      const c = await apiCall("GET", `/api/conversations/${other.id}`);
      if (c.reviewedSeq === c.lastSeq && c.lastSeq > 0) break;
      check(waited < 15000, `opening the conversation did not set reviewedSeq: ${c.reviewedSeq} of ${c.lastSeq}`);
      await sleep(250);
    }
    await page.goto(`${server.url}/c/${encodeURIComponent(conversationId)}`);
    await list.locator(".msg.assistant:not(.live)", { hasText: "done: paused-ok" }).waitFor();
    await page.getByRole("button", { name: /^Background work/ }).waitFor();
    if ((await page.getByRole("button", { name: /^Background work/ }).locator('[data-testid="unread"]').count()) !== 0) {
      const listed = (await apiCall("GET", "/api/conversations?archived=all")).conversations.find((c) => c.id === other.id);
      throw new Failure(`the review marker stayed after opening the conversation: ${JSON.stringify(listed)}`);
    }
    log("ok: review markers");

    // --- archive hides a conversation behind the toggle; pin puts it first
    await page.getByRole("button", { name: "Archive Background work" }).click();
    await page.getByRole("button", { name: /^Background work/ }).waitFor({ state: "detached" });
    await page.getByLabel("Show archived").check();
    await page.getByRole("button", { name: /^Background work/ }).waitFor();
    await page.getByRole("button", { name: "Unarchive Background work" }).click();
    await page.getByLabel("Show archived").uncheck();
    await page.getByRole("button", { name: "Pin Background work" }).click();
    await page.getByRole("button", { name: "Unpin Background work" }).waitFor();
    const order = await page.locator(".conv .conv-title-text").allInnerTexts();
    check(order[0] === "Background work", `the pinned conversation is not first: ${order}`);
    log("ok: archive toggle and pinning");

    // --- delete: only archived conversations offer it, and only after the dialog
    const scratch = await apiCall("POST", "/api/conversations", { projectId: projects[0].id, title: "Scratch" });
    await page.getByRole("button", { name: "Archive Scratch" }).click();
    await page.getByLabel("Show archived").check();
    page.once("dialog", (dialog) => dialog.dismiss());
    await page.getByRole("button", { name: "Delete Scratch" }).click();
    await sleep(300);
    check((await apiCall("GET", `/api/conversations/${scratch.id}`)).id === scratch.id, "deleted without a yes");
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Delete Scratch" }).click();
    await page.getByRole("button", { name: /^Scratch/ }).waitFor({ state: "detached" });
    const cookie = await cookieHeader();
    const gone = await fetch(`${server.url}/api/conversations/${scratch.id}`, { headers: cookie ? { Cookie: cookie } : {} });
    check(gone.status === 404, `the deleted conversation answers ${gone.status}`);
    await page.getByLabel("Show archived").uncheck();
    // Deleted by another client while open here: the page goes home.
    const elsewhere = await apiCall("POST", "/api/conversations", { projectId: projects[0].id, title: "Elsewhere" });
    await page.getByRole("button", { name: /^Elsewhere/ }).click();
    await page.waitForURL(`**/c/${elsewhere.id}`);
    await apiCall("PATCH", `/api/conversations/${elsewhere.id}`, { archived: true });
    await apiCall("DELETE", `/api/conversations/${elsewhere.id}`);
    await page.waitForURL((url) => url.pathname === "/");
    await page.goto(`${server.url}/c/${encodeURIComponent(conversationId)}`);
    await list.locator(".msg.assistant:not(.live)", { hasText: "done: paused-ok" }).waitFor();
    log("ok: delete after confirming; deleted elsewhere while open goes home");

    // --- terminals: a shell in the project's folder, typed into, its output on screen
    await page.getByRole("button", { name: "Terminal", exact: true }).click();
    const shown = page.locator(".terminal-view:not([hidden])");
    await shown.locator(".xterm-rows").waitFor();
    await shown.locator(".xterm-helper-textarea").focus();
    await page.keyboard.type("cd -P . && echo \"at:$(pwd)\" && echo term-$((6*7))\n");
    await shown.locator(".xterm-rows").filter({ hasText: "term-42" }).waitFor();
    const rows = await shown.locator(".xterm-rows").innerText();
    check(rows.replace(/\s+/g, "").includes(`at:${realpathSync(project)}`.replace(/\s+/g, "")), `the shell is not in the project: ${rows.slice(0, 400)}`);
    // A flood of output goes through the pause/resume flow control and the page keeps up.
    await page.keyboard.type("seq 1 400000; echo flood-$((1+1))\n");
    await shown.locator(".xterm-rows").filter({ hasText: "flood-2" }).waitFor({ timeout: 60000 });
    // A second tab, then closing it; hiding the drawer keeps the first shell.
    await page.getByRole("button", { name: "New terminal" }).click();
    await page.getByRole("tab", { name: /^2\./ }).waitFor();
    await page.getByRole("button", { name: "Close terminal 2" }).click();
    await page.getByRole("button", { name: "Hide terminals" }).click();
    await page.getByRole("button", { name: "Terminal", exact: true }).click();
    await shown.locator(".xterm-rows").filter({ hasText: "flood-2" }).waitFor();
    await screenshot("terminal");
    await page.getByRole("button", { name: "Hide terminals" }).click();
    log("ok: terminal runs a command in the project, survives a flood, keeps its shell while hidden");

    // --- files: the project's tree (Git's ignores), previews, the watch, quick open, @ mentions
    mkdirSync(path.join(project, "src"), { recursive: true });
    mkdirSync(path.join(project, "build"), { recursive: true });
    writeFileSync(path.join(project, ".gitignore"), "build/\n");
    writeFileSync(path.join(project, "build", "junk.txt"), "ignored");
    writeFileSync(path.join(project, "src", "app.ts"), "export function answer(): number {\n  return 42;\n}\n");
    writeFileSync(path.join(project, "notes.md"), "# Release notes\n\nFirst *draft*.\n");
    writeFileSync(path.join(project, "pixel.png"), Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f6a6e60000000049454e44ae426082", "hex"));
    execFileSync("git", ["init", "-q", project]);
    await page.getByRole("button", { name: "Files", exact: true }).click();
    const files = page.getByRole("complementary", { name: "Files" });
    const tree = files.getByRole("tree", { name: "Project files" });
    const item = (name) => tree.getByRole("treeitem", { name, exact: true });
    await item("notes.md").waitFor();
    check((await tree.getByRole("treeitem", { name: "build", exact: true }).count()) === 0, "the ignored build/ folder is listed");
    await item("src").getByRole("button").first().click();
    await item("app.ts").click();
    const preview = files.getByRole("region", { name: "Preview" });
    await preview.locator(".file-text .hljs-keyword", { hasText: "function" }).waitFor();
    check((await preview.locator(".file-gutter").innerText()).trim().split("\n").length === 3, "the code preview has no line numbers");
    await item("notes.md").click();
    await preview.locator(".file-markdown h1", { hasText: "Release notes" }).waitFor();
    await item("pixel.png").click();
    const image = preview.locator("img.file-image");
    await image.waitFor();
    await page.waitForFunction((el) => el.complete && el.naturalWidth === 1, await image.elementHandle());
    // A PDF: the browser's own viewer in a frame, fed the checked version's bytes.
    writeFileSync(path.join(project, "doc.pdf"), "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n");
    await item("doc.pdf").waitFor();
    await item("doc.pdf").click();
    const frame = preview.locator("iframe.file-pdf");
    await frame.waitFor();
    const pdfSource = await frame.getAttribute("src");
    check(/\/files\/raw\?path=doc\.pdf&version=sha256-/.test(pdfSource), `the PDF frame loads ${pdfSource}`);
    const pdfCookie = await cookieHeader();
    const pdfBytes = await fetch(server.url + pdfSource, { headers: pdfCookie ? { Cookie: pdfCookie } : {} });
    check(pdfBytes.status === 200 && pdfBytes.headers.get("content-type") === "application/pdf", `the PDF's bytes -> ${pdfBytes.status} ${pdfBytes.headers.get("content-type")}`);
    check(/frame-ancestors 'self'/.test(pdfBytes.headers.get("content-security-policy") ?? ""), "the PDF may be framed by any page");
    // The watch: a file written on the server appears, and an open preview follows its file.
    await item("notes.md").click();
    await preview.locator(".file-markdown h1", { hasText: "Release notes" }).waitFor();
    writeFileSync(path.join(project, "notes.md"), "# Final notes\n");
    writeFileSync(path.join(project, "src", "fresh.ts"), "export const fresh = true;\n");
    await preview.locator(".file-markdown h1", { hasText: "Final notes" }).waitFor();
    await item("fresh.ts").waitFor();
    // Quick open.
    await page.keyboard.press("Control+p");
    const quick = page.getByRole("dialog", { name: "Go to file" });
    await quick.getByLabel("File name").fill("frsh");
    await quick.getByRole("option", { name: "src/fresh.ts" }).waitFor();
    await quick.getByLabel("File name").press("Enter");
    await quick.waitFor({ state: "detached" });
    await preview.locator(".file-text", { hasText: "export const fresh" }).waitFor();
    await screenshot("files");
    // @ mentions in the composer insert a path the agent can read.
    await composer.fill("");
    await composer.pressSequentially("read @fres");
    await page.getByRole("listbox", { name: "Files to mention" }).getByRole("option", { name: "@src/fresh.ts" }).waitFor();
    await composer.press("Enter");
    check((await composer.inputValue()) === "read @src/fresh.ts ", `the mention inserted ${JSON.stringify(await composer.inputValue())}`);
    await composer.fill("");
    await files.getByRole("button", { name: "Hide files" }).click();
    log("ok: file tree without ignored files, code/Markdown/image previews, live updates, quick open, @ mentions");

    // --- kill the server, restart it on the same port, resume
    const before = await page.evaluate(() => window.__ava);
    check(before && new Set(before.keys).size === before.keys.length, "duplicate items before the restart");
    server.child.kill("SIGKILL");
    await new Promise((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once("exit", r)));
    await page.getByTestId("connection").filter({ hasText: "reconnecting" }).waitFor();
    await screenshot("reconnecting");
    log("ok: the page says it is reconnecting");
    let restarted = null;
    for (let attempt = 1; attempt <= 20 && !restarted; attempt++) {
      try {
        restarted = await startServer(server.port);
      } catch (error) {
        log(`restart attempt ${attempt}: ${error.message}`);
        await sleep(500);
      }
    }
    check(restarted, "could not restart the server on the same port");
    server = restarted;
    if (server.code) {
      // Sessions end with the process: the page says how to sign in, keeping what it shows.
      await page.getByTestId("signed-out").filter({ hasText: "Not signed in" }).waitFor();
      check((await page.getByTestId("signed-out").innerText()).includes("ava backend open"), "the sign-in screen does not say how to sign in");
      await screenshot("signed-out");
      // The new code traded by a script (POST /api/login) into this browser's cookie jar.
      const login = await context.request.post(server.url + "/api/login", { data: { code: server.code } });
      check(login.status() === 204, `POST /api/login -> ${login.status()}`);
      const reused = await context.request.post(server.url + "/api/login", { data: { code: server.code } });
      check(reused.status() === 401, `POST /api/login with a spent code -> ${reused.status()}, not 401`);
      log("ok: the page asked for a sign-in after the restart; POST /api/login gave one");
    }
    // Input that lands before the page is back: it must arrive through ?after=<lastSeq>.
    await apiCall("POST", `/api/conversations/${conversationId}/input`, { text: "during the outage" });
    await page.getByTestId("connection").filter({ hasText: "Reconnected" }).waitFor();
    await list.locator(".msg.assistant:not(.live)", { hasText: "echo: during the outage" }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="driver-state"]')?.textContent === "idle");
    await sleep(1500); // let anything duplicated arrive
    const after = await page.evaluate(() => window.__ava);
    check(new Set(after.keys).size === after.keys.length, "duplicate items after the restart");
    check(JSON.stringify(after.keys.slice(0, before.keys.length)) === JSON.stringify(before.keys), `the history changed across the restart:\n${before.keys}\n${after.keys}`);
    check(after.keys.length === before.keys.length + 2, `expected the outage input and its answer after the history, got ${after.keys.slice(before.keys.length)}`);
    await screenshot("reconnected");
    log("ok: reconnected, history without duplicates");

    // The resumed stream carries new events; a fresh page replays the same view.
    await composer.fill("after restart");
    await composer.press("Enter");
    await list.locator(".msg.assistant:not(.live)", { hasText: "echo: after restart" }).waitFor();
    const resumed = await page.evaluate(() => window.__ava);
    await page.reload();
    await page.waitForFunction((seq) => window.__ava && window.__ava.lastSeq >= seq, resumed.lastSeq);
    await sleep(500);
    const replayed = await page.evaluate(() => window.__ava);
    check(JSON.stringify(replayed.keys) === JSON.stringify(resumed.keys), `a fresh replay differs from the resumed view:\n${resumed.keys}\n${replayed.keys}`);
    await screenshot("replayed");
    log("ok: resumed view equals a fresh replay");

    // An HTTP MCP server to sign in to (below); nothing connects to its address.
    await apiCall("POST", "/api/mcp/servers", { name: "remote", type: "http", url: "http://127.0.0.1:9/mcp", enabled: false });

    // --- settings lists providers, never keys
    await page.getByRole("button", { name: "Settings" }).click();
    await page.locator('tr[data-provider="anthropic"]', { hasText: "configured" }).waitFor();
    check(!(await page.content()).includes("test-key"), "the settings page shows a key");
    await screenshot("settings");
    log("ok: settings");

    // --- appearance: dark on request, with the desktop's palette; kept in this browser
    const pageBackground = () => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    check((await pageBackground()) === "rgb(255, 255, 255)", `the light page's background is ${await pageBackground()}`);
    await page.getByRole("radio", { name: "Dark" }).check();
    check((await page.evaluate(() => document.documentElement.dataset.theme)) === "dark", "the page did not turn dark");
    check((await pageBackground()) === "rgb(30, 31, 34)", `the dark page's background is ${await pageBackground()}`);
    await page.reload();
    await page.getByRole("radio", { name: "Dark" }).waitFor();
    check((await page.getByRole("radio", { name: "Dark" }).isChecked()) && (await pageBackground()) === "rgb(30, 31, 34)", "the dark choice was not kept");
    await page.goto(`${server.url}/c/${encodeURIComponent(conversationId)}`);
    await list.locator(".msg.assistant:not(.live)").first().waitFor();
    await screenshot("conversation-dark");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("radio", { name: "As the system" }).check();
    check((await pageBackground()) === "rgb(30, 31, 34)", "'as the system' does not follow a dark system");
    await page.emulateMedia({ colorScheme: "light" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light");
    log("ok: dark and light themes, chosen or as the system");

    // --- add a provider of one's own with its key; the key never comes back
    const form = page.getByRole("form", { name: "Add or change a provider" });
    await form.getByLabel("Provider").selectOption({ label: "New provider…" });
    await form.getByLabel("Name").fill("house");
    await form.getByLabel("Kind").selectOption("anthropic");
    await form.getByLabel(/Base URL/).fill(fakeUrl);
    await form.getByLabel("API key").fill("sk-house-e2e-secret");
    await form.getByRole("button", { name: "Save" }).click();
    await form.getByRole("status").filter({ hasText: "house is configured" }).waitFor();
    await page.locator('tr[data-provider="house"]', { hasText: "key saved" }).waitFor();
    check((await form.getByLabel("API key").inputValue()) === "", "the key stays in the form after saving");
    check(!(await page.content()).includes("sk-house-e2e-secret"), "the settings page shows the saved key");
    await screenshot("provider-added");
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Forget the saved key of house" }).click();
    await page.locator('tr[data-provider="house"]', { hasText: "not configured" }).waitFor();
    log("ok: provider added and its key forgotten");

    // --- a sign-in page that is not http(s) is never opened (the server's answer replaced)
    const remoteRow = page.locator('tr[data-mcp-server="remote"]');
    await remoteRow.waitFor();
    const loginRoute = "**/api/mcp/servers/remote/login";
    await page.route(loginRoute, (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ authorizationUrl: "javascript:alert(document.cookie)", timeoutMs: 300000 }) }),
    );
    await watchForEscapes(page, async () => {
      await remoteRow.getByRole("button", { name: "Sign in" }).click();
      await remoteRow.getByRole("status").filter({ hasText: "not an http(s) address" }).waitFor();
    });
    check((await remoteRow.locator("a").count()) === 0, "a link to the javascript: sign-in page is shown");
    await page.unroute(loginRoute);
    await screenshot("javascript-sign-in-refused");
    page.once("dialog", (dialog) => dialog.accept());
    await remoteRow.getByRole("button", { name: "Remove remote" }).click();
    await remoteRow.waitFor({ state: "detached" });
    log("ok: a javascript: sign-in page opens nothing");

    // --- an MCP server (@modelcontextprotocol/server-filesystem) added, tested,
    // switched off and removed from the settings page; its secret never shows
    if (args["mcp-server"]) {
      const mcp = page.getByRole("form", { name: "Add an MCP server" });
      await mcp.getByLabel("Name", { exact: true }).fill("files");
      await mcp.getByLabel("Command", { exact: true }).fill(process.execPath);
      await mcp.getByLabel(/Arguments/).fill(`${args["mcp-server"]}\n${project}`);
      await mcp.getByLabel(/Environment/).fill("FILES_TOKEN=e2e-mcp-secret");
      await mcp.getByRole("button", { name: "Add server" }).click();
      await mcp.getByRole("status").filter({ hasText: "Added files." }).waitFor();
      const row = page.locator('tr[data-mcp-server="files"]');
      await row.waitFor();
      check(!(await page.content()).includes("e2e-mcp-secret"), "the settings page shows an MCP server's secret");
      await row.getByRole("button", { name: "Test" }).click();
      await row.getByRole("status").filter({ hasText: "read_text_file" }).waitFor({ timeout: 30000 });
      await screenshot("mcp-server-tested");
      await row.getByLabel("Enable files").click();
      await page.waitForFunction(() => !document.querySelector('[aria-label="Enable files"]')?.checked);
      const listed = (await apiCall("GET", "/api/mcp/servers")).servers;
      check(listed.length === 1 && listed[0].enabled === false && listed[0].env.FILES_TOKEN === "<redacted>", `the server as stored: ${JSON.stringify(listed)}`);
      // On again in this one project only.
      await page.locator(".mcp-scope select").selectOption({ label: `${projectName} only` });
      await row.getByRole("button", { name: "Test" }).waitFor();
      await row.getByLabel("Enable files").click();
      await row.locator(".badge", { hasText: "project setting" }).waitFor();
      const scoped = (await apiCall("GET", "/api/mcp/servers")).servers[0];
      check(scoped.enabled === false && JSON.stringify(Object.values(scoped.projects)) === "[true]", `the project switch as stored: ${JSON.stringify(scoped)}`);
      page.once("dialog", (dialog) => dialog.accept());
      await row.getByRole("button", { name: "Remove files" }).click();
      await row.waitFor({ state: "detached" });
      check((await apiCall("GET", "/api/mcp/servers")).servers.length === 0, "the MCP server is still configured after removal");
      log("ok: MCP server added, tested, switched off and removed");
    }

    // --- automations: a form with the schedule's next runs, run now, the run's conversation
    await page.getByRole("button", { name: "Automations" }).click();
    await page.getByRole("button", { name: "New automation" }).click();
    const automationForm = page.getByRole("form", { name: "New automation" });
    await automationForm.getByLabel("Name").fill("hello-hourly");
    await automationForm.getByLabel("Project").fill(project);
    await automationForm.getByLabel("Prompt").fill("bash: echo from-automation");
    await automationForm.getByLabel("Every").check();
    await automationForm.getByLabel("Schedule", { exact: true }).fill("1h");
    await automationForm.getByLabel("Time zone").fill("Europe/Berlin");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="schedule-preview"] li').length === 5);
    await screenshot("automation-form");
    await automationForm.getByRole("button", { name: "Add automation" }).click();
    const automationItem = page.locator('[data-testid="automation"][data-name="hello-hourly"]');
    await automationItem.waitFor();
    check((await automationItem.getByTestId("next-run").innerText()) !== "—", "the new automation has no next run");
    await automationItem.getByRole("button", { name: "Run now" }).click();
    await automationItem.locator('[data-testid="occurrence-state"]', { hasText: "finished" }).waitFor({ timeout: 30000 });
    await automationItem.getByRole("button", { name: "History" }).click();
    await screenshot("automations");
    await automationItem.getByRole("table", { name: "History" }).getByRole("button", { name: "Open" }).first().click();
    await page.locator('[data-tool="bash"][data-status="ok"]', { hasText: "echo from-automation" }).waitFor();
    await page.locator(".conv .badge.automation-run").first().waitFor();
    log("ok: automation added with its next runs shown, run now, its conversation opened");

    // --- analytics: the turns run above counted, charted, filtered by model
    await page.getByRole("button", { name: "Analytics" }).click();
    const analytics = page.getByRole("region", { name: "Analytics" });
    await analytics.getByTestId("stat-Turns").waitFor();
    const turnsShown = Number(await analytics.getByTestId("stat-Turns").locator(".stat-value").innerText());
    const apiSummary = await apiCall("GET", "/api/analytics");
    check(turnsShown > 0 && turnsShown === apiSummary.turns, `analytics shows ${turnsShown} turns, the API ${apiSummary.turns}`);
    await analytics.locator(".usage-chart canvas").first().waitFor();
    await analytics.getByRole("table", { name: "Tools" }).locator('tr[data-tool="bash"]').waitFor();
    const modelName = apiSummary.byModel[0].key;
    const filterForm = analytics.getByRole("form", { name: "Filters" });
    await filterForm.getByLabel("Model").selectOption(modelName);
    await filterForm.getByLabel("Period").selectOption("all");
    await page.waitForFunction(
      (n) => document.querySelector('[data-testid="stat-Turns"] .stat-value')?.textContent === String(n),
      (await apiCall("GET", `/api/analytics?model=${encodeURIComponent(modelName)}`)).turns,
    );
    await screenshot("analytics");
    log(`ok: analytics shows ${turnsShown} turns on ${apiSummary.byDay.map((d) => d.key).join(", ")}, charts and tools, filtered by ${modelName}`);

    // --- analytics render benchmark: a year of daily data. /api/analytics is
    // routed to a synthetic summary (365 days, 12 projects, 6 models, 24 tools);
    // timed in the page from choosing "Last year" to both charts holding 365
    // days, the tool table filled and the next frame painted.
    const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const year = syntheticYear();
    const analyticsRoute = "**/api/analytics**";
    await page.route(analyticsRoute, (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(year) }),
    );
    const renders = [];
    for (let i = 0; i < 7; i++) {
      await page.goto(server.url + "/analytics");
      await page.getByRole("region", { name: "Analytics" }).locator('.usage-chart[data-days="30"]').first().waitFor();
      renders.push(
        await page.evaluate(async (tools) => {
          const period = [...document.querySelectorAll('form[aria-label="Filters"] label')]
            .find((l) => l.textContent.trim().startsWith("Period"))
            .querySelector("select");
          const setValue = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value").set;
          const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
          const started = performance.now();
          setValue.call(period, "365");
          period.dispatchEvent(new Event("change", { bubbles: true }));
          for (;;) {
            const charts = document.querySelectorAll('.usage-chart[data-days="365"]').length;
            const rows = document.querySelectorAll('table[aria-label="Tools"] tbody tr').length;
            if (charts === 2 && rows === tools) break;
            await frame();
            if (performance.now() - started > 30000) throw new Error(`not rendered: ${charts} charts, ${rows} rows`);
          }
          await frame();
          return performance.now() - started;
        }, year.tools.length),
      );
    }
    await screenshot("analytics-year");
    await page.unroute(analyticsRoute);
    log(`analytics bench: a year of daily data rendered, median ${median(renders).toFixed(1)} ms (runs: ${renders.map((r) => r.toFixed(0)).join(", ")} ms)`);

    // --- render benchmark: 5,000 synthetic events through the reducer into the list
    const runs = [];
    for (let i = 0; i < 5; i++) {
      await page.goto(server.url + "/bench?n=5000");
      runs.push(await page.waitForFunction(() => window.__bench, null, { timeout: 60000 }).then((h) => h.jsonValue()));
    }
    const bench = runs[0];
    log(`bench: ${bench.events} events -> ${bench.items} items; reduce median ${median(runs.map((r) => r.reduceMs)).toFixed(1)} ms; reduce + first render median ${median(runs.map((r) => r.totalMs)).toFixed(1)} ms (runs: ${runs.map((r) => r.totalMs.toFixed(0)).join(", ")} ms)`);
    // A figure for docs/performance.md, not a pass/fail line: this machine is shared and noisy.
    await screenshot("bench-5000");

    // --- first run: a second server on a home with nothing configured, the
    // fake provider posing as a running Ollama (it lists "echo-local:1b" at
    // /api/tags). The panel offers it; choosing it saves it as the default.
    const firstHome = path.join(temp, "first-home");
    mkdirSync(firstHome);
    const firstEnv = { ...env, AVA_HOME: firstHome, AVA_LOCAL_PROBE: `ollama=127.0.0.1:${new URL(fakeUrl).port}` };
    delete firstEnv.ANTHROPIC_API_KEY;
    delete firstEnv.ANTHROPIC_BASE_URL;
    const first = await startWithFirstLine(avaBinary, ["--serve", "--port", "0", "--no-open"], { env: firstEnv }, path.join(args.out, "server-first-run.log"), "ava --serve (first run)");
    children.push(first.child);
    const firstMatch = /(http:\/\/127\.0\.0\.1:\d+)\/?(?:\?login=([A-Za-z0-9_-]+))?/.exec(first.line);
    check(firstMatch, `ava --serve printed ${JSON.stringify(first.line)}`);
    await page.goto(firstMatch[2] ? `${firstMatch[1]}/?login=${firstMatch[2]}` : `${firstMatch[1]}/`);
    const setupPanel = page.getByRole("region", { name: "Set up a model provider" });
    await setupPanel.waitFor();
    const detected = setupPanel.getByTestId("detected-ollama");
    await detected.waitFor();
    check((await detected.textContent()).includes("New conversations already use it"), "the detected server is not said to be in use");
    await screenshot("first-run");
    await detected.getByRole("button", { name: "Use Ollama" }).click();
    await page.getByTestId("first-run").waitFor({ state: "detached" });
    const firstSettings = JSON.parse(readFileSync(path.join(firstHome, "settings.json"), "utf8"));
    check(firstSettings.provider === "ollama" && firstSettings.providers?.ollama?.model === "echo-local:1b", `settings.json after "Use Ollama": ${JSON.stringify(firstSettings)}`);
    log("ok: the first-run panel offers the detected Ollama and saves it as the default");

    const violations = await page.evaluate(() => window.__cspViolations ?? []);
    check(violations.length === 0, `Content-Security-Policy violations: ${violations.join("; ")}`);
    check(pageErrors.length === 0, `errors in the page:\n${pageErrors.join("\n")}`);
    log("PASS");
    return 0;
  } catch (error) {
    console.error(`[e2e] FAIL: ${error instanceof Failure ? error.message : error.stack || error}`);
    if (page) await screenshot("failure").catch(() => undefined);
    if (diagnose) await diagnose().catch((why) => console.error(`[e2e] diagnosis failed: ${why}`));
    return 1;
  } finally {
    if (browser) await browser.close().catch(() => undefined);
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await Promise.race([new Promise((r) => child.once("exit", r)), sleep(15000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      }
    }
    rmSync(temp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`[e2e] FAIL: ${error.message}`);
    process.exit(2);
  },
);
