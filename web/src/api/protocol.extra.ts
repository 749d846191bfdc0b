// Kept for the imports that name it: every shape now comes from the
// generator (the protocol package's Shape tables, via ava-protocol-ts).
export type {
  CatalogModel,
  CompactionEvent,
  ConversationList,
  ConversationUsage,
  ErrorEvent,
  ModelChangedEvent,
  ModelsResponse,
  ProjectList,
  ProviderInfo,
  RecoveredEvent,
  SettingsResponse,
  UsageEvent,
} from "./protocol.gen";
