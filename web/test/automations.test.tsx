// The automations page: the list with next and last runs, the form's
// schedule helper (the next five times from the server), creating one, and
// a failed run's state.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AutomationView } from "../src/api/protocol.gen";
import { Automations } from "../src/ui/Automations";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const automation = (over: Partial<AutomationView>): AutomationView => ({
  id: "a1",
  name: "nightly",
  project: "/p",
  prompt: "run the tests",
  provider: "",
  model: "",
  permissionMode: "auto",
  allowedTools: [],
  disallowedTools: [],
  scheduleKind: "cron",
  schedule: "0 2 * * *",
  timeZone: "Europe/Berlin",
  enabled: true,
  overlap: "skip",
  maxRunning: 3,
  missed: "skip",
  timeLimitSeconds: 1800,
  keepRuns: 100,
  createdMs: 1,
  updatedMs: 1,
  nextRunMs: 1_900_000_000_000,
  lastRun: undefined,
  ...over,
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

async function flush(ms = 0) {
  await act(async () => {
    await new Promise((r) => setTimeout(r, ms));
  });
}

function type(input: HTMLInputElement | HTMLTextAreaElement, value: string) {
  const proto = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(input, value);
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

describe("automations page", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("lists automations with their next and last runs", async () => {
    const failed = automation({
      name: "broken",
      id: "a2",
      lastRun: { scheduledMs: 5, state: "failed", trigger: "schedule", conversationId: "c9", claimedMs: 5, startedMs: 5, finishedMs: 6, error: "aborted at the time limit (2 s)" },
    });
    vi.stubGlobal("fetch", vi.fn(async () => json({ automations: [automation({}), failed] })));
    const container = document.createElement("div");
    await act(async () => createRoot(container).render(<Automations projects={[]} onOpen={() => undefined} />));
    await flush();
    const items = container.querySelectorAll('[data-testid="automation"]');
    expect(items.length).toBe(2);
    expect(items[0].textContent).toContain("0 2 * * *");
    expect(items[0].querySelector('[data-testid="next-run"]')?.textContent).not.toBe("—");
    const state = items[1].querySelector('[data-testid="occurrence-state"]');
    expect(state?.textContent).toBe("failed");
    expect(state?.getAttribute("title")).toContain("time limit");
  });

  it("shows the next five runs while typing and creates the automation", async () => {
    const calls: [string, RequestInit | undefined][] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push([url, init]);
        if (url.startsWith("/api/automations/preview")) {
          if (url.includes("cron=61")) return json({ error: { code: "invalid_argument", message: "cron minute \"61\": out of range (0-59)" } }, 400);
          return json({ timesMs: [1, 2, 3, 4, 5], local: ["t1", "t2", "t3", "t4", "t5"] });
        }
        if (init?.method === "POST") return json(automation({ name: "tests" }), 201);
        return json({ automations: [] });
      }),
    );
    const container = document.createElement("div");
    await act(async () => createRoot(container).render(<Automations projects={[{ id: "p", name: "p", path: "/p", createdMs: 0 }]} onOpen={() => undefined} />));
    await flush();
    await act(async () => (container.querySelector("header button") as HTMLButtonElement).click());
    const form = container.querySelector("form")!;
    await act(async () => type(form.querySelector('input[placeholder="nightly-tests"]')!, "tests"));
    await act(async () => type(form.querySelector("textarea")!, "run the tests"));
    await flush(300);
    expect(container.querySelectorAll('[data-testid="schedule-preview"] li').length).toBe(5);
    await act(async () => type(form.querySelector('[aria-label="Schedule"]') as HTMLInputElement, "61 * * * *"));
    await flush(300);
    expect(container.querySelector('[data-testid="schedule-error"]')?.textContent).toContain("out of range");
    await act(async () => type(form.querySelector('[aria-label="Schedule"]') as HTMLInputElement, "*/30 * * * *"));
    await flush(300);
    await act(async () => form.dispatchEvent(new Event("submit", { bubbles: true, cancelable: true })));
    await flush();
    const post = calls.find(([, init]) => init?.method === "POST")!;
    expect(post[0]).toBe("/api/automations");
    const body = JSON.parse(post[1]!.body as string);
    expect(body).toMatchObject({ name: "tests", project: "/p", prompt: "run the tests", cron: "*/30 * * * *" });
    expect(body.every).toBeUndefined();
  });
});
