// The settings page's MCP servers: listed, switched, tested, signed in and
// added through the API routes `ava mcp` shares.
import { act } from "react";
import { createRoot } from "react-dom/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { McpServer } from "../src/api/protocol.gen";
import { McpSection, parsePairs, webAddress } from "../src/ui/McpSection";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const server = (over: Partial<McpServer>): McpServer => ({
  name: "fs",
  transport: "stdio",
  enabled: true,
  projects: {},
  source: "cli",
  createdMs: 1,
  updatedMs: 1,
  command: "node",
  args: ["server.js", "/work/p"],
  ...over,
});
const remote = server({ name: "remote", transport: "http", command: undefined, args: undefined, url: "https://mcp.example/mcp", signedIn: false });

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

async function flush(ms = 0) {
  await act(async () => {
    await new Promise((r) => setTimeout(r, ms));
  });
}

async function render() {
  const container = document.createElement("div");
  document.body.appendChild(container);
  await act(async () => createRoot(container).render(<McpSection />));
  await flush();
  return container;
}

function type(element: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) {
  const prototype = Object.getPrototypeOf(element) as object;
  Object.getOwnPropertyDescriptor(prototype, "value")!.set!.call(element, value);
  element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? "change" : "input", { bubbles: true }));
}

const button = (root: HTMLElement, row: string, label: string) =>
  [...root.querySelectorAll<HTMLButtonElement>(`[data-mcp-server="${row}"] button`)].find((b) => b.textContent === label)!;

