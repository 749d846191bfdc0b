import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { api, ApiRequestError, follow } from "./api/client";
import type { AutomationMessage, ConversationPatch, ConversationView, Project, StatusMessage } from "./api/protocol.gen";
import type { ModelsResponse } from "./api/protocol.extra";
import { connection, statusBus, useConnection, useLiveStatuses, useSignedOut } from "./model/stores";
import { Automations } from "./ui/Automations";
import { ConversationPage } from "./ui/ConversationPage";
import { FilesPanel } from "./ui/files/FilesPanel";
import { FirstRun } from "./ui/FirstRun";
import { Settings } from "./ui/Settings";
import { Sidebar } from "./ui/Sidebar";

// Its chart library loads with the page, not with the app.
const Analytics = lazy(() => import("./ui/Analytics").then((m) => ({ default: m.Analytics })));
const TerminalPanel = lazy(() => import("./ui/TerminalPanel").then((m) => ({ default: m.TerminalPanel })));

type Route = { page: "home" } | { page: "settings" } | { page: "automations" } | { page: "analytics" } | { page: "conversation"; id: string };

function parseRoute(pathname: string): Route {
  const m = /^\/c\/([^/]+)\/?$/.exec(pathname);
  if (m) return { page: "conversation", id: decodeURIComponent(m[1]) };
  if (pathname.replace(/\/$/, "") === "/settings") return { page: "settings" };
  if (pathname.replace(/\/$/, "") === "/automations") return { page: "automations" };
  if (pathname.replace(/\/$/, "") === "/analytics") return { page: "analytics" };
  return { page: "home" };
}

/** A run of an automation that failed, until dismissed: wherever the user is. */
function AutomationNotices({ onOpen }: { onOpen: (conversationId: string) => void }) {
  const [notices, setNotices] = useState<AutomationMessage[]>([]);
  useEffect(
    () =>
      statusBus.subscribe((m) => {
        if (m.type === "automation" && m.occurrence.state === "failed") setNotices((list) => [...list.slice(-2), m]);
      }),
    [],
  );
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="status" aria-label="Automation notices">
      {notices.map((n) => (
        <div key={`${n.automationId}-${n.occurrence.scheduledMs}`} className="notice notice-error" data-testid="automation-failed">
          Automation <strong>{n.name}</strong> failed: {n.occurrence.error}{" "}
          {n.occurrence.conversationId && (
            <button type="button" className="link" onClick={() => onOpen(n.occurrence.conversationId)}>
              Open the run
            </button>
          )}{" "}
          <button type="button" className="link" onClick={() => setNotices((list) => list.filter((x) => x !== n))} aria-label="Dismiss">
            Dismiss
          </button>
        </div>
      ))}
    </div>
  );
}

function ConnectionBanner() {
  const c = useConnection();
  const [, tick] = useState(0);
  const recent = c.reconnectedAt > 0 && Date.now() - c.reconnectedAt < 6000;
  useEffect(() => {
    if (!recent) return;
    const t = setTimeout(() => tick((n) => n + 1), 6000 - (Date.now() - c.reconnectedAt));
    return () => clearTimeout(t);
  }, [recent, c.reconnectedAt]);
  if (c.reconnecting)
    return (
      <div className="conn-banner down" role="status" data-testid="connection">
        Connection lost — reconnecting{c.attempt > 1 ? ` (attempt ${c.attempt})` : ""}…
      </div>
    );
  if (recent)
    return (
      <div className="conn-banner up" role="status" data-testid="connection">
        Reconnected
      </div>
    );
  return null;
}

/** Shown while the server answers 401: the page stays underneath and carries on once signed in. */
function SignedOut() {
  // The streams retry on their own; this notices a sign-in even when none is open.
  useEffect(() => {
    const timer = setInterval(() => void api.health().catch(() => undefined), 3000);
    return () => clearInterval(timer);
  }, []);
  return (
    <main className="signed-out" aria-labelledby="signed-out-title" data-testid="signed-out">
      <h1 id="signed-out-title">Not signed in</h1>
      <p>
        Open the login link that <code>ava --serve</code> printed, or run <code>ava backend open</code>.
      </p>
      <p className="muted">This page carries on by itself once this browser is signed in, in this tab or another.</p>
    </main>
  );
}

