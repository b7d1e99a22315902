// A `Backend` for unit tests: the methods a test gives, recorded; any other call rejects, so a
// test notices when the code under test asks for something it did not expect.

import { App } from '../src/app';
import { ApiError, type Backend } from '../src/backend/backend';
import type { Change, ConnectionView, ContextView, Memory, MemoryPatch, ModelInfo, NewMemory, Project, Session, SettingsView, Summary } from '../src/backend/types';

export type Calls = { method: string; args: unknown[] }[];

export function fakeBackend(methods: Partial<Backend>): { backend: Backend; calls: Calls } {
  const calls: Calls = [];
  const backend = new Proxy({} as Backend, {
    get(_target, prop: string) {
      return (...args: unknown[]) => {
        calls.push({ method: prop, args });
        const fn = (methods as Record<string, ((...a: unknown[]) => unknown) | undefined>)[prop];
        return fn ? Promise.resolve().then(() => fn(...args)) : Promise.reject(new Error(`fake backend: unexpected ${prop}()`));
      };
    },
  });
  return { backend, calls };
}

/** An App on a fake backend, with settings and one project in the sidebar (a draft's project). */
export function appInProject(
  methods: Partial<Backend>,
  project: Project,
  opts: { sessions?: Session[]; settings?: Partial<SettingsView> } = {},
): { app: App; backend: Backend; calls: Calls } {
  const fake = fakeBackend(methods);
  const app = new App(fake.backend);
  app.config.settings = settingsView(opts.settings);
  app.sessions.projects = [{ project, sessions: opts.sessions ?? [], nextCursor: null, loaded: true, loading: false, expanded: true }];
  app.chat.draftProjectId = project.id;
  return { app, ...fake };
}

export function settingsView(over: Partial<SettingsView> = {}): SettingsView {
  return {
    custom_instructions: '',
    endpoint_url: 'http://127.0.0.1:8080/v1',
    api_key_set: false,
    model: '',
    temperature: null,
    top_p: null,
    max_tokens: null,
    context_length: null,
    first_byte_timeout_secs: 300,
    idle_timeout_secs: 60,
    language: 'en',
    theme: 'system',
    attachment_max_mb: 50,
    attachment_text_max_chars: 10_000_000,
    memory_mode: 'review',
    prompt_budget_chars: 48000,
    memory_budget_chars: 12000,
    tool_output_inline_tokens: 2000,
    tool_schema_budget_tokens: 8000,
    tool_call_timeout_secs: 120,
    sharing: { memory_read: false, memory_write: false, chats: false, projects: [] },
    embeddings: null,
    reranker: null,
    ...over,
  };
}

/** What `context()` answers for a chat: one section, no reply yet, no summaries, a 16k window planned by plain estimates. */
export function contextView(over: Partial<ContextView> = {}): ContextView {
  return {
    session_id: 9,
    facts_taught_here: [],
    model: 'fake-model',
    server: { id: 1, name: '127.0.0.1:8080', base_url: 'http://127.0.0.1:8080/v1', api_key_set: false, default_model: '', enabled: true, is_default: true, demo: false, created_at: 0, updated_at: 0 },
    sections: [{
      id: 'base', present: true, absent_reason: null, absent: null, source: 'bundled', template_outdated: false, raw_chars: 40, injected_chars: 40,
      tokens_estimate: 10, cuts: [], text: 'You are Maru, a helpful assistant.', sha256: 'a'.repeat(64),
    }],
    system_prompt: 'You are Maru, a helpful assistant.',
    sha256: 'b'.repeat(64),
    chars: 34,
    tokens: 10,
    tokens_source: 'estimate',
    last_sent: null,
    pending_change: null,
    pending_changes: [],
    last_reply: null,
    overrides: [],
    summaries: [],
    token_plan: { context: 16384, system: 1200, tools: 0, summaries: 0, history: 3000, reserve: 2048 },
    plan_counts: { server: 0, fitted: 0, estimated: 4200 },
    compacts_next: false,
    compact: { offered: true, compactable: 2400, over: 0, why_not: null },
    tools: [],
    skills: [],
    instruction_files: { folder: null, sent: [], skipped: [] },
    ...over,
  };
}

export function summary(over: Partial<Summary> = {}): Summary {
  return { id: 1, session_id: 9, through_id: 20, turns: 6, content: 'The user planned a trip to Busan.', created_at: 0, ...over };
}

