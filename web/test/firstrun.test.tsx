// The first-run panel: shown while no provider is configured, offering a
// detected local server (saved as the default with the chosen model) or a
// key; hidden once the server says set-up is done.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelsResponse } from "../src/api/protocol.gen";
import { FirstRun } from "../src/ui/FirstRun";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const base: ModelsResponse = { defaultProvider: "", providers: [], models: [], needsSetup: true, detected: [] };
const withOllama: ModelsResponse = {
  ...base,
  defaultProvider: "ollama",
  detected: [{ name: "ollama", kind: "ollama", baseUrl: "http://127.0.0.1:11434/v1", models: ["qwen3:8b", "llama3.2:1b"], inUse: true }],
};

function setValue(element: HTMLInputElement | HTMLSelectElement, value: string) {
  const proto = element instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(element, value);
  element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? "change" : "input", { bubbles: true }));
}

describe("first-run panel", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await act(async () => root?.unmount());
    root = null;
    vi.unstubAllGlobals();
    document.body.innerHTML = "";
  });

  async function show(models: ModelsResponse) {
    const container = document.createElement("div");
    document.body.appendChild(container);
    root = createRoot(container);
    await act(async () => root!.render(<FirstRun models={models} />));
    return container;
  }

  it("offers the detected server and saves it as the default with the chosen model", async () => {
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => json({ name: "ollama", configured: true }));
    vi.stubGlobal("fetch", fetchMock);
    const container = await show(withOllama);
    const option = container.querySelector('[data-testid="detected-ollama"]')!;
    expect(option.textContent).toContain("Ollama is running");
    expect(option.textContent).toContain("http://127.0.0.1:11434/v1 with 2 models");
    expect(option.textContent).toContain("New conversations already use it");
    await act(async () => setValue(option.querySelector("select")!, "llama3.2:1b"));
    const button = [...option.querySelectorAll("button")].find((b) => b.textContent === "Use Ollama")!;
    await act(async () => button.click());
    await act(async () => new Promise((r) => setTimeout(r, 0)));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/settings/providers/ollama");
    expect(init?.method).toBe("PUT");
    expect(JSON.parse(String(init?.body))).toEqual({ baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2:1b", makeDefault: true });
    expect(container.querySelector('[role="status"]')?.textContent).toBe("Ollama with llama3.2:1b is now the default.");
  });

  it("saves a key as the default, and shows the server's refusal without losing the panel", async () => {
    const fetchMock = vi
      .fn(async (_url: string, _init?: RequestInit) => json({ name: "openai", configured: true }))
      .mockResolvedValueOnce(json({ error: { code: "invalid_argument", message: "apiKey: no spaces or line breaks" } }, 400));
    vi.stubGlobal("fetch", fetchMock);
    const container = await show(base);
    expect(container.querySelector('[data-testid="no-local-server"]')?.textContent).toContain("ollama serve");
    const form = container.querySelector('form[aria-label="Add an API key"]')!;
    await act(async () => setValue(form.querySelector("select")!, "openai"));
    await act(async () => setValue(form.querySelector('input[type="password"]')!, "sk bad"));
    await act(async () => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await act(async () => new Promise((r) => setTimeout(r, 0)));
    expect(form.querySelector('[role="alert"]')?.textContent).toContain("no spaces or line breaks");
    await act(async () => setValue(form.querySelector('input[type="password"]')!, " sk-good "));
    await act(async () => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    await act(async () => new Promise((r) => setTimeout(r, 0)));
    const [url, init] = fetchMock.mock.calls[1];
    expect(url).toBe("/api/settings/providers/openai");
    expect(JSON.parse(String(init?.body))).toEqual({ apiKey: "sk-good", makeDefault: true });
    expect(container.querySelector('[role="status"]')?.textContent).toBe("Saved. openai is the default provider.");
    expect(container.textContent).not.toContain("sk-good");
  });

  it("says how to get a model for a server running without one", async () => {
    vi.stubGlobal("fetch", vi.fn());
    const container = await show({
      ...base,
      detected: [{ name: "ollama", kind: "ollama", baseUrl: "http://127.0.0.1:11434/v1", models: [], inUse: false }],
    });
    const option = container.querySelector('[data-testid="detected-ollama"]')!;
    expect(option.querySelector("h3")?.textContent).toBe("Ollama is running without a model");
    expect(option.textContent).toContain("ava models pull llama3.2");
    expect(option.querySelector("button")).toBeNull();
    expect(container.querySelector('[data-testid="no-local-server"]')).toBeNull();
  });

  it("does not send an empty key", async () => {
    const fetchMock = vi.fn();
    vi.stubGlobal("fetch", fetchMock);
    const container = await show(base);
    const form = container.querySelector('form[aria-label="Add an API key"]')!;
    await act(async () => form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());
    expect(fetchMock).not.toHaveBeenCalled();
    expect(form.querySelector('[role="alert"]')?.textContent).toBe("Paste the key first.");
  });
});
