// The HTTP side of the API (fetch, JSON errors as typed errors) and the SSE
// follower that survives disconnects and resumes from its last sequence.
import type { FileListing, FileMatches, FilePreview } from "./protocol.gen";
import type { AnalyticsSummary, AutomationList, AutomationRequest, AutomationView, OccurrenceList, OccurrenceView, SchedulePreview } from "./protocol.gen";
import type {
  ApprovalDecisionRequest,
  PermissionModeRequest,
  PermissionsView,
  ApiError,
  Conversation,
  ConversationPatch,
  ConversationView,
  CreateConversation,
  CreateMcpServer,
  DriverStatus,
  InputAccepted,
  InputRequest,
  McpLoginStarted,
  McpServer,
  McpServerList,
  McpServerTest,
  McpSignedOut,
  ModelRef,
  Project,
  ProviderInfo,
  ProviderUpdate,
  SkillList,
  SkillUpdate,
  SlashCommandList,
} from "./protocol.gen";
import type {
  ConversationList,
  ConversationUsage,
  ModelsResponse,
  ProjectList,
  SettingsResponse,
} from "./protocol.extra";

/** A non-2xx answer (code from the JSON error body) or a network failure (status 0). */
export class ApiRequestError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiRequestError";
    this.status = status;
    this.code = code;
  }
}

function isApiError(value: unknown): value is ApiError {
  const error = (value as ApiError | null)?.error;
  return typeof error === "object" && error !== null && typeof error.code === "string";
}

/**
 * Whether the server accepts this page's sign-in (the session cookie the
 * login link set, sent with every same-origin request). Any 401 from the API
 * or a stream signs the page out; the next answer that is not a 401 (the
 * streams keep retrying: the user may open a login link in another tab)
 * signs it in again.
 */
class SignedOutState {
  private out = false;
  private listeners = new Set<() => void>();
  /** Called with every HTTP status the server answers with. */
  answered(status: number) {
    const out = status === 401;
    if (out === this.out) return;
    this.out = out;
    this.listeners.forEach((l) => l());
  }
  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  /** True once the server said 401, until it accepts a request again. */
  get = () => this.out;
}
export const signedOut = new SignedOutState();

export async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? undefined : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
      signal,
    });
  } catch (error) {
    throw new ApiRequestError(0, "network", `Could not reach the server: ${(error as Error).message}`);
  }
  signedOut.answered(response.status);
  const text = await response.text();
  let json: unknown = undefined;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (!response.ok) {
    if (isApiError(json)) throw new ApiRequestError(response.status, json.error.code, json.error.message);
    throw new ApiRequestError(response.status, "http_" + response.status, text.slice(0, 200) || response.statusText);
  }
  return json as T;
}

const enc = encodeURIComponent;
let inputCounter = 0;
/** A client input id (A-Z a-z 0-9 . _ : -), so a retried POST is acknowledged once. */
export function newInputId(): string {
  inputCounter += 1;
  return `web-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}-${inputCounter}`;
}