describe("MCP servers section", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    document.body.innerHTML = "";
  });

  it("lists servers, switches one off and shows what a test found", async () => {
    const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
      if (url === "/api/projects") return json({ projects: [] });
      if (init?.method === "PATCH") return json(server({ enabled: false }));
      if (url.endsWith("/test"))
        return json({ serverName: "secure-filesystem-server", serverVersion: "0.2.0", protocolVersion: "2025-11-25", tools: [{ name: "read_text_file", description: "" }, { name: "list_directory", description: "" }] });
      return json({ servers: [server({}), remote] });
    });
    vi.stubGlobal("fetch", fetchMock);
    const root = await render();
    expect(root.querySelectorAll("tbody tr").length).toBe(2);
    expect(root.querySelector('[data-mcp-server="fs"] td.mono')?.textContent).toBe("node server.js /work/p");
    expect(root.querySelector('[data-mcp-server="remote"] .badge')?.textContent).toBe("not signed in");
    expect(button(root, "fs", "Sign in")).toBeUndefined();

    await act(async () => root.querySelector<HTMLInputElement>('[aria-label="Enable fs"]')!.click());
    await flush();
    const [url, init] = fetchMock.mock.calls.find(([, i]) => i?.method === "PATCH") as [string, RequestInit];
    expect(url).toBe("/api/mcp/servers/fs");
    expect(JSON.parse(init.body as string)).toEqual({ enabled: false });
    expect(root.querySelector<HTMLInputElement>('[aria-label="Enable fs"]')?.checked).toBe(false);

    await act(async () => button(root, "fs", "Test").click());
    await flush();
    expect(root.querySelector('[data-mcp-server="fs"] [role="status"]')?.textContent).toBe(
      "secure-filesystem-server 0.2.0 · protocol 2025-11-25 · 2 tools: read_text_file, list_directory",
    );
  });

  it("switches a server for one project only, and back to the default", async () => {
    const project = { id: "p1", path: "/work/q", name: "q", createdMs: 1 };
    let own: boolean | undefined = undefined;
    const view = () => server({ projects: own === undefined ? {} : { "/work/q": own }, enabledHere: own ?? true });
    const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
      if (url === "/api/projects") return json({ projects: [project] });
      if (url === "/api/mcp/servers/fs/projects/p1") {
        own = init?.method === "DELETE" ? undefined : (JSON.parse(init!.body as string) as { enabled: boolean }).enabled;
        return json(view());
      }
      return json({ servers: [url.endsWith("?project=p1") ? view() : server({})] });
    });
    vi.stubGlobal("fetch", fetchMock);
    const root = await render();
    const scope = root.querySelector<HTMLSelectElement>(".mcp-scope select")!;
    await act(async () => type(scope, "p1"));
    await flush();
    expect(fetchMock.mock.calls.some(([url]) => url === "/api/mcp/servers?project=p1")).toBe(true);
    const box = () => root.querySelector<HTMLInputElement>('[aria-label="Enable fs"]')!;
    expect(box().checked).toBe(true);
    expect(root.querySelector('[data-mcp-server="fs"] .badge')).toBeNull();

    await act(async () => box().click());
    await flush();
    expect(own).toBe(false);
    expect(box().checked).toBe(false);
    expect(root.querySelector('[data-mcp-server="fs"] .badge')?.textContent).toBe("project setting");

    await act(async () => root.querySelector<HTMLButtonElement>('[aria-label="Use the default for fs"]')!.click());
    await flush();
    expect(own).toBeUndefined();
    expect(box().checked).toBe(true);
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === "PATCH")).toBe(false);
  });

  it("signs in through a page opened in a new tab and notices when it is done", async () => {
    let signedIn = false;
    const fetchMock = vi.fn(async (url: string) => {
      if (url.endsWith("/login")) return json({ authorizationUrl: "https://auth.example/authorize?x=1", timeoutMs: 300000 });
      return json({ servers: [{ ...remote, signedIn }] });
    });
    vi.stubGlobal("fetch", fetchMock);
    const tab = { opener: {} as unknown, location: { href: "about:blank" }, close: vi.fn() };
    const open = vi.fn(() => tab);
    vi.stubGlobal("open", open);
    const root = await render();

    await act(async () => button(root, "remote", "Sign in").click());
    await flush();
    expect(open).toHaveBeenCalledWith("about:blank", "_blank");
    expect(tab.location.href).toBe("https://auth.example/authorize?x=1");
    expect(tab.opener).toBeNull();
    expect(root.querySelector('[data-mcp-server="remote"] a')?.getAttribute("href")).toBe("https://auth.example/authorize?x=1");

    signedIn = true; // the loopback redirect reached the server
    await flush(1200);
    expect(root.querySelector('[data-mcp-server="remote"] .badge')?.textContent).toBe("signed in");
    expect(root.querySelector('[data-mcp-server="remote"] [role="status"]')?.textContent).toBe("Signed in.");
    expect(button(root, "remote", "Sign out")).toBeDefined();
  });

  it("closes the tab and shows the reason when a sign-in cannot start", async () => {
    vi.stubGlobal("fetch", vi.fn(async (url: string) =>
      url.endsWith("/login")
        ? json({ error: { code: "mcp_server_failed", message: "no authorization server found" } }, 502)
        : json({ servers: [remote] }),
    ));
    const tab = { opener: {}, location: { href: "about:blank" }, close: vi.fn() };
    vi.stubGlobal("open", vi.fn(() => tab));
    const root = await render();
    await act(async () => button(root, "remote", "Sign in").click());
    await flush();
    expect(tab.close).toHaveBeenCalled();
    expect(root.querySelector('[data-mcp-server="remote"] [role="status"]')?.textContent).toBe("no authorization server found");
  });

  it.each(["javascript:alert(1)", " JavaScript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd", "/relative", "not a url"])(
    "never opens a sign-in page that is not http(s): %s",
    async (authorizationUrl) => {
      vi.stubGlobal("fetch", vi.fn(async (url: string) =>
        url.endsWith("/login") ? json({ authorizationUrl, timeoutMs: 300000 }) : json({ servers: [remote] }),
      ));
      const tab = { opener: {}, location: { href: "about:blank" }, close: vi.fn() };
      vi.stubGlobal("open", vi.fn(() => tab));
      const root = await render();
      await act(async () => button(root, "remote", "Sign in").click());
      await flush();
      expect(tab.location.href).toBe("about:blank");
      expect(tab.close).toHaveBeenCalled();
      const note = root.querySelector('[data-mcp-server="remote"] [role="status"]');
      expect(note?.className).toContain("form-error");
      expect(note?.textContent).toContain("not an http(s) address");
      expect(root.querySelector('[data-mcp-server="remote"] a')).toBeNull();
      expect(button(root, "remote", "Sign in").disabled).toBe(false);
    },
  );

  it("webAddress takes http and https only", () => {
    expect(webAddress("https://auth.example/a?b=1")).toBe("https://auth.example/a?b=1");
    expect(webAddress("http://127.0.0.1:8080/cb")).toBe("http://127.0.0.1:8080/cb");
    expect(webAddress("java\tscript:alert(1)")).toBeNull();
    expect(webAddress("javascript:alert(1)")).toBeNull();
    expect(webAddress("//auth.example/a")).toBeNull();
  });

  it("adds a stdio server with arguments and environment, and refuses a malformed line", async () => {
    const fetchMock = vi.fn(async (_url: string, init?: RequestInit) =>
      init?.method === "POST" ? json(server({ name: "everything" }), 201) : json({ servers: [] }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const root = await render();
    expect(root.textContent).toContain("No MCP servers.");
    const form = root.querySelector<HTMLFormElement>('form[aria-label="Add an MCP server"]')!;
    const [name, command] = [...form.querySelectorAll("input")];
    const [args, env] = [...form.querySelectorAll("textarea")];
    await act(async () => {
      type(name, "everything");
      type(command, "npx");
      type(args, "-y\n @modelcontextprotocol/server-everything \n\n");
      type(env, "TOKEN");
    });
    await act(async () => form.requestSubmit());
    await flush();
    expect(root.querySelector('[role="alert"]')?.textContent).toBe("Not KEY=VALUE: TOKEN");
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === "POST").length).toBe(0);

    await act(async () => type(env, "TOKEN=abc=def\nDEBUG = 1"));
    await act(async () => form.requestSubmit());
    await flush();
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === "POST")!;
    expect(post[0]).toBe("/api/mcp/servers");
    expect(JSON.parse(post[1]!.body as string)).toEqual({
      name: "everything",
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
      env: { TOKEN: "abc=def", DEBUG: "1" },
    });
    expect(root.querySelector('[role="status"]')?.textContent).toContain("Added everything.");
  });

  it("adds a stdio server in a sandbox and shows the sandbox it runs in", async () => {
    const sandboxed = server({ name: "files", sandbox: { mode: "workspace-write", network: false, writableRoots: [] } });
    const fetchMock = vi.fn(async (_url: string, init?: RequestInit) =>
      init?.method === "POST" ? json(sandboxed, 201) : json({ servers: [sandboxed] }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const root = await render();
    expect(root.querySelector('[data-mcp-server="files"] .badge')?.textContent).toBe("sandbox: workspace-write, no network");
    const form = root.querySelector<HTMLFormElement>('form[aria-label="Add an MCP server"]')!;
    const label = (text: string) => [...form.querySelectorAll("label")].find((l) => l.textContent?.startsWith(text))!;
    await act(async () => {
      type(label("Name").querySelector("input")!, "files");
      type(label("Command").querySelector("input")!, "node");
      type(label("Sandbox").querySelector("select")!, "workspace-write");
    });
    await act(async () => label("Let it use the network").querySelector("input")!.click());
    await act(async () => form.requestSubmit());
    await flush();
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === "POST")!;
    expect(JSON.parse(post[1]!.body as string)).toMatchObject({ name: "files", sandbox: { mode: "workspace-write", network: true } });
  });

  it("adds an HTTP server with a pre-registered OAuth client", async () => {
    const fetchMock = vi.fn(async (_url: string, init?: RequestInit) =>
      init?.method === "POST"
        ? json({ ...remote, name: "house", oauth: { clientId: "ava-house", clientSecret: "<redacted>" } }, 201)
        : json({ servers: [] }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const root = await render();
    const form = root.querySelector<HTMLFormElement>('form[aria-label="Add an MCP server"]')!;
    await act(async () => type(form.querySelector("select")!, "http"));
    const field = (label: string) =>
      [...form.querySelectorAll("label")].find((l) => l.textContent?.startsWith(label))!.querySelector<HTMLInputElement>("input")!;
    await act(async () => {
      type(field("Name"), "house");
      type(field("URL"), "https://mcp.example/mcp");
      type(field("OAuth client id"), "ava-house");
    });
    await act(async () => type(field("OAuth client secret"), "s3cret"));
    await act(async () => form.requestSubmit());
    await flush();
    const post = fetchMock.mock.calls.find(([, init]) => init?.method === "POST")!;
    expect(JSON.parse(post[1]!.body as string)).toEqual({
      name: "house",
      type: "http",
      url: "https://mcp.example/mcp",
      oauth: { clientId: "ava-house", clientSecret: "s3cret" },
    });
  });

  it("parses header lines", () => {
    expect(parsePairs("Authorization: Bearer x:y\n\nX-Team: a", ":")).toEqual({ Authorization: "Bearer x:y", "X-Team": "a" });
    expect(parsePairs(": nameless", ":")).toBe(": nameless");
  });
});
