// The settings page's skills: listed from GET /api/skills, switched with PUT.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SkillInfo } from "../src/api/protocol.gen";
import { SkillsSection } from "../src/ui/SkillsSection";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const skill = (over: Partial<SkillInfo>): SkillInfo => ({
  name: "deploy",
  description: "Ship a release",
  source: "user",
  path: "/home/u/.ava/skills/deploy/SKILL.md",
  enabled: true,
  setting: "default",
  ...over,
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

async function flush() {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

describe("skills section", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("lists the skills and switches one off user-wide", async () => {
    const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === "PUT") return json({ skills: [skill({ enabled: false, setting: "user" }), skill({ name: "lint" })] });
      expect(url).toBe("/api/skills");
      return json({ skills: [skill({}), skill({ name: "lint" })] });
    });
    vi.stubGlobal("fetch", fetchMock);
    const container = document.createElement("div");
    await act(async () => createRoot(container).render(<SkillsSection />));
    await flush();
    const box = container.querySelector<HTMLInputElement>('[aria-label="Enable deploy"]');
    expect(box?.checked).toBe(true);
    expect(container.querySelectorAll("tbody tr").length).toBe(2);

    await act(async () => box!.click());
    await flush();
    const [url, init] = fetchMock.mock.calls[1] as [string, RequestInit];
    expect(url).toBe("/api/skills/deploy");
    expect(init.method).toBe("PUT");
    expect(JSON.parse(init.body as string)).toEqual({ enabled: false });
    expect(container.querySelector<HTMLInputElement>('[aria-label="Enable deploy"]')?.checked).toBe(false);
    expect(container.querySelector('[data-skill="deploy"] .badge')?.textContent).toBe("user setting");
  });

  it("shows the server's error", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => json({ error: { code: "io", message: "cannot open the store" } }, 500)));
    const container = document.createElement("div");
    await act(async () => createRoot(container).render(<SkillsSection />));
    await flush();
    expect(container.querySelector('[role="alert"]')?.textContent).toBe("cannot open the store");
  });
});
