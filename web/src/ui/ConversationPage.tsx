import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { api, ApiRequestError, follow } from "../api/client";
import type { ConversationEvent, ConversationView, StatusMessage } from "../api/protocol.gen";
import type { ModelsResponse } from "../api/protocol.extra";
import type { ApprovalDecisionRequest, PermissionsView, SlashCommandInfo } from "../api/protocol.gen";
import { initialState, pendingApprovals, planAwaitingApproval, reduce, viewItems } from "../model/conversation";
import { connection, statusBus } from "../model/stores";
import { ApprovalCard } from "./ApprovalCard";
import { Composer, type Attachment } from "./Composer";
import { EventList } from "./EventList";
import { APPROVED_PLAN_TEXT, PlanCard } from "./PlanCard";
import { SubagentOpener, SubagentPanel, type SubagentRef } from "./SubagentPanel";

const fmt = (n: number) => n.toLocaleString("en-US");

export function ConversationPage({ id, models, listed, onOpen }: { id: string; models: ModelsResponse | null; listed?: ConversationView; onOpen?: (id: string) => void }) {
  const [state, dispatch] = useReducer(reduce, id, initialState);
  const [meta, setMeta] = useState<ConversationView | null>(null);
  const [error, setError] = useState("");
  const [cost, setCost] = useState<number | undefined>(undefined);
  const reviewed = useRef(0);
  // Counts driver states heard from the status stream: a control's response
  // only applies when none arrived meanwhile (it would be older).
  const stateVersion = useRef(0);

  // Durable events: history then the live tail, resumed from the last seq.
  useEffect(() => {
    let buffer: ConversationEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      const events = buffer;
      buffer = [];
      if (events.length) dispatch({ type: "events", events });
    };
    const name = `events:${id}`;
    const follower = follow({
      path: `/api/conversations/${encodeURIComponent(id)}/events`,
      resumable: true,
      onMessage: (_event, data) => {
        buffer.push(data as ConversationEvent);
        if (!timer) timer = setTimeout(flush, 16);
      },
      onState: (s, detail) => {
        connection.report(name, s, detail.attempt, detail.error);
        if (s === "closed" && detail.error) setError(`The conversation's events could not be loaded (${detail.error}).`);
      },
    });
    return () => {
      follower.close();
      if (timer) clearTimeout(timer);
      connection.report(name, "closed", 0);
    };
  }, [id]);

  // Live status: deltas, tool activity, driver state.
  useEffect(
    () =>
      statusBus.subscribe((message: StatusMessage) => {
        if (message.type === "snapshot" || (message.type === "state" && message.conversationId === id)) stateVersion.current += 1;
        dispatch({ type: "status", message });
        if (message.type === "summary" && message.conversationId === id) {
          api.usage(id).then((u) => setCost(u.costUsd), () => undefined);
        }
      }),
    [id],
  );

  useEffect(() => {
    let cancelled = false;
    api.conversation(id).then(
      (c) => {
        if (cancelled) return;
        setMeta(c);
        reviewed.current = c.reviewedSeq;
        if (c.status && stateVersion.current === 0) dispatch({ type: "status", message: { type: "state", conversationId: id, state: c.status.state } });
      },
      (e: ApiRequestError) => !cancelled && setError(e.message),
    );
    api.usage(id).then((u) => !cancelled && setCost(u.costUsd), () => undefined);
    return () => {
      cancelled = true;
    };
  }, [id]);

  // The review marker follows what this page has shown (flushed when leaving).
  const shownSeq = useRef(0);
  shownSeq.current = meta ? state.lastSeq : 0;
  useEffect(() => {
    const flush = () => {
      if (shownSeq.current <= reviewed.current) return;
      reviewed.current = shownSeq.current;
      // keepalive: the request survives the page going away.
      void fetch(`/api/conversations/${encodeURIComponent(id)}`, {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ reviewedSeq: shownSeq.current }),
        credentials: "same-origin",
        keepalive: true,
      }).catch(() => undefined);
    };
    addEventListener("pagehide", flush);
    return () => {
      removeEventListener("pagehide", flush);
      flush();
    };
  }, [id]);
  // The review marker follows what this page has shown.
  useEffect(() => {
    if (!meta || state.lastSeq <= reviewed.current) return;
    const t = setTimeout(() => {
      const seq = state.lastSeq;
      api.patchConversation(id, { reviewedSeq: seq }).then(
        () => {
          reviewed.current = Math.max(reviewed.current, seq);
        },
        () => undefined,
      );
    }, 250);
    return () => clearTimeout(t);
  }, [id, meta, state.lastSeq]);

  const driver = state.driverState ?? meta?.state ?? "idle";
  const running = driver === "running" || driver === "waiting" || driver === "pausing" || driver === "aborting";

  // The slash commands for the composer's completion; read when the
  // conversation opens (a new template shows after reopening it).
  const [commands, setCommands] = useState<SlashCommandInfo[]>([]);
  useEffect(() => {
    let cancelled = false;
    api.commands(id).then(
      (list) => !cancelled && setCommands(list),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [id]);

  // The mode, sandbox and rules in force; read again when the log records a change.
  const [permissions, setPermissions] = useState<PermissionsView | null>(null);
  useEffect(() => {
    let cancelled = false;
    api.permissions(id).then(
      (p) => !cancelled && setPermissions(p),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [id, state.permissionMode]);
  const changeMode = (mode: string) => {
    api.setPermissionMode(id, mode).then(
      () => setPermissions((p) => (p ? { ...p, mode, modeSource: "this conversation" } : p)),
      (e: ApiRequestError) => setError(`Could not change the permission mode: ${e.message}`),
    );
  };

  const waiting = pendingApprovals(state);
  const decide = useCallback(
    async (approvalId: string, answer: ApprovalDecisionRequest): Promise<string | null> => {
      try {
        await api.decideApproval(id, approvalId, answer);
        if (answer.scope === "project") api.permissions(id).then(setPermissions, () => undefined);
        return null;
      } catch (e) {
        const err = e as ApiRequestError;
        return err.status === 409 ? `Already answered: ${err.message}` : `Could not answer: ${err.message}`;
      }
    },
    [id],
  );

  const control = useCallback(
    (action: "pause" | "resume" | "abort") => {
      setError("");
      const version = stateVersion.current;
      api.control(id, action).then(
        (status) => {
          if (stateVersion.current === version) dispatch({ type: "status", message: { type: "state", conversationId: id, state: status.state } });
        },
        (e: ApiRequestError) => setError(`${action} failed: ${e.message}`),
      );
    },
    [id],
  );

  const send = useCallback(
    async (text: string, kind: "followup" | "steer", attachments: Attachment[]) => {
      setError("");
      try {
        const accepted = await api.input(id, attachments.length > 0 ? { text, kind, attachments: attachments.map(({ mediaType, data }) => ({ mediaType, data })) } : { text, kind });
        // /clear started a new conversation in this project: go there.
        if (accepted.newConversationId && onOpen) onOpen(accepted.newConversationId);
        return true;
      } catch (e) {
        setError(`Could not send: ${(e as Error).message}`);
        return false;
      }
    },
    [id, onOpen],
  );

  const [subagent, setSubagent] = useState<SubagentRef | null>(null);
  const closeSubagent = useCallback(() => setSubagent(null), []);
  const plan = planAwaitingApproval(state);
  const approvePlan = async (mode: string): Promise<string | null> => {
    try {
      if (permissions && permissions.mode !== mode) {
        await api.setPermissionMode(id, mode);
        setPermissions((p) => (p ? { ...p, mode, modeSource: "this conversation" } : p));
      }
      await api.input(id, { text: APPROVED_PLAN_TEXT, kind: "followup" });
      return null;
    } catch (e) {
      return `Could not start the plan: ${(e as Error).message}`;
    }
  };

  const changeModel = (value: string) => {
    const [provider, ...rest] = value.split("/");
    const model = rest.join("/");
    api.setModel(id, { provider, model }).then(
      () => setMeta((m) => (m ? { ...m, model: { provider, model } } : m)),
      (e: ApiRequestError) => setError(`Could not change the model: ${e.message}`),
    );
  };

  const items = viewItems(state);
  // A read-only view of what is shown, for the end-to-end tests.
  (window as unknown as { __ava?: unknown }).__ava = { conversationId: id, lastSeq: state.lastSeq, keys: state.items.map((i) => i.key), unknown: state.unknown.length };
  const t = state.totals;
  const provider = state.provider || meta?.model.provider || "";
  const model = state.model || meta?.model.model || "";
  const options = modelOptions(models, provider, model);

  return (
    <main className="conversation" aria-label="Conversation">
      <header className="conv-header">
        <div className="conv-title">
          <h1>{listed?.title || meta?.title || "Untitled conversation"}</h1>
          <span className={`badge state-${driver}`} data-testid="driver-state" aria-label={`Driver state: ${driver}`}>
            {driver}
          </span>
          {state.goal && (
            <span className="goal" data-testid="goal" title="Reminded to the model at every turn; /goal clear clears it">
              Goal: {state.goal}
            </span>
          )}
          {state.activity && (
            <span className="activity" data-testid="activity" role="status">
              {state.activity}
            </span>
          )}
        </div>
        <div className="conv-tools">
          {permissions && (
            <label className="mode-picker" title={`${permissions.modeSource ? `Mode from ${permissions.modeSource}. ` : ""}Sandbox: ${permissions.sandbox}. ${permissions.sandboxSupport}`}>
              <span className="sr-only">Permission mode</span>
              <select aria-label="Permission mode" value={permissions.mode} onChange={(e) => changeMode(e.target.value)} data-testid="permission-mode">
                {["ask", "accept-edits", "plan", "auto"].map((m) => (
                  <option key={m} value={m}>
                    {m === "ask" ? "Ask before changes" : m === "accept-edits" ? "Accept edits" : m === "plan" ? "Plan (read-only)" : "Auto"}
                  </option>
                ))}
              </select>
            </label>
          )}
          {permissions && permissions.rules.length > 0 && (
            <details className="rules">
              <summary>Rules ({permissions.rules.length})</summary>
              <ul aria-label="Permission rules in force">
                {permissions.rules.map((r, i) => (
                  <li key={i} title={r.source}>
                    <span className={`badge list-${r.list}`}>{r.list}</span> <code>{r.rule}</code>
                  </li>
                ))}
              </ul>
            </details>
          )}
          <label className="model-picker">
            <span className="sr-only">Model</span>
            <select aria-label="Model" value={`${provider}/${model}`} onChange={(e) => changeModel(e.target.value)}>
              {options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          </label>
          <span className="tokens" data-testid="tokens" title="Input / output / cache read / cache write tokens">
            {fmt(t.inputTokens)} in · {fmt(t.outputTokens)} out
            {t.cacheReadTokens + t.cacheWriteTokens > 0 && ` · ${fmt(t.cacheReadTokens)} cache read · ${fmt(t.cacheWriteTokens)} cache write`}
            {cost !== undefined && ` · $${cost.toFixed(4)}`}
          </span>
          <button type="button" onClick={() => control("pause")} disabled={driver !== "running"} aria-label="Pause at the next step boundary">
            Pause
          </button>
          <button type="button" onClick={() => control("resume")} disabled={driver !== "paused" && driver !== "pausing"} aria-label="Resume">
            Resume
          </button>
          <button type="button" className="danger" onClick={() => control("abort")} disabled={!(running || driver === "paused")} aria-label="Abort the running turn">
            Abort
          </button>
        </div>
      </header>
      {error && (
        <div className="error-banner" role="alert">
          {error}
        </div>
      )}
      {permissions?.sandbox === "unavailable" && (
        <div className="notice notice-interrupted sandbox-notice" role="note" data-testid="sandbox-unavailable">
          No sandbox on this machine ({permissions.sandboxSupport}): commands ask for approval instead of running on their own.
        </div>
      )}
      <SubagentOpener.Provider value={setSubagent}>
        <EventList items={items} />
      </SubagentOpener.Provider>
      {subagent && <SubagentPanel key={subagent.sessionId} conversationId={id} subagent={subagent} onClose={closeSubagent} />}
      {plan && waiting.length === 0 && <PlanCard currentMode={permissions?.mode ?? ""} onApprove={approvePlan} />}
      {waiting.length > 0 && <ApprovalCard key={waiting[0].approval!.id} item={waiting[0]} more={waiting.length - 1} onDecide={(answer) => decide(waiting[0].approval!.id, answer)} />}
      <Composer running={running || driver === "paused"} onSend={send} commands={commands} projectId={listed?.projectId} />
    </main>
  );
}

function modelOptions(models: ModelsResponse | null, provider: string, model: string): string[] {
  const out = new Set<string>();
  if (provider || model) out.add(`${provider}/${model}`);
  for (const p of models?.providers ?? []) {
    if (!p.configured) continue;
    if (p.model) out.add(`${p.name}/${p.model}`);
    for (const m of models?.models ?? []) if (m.providerKind === p.kind) out.add(`${p.name}/${m.id}`);
  }
  return [...out];
}
