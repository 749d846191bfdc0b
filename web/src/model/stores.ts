// Small external stores shared across the page: connection health of the
// streams, and the status stream fanned out to whoever listens.
import { useSyncExternalStore } from "react";
import type { DriverState, StatusMessage } from "../api/protocol.gen";
import { signedOut, type StreamState } from "../api/client";

type Listener = () => void;

export interface ConnectionSnapshot {
  /** Some stream is down and retrying. */
  reconnecting: boolean;
  attempt: number;
  error: string;
  /** Time the streams came back after a disconnect (0 if never). */
  reconnectedAt: number;
}

class ConnectionStore {
  private streams = new Map<string, { state: StreamState; attempt: number; error: string; everOpen: boolean }>();
  private snapshot: ConnectionSnapshot = { reconnecting: false, attempt: 0, error: "", reconnectedAt: 0 };
  private listeners = new Set<Listener>();

  report(name: string, state: StreamState, attempt: number, error?: string) {
    const before = this.snapshot.reconnecting;
    const prev = this.streams.get(name);
    if (state === "closed") this.streams.delete(name);
    else this.streams.set(name, { state, attempt, error: error ?? "", everOpen: (prev?.everOpen ?? false) || state === "open" });
    const down = [...this.streams.values()].filter((s) => s.state === "reconnecting");
    const reconnecting = down.length > 0;
    this.snapshot = {
      reconnecting,
      attempt: down.reduce((max, s) => Math.max(max, s.attempt), 0),
      error: down[0]?.error ?? "",
      reconnectedAt: before && !reconnecting ? Date.now() : this.snapshot.reconnectedAt,
    };
    this.listeners.forEach((l) => l());
  }
  subscribe = (listener: Listener) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  get = () => this.snapshot;
}

export const connection = new ConnectionStore();
export const useConnection = () => useSyncExternalStore(connection.subscribe, connection.get);
/** True while the server refuses this page's sign-in (a 401). */
export const useSignedOut = () => useSyncExternalStore(signedOut.subscribe, signedOut.get);

export interface LiveStatus {
  state: DriverState;
  activity: string;
}

class StatusBus {
  private listeners = new Set<(message: StatusMessage) => void>();
  private storeListeners = new Set<Listener>();
  private current: Record<string, LiveStatus> = {};
  private hasSnapshot = false;

  publish(message: StatusMessage) {
    const next = { ...this.current };
    if (message.type === "snapshot") {
      this.hasSnapshot = true;
      for (const key of Object.keys(next)) delete next[key];
      for (const c of message.conversations) next[c.conversationId] = { state: c.state, activity: c.activity ?? "" };
    } else if (message.type === "state") {
      const keep = message.state === "running" || message.state === "pausing";
      next[message.conversationId] = { state: message.state, activity: keep ? (next[message.conversationId]?.activity ?? "") : "" };
    } else if (message.type === "tool") {
      const prev = next[message.conversationId] ?? { state: "running", activity: "" };
      next[message.conversationId] = { ...prev, activity: message.finished ? "" : message.label };
    }
    if (message.type === "snapshot" || message.type === "state" || message.type === "tool") {
      this.current = next;
      this.storeListeners.forEach((l) => l());
    }
    this.listeners.forEach((l) => l(message));
  }

  /** Listen; a snapshot of the present is delivered first when known. */
  subscribe(listener: (message: StatusMessage) => void): () => void {
    this.listeners.add(listener);
    if (this.hasSnapshot) {
      const conversations = Object.entries(this.current).map(([conversationId, s]) => ({ conversationId, ...s }));
      listener({ type: "snapshot", conversations } as unknown as StatusMessage);
    }
    return () => this.listeners.delete(listener);
  }

  subscribeStore = (listener: Listener) => {
    this.storeListeners.add(listener);
    return () => this.storeListeners.delete(listener);
  };
  getStore = () => this.current;
}

export const statusBus = new StatusBus();
export const useLiveStatuses = () => useSyncExternalStore(statusBus.subscribeStore, statusBus.getStore);
