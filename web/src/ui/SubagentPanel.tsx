// A subagent's own conversation, read-only beside its parent: the events of
// its log (GET /api/conversations/{id}/subagents/{child}/events, replayed then
// followed while it runs), through the same reducer and list as a conversation.
import { createContext, useEffect, useReducer, useState } from "react";
import { follow } from "../api/client";
import type { ConversationEvent } from "../api/protocol.gen";
import { initialState, reduce, viewItems } from "../model/conversation";
import { EventList } from "./EventList";

export interface SubagentRef {
  sessionId: string;
  agent: string;
}

/** How a task card opens its subagent's log; null where none can be opened. */
export const SubagentOpener = createContext<((ref: SubagentRef) => void) | null>(null);

export function SubagentPanel({ conversationId, subagent, onClose }: { conversationId: string; subagent: SubagentRef; onClose: () => void }) {
  const [state, dispatch] = useReducer(reduce, subagent.sessionId, initialState);
  const [error, setError] = useState("");
  useEffect(() => {
    const follower = follow({
      path: `/api/conversations/${encodeURIComponent(conversationId)}/subagents/${encodeURIComponent(subagent.sessionId)}/events`,
      resumable: true,
      onMessage: (_event, data) => dispatch({ type: "events", events: [data as ConversationEvent] }),
      onState: (s, detail) => {
        if (s === "closed" && detail.error) setError(`The subagent's log could not be loaded (${detail.error}).`);
      },
    });
    return () => follower.close();
  }, [conversationId, subagent.sessionId]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [onClose]);
  const running = state.turnId !== null;
  return (
    <aside className="subagent-panel" aria-label={`Subagent ${subagent.agent}`} data-testid="subagent-panel">
      <header>
        <h2>
          Subagent <code>{subagent.agent}</code>
        </h2>
        <span className={`badge state-${running ? "running" : "idle"}`}>{running ? "running" : "finished"}</span>
        <span className="muted">{state.model}</span>
        <button type="button" onClick={onClose} aria-label="Close the subagent's log">
          Close
        </button>
      </header>
      {error && (
        <div className="error-banner" role="alert">
          {error}
        </div>
      )}
      <EventList items={viewItems(state)} label={`Subagent ${subagent.agent}, its log`} />
    </aside>
  );
}
