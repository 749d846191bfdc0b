import { useCallback, useEffect, useState } from "react";
import type { FormEvent } from "react";
import { api } from "../api/client";
import type { CreateMcpServer, McpServer, Project } from "../api/protocol.gen";

type Note = { ok: boolean; text: string; link?: string };

/** "KEY=VALUE" (or "Name: value") lines into a record, or the first line that is neither. */
export function parsePairs(text: string, separator: "=" | ":"): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(separator);
    if (at <= 0) return line;
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/** An http: or https: address, or null: a sign-in page is opened only when it is one. */
export function webAddress(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * MCP servers (the ones `ava mcp` configures): a switch each (the default
 * for every project, or one project's own), a connection test, OAuth
 * sign-in for HTTP servers, removal, and a form to add one. Secrets (env
 * and header values) are sent once and come back redacted.
 */
export function McpSection() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [error, setError] = useState("");
  const [notes, setNotes] = useState<Record<string, Note>>({});
  const [signingIn, setSigningIn] = useState<{ name: string; until: number } | null>(null);
  const [projects, setProjects] = useState<Project[]>([]);
  const [scope, setScope] = useState(""); // a project id; "": the default for every project
  const project = projects.find((p) => p.id === scope);
  const note = (name: string, value: Note) => setNotes((all) => ({ ...all, [name]: value }));
  const reload = useCallback(
    () => api.mcpServers(scope || undefined).then(setServers, (e: Error) => setError(e.message)),
    [scope],
  );
  useEffect(() => {
    reload();
  }, [reload]);
  useEffect(() => {
    api.projects().then((list) => setProjects(list ?? []), () => setProjects([]));
  }, []);

  // The sign-in ends in another tab: read the list again until it shows.
  useEffect(() => {
    if (!signingIn) return;
    const timer = setInterval(() => {
      api.mcpServers(scope || undefined).then((list) => {
        setServers(list);
        if (list.find((s) => s.name === signingIn.name)?.signedIn) {
          note(signingIn.name, { ok: true, text: "Signed in." });
          setSigningIn(null);
        } else if (Date.now() > signingIn.until) {
          note(signingIn.name, { ok: false, text: "The sign-in was not finished in time." });
          setSigningIn(null);
        }
      }, () => {});
    }, 1000);
    return () => clearInterval(timer);
  }, [signingIn, scope]);

  const act = (name: string, work: () => Promise<unknown>) => {
    setError("");
    work().catch((e: Error) => note(name, { ok: false, text: e.message }));
  };
  const enabled = (server: McpServer) => (project ? server.enabledHere === true : server.enabled);
  const ownSwitch = (server: McpServer) => project !== undefined && project.path in server.projects;
  const saved = (server: McpServer) =>
    setServers((list) => list?.map((s) => (s.name === server.name ? server : s)) ?? null);
  const toggle = (server: McpServer, to: boolean | null = !enabled(server)) =>
    act(server.name, () =>
      (project
        ? api.switchMcpServerIn(server.name, project.id, to)
        : api.switchMcpServer(server.name, to === true)
      ).then(saved),
    );
  const test = (server: McpServer) => {
    note(server.name, { ok: true, text: "Connecting…" });
    act(server.name, () =>
      api.testMcpServer(server.name).then((r) =>
        note(server.name, {
          ok: true,
          text: `${r.serverName} ${r.serverVersion} · protocol ${r.protocolVersion} · ${r.tools.length} tools: ${r.tools
            .map((t) => t.name)
            .join(", ")}`,
        }),
      ),
    );
  };
  const signIn = (server: McpServer) => {
    // Opened now, while the click still allows it; pointed at the page once the server answers.
    const tab = window.open("about:blank", "_blank");
    act(server.name, async () => {
      try {
        const started = await api.mcpLogin(server.name);
        const page = webAddress(started.authorizationUrl);
        if (page === null)
          throw new Error(`The sign-in page is not an http(s) address, so it was not opened: ${started.authorizationUrl.slice(0, 200)}`);
        if (tab) {
          tab.opener = null;
          tab.location.href = page;
        }
        note(server.name, { ok: true, text: "Finish signing in on the page that opened.", link: page });
        setSigningIn({ name: server.name, until: Date.now() + started.timeoutMs });
      } catch (e) {
        tab?.close();
        throw e;
      }
    });
  };
  const signOut = (server: McpServer) =>
    act(server.name, () =>
      api.mcpLogout(server.name).then(() => {
        note(server.name, { ok: true, text: "Signed out." });
        return reload();
      }),
    );
  const remove = (server: McpServer) => {
    if (!window.confirm(`Remove the MCP server ${server.name} (and its sign-in)?`)) return;
    act(server.name, () => api.removeMcpServer(server.name).then(reload));
  };

  return (
    <section aria-label="MCP servers">
      <h2>MCP servers</h2>
      {error && <div role="alert" className="error-banner">{error}</div>}
      {projects.length > 0 && (
        <label className="mcp-scope">
          Switches for{" "}
          <select value={scope} onChange={(e) => setScope(e.target.value)}>
            <option value="">every project (the default)</option>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} only
              </option>
            ))}
          </select>
        </label>
      )}
      {!servers ? (
        !error && <p>Loading…</p>
      ) : servers.length === 0 ? (
        <p className="muted">
          No MCP servers. Add one below, with <code>ava mcp add</code>, or import a <code>.mcp.json</code> with{" "}
          <code>ava mcp import</code>.
        </p>
      ) : (
        <table className="mcp-servers">
          <caption className="sr-only">MCP servers</caption>
          <thead>
            <tr>
              <th scope="col">Enabled</th>
              <th scope="col">Name</th>
              <th scope="col">Runs</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {servers.map((s) => (
              <tr key={s.name} data-mcp-server={s.name}>
                <td>
                  <input type="checkbox" checked={enabled(s)} onChange={() => toggle(s)} aria-label={`Enable ${s.name}`} />
                </td>
                <th scope="row" className="mono">
                  {s.name}
                  {s.transport === "http" && (
                    <span className={s.signedIn ? "badge ok" : "badge"}>{s.signedIn ? "signed in" : "not signed in"}</span>
                  )}
                  {s.oauth && <span className="badge">OAuth client {s.oauth.clientId}</span>}
                  {s.sandbox && (
                    <span className="badge ok" title={s.sandbox.writableRoots.length ? `also writes ${s.sandbox.writableRoots.join(", ")}` : undefined}>
                      sandbox: {s.sandbox.mode}
                      {s.sandbox.network ? ", network" : ", no network"}
                    </span>
                  )}
                  {ownSwitch(s) && (
                    <>
                      <span className="badge">project setting</span>
                      <button type="button" className="link" onClick={() => toggle(s, null)} aria-label={`Use the default for ${s.name}`}>
                        use default
                      </button>
                    </>
                  )}
                </th>
                <td className="mono">{s.transport === "http" ? s.url : [s.command, ...(s.args ?? [])].join(" ")}</td>
                <td className="actions">
                  <button type="button" className="small" onClick={() => test(s)}>
                    Test
                  </button>
                  {s.transport === "http" &&
                    (s.signedIn ? (
                      <button type="button" className="small" onClick={() => signOut(s)}>
                        Sign out
                      </button>
                    ) : (
                      <button type="button" className="small" onClick={() => signIn(s)} disabled={signingIn?.name === s.name}>
                        Sign in
                      </button>
                    ))}
                  <button type="button" className="small danger" onClick={() => remove(s)} aria-label={`Remove ${s.name}`}>
                    Remove
                  </button>
                  {notes[s.name] && (
                    <div role="status" className={notes[s.name].ok ? "mcp-note" : "mcp-note form-error"}>
                      {notes[s.name].text}
                      {notes[s.name].link && webAddress(notes[s.name].link!) && (
                        <>
                          {" "}
                          <a href={notes[s.name].link} target="_blank" rel="noopener noreferrer">
                            Open the sign-in page
                          </a>
                        </>
                      )}
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <McpServerForm onAdded={reload} />
    </section>
  );
}

const EMPTY_FIELDS = { name: "", command: "", args: "", env: "", url: "", headers: "", clientId: "", clientSecret: "", sandbox: "off", sandboxNetwork: "" };

/** Adds a server: a command to start (stdio) or a URL (Streamable HTTP). */
function McpServerForm({ onAdded }: { onAdded: () => void }) {
  const [type, setType] = useState<"stdio" | "http">("stdio");
  const [fields, setFields] = useState(EMPTY_FIELDS);
  const { name, command, args, env, url, headers, clientId, clientSecret, sandbox, sandboxNetwork } = fields;
  const edit = (field: keyof typeof EMPTY_FIELDS) => (e: { target: { value: string } }) =>
    setFields((all) => ({ ...all, [field]: e.target.value }));
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Note | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const server: CreateMcpServer = { name: name.trim(), type };
    if (type === "stdio") {
      server.command = command.trim();
      server.args = args.split("\n").map((a) => a.trim()).filter((a) => a);
      const pairs = parsePairs(env, "=");
      if (typeof pairs === "string") return setResult({ ok: false, text: `Not KEY=VALUE: ${pairs}` });
      if (Object.keys(pairs).length) server.env = pairs;
      if (sandbox !== "off") server.sandbox = { mode: sandbox, network: sandboxNetwork === "on" };
    } else {
      server.url = url.trim();
      const pairs = parsePairs(headers, ":");
      if (typeof pairs === "string") return setResult({ ok: false, text: `Not "Name: value": ${pairs}` });
      if (Object.keys(pairs).length) server.headers = pairs;
      if (clientId.trim()) server.oauth = { clientId: clientId.trim(), ...(clientSecret ? { clientSecret } : {}) };
    }
    setBusy(true);
    setResult(null);
    try {
      const saved = await api.addMcpServer(server);
      setResult({ ok: true, text: `Added ${saved.name}. New and reopened conversations can use it.` });
      setFields(EMPTY_FIELDS);
      onAdded();
    } catch (error) {
      setResult({ ok: false, text: (error as Error).message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="provider-form" onSubmit={submit} aria-label="Add an MCP server">
      <h3>Add an MCP server</h3>
      <label>
        Name
        <input value={name} onChange={edit("name")} placeholder="filesystem" pattern="[A-Za-z0-9_\-]{1,48}" required />
      </label>
      <label>
        Transport
        <select value={type} onChange={(e) => setType(e.target.value as "stdio" | "http")}>
          <option value="stdio">stdio: a command Ava starts</option>
          <option value="http">Streamable HTTP: a URL</option>
        </select>
      </label>
      {type === "stdio" ? (
        <>
          <label>
            Command
            <input value={command} onChange={edit("command")} placeholder="npx" required />
          </label>
          <label>
            Arguments, one per line
            <textarea value={args} onChange={edit("args")} rows={3} placeholder={"-y\n@modelcontextprotocol/server-filesystem\n/path/to/project"} />
          </label>
          <label>
            Environment, KEY=VALUE per line (kept by the server, shown redacted)
            <textarea value={env} onChange={edit("env")} rows={2} />
          </label>
          <label>
            Sandbox
            <select value={sandbox} onChange={edit("sandbox")}>
              <option value="off">off: the server runs with your rights</option>
              <option value="workspace-write">workspace-write: writes only in its folder</option>
              <option value="read-only">read-only: writes nowhere but the temp folders</option>
            </select>
          </label>
          {sandbox !== "off" && (
            <label className="inline">
              <input type="checkbox" checked={sandboxNetwork === "on"} onChange={(e) => setFields((all) => ({ ...all, sandboxNetwork: e.target.checked ? "on" : "" }))} />
              Let it use the network
            </label>
          )}
        </>
      ) : (
        <>
          <label>
            URL
            <input type="url" value={url} onChange={edit("url")} placeholder="https://mcp.example.com/mcp" required />
          </label>
          <label>
            Headers, "Name: value" per line (kept by the server, shown redacted)
            <textarea value={headers} onChange={edit("headers")} rows={2} />
          </label>
          <label>
            OAuth client id (only for authorization servers without dynamic registration)
            <input value={clientId} onChange={edit("clientId")} autoComplete="off" />
          </label>
          {clientId.trim() && (
            <label>
              OAuth client secret (if the client has one; kept by the server, shown redacted)
              <input type="password" value={clientSecret} onChange={edit("clientSecret")} autoComplete="off" />
            </label>
          )}
        </>
      )}
      <div>
        <button type="submit" disabled={busy}>
          Add server
        </button>
      </div>
      {result && (
        <p role={result.ok ? "status" : "alert"} className={result.ok ? "status-ok" : "form-error"}>
          {result.text}
        </p>
      )}
    </form>
  );
}
