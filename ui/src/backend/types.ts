// The JSON types of Maru's API, as the Rust side serialises them (src-tauri/src/store/*.rs,
// src-tauri/src/api/*.rs, src-tauri/src/chat/events.rs, src-tauri/src/prompt/*.rs).
// Times are Unix milliseconds. `null` is how an absent Option<T> arrives.

export interface ErrorBody {
  code: string;
  message: string;
}

export interface Health {
  status: string;
  version: string;
  schema_version: number;
}

// ---- projects

export interface Project {
  id: number;
  name: string;
  instructions: string;
  is_default: boolean;
  session_count: number;
  created_at: number;
  updated_at: number;
}

export interface NewProject {
  name: string;
  instructions?: string;
}

export interface ProjectPatch {
  name?: string;
  instructions?: string;
}

export interface DeletedProject {
  id: number;
  moved_sessions: number;
  default_project_id: number;
}

// ---- sessions

export interface Session {
  id: number;
  project_id: number;
  title: string;
  /** A preset key (built-in stem or `user:<id>`), or null for the base prompt. */
  preset: string | null;
  created_at: number;
  updated_at: number;
}

export interface NewSession {
  title?: string;
  project_id?: number | null;
}

export interface SessionPatch {
  title?: string;
  /** Moves the session, with everything in it. */
  project_id?: number;
  /** A preset key, or null to go back to the base prompt. */
  preset?: string | null;
}

export interface SessionPage {
  sessions: Session[];
  next_cursor: string | null;
}

export interface SessionQuery {
  projectId?: number;
  cursor?: string | null;
  limit?: number;
}

// ---- messages

export type Role = 'user' | 'assistant' | 'tool';
export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'interrupted' | 'error';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface Message {
  id: number;
  session_id: number;
  role: Role;
  content: string;
  status: MessageStatus;
  error: string | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_tokens: number | null;
  ttft_ms: number | null;
  tokens_per_second: number | null;
  /** Sent to the model with a user message; never shown. */
  runtime_note: string | null;
  reasoning: string | null;
  tool_calls: ToolCall[];
  tool_call_id: string | null;
  tool_name: string | null;
  created_at: number;
  updated_at: number;
}

export interface MessagePage {
  /** Newest first. */
  messages: Message[];
  next_before: number | null;
}

export interface MessageQuery {
  before?: number | null;
  limit?: number;
}

// ---- settings

export type Language = 'en' | 'ko';
export type Theme = 'system' | 'light' | 'dark';

export interface SettingsView {
  custom_instructions: string;
  endpoint_url: string;
  api_key_set: boolean;
  model: string;
  temperature: number | null;
  top_p: number | null;
  max_tokens: number | null;
  context_length: number | null;
  language: Language;
  theme: Theme;
}

/** A partial update; `null` puts a field back to its default. `api_key` is write-only. */
export interface SettingsPatch {
  custom_instructions?: string | null;
  endpoint_url?: string | null;
  api_key?: string | null;
  model?: string | null;
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  context_length?: number | null;
  language?: Language | null;
  theme?: Theme | null;
}

// ---- long-term memory

export interface Memory {
  id: number;
  content: string;
  pinned: boolean;
  source_session_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface NewMemory {
  content: string;
  pinned?: boolean;
  source_session_id?: number | null;
}

export interface MemoryPatch {
  content?: string;
  pinned?: boolean;
}

// ---- presets

export interface Preset {
  /** What a session's `preset` names. */
  key: string;
  name: string;
  description: string;
  prompt: string;
  builtin: boolean;
  /** Only user presets have one. */
  id: number | null;
}

export interface NewPreset {
  name: string;
  description?: string;
  prompt: string;
}

export interface PresetPatch {
  name?: string;
  description?: string;
  prompt?: string;
}

export interface DeletedPreset {
  id: number;
  sessions_reset: number;
}

// ---- the model server

export interface ModelInfo {
  id: string;
  context_length: number | null;
  owned_by: string | null;
}

export interface FoundServer {
  base_url: string;
  kind_guess: string;
  models: string[];
  needs_api_key: boolean;
}

// ---- context inspector

export type SectionId = 'base' | 'custom_instructions' | 'project_instructions' | 'attachments' | 'memory';

export interface Cut {
  section: SectionId;
  raw_chars: number;
  kept_chars: number;
  reason: string;
}

export interface SectionReport {
  id: SectionId;
  /** 1 to 5, the order the model reads them. */
  number: number;
  present: boolean;
  absent_reason: string | null;
  source: string;
  template_outdated: boolean;
  raw_chars: number;
  injected_chars: number;
  tokens_estimate: number;
  cuts: Cut[];
  text: string;
  sha256: string;
}

export interface LastSent {
  sha256: string;
  changed_at: number;
  change_reason: string;
  used_at: number;
}

export interface ReplyFigures {
  message_id: number;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_tokens: number | null;
  /** cached / prompt tokens, 0..1. */
  cache_reuse: number | null;
  ttft_ms: number | null;
  tokens_per_second: number | null;
}

export type TemplateSource =
  | { kind: 'bundled' }
  | { kind: 'override'; path: string }
  | { kind: 'updated_override'; path: string; from_version: number }
  | { kind: 'edited_override'; path: string; based_on_version: number }
  | { kind: 'custom_override'; path: string };

export interface TemplateInfo {
  name: string;
  version: number;
  meta: [string, string][];
  source: TemplateSource;
  sha256: string;
}

export interface ContextView {
  session_id: number;
  sections: SectionReport[];
  system_prompt: string;
  sha256: string;
  chars: number;
  tokens: number;
  tokens_source: 'server' | 'estimate' | string;
  last_sent: LastSent | null;
  pending_change: string | null;
  last_reply: ReplyFigures | null;
  overrides: TemplateInfo[];
}

// ---- turns

export interface Usage {
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cached_tokens: number | null;
}

/** What a turn streams, in order; it ends with `done` or `error`. */
export type TurnEvent =
  | { type: 'token'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_result'; id: string; name: string; content: string; is_error: boolean }
  | { type: 'usage'; usage: Usage }
  | { type: 'done'; message: Message }
  | { type: 'error'; code: string; message: string; message_id: number | null };

export interface Stopped {
  stopped: boolean;
}

export interface Deleted {
  id: number;
  deleted: boolean;
}
