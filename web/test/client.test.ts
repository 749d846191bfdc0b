import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiRequestError, follow, request, signedOut, SseParser, type StreamState } from "../src/api/client";

describe("SseParser", () => {
  it("parses messages split anywhere, with comments, CRLF and multi-line data", () => {
    const text = 'retry: 1000\r\n\r\n: keep-alive\n\nid: 1\nevent: input\ndata: {"seq":1,\ndata: "type":"input"}\n\nid: 2\r\nevent: turn_start\r\ndata: {"seq":2}\r\n\r\n';
    for (let split = 0; split <= text.length; split++) {
      const parser = new SseParser();
      const out = [...parser.feed(text.slice(0, split)), ...parser.feed(text.slice(split))];
      expect(out).toEqual([
        { id: "1", event: "input", data: '{"seq":1,\n"type":"input"}' },
        { id: "2", event: "turn_start", data: '{"seq":2}' },
      ]);
    }
  });
});

const sse = (events: { seq: number; type: string }[]) => events.map((e) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");

/** A fetch that serves scripted responses: each either a body that ends (a drop) or a failure. */
function scriptedFetch(script: Array<(url: string) => Response | Error>) {
  const urls: string[] = [];
  const fetchMock = vi.fn(async (url: string) => {
    urls.push(url);
    const step = script.shift();
    if (!step) return new Promise<Response>(() => undefined); // hang: stays connected
    const result = step(url);
    if (result instanceof Error) throw result;
    return result;
  });
  return { fetchMock, urls };
}

const body = (text: string) => new Response(new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(text)); c.close(); } }), { status: 200 });

describe("follow", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("resumes with ?after=<last seq> after a drop, reports reconnecting, and drops duplicates", async () => {
    const all = Array.from({ length: 8 }, (_, i) => ({ seq: i + 1, type: "x" }));
    const { fetchMock, urls } = scriptedFetch([
      () => body(sse(all.slice(0, 3))), // connection drops after seq 3
      () => new TypeError("connection refused"), // server down
      () => body(sse(all.slice(1, 6))), // server resends 2..6: 2 and 3 are duplicates
      () => new Response("", { status: 503 }),
      () => body(sse(all.slice(5, 8))),
    ]);
    vi.stubGlobal("fetch", fetchMock);
    const seen: number[] = [];
    const states: StreamState[] = [];
    const follower = follow({
      path: "/api/conversations/c/events",
      resumable: true,
      backoff: { baseMs: 1, maxMs: 5 },
      onMessage: (_e, _d, seq) => seen.push(seq!),
      onState: (s) => states.push(s),
    });
    await vi.waitFor(() => expect(urls).toHaveLength(6));
    follower.close();
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(urls).toEqual([
      "/api/conversations/c/events?after=0",
      "/api/conversations/c/events?after=3",
      "/api/conversations/c/events?after=3",
      "/api/conversations/c/events?after=6",
      "/api/conversations/c/events?after=6",
      "/api/conversations/c/events?after=8", // and it keeps following
    ]);
    expect(states).toContain("reconnecting");
    expect(states.indexOf("reconnecting")).toBeGreaterThan(states.indexOf("open"));
    expect(follower.lastSeq()).toBe(8);
  });

  it("stops on a 404", async () => {
    const { fetchMock } = scriptedFetch([() => new Response('{"error":{"code":"not_found","message":"no"}}', { status: 404 })]);
    vi.stubGlobal("fetch", fetchMock);
    const states: [StreamState, string | undefined][] = [];
    follow({ path: "/x", resumable: true, onMessage: () => undefined, onState: (s, d) => states.push([s, d.error]) });
    await vi.waitFor(() => expect(states.at(-1)).toEqual(["closed", "HTTP 404"]));
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe("request", () => {
  afterEach(() => vi.unstubAllGlobals());
  it("turns JSON errors into typed errors", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response('{"error":{"code":"conflict","message":"has conversations"}}', { status: 409 })));
    const error = await request("DELETE", "/api/projects/p").catch((e) => e);
    expect(error).toBeInstanceOf(ApiRequestError);
    expect(error).toMatchObject({ status: 409, code: "conflict", message: "has conversations" });
    vi.stubGlobal("fetch", vi.fn(async () => { throw new TypeError("offline"); }));
    await expect(request("GET", "/api/health")).rejects.toMatchObject({ status: 0, code: "network" });
  });
});

describe("sign-in", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    signedOut.answered(200);
  });
  const unauthorized = () => new Response('{"error":{"code":"unauthorized","message":"sign in first"}}', { status: 401 });

  it("sends the session cookie with every request and stream", async () => {
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => new Response("{}", { status: 200 }));
    vi.stubGlobal("fetch", fetchMock);
    await request("GET", "/api/projects");
    await request("POST", "/api/projects", { path: "/p" });
    const follower = follow({ path: "/api/status/events", resumable: false, onMessage: () => undefined });
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(3));
    follower.close();
    for (const [, init] of fetchMock.mock.calls) expect(init?.credentials).toBe("same-origin");
  });

  it("a 401 from the API signs the page out; the next accepted request signs it in again", async () => {
    const seen: boolean[] = [];
    const stop = signedOut.subscribe(() => seen.push(signedOut.get()));
    vi.stubGlobal("fetch", vi.fn(async () => unauthorized()));
    await expect(request("GET", "/api/projects")).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect(signedOut.get()).toBe(true);
    vi.stubGlobal("fetch", vi.fn(async () => { throw new TypeError("offline"); }));
    await request("GET", "/api/projects").catch(() => undefined);
    expect(signedOut.get()).toBe(true); // a network failure says nothing about the sign-in
    vi.stubGlobal("fetch", vi.fn(async () => new Response('{"projects":[]}', { status: 200 })));
    await request("GET", "/api/projects");
    expect(signedOut.get()).toBe(false);
    expect(seen).toEqual([true, false]);
    stop();
  });

  it("a stream that gets 401 keeps retrying and resumes once signed in", async () => {
    const { fetchMock, urls } = scriptedFetch([
      () => body(sse([{ seq: 1, type: "x" }])),
      () => unauthorized(),
      () => unauthorized(),
      () => body(sse([{ seq: 2, type: "x" }])),
    ]);
    vi.stubGlobal("fetch", fetchMock);
    const seen: number[] = [];
    const out: boolean[] = [];
    const stop = signedOut.subscribe(() => out.push(signedOut.get()));
    const follower = follow({ path: "/e", resumable: true, backoff: { baseMs: 1, maxMs: 5 }, onMessage: (_e, _d, seq) => seen.push(seq!) });
    await vi.waitFor(() => expect(urls).toHaveLength(5));
    follower.close();
    stop();
    expect(seen).toEqual([1, 2]);
    expect(urls.slice(1, 4)).toEqual(["/e?after=1", "/e?after=1", "/e?after=1"]);
    expect(out).toEqual([true, false]);
  });
});
