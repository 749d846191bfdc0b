// The page without a valid sign-in: a 401 from the API or a stream shows how
// to sign in instead of a broken page, and the page carries on once the
// browser has signed in (here or in another tab).
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../src/App";
import { request, signedOut } from "../src/api/client";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
const unauthorized = () => json({ error: { code: "unauthorized", message: "sign in with the login link" } }, 401);
/** A stream that stays open (a status stream with nothing to say yet). */
const openStream = () => new Response(new ReadableStream({ start() {} }), { status: 200, headers: { "Content-Type": "text/event-stream" } });

function accepted(url: string): Response {
  if (url.startsWith("/api/status/events")) return openStream();
  if (url === "/api/projects") return json({ projects: [] });
  if (url.startsWith("/api/conversations")) return json({ conversations: [] });
  return json({ providers: [], defaultProvider: null });
}

describe("sign-in screen", () => {
  let root: Root | null = null;
  afterEach(async () => {
    await act(async () => root?.unmount());
    root = null;
    vi.unstubAllGlobals();
    signedOut.answered(200);
    document.body.innerHTML = "";
  });

  it("shows how to sign in on a 401 and hides the page, then carries on once signed in", async () => {
    let signedIn = false;
    const fetchMock = vi.fn(async (url: string) => (signedIn ? accepted(url) : unauthorized()));
    vi.stubGlobal("fetch", fetchMock);
    const container = document.createElement("div");
    document.body.appendChild(container);
    root = createRoot(container);
    await act(async () => root!.render(<App />));
    await act(async () => new Promise((r) => setTimeout(r, 50)));

    const screen = container.querySelector('[data-testid="signed-out"]');
    expect(screen?.querySelector("h1")?.textContent).toBe("Not signed in");
    expect(screen?.textContent).toContain("Open the login link that ava --serve printed, or run ava backend open.");
    expect(container.querySelector<HTMLElement>(".app")?.hidden).toBe(true);
    expect(container.querySelector('[role="alert"]')).toBeNull(); // no error banner for a 401

    signedIn = true; // e.g. the login link opened in another tab set the cookie
    await vi.waitFor(
      async () => {
        await act(async () => new Promise((r) => setTimeout(r, 50)));
        expect(container.querySelector('[data-testid="signed-out"]')).toBeNull();
      },
      { timeout: 5000, interval: 100 },
    );
    expect(container.querySelector<HTMLElement>(".app")?.hidden).toBe(false);
    expect(container.textContent).toContain("Add a project");
  });

  it("notices a sign-in while no stream is retrying (it asks /api/health)", async () => {
    let signedIn = true;
    const fetchMock = vi.fn(async (url: string) => (signedIn ? accepted(url) : unauthorized()));
    vi.stubGlobal("fetch", fetchMock);
    const container = document.createElement("div");
    document.body.appendChild(container);
    root = createRoot(container);
    await act(async () => root!.render(<App />));
    await act(async () => new Promise((r) => setTimeout(r, 50)));
    expect(container.querySelector('[data-testid="signed-out"]')).toBeNull();
    // The session ends while the status stream stays connected: the next API call is refused.
    signedIn = false;
    await act(async () => void (await request("GET", "/api/projects").catch(() => undefined)));
    expect(container.querySelector('[data-testid="signed-out"]')).not.toBeNull();
    signedIn = true;
    await vi.waitFor(
      async () => {
        await act(async () => new Promise((r) => setTimeout(r, 100)));
        expect(container.querySelector('[data-testid="signed-out"]')).toBeNull();
      },
      { timeout: 6000, interval: 200 },
    );
    expect(fetchMock.mock.calls.some(([url]) => url === "/api/health")).toBe(true);
  });
});