export const api = {
  health: () => request<unknown>("GET", "/api/health"),
  projects: () => request<ProjectList>("GET", "/api/projects").then((r) => r.projects),
  createProject: (path: string, name?: string) =>
    request<Project>("POST", "/api/projects", name ? { path, name } : { path }),
  conversations: (archived: "true" | "false" | "all" = "all") =>
    request<ConversationList>("GET", `/api/conversations?archived=${archived}`).then((r) => r.conversations),
  conversation: (id: string) => request<ConversationView>("GET", `/api/conversations/${enc(id)}`),
  createConversation: (body: CreateConversation) => request<ConversationView>("POST", "/api/conversations", body),
  /** The WebSocket address of a new shell in a project's folder (GET /api/projects/{id}/terminal). */
  terminalUrl: (projectId: string, cols: number, rows: number) =>
    `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/projects/${enc(projectId)}/terminal?cols=${cols}&rows=${rows}`,
  /** One folder of a project ("" is its folder), without what Git ignores. */
  files: (projectId: string, path: string) =>
    request<FileListing>("GET", `/api/projects/${enc(projectId)}/files?path=${enc(path)}`),
  filePreview: (projectId: string, path: string) =>
    request<FilePreview>("GET", `/api/projects/${enc(projectId)}/files/preview?path=${enc(path)}`),
  /** The bytes of the version a preview checked (409 once the file changed). */
  fileRawUrl: (projectId: string, path: string, version: string) =>
    `/api/projects/${enc(projectId)}/files/raw?path=${enc(path)}&version=${enc(version)}`,
  searchFiles: (projectId: string, query: string, limit = 50, signal?: AbortSignal) =>
    request<FileMatches>("GET", `/api/projects/${enc(projectId)}/files/search?q=${enc(query)}&limit=${limit}`, undefined, signal),
  fileEventsPath: (projectId: string) => `/api/projects/${enc(projectId)}/files/events`,
  deleteConversation: (id: string) => request<{ removed: boolean }>("DELETE", `/api/conversations/${enc(id)}`),
  patchConversation: (id: string, patch: ConversationPatch) =>
    request<Conversation>("PATCH", `/api/conversations/${enc(id)}`, patch),
  /** Sends input; a network failure is retried once with the same inputId (acknowledged once). */
  async input(id: string, body: InputRequest): Promise<InputAccepted> {
    const withId = { ...body, inputId: body.inputId ?? newInputId() };
    try {
      return await request<InputAccepted>("POST", `/api/conversations/${enc(id)}/input`, withId);
    } catch (error) {
      if (error instanceof ApiRequestError && error.status === 0) {
        await new Promise((r) => setTimeout(r, 500));
        return request<InputAccepted>("POST", `/api/conversations/${enc(id)}/input`, withId);
      }
      throw error;
    }
  },
  /** Answers a call waiting for a person; 409 when it was answered already. */
  decideApproval: (id: string, approvalId: string, body: ApprovalDecisionRequest) =>
    request<DriverStatus>("POST", `/api/conversations/${enc(id)}/approvals/${enc(approvalId)}`, body),
  permissions: (id: string) => request<PermissionsView>("GET", `/api/conversations/${enc(id)}/permissions`),
  /** The slash commands of the conversation's project and user, for completion. */
  commands: (id: string) =>
    request<SlashCommandList>("GET", `/api/conversations/${enc(id)}/commands`).then((r) => r.commands),
  setPermissionMode: (id: string, mode: string) =>
    request<DriverStatus>("PUT", `/api/conversations/${enc(id)}/permissions`, { mode } satisfies PermissionModeRequest),
  control: (id: string, action: "pause" | "resume" | "abort") =>
    request<DriverStatus>("POST", `/api/conversations/${enc(id)}/${action}`),
  setModel: (id: string, model: ModelRef) => request<DriverStatus>("PUT", `/api/conversations/${enc(id)}/model`, model),
  usage: (id: string) => request<ConversationUsage>("GET", `/api/conversations/${enc(id)}/usage`),
  models: () => request<ModelsResponse>("GET", "/api/models"),
  settings: () => request<SettingsResponse>("GET", "/api/settings"),
  /** Adds a provider or changes one; the key (if given) goes to the server's auth.json and never comes back. */
  saveProvider: (name: string, update: ProviderUpdate) =>
    request<ProviderInfo>("PUT", `/api/settings/providers/${enc(name)}`, update),
  forgetKey: (name: string) => request<ProviderInfo>("DELETE", `/api/settings/providers/${enc(name)}/key`),
  /** Skills and whether agents may use them; without a project, the user-wide view. */
  skills: (projectId?: string) =>
    request<SkillList>("GET", projectId ? `/api/skills?projectId=${enc(projectId)}` : "/api/skills"),
  /** Switches a skill on or off (null: removes the switch); answers with the updated list. */
  setSkill: (name: string, update: SkillUpdate) => request<SkillList>("PUT", `/api/skills/${enc(name)}`, update),
  /** MCP servers as configured (secrets redacted); HTTP ones say whether a sign-in is stored. */
  /** With a project, each server also says whether it is on there (enabledHere). */
  mcpServers: (projectId?: string) =>
    request<McpServerList>("GET", projectId ? `/api/mcp/servers?project=${enc(projectId)}` : "/api/mcp/servers").then(
      (r) => r.servers,
    ),
  addMcpServer: (server: CreateMcpServer) => request<McpServer>("POST", "/api/mcp/servers", server),
  /** The default for every project without a switch of its own. */
  switchMcpServer: (name: string, enabled: boolean) =>
    request<McpServer>("PATCH", `/api/mcp/servers/${enc(name)}`, { enabled }),
  /** A project's own switch; null removes it (the server's default applies there again). */
  switchMcpServerIn: (name: string, projectId: string, enabled: boolean | null) =>
    enabled === null
      ? request<McpServer>("DELETE", `/api/mcp/servers/${enc(name)}/projects/${enc(projectId)}`)
      : request<McpServer>("PUT", `/api/mcp/servers/${enc(name)}/projects/${enc(projectId)}`, { enabled }),
  removeMcpServer: (name: string) => request<{ removed: boolean }>("DELETE", `/api/mcp/servers/${enc(name)}`),
  /** A fresh connection: initialize, list the tools, close. */
  testMcpServer: (name: string) => request<McpServerTest>("POST", `/api/mcp/servers/${enc(name)}/test`),
  /** Starts an OAuth sign-in: the page to open; the server finishes it in the background. */
  mcpLogin: (name: string) => request<McpLoginStarted>("POST", `/api/mcp/servers/${enc(name)}/login`),
  mcpLogout: (name: string) => request<McpSignedOut>("POST", `/api/mcp/servers/${enc(name)}/logout`),
  automations: () => request<AutomationList>("GET", "/api/automations").then((r) => r.automations),
  createAutomation: (body: AutomationRequest) => request<AutomationView>("POST", "/api/automations", body),
  patchAutomation: (id: string, body: AutomationRequest) => request<AutomationView>("PATCH", `/api/automations/${enc(id)}`, body),
  removeAutomation: (id: string) => request<AutomationView>("DELETE", `/api/automations/${enc(id)}`),
  runAutomation: (id: string) => request<OccurrenceView>("POST", `/api/automations/${enc(id)}/run`),
  automationHistory: (id: string, limit = 50) =>
    request<OccurrenceList>("GET", `/api/automations/${enc(id)}/history?limit=${limit}`).then((r) => r.occurrences),
  /** The analytics index brought up to date, then summarized (docs/analytics.md). */
  analytics: (query: Record<string, string>) => {
    const search = new URLSearchParams(query).toString();
    return request<AnalyticsSummary>("GET", "/api/analytics" + (search ? "?" + search : ""));
  },
  /** The next five runs of a schedule not yet saved (the form's helper). */
  previewSchedule: (kind: "cron" | "every" | "at", schedule: string, timeZone: string) =>
    request<SchedulePreview>("GET", `/api/automations/preview?${kind}=${enc(schedule)}&timeZone=${enc(timeZone)}`),
};

