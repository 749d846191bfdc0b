// API shapes that the protocol package's generator (protocol.gen.ts) does not
// describe yet. Written by hand from docs/api.md and the session codec; move
// each into src/protocol/typescript.cpp and delete it here once generated.
import type { EventBase, Project, ConversationView, TokenTotals } from "./protocol.gen";

/** usage: tokens one step used (snake_case, as in the log). */
export interface UsageEvent extends EventBase {
  type: "usage";
  turn_id: string;
  step: number;
  model: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
    reasoning_tokens?: number;
  };
}

export interface ModelChangedEvent extends EventBase {
  type: "model_changed";
  provider: string;
  model: string;
}

export interface CompactionEvent extends EventBase {
  type: "compaction";
  summary: string;
  first_kept_seq: number;
  tokens_before?: number;
}

export interface ErrorEvent extends EventBase {
  type: "error";
  turn_id?: string;
  code: string;
  message: string;
}

export interface RecoveredEvent extends EventBase {
  type: "recovered";
  dropped_bytes: number;
  torn_file?: string;
  notes: string[];
}

/** GET /api/projects */
export interface ProjectList {
  projects: Project[];
}

/** GET /api/conversations */
export interface ConversationList {
  conversations: ConversationView[];
}

/** GET /api/models: one configured or known provider (never its key). */
export interface ProviderInfo {
  name: string;
  kind: string;
  baseUrl: string;
  model: string;
  configured: boolean;
}

/** GET /api/models: one catalog entry. */
export interface CatalogModel {
  id: string;
  providerKind: string;
  contextWindow: number;
  maxOutput: number;
  inputPerMTok?: number;
  outputPerMTok?: number;
  tools: boolean;
  images: boolean;
  thinking: boolean;
}

/** GET /api/models */
export interface ModelsResponse {
  defaultProvider: string;
  providers: ProviderInfo[];
  models: CatalogModel[];
}

/** GET /api/settings */
export interface SettingsResponse {
  provider: string;
  model: string;
  models: Record<string, { contextWindow?: number }>;
  savedKeys: string[];
  settingsFile: string;
}

/** GET /api/conversations/{id}/usage */
export interface ConversationUsage {
  conversationId: string;
  usage: TokenTotals;
  costUsd?: number;
}