export function memory(over: Partial<Memory> = {}): Memory {
  return {
    id: 1, content: 'Prefers answers in Korean.', pinned: false, status: 'accepted', source_session_id: null, source_message_id: null,
    replaces: null, created_at: 0, updated_at: 0, confirmed_at: 0, ...over,
  };
}

/** What the server refuses on every path: text that looks like a secret (here: anything with "sk-"). */
export const SECRET_REFUSED = 'This looks like a secret (an API key); Maru does not keep secrets in memory.';

/**
 * The memory routes over a list kept here, as the server behaves: accepted facts by default,
 * `pending` or `all` on request; accept, edit (a proposal stays pending), delete; secrets refused.
 */
export function memoryRoutes(initial: Memory[]): { store: Memory[]; methods: Partial<Backend> } {
  const store = initial.map((m) => ({ ...m }));
  let next = Math.max(0, ...store.map((m) => m.id)) + 1;
  const find = (id: number) => {
    const m = store.find((x) => x.id === id);
    if (!m) throw new ApiError('not_found', `memory ${id} not found`, 404);
    return m;
  };
  const refuseSecret = (content: string | null | undefined) => {
    if (content?.includes('sk-')) throw new ApiError('secret_refused', SECRET_REFUSED, 400);
  };
  const methods: Partial<Backend> = {
    listMemories: async (status) => store.filter((m) => status === 'all' || m.status === (status ?? 'accepted')).map((m) => ({ ...m })),
    createMemory: async (m: NewMemory) => {
      refuseSecret(m.content);
      const made = memory({ id: next++, content: m.content.trim(), pinned: m.pinned ?? false, source_session_id: m.source_session_id ?? null, confirmed_at: 1 });
      store.push(made);
      return { ...made };
    },
    updateMemory: async (id: number, patch: MemoryPatch) => {
      refuseSecret(patch.content);
      const m = find(id);
      if (patch.content != null) m.content = patch.content.trim();
      if (patch.pinned != null) m.pinned = patch.pinned;
      return { ...m };
    },
    acceptMemory: async (id: number) => {
      const m = find(id);
      if (m.replaces != null) {
        // A change to a saved fact rewrites that fact and goes.
        const fact = find(m.replaces);
        fact.content = m.content;
        fact.confirmed_at = 2;
        store.splice(store.indexOf(m), 1);
        return { ...fact };
      }
      m.status = 'accepted';
      m.confirmed_at = 2;
      return { ...m };
    },
    deleteMemory: async (id: number) => {
      find(id);
      store.splice(store.findIndex((m) => m.id === id), 1);
    },
  };
  return { store, methods };
}

/**
 * The server's change feed (`GET /api/events`, the backend's `changes`) as a test drives it:
 * `push` sends changes down the open stream, `end` closes it as a server restart would, and
 * `refuse` makes the next connections fail as an unreachable server does. `opened(n)` resolves
 * once the stream has been opened `n` times.
 */
export function changeFeed() {
  let sink: ((change: Change) => void) | null = null;
  let close: (() => void) | null = null;
  let connections = 0;
  let refusing = false;
  const waiting: { n: number; resolve: () => void }[] = [];
  const changes: Backend['changes'] = (onChange, opened = () => {}, signal) => {
    if (refusing) return Promise.reject(new ApiError('offline', 'fake change feed: the server is down'));
    return new Promise<void>((resolve) => {
      connections++;
      const end = () => {
        if (close === end) [sink, close] = [null, null];
        resolve();
      };
      [sink, close] = [onChange, end];
      signal?.addEventListener('abort', end);
      opened();
      for (const w of waiting.filter((w) => connections >= w.n)) w.resolve();
    });
  };
  return {
    methods: { changes } as Partial<Backend>,
    push(...list: Change[]): void {
      if (!sink) throw new Error('fake change feed: no stream is open');
      for (const change of list) sink(change);
    },
    end(): void {
      close?.();
    },
    refuse(on: boolean): void {
      refusing = on;
    },
    connections: () => connections,
    opened(n = 1): Promise<void> {
      if (connections >= n) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ n, resolve }));
    },
  };
}

export function connection(over: Partial<ConnectionView> = {}): ConnectionView {
  return { id: 1, name: '127.0.0.1:8080', base_url: 'http://127.0.0.1:8080/v1', api_key_set: false, default_model: '', enabled: true, is_default: true, demo: false, created_at: 0, updated_at: 0, ...over };
}