// ---------------------------------------------------------------------------
// Server-Sent Events

export type StreamState = "connecting" | "open" | "reconnecting" | "closed";

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
}

/** Incremental SSE parser: feed text chunks, get complete messages. */
export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private id: string | null = null;

  feed(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (match[0] === "\r" && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      if (line === "") {
        if (this.data.length > 0) out.push({ id: this.id, event: this.event || "message", data: this.data.join("\n") });
        this.data = [];
        this.event = "";
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (name === "data") this.data.push(value);
      else if (name === "event") this.event = value;
      else if (name === "id") this.id = value;
    }
    return out;
  }
}

export interface FollowOptions {
  /** The stream's path, without a cursor. */
  path: string;
  /** Resume with ?after=<last seq> (durable streams); the status stream has no cursor. */
  resumable: boolean;
  /** Start after this seq (resumable streams). */
  after?: number;
  /** Called for each message; for resumable streams only with seq > the last one. */
  onMessage: (event: string, data: unknown, seq: number | null) => void;
  onState?: (state: StreamState, detail: { attempt: number; error?: string }) => void;
  /** Reconnect delays: base, doubling up to max (ms). */
  backoff?: { baseMs: number; maxMs: number };
  /** Reconnect when nothing (not even a keep-alive comment) arrives for this long. */
  idleTimeoutMs?: number;
}