export function App() {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.pathname));
  const [projects, setProjects] = useState<Project[]>([]);
  const [conversations, setConversations] = useState<ConversationView[]>([]);
  const [models, setModels] = useState<ModelsResponse | null>(null);
  const [error, setError] = useState("");
  const live = useLiveStatuses();
  const signedOut = useSignedOut();

  const navigate = useCallback((path: string) => {
    history.pushState(null, "", path);
    setRoute(parseRoute(path));
  }, []);

  useEffect(() => {
    const onPop = () => setRoute(parseRoute(location.pathname));
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);

  // A 401 shows the sign-in screen instead of an error banner.
  const fail = useCallback((e: Error) => {
    if (!(e instanceof ApiRequestError && e.status === 401)) setError(e.message);
  }, []);

  const reload = useCallback(() => {
    api.projects().then(setProjects, fail);
    api.conversations("all").then(setConversations, fail);
    api.models().then(setModels, () => undefined);
  }, [fail]);

  // The open conversation, for the status stream's handler (which outlives renders).
  const openId = useRef<string | null>(null);
  openId.current = route.page === "conversation" ? route.id : null;

  // The status stream: the catalog and every driver's present state.
  useEffect(() => {
    reload();
    let wasDown = false;
    const follower = follow({
      path: "/api/status/events",
      resumable: false,
      onMessage: (_event, data) => {
        const message = data as StatusMessage;
        statusBus.publish(message);
        if (message.type === "catalog") {
          if (message.conversation && message.action === "deleted") {
            const gone = message.conversation.id;
            setConversations((list) => list.filter((x) => x.id !== gone));
            // Deleted elsewhere (another tab, the desktop) while open here.
            if (openId.current === gone) navigate("/");
          } else if (message.conversation) {
            const c = message.conversation;
            setConversations((list) => {
              const old = list.find((x) => x.id === c.id);
              const merged = { ...(old ?? { loaded: true, state: "idle" }), ...c } as ConversationView;
              return old ? list.map((x) => (x.id === c.id ? merged : x)) : [...list, merged];
            });
          }
          if (message.provider) api.models().then(setModels, () => undefined);
          if (message.project) {
            const p = message.project;
            setProjects((list) => (list.some((x) => x.id === p.id) ? list.map((x) => (x.id === p.id ? p : x)) : [...list, p]));
          }
        } else if (message.type === "summary") {
          setConversations((list) =>
            list.map((x) => (x.id === message.conversationId ? { ...x, lastSeq: message.lastSeq, updatedMs: message.updatedMs, usage: message.usage } : x)),
          );
        }
      },
      onState: (s, detail) => {
        connection.report("status", s, detail.attempt, detail.error);
        if (s === "reconnecting") wasDown = true;
        if (s === "open" && wasDown) {
          wasDown = false;
          reload(); // the server may have restarted: the lists may have moved on
        }
      },
    });
    return () => follower.close();
  }, [reload, navigate]);

  const selected = route.page === "conversation" ? route.id : null;

  // Opening a conversation clears its marker locally (the page PATCHes reviewedSeq).
  useEffect(() => {
    if (!selected) return;
    setConversations((list) => list.map((x) => (x.id === selected && x.reviewedSeq < x.lastSeq ? { ...x, reviewedSeq: x.lastSeq } : x)));
  }, [selected, conversations.length]);

  const newConversation = async (projectId: string) => {
    try {
      const c = await api.createConversation({ projectId });
      setConversations((list) => (list.some((x) => x.id === c.id) ? list : [...list, c]));
      navigate(`/c/${encodeURIComponent(c.id)}`);
      setTimeout(() => document.getElementById("composer-text")?.focus(), 50);
    } catch (e) {
      setError(`Could not create the conversation: ${(e as Error).message}`);
    }
  };

  const newProject = async (path: string): Promise<string | null> => {
    try {
      const p = await api.createProject(path);
      setProjects((list) => (list.some((x) => x.id === p.id) ? list : [...list, p]));
      return null;
    } catch (e) {
      return e instanceof ApiRequestError ? e.message : String(e);
    }
  };

  const patch = (id: string, body: ConversationPatch) => {
    api.patchConversation(id, body).then(
      (c) => setConversations((list) => list.map((x) => (x.id === id ? { ...x, ...c } : x))),
      fail,
    );
  };

  // The terminal drawer (Ctrl+` toggles it), in the open conversation's project.
  const [terminalOpen, setTerminalOpen] = useState(false);
  // xterm.js loads with the first terminal, not with the page.
  const [terminalUsed, setTerminalUsed] = useState(false);
  useEffect(() => {
    if (terminalOpen) setTerminalUsed(true);
  }, [terminalOpen]);
  // The file panel; Ctrl+P opens it at "Go to file".
  const [filesOpen, setFilesOpen] = useState(false);
  const [quickOpen, setQuickOpen] = useState(false);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey && event.key === "`") {
        event.preventDefault();
        setTerminalOpen((open) => !open);
      } else if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === "p") {
        event.preventDefault();
        setFilesOpen(true);
        setQuickOpen(true);
      }
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const terminalProject = conversations.find((c) => c.id === selected)?.projectId ?? projects[0]?.id ?? null;
  const filesProject = projects.find((p) => p.id === terminalProject) ?? null;

  const remove = (id: string) => {
    api.deleteConversation(id).then(() => {
      setConversations((list) => list.filter((x) => x.id !== id));
      if (selected === id) navigate("/");
    }, fail);
  };

  return (
    <>
      {signedOut && <SignedOut />}
      <div className="app" hidden={signedOut}>
        <Sidebar
          projects={projects}
          conversations={conversations}
          live={live}
          selected={selected}
          onOpen={(id) => navigate(`/c/${encodeURIComponent(id)}`)}
          onNewConversation={newConversation}
          onNewProject={newProject}
          onPatch={patch}
          onDelete={remove}
          onSettings={() => navigate("/settings")}
          onAutomations={() => navigate("/automations")}
          onAnalytics={() => navigate("/analytics")}
        />
        <div className="main">
          <ConnectionBanner />
          <AutomationNotices onOpen={(id) => navigate(`/c/${encodeURIComponent(id)}`)} />
          {error && (
            <div className="error-banner" role="alert">
              {error}{" "}
              <button type="button" className="link" onClick={() => setError("")} aria-label="Dismiss the error">
                Dismiss
              </button>
            </div>
          )}
          {route.page === "conversation" && <ConversationPage key={route.id} id={route.id} models={models} listed={conversations.find((c) => c.id === route.id)} onOpen={(next) => navigate(`/c/${encodeURIComponent(next)}`)} />}
          {route.page === "settings" && <Settings models={models} />}
          {route.page === "analytics" && (
            <Suspense fallback={<div className="muted">Loading…</div>}>
              <Analytics projects={projects} />
            </Suspense>
          )}
          {route.page === "automations" && <Automations projects={projects} onOpen={(id) => navigate(`/c/${encodeURIComponent(id)}`)} />}
          {route.page === "home" && (
            <main className="home" aria-label="Welcome">
              <h1>Ava</h1>
              {models?.needsSetup && <FirstRun models={models} />}
              <p>{projects.length === 0 ? "Add a project (a folder on the server) to start." : "Pick a conversation, or start one with + next to a project."}</p>
            </main>
          )}
          {terminalUsed && (
            <Suspense fallback={null}>
              <TerminalPanel open={terminalOpen} projects={projects} projectId={terminalProject} onClose={() => setTerminalOpen(false)} />
            </Suspense>
          )}
          <footer className="status-bar" aria-label="Panels">
            <span className="status-bar-project muted">{filesProject ? filesProject.name : ""}</span>
            <button type="button" aria-pressed={filesOpen} disabled={!filesProject} onClick={() => setFilesOpen((open) => !open)} title="Files (Ctrl+P to go to one)">
              Files
            </button>
            <button type="button" aria-pressed={terminalOpen} onClick={() => setTerminalOpen((open) => !open)} title="Terminal (Ctrl+`)">
              Terminal
            </button>
          </footer>
        </div>
        {filesOpen && filesProject && (
          <FilesPanel key={filesProject.id} project={filesProject} quickOpen={quickOpen} onQuickOpen={setQuickOpen} onClose={() => setFilesOpen(false)} />
        )}
      </div>
    </>
  );
}