/** `model_server.unreachable` as `/api/models` answers it: the message starts with the server's name. */
export function unreachableServer(c: Pick<ConnectionView, 'name' | 'base_url'>): ApiError {
  return new ApiError('model_server.unreachable', `${c.name}: Cannot reach the model server at ${c.base_url}: connection refused`, 502);
}

/**
 * The model servers' routes over a list kept here, as the server behaves: the default first, keys
 * kept apart (`keys`, never in a view), names unique, the default one neither off nor deleted
 * (`default_connection`, naming it), a deleted one's chats back on the default server. `models`
 * answers `/api/models` for a server (throw for one that is down).
 */
export function connectionRoutes(initial: ConnectionView[], models: (c: ConnectionView) => ModelInfo[] | Promise<ModelInfo[]> = () => []) {
  const store = initial.map((c) => ({ ...c }));
  const keys = new Map<number, string>();
  let next = Math.max(0, ...store.map((c) => c.id)) + 1;
  const sorted = () => store.slice().sort((a, b) => Number(b.is_default) - Number(a.is_default) || a.id - b.id).map((c) => ({ ...c }));
  const find = (id: number) => {
    const c = store.find((x) => x.id === id);
    if (!c) throw new ApiError('not_found', `server ${id} not found`, 404);
    return c;
  };
  const checkName = (name: string, id: number) => {
    if (!name.trim() || name.length > 64) throw new ApiError('invalid_name', "a server's name is one line of 1 to 64 characters", 400, { max: '64' });
    if (store.some((c) => c.id !== id && c.name.toLowerCase() === name.trim().toLowerCase())) {
      throw new ApiError('name_taken', `a server named "${name.trim()}" already exists`, 409, { name: name.trim() });
    }
  };
  const checkUrl = (url: string) => {
    if (!/^https?:\/\/[^\s/]+/.test(url)) throw new ApiError('invalid_endpoint', `the server address must start with http:// or https://; write it like http://127.0.0.1:8080/v1 (got "${url}")`, 400, { url });
  };
  const setKey = (id: number, key: string | null | undefined) => {
    if (key) keys.set(id, key);
    else keys.delete(id);
    find(id).api_key_set = keys.has(id);
  };
  const refuseDefault = (c: ConnectionView, what: string) => {
    throw new ApiError('default_connection', `"${c.name}" is the default server and cannot be ${what}; make another one the default first`, 409, { name: c.name });
  };
  const methods: Partial<Backend> = {
    listConnections: async () => sorted(),
    createConnection: async (n: Parameters<Backend['createConnection']>[0]) => {
      checkName(n.name, 0);
      checkUrl(n.base_url);
      const c = connection({ id: next++, name: n.name.trim(), base_url: n.base_url.trim().replace(/\/+$/, ''), enabled: n.enabled ?? true, is_default: false });
      store.push(c);
      setKey(c.id, n.api_key);
      return { ...c };
    },
    updateConnection: async (id: number, p: Parameters<Backend['updateConnection']>[1]) => {
      const c = find(id);
      if (p.name != null) checkName(p.name, id);
      if (p.base_url != null) checkUrl(p.base_url);
      if (p.enabled === false && (c.is_default || p.is_default)) refuseDefault(c, 'turned off');
      if (p.is_default && !(p.enabled ?? c.enabled)) refuseDefault(c, 'turned off');
      if (p.name != null) c.name = p.name.trim();
      if (p.base_url != null) c.base_url = p.base_url.trim().replace(/\/+$/, '');
      if (p.api_key !== undefined) setKey(id, p.api_key);
      if (p.enabled != null) c.enabled = p.enabled;
      if (p.default_model !== undefined) c.default_model = p.default_model?.trim() ?? '';
      if (p.is_default) for (const x of store) x.is_default = x.id === id;
      return { ...c };
    },
    deleteConnection: async (id: number) => {
      const c = find(id);
      if (c.is_default) refuseDefault(c, 'removed');
      store.splice(store.indexOf(c), 1);
      keys.delete(id);
      return { id, deleted: true };
    },
    listModels: async (id?: number) => models(id === undefined ? store.find((c) => c.is_default)! : find(id)),
  };
  return { store, keys, methods };
}