export interface Follower {
  close(): void;
  lastSeq(): number;
}

/**
 * Follows an SSE route with fetch streaming. Tracks the last seq; on
 * disconnect reports "reconnecting", retries with backoff, and resumes with
 * ?after=<lastSeq>, dropping anything at or below it (no duplicates, no gaps).
 */
export function follow(options: FollowOptions): Follower {
  const { baseMs, maxMs } = options.backoff ?? { baseMs: 250, maxMs: 5000 };
  const idleTimeoutMs = options.idleTimeoutMs ?? 45000;
  let lastSeq = options.after ?? 0;
  let closed = false;
  let attempt = 0;
  let controller: AbortController | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  let wake: (() => void) | null = null;
  let fatal = false;

  const setState = (state: StreamState, error?: string) => options.onState?.(state, { attempt, error });

  async function connectOnce(): Promise<string> {
    controller = new AbortController();
    const local = controller;
    let idleTimer: ReturnType<typeof setTimeout> | null = null;
    const touch = () => {
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => local.abort(), idleTimeoutMs);
    };
    try {
      const sep = options.path.includes("?") ? "&" : "?";
      const url = options.resumable ? `${options.path}${sep}after=${lastSeq}` : options.path;
      touch();
      const response = await fetch(url, {
        headers: { Accept: "text/event-stream" },
        credentials: "same-origin",
        signal: local.signal,
        cache: "no-store",
      });
      signedOut.answered(response.status);
      if (!response.ok || !response.body) {
        // A request the server will never accept (unknown conversation, bad cursor): stop.
        // A 401 is retried: the stream resumes once the page is signed in again.
        if ([400, 403, 404, 405].includes(response.status)) fatal = true;
        return `HTTP ${response.status}`;
      }
      attempt = 0;
      setState("open");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "the stream ended";
        touch();
        for (const message of parser.feed(value)) {
          if (closed) return "closed";
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            continue;
          }
          let seq: number | null = null;
          if (options.resumable) {
            seq = typeof (data as { seq?: unknown }).seq === "number" ? (data as { seq: number }).seq : Number(message.id);
            if (!Number.isFinite(seq)) continue;
            if (seq <= lastSeq) continue; // already seen: never twice
            lastSeq = seq;
          }
          options.onMessage(message.event, data, seq);
        }
      }
    } catch (error) {
      return (error as Error).message || String(error);
    } finally {
      if (idleTimer) clearTimeout(idleTimer);
    }
  }

  async function loop(): Promise<void> {
    setState("connecting");
    while (!closed) {
      const why = await connectOnce();
      if (closed) break;
      if (fatal) {
        closed = true;
        setState("closed", why);
        return;
      }
      attempt += 1;
      setState("reconnecting", why);
      const delay = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 10)) * (0.75 + Math.random() * 0.5);
      await new Promise<void>((resolve) => {
        wake = resolve;
        retryTimer = setTimeout(resolve, delay);
      });
      wake = null;
    }
    setState("closed");
  }
  void loop();

  return {
    close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      controller?.abort();
      wake?.();
    },
    lastSeq: () => lastSeq,
  };
}
