// The settings' Tools tab: the user's MCP tool servers. A secret typed when adding a server is
// sent once and never shown again (the server sends names only); editing keeps what the user did
// not touch by leaving it out, removes a variable with null, and the always-allowed tools and the
// projects a server is on in are changed from the list. In English and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { App } from '../src/app';
import { ApiError, type Backend } from '../src/backend/backend';
import type { Project, ServerTool, ToolServerView } from '../src/backend/types';
import { setLanguage, t } from '../src/lib/i18n';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { parsePairs, secretsPatch } from '../src/views/toolServers';
import { appInProject } from './fakeBackend';

/** What the client sends (the document's types: an absent field may be null). */
type NewToolServer = Parameters<Backend['createToolServer']>[0];
type ToolServerPatch = Parameters<Backend['updateToolServer']>[1];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SECRET = 'sk-live-0123456789abcdefSECRET';
const HEADER_SECRET = 'Bearer tok-987654321HIDDEN';

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const WORK: Project = { id: 2, name: 'Work', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };

function view(over: Partial<ToolServerView> = {}): ToolServerView {
  return {
    id: 1, name: 'files', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
    env_keys: [], url: '', header_keys: [], enabled: true, always_allowed: [], off_in: [], status: 'stopped', error: null, why: null, tools: [],
    created_at: 0, updated_at: 0, ...over,
  };
}


/** A tool whose server says nothing of what it does. */
const NONE = { read_only: null, destructive: null, open_world: null };

/** What the filesystem server says when its folder does not exist: it exits before the handshake. */
const BROKEN: Pick<ToolServerView, 'error' | 'why'> = {
  error: 'the server did not start: connection closed: initialize response; it said: Error: None of the specified directories are accessible',
  why: {
    code: 'tool_server_no_handshake',
    params: { detail: 'connection closed: initialize response', said: 'Error: None of the specified directories are accessible' },
  },
};

/**
 * The tool-server routes over servers kept here, as Maru behaves: the secrets' values are kept
 * (in `secrets`) and never sent back, a patch's `env`/`headers` are merged (null removes, a name
 * left out keeps its value), listing tools starts a server (or fails in its own words).
 */
function toolServerRoutes(initial: ToolServerView[], opts: { tools?: Record<string, ServerTool[]>; fails?: Record<string, Pick<ToolServerView, 'error' | 'why'>> } = {}) {
  const store = initial.map((s) => ({ ...s }));
  const secrets = new Map<number, Record<string, string>>(store.map((s) => [s.id, Object.fromEntries([...s.env_keys, ...s.header_keys].map((k) => [k, 'unseen']))]));
  let next = Math.max(0, ...store.map((s) => s.id)) + 1;
  const find = (id: number) => {
    const s = store.find((x) => x.id === id);
    if (!s) throw new ApiError('not_found', `tool server ${id} not found`, 404);
    return s;
  };
  const merge = (id: number, patch: Record<string, string | null> | undefined) => {
    const kept = secrets.get(id) ?? {};
    for (const [k, v] of Object.entries(patch ?? {})) {
      if (v === null) delete kept[k];
      else kept[k] = v;
    }
    secrets.set(id, kept);
    return Object.keys(kept).sort();
  };
  const methods: Partial<Backend> = {
    listToolServers: async () => store.map((s) => ({ ...s })),
    createToolServer: async (n: NewToolServer) => {
      if (!/^[A-Za-z0-9_-]+$/.test(n.name) || n.name.includes('__')) throw new ApiError('invalid_name', 'a tool server\u2019s name is 1 to 32 letters, digits, - or _ (no __)', 400);
      const made = view({ id: next++, name: n.name, transport: n.transport, command: n.command ?? '', args: n.args ?? [], url: n.url ?? '', enabled: n.enabled ?? true });
      store.push(made);
      const keys = merge(made.id, { ...(n.env ?? {}), ...(n.headers ?? {}) });
      if (n.transport === 'stdio') made.env_keys = keys;
      else made.header_keys = keys;
      return { ...made };
    },
    updateToolServer: async (id: number, p: ToolServerPatch) => {
      const s = find(id);
      const { env, headers, ...rest } = p;
      Object.assign(s, Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)));
      if (env) s.env_keys = merge(id, env);
      if (headers) s.header_keys = merge(id, headers);
      return { ...s };
    },
    deleteToolServer: async (id: number) => {
      find(id);
      store.splice(store.findIndex((s) => s.id === id), 1);
      return { id, deleted: true };
    },
    toolServerTools: async (id: number) => {
      const s = find(id);
      if (!s.enabled) throw new ApiError('tool_server_off', `the tool server ${s.name} is turned off`, 409, { name: s.name });
      const failure = opts.fails?.[s.name];
      if (failure) {
        Object.assign(s, { status: 'failed' }, failure);
        throw new ApiError('tool_server_failed', `the tool server ${s.name} does not start: ${failure.error}`, 409, { name: s.name, detail: failure.error ?? '' });
      }
      s.status = 'running';
      s.error = null;
      s.why = null;
      s.tools = opts.tools?.[s.name] ?? [];
      return s.tools;
    },
  };
  return { store, secrets, methods };
}

function setUp(initial: ToolServerView[], opts: Parameters<typeof toolServerRoutes>[1] = {}, more: Partial<Backend> = {}) {
  const routes = toolServerRoutes(initial, opts);
  const { app, calls } = appInProject({ ...routes.methods, listModels: async () => [], probeServers: async () => [], ...more }, DEFAULT);
  app.sessions.projects = [DEFAULT, WORK].map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
  const patches = () => calls.filter((c) => c.method === 'updateToolServer').map((c) => c.args[1] as ToolServerPatch);
  return { app, calls, patches, ...routes };
}

async function openTools(app: App): Promise<HTMLElement> {
  openSettingsDialog(app, 'tools');
  await sleep(5);
  return pane();
}
const pane = () => document.querySelector<HTMLElement>('dialog [data-testid=tools-pane]')!;
const server = (name: string) => pane().querySelector<HTMLElement>(`[data-testid=tool-server][data-name="${name}"]`)!;
const byTest = <T extends HTMLElement = HTMLElement>(root: ParentNode, id: string) => root.querySelector<T>(`[data-testid=${id}]`)!;

function type(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  el.value = value;
  el.dispatchEvent(new Event('input'));
}

/** Everything the dialog shows or holds: its text, and every field's value. */
function everythingShown(): string {
  const dialog = document.querySelector('dialog')!;
  const values = [...dialog.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].map((f) => f.value);
  return [dialog.textContent ?? '', ...values, ...[...dialog.querySelectorAll('[title]')].map((e) => e.getAttribute('title'))].join('\n');
}

describe('settings: the Tools tab', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => {
    document.body.replaceChildren();
    setLanguage('en');
  });

  it('adds a stdio server: arguments one per line, variables as NAME=value; a secret is sent once and never shown again', async () => {
    const { app, calls, secrets } = setUp([]);
    await openTools(app);
    expect(byTest(pane(), 'no-tool-servers').textContent).toBe('No tool servers yet.');
    byTest(pane(), 'add-tool-server').click();
    const form = byTest(pane(), 'tool-server-form');
    type(byTest(form, 'tool-server-name'), 'notes');
    type(byTest(form, 'tool-server-command'), 'npx');
    type(byTest(form, 'tool-server-args'), '-y\n@modelcontextprotocol/server-filesystem\n\n/home/me/notes\n');
    type(byTest(form, 'tool-server-env'), `API_KEY=${SECRET}\nREGION=eu-west=1\n`);
    byTest(form, 'tool-server-save').click();
    await sleep(5);

    const sent = calls.find((c) => c.method === 'createToolServer')?.args[0] as NewToolServer;
    expect(sent, 'what Maru is asked to add: blank lines left out, a value keeps its own "="').toEqual({
      name: 'notes', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/notes'],
      env: { API_KEY: SECRET, REGION: 'eu-west=1' },
    });
    expect(secrets.get(1)?.API_KEY, 'Maru has the secret').toBe(SECRET);
    const item = server('notes');
    expect(item, 'the new server is listed').not.toBeNull();
    expect(byTest(item, 'tool-server-secrets').textContent, 'its variables are named, their values hidden').toBe('Variables: API_KEY, REGION (values hidden)');
    expect(byTest(item, 'tool-server-what').textContent).toBe('npx -y @modelcontextprotocol/server-filesystem /home/me/notes');
    expect(everythingShown(), 'the secret is nowhere in the dialog once added').not.toContain(SECRET);

    // Editing shows the names with nothing after them, never the value.
    byTest(item, 'tool-server-edit').click();
    const env = byTest<HTMLTextAreaElement>(server('notes'), 'tool-server-env');
    expect(env.value, 'editing names the variables, with an empty value meaning "keep"').toBe('API_KEY=\nREGION=');
    expect(everythingShown(), 'nor is it shown while editing').not.toContain(SECRET);
  });

  it('adds an HTTP server with its headers (Name: value), the token never shown again', async () => {
    const { app, calls } = setUp([]);
    await openTools(app);
    byTest(pane(), 'add-tool-server').click();
    const form = byTest(pane(), 'tool-server-form');
    const stdioFields = byTest(form, 'tool-server-command').closest<HTMLElement>('.tool-server-fields')!;
    const httpFields = byTest(form, 'tool-server-url').closest<HTMLElement>('.tool-server-fields')!;
    expect([stdioFields.hidden, httpFields.hidden], 'a program on this computer is the first choice').toEqual([false, true]);
    const http = byTest<HTMLInputElement>(form, 'tool-server-transport-http');
    http.checked = true;
    http.dispatchEvent(new Event('change'));
    expect([stdioFields.hidden, httpFields.hidden], 'an address asks for the URL and headers instead').toEqual([true, false]);
    type(byTest(form, 'tool-server-name'), 'search');
    type(byTest(form, 'tool-server-url'), 'https://mcp.example.com/mcp');
    type(byTest(form, 'tool-server-headers'), `Authorization: ${HEADER_SECRET}\n`);
    byTest(form, 'tool-server-save').click();
    await sleep(5);
    expect(calls.find((c) => c.method === 'createToolServer')?.args[0]).toEqual({
      name: 'search', transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: HEADER_SECRET },
    });
    expect(byTest(server('search'), 'tool-server-secrets').textContent).toBe('Headers: Authorization (values hidden)');
    expect(everythingShown()).not.toContain('tok-987654321HIDDEN');
  });

  it('editing keeps the values it does not show: a change elsewhere sends no variables at all', async () => {
    const { app, patches, secrets } = setUp([view({ env_keys: ['API_KEY', 'REGION'] })]);
    await openTools(app);
    byTest(server('files'), 'tool-server-edit').click();
    type(byTest(server('files'), 'tool-server-args'), '-y\n@modelcontextprotocol/server-filesystem\n/home/me/work');
    byTest(server('files'), 'tool-server-save').click();
    await sleep(5);
    expect(patches(), 'only what changed is sent; the unseen values are left out, so Maru keeps them').toEqual([
      { args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me/work'] },
    ]);
    expect(secrets.get(1), 'the values are as they were').toEqual({ API_KEY: 'unseen', REGION: 'unseen' });
    expect(byTest(server('files'), 'tool-server-secrets').textContent).toBe('Variables: API_KEY, REGION (values hidden)');
  });

  it('editing a variable: a new value replaces it, a deleted line removes it (null), an empty one keeps it', async () => {
    const { app, patches, secrets } = setUp([view({ env_keys: ['API_KEY', 'REGION', 'TOKEN'] })]);
    await openTools(app);
    byTest(server('files'), 'tool-server-edit').click();
    type(byTest(server('files'), 'tool-server-env'), 'API_KEY=\nTOKEN=new-token\nDEBUG=1');
    byTest(server('files'), 'tool-server-save').click();
    await sleep(5);
    expect(patches(), 'REGION removed, TOKEN replaced, DEBUG added, API_KEY left out (kept)').toEqual([{ env: { TOKEN: 'new-token', DEBUG: '1', REGION: null } }]);
    expect(secrets.get(1)).toEqual({ API_KEY: 'unseen', TOKEN: 'new-token', DEBUG: '1' });
    expect(byTest(server('files'), 'tool-server-secrets').textContent).toBe('Variables: API_KEY, DEBUG, TOKEN (values hidden)');
  });

  it('a line that is not NAME=value is pointed at, and nothing is sent', async () => {
    const { app, calls } = setUp([view()]);
    await openTools(app);
    byTest(server('files'), 'tool-server-edit').click();
    type(byTest(server('files'), 'tool-server-env'), 'API_KEY=1\nthis is not a variable');
    byTest(server('files'), 'tool-server-save').click();
    await sleep(5);
    expect(byTest(server('files'), 'tool-server-form-error').textContent).toBe('Environment variables, line 2: write NAME=value.');
    expect(calls.some((c) => c.method === 'updateToolServer'), 'a half-read list of secrets is not saved').toBe(false);
  });

  it('a name Maru refuses is explained by the rule, in Korean too', async () => {
    for (const lang of ['en', 'ko']) {
      setLanguage(lang);
      const { app } = setUp([]);
      await openTools(app);
      byTest(pane(), 'add-tool-server').click();
      type(byTest(pane(), 'tool-server-name'), 'my files');
      type(byTest(pane(), 'tool-server-command'), 'npx');
      byTest(pane(), 'tool-server-save').click();
      await sleep(5);
      const error = byTest(pane(), 'tool-server-form-error');
      expect(error.hidden).toBe(false);
      expect(error.textContent, `${lang}: what a tool server's name may be`).toBe(t('toolServerNameRule'));
      expect(byTest(pane(), 'tool-server-form'), 'the form stays, with what was typed').not.toBeNull();
      document.body.replaceChildren();
    }
  });

  it('an always-allowed tool is removed from the list (it asks again), and one is added from its tools', async () => {
    const { app, patches } = setUp([view({ always_allowed: ['read_file', 'list_directory'], status: 'running', tools: [
      { name: 'read_file', description: 'Reads a file.', hints: NONE }, { name: 'list_directory', description: 'Lists a folder.', hints: NONE }, { name: 'write_file', description: 'Writes a file.', hints: NONE },
    ] })]);
    await openTools(app);
    const allowed = () => [...byTest(server('files'), 'always-allowed').querySelectorAll<HTMLElement>('.allowed-tool')].map((li) => li.dataset.tool);
    expect(allowed()).toEqual(['read_file', 'list_directory']);
    const remove = server('files').querySelector<HTMLButtonElement>('.allowed-tool[data-tool=read_file] [data-testid=always-allowed-remove]')!;
    expect(remove.getAttribute('aria-label'), 'the button says what it does').toBe('Ask again before read_file runs');
    remove.click();
    await sleep(5);
    expect(patches()).toEqual([{ always_allowed: ['list_directory'] }]);
    expect(allowed(), 'the list shows what Maru now has').toEqual(['list_directory']);

    const write = server('files').querySelector<HTMLElement>('[data-testid=server-tool][data-tool=write_file]')!;
    byTest(write, 'server-tool-allow').click();
    await sleep(5);
    expect(patches().at(-1)).toEqual({ always_allowed: ['list_directory', 'write_file'] });
    expect(allowed()).toEqual(['list_directory', 'write_file']);
  });

  it('per project: unticking a project turns the server off there (off_in), ticking it turns it on again', async () => {
    const { app, patches } = setUp([view()]);
    await openTools(app);
    const box = (id: number) => server('files').querySelector<HTMLInputElement>(`[data-testid=tool-server-projects] input[data-project-id="${id}"]`)!;
    const labels = [...byTest(server('files'), 'tool-server-projects').querySelectorAll('label')].map((l) => l.textContent);
    expect(labels, 'the current projects, Default by its shown name').toEqual(['Default', 'Work']);
    expect([box(1).checked, box(2).checked], 'on everywhere at first').toEqual([true, true]);
    box(2).checked = false;
    box(2).dispatchEvent(new Event('change'));
    await sleep(5);
    expect(patches()).toEqual([{ off_in: [2] }]);
    expect([box(1).checked, box(2).checked]).toEqual([true, false]);
    box(2).checked = true;
    box(2).dispatchEvent(new Event('change'));
    await sleep(5);
    expect(patches().at(-1)).toEqual({ off_in: [] });
    expect(box(2).checked).toBe(true);
  });

  it('turns a server off and on; off, it says so', async () => {
    const { app, patches } = setUp([view()]);
    await openTools(app);
    const toggle = byTest<HTMLInputElement>(server('files'), 'tool-server-enabled');
    toggle.checked = false;
    toggle.dispatchEvent(new Event('change'));
    await sleep(5);
    expect(patches()).toEqual([{ enabled: false }]);
    expect(byTest(server('files'), 'tool-server-status').textContent).toBe('Off');
  });

  it('lists a server’s tools with their descriptions, starting it; a server that fails says why in its own words', async () => {
    const { app, calls } = setUp([view(), view({ id: 2, name: 'broken', command: 'nonexistent-mcp' })], {
      tools: { files: [{ name: 'read_file', description: 'Reads a file from the allowed folders.', hints: { read_only: true, destructive: null, open_world: false } }] },
      fails: { broken: BROKEN },
    });
    await openTools(app);
    expect(byTest(server('files'), 'tool-server-status').textContent, 'a server starts when first needed').toBe('Not started');
    byTest(server('files'), 'tool-server-load').click();
    await sleep(5);
    expect(calls.filter((c) => c.method === 'toolServerTools').map((c) => c.args[0])).toEqual([1]);
    expect(byTest(server('files'), 'tool-server-status').textContent).toBe('Running');
    const tool = byTest(server('files'), 'server-tool');
    expect(tool.querySelector('code')?.textContent).toBe('read_file');
    expect(tool.querySelector('[data-testid=tool-hints]')?.textContent, 'what its server says it does').toBe('Only reads');
    expect(tool.querySelector('.server-tool-description')?.textContent).toBe('Reads a file from the allowed folders.');

    byTest(server('broken'), 'tool-server-load').click();
    await sleep(5);
    expect(byTest(server('broken'), 'tool-server-status').textContent).toBe('Failed');
    expect(byTest(server('broken'), 'tool-server-error').textContent, 'why, with the server’s own last words')
      .toBe('It could not start: it ran but did not answer as an MCP server (connection closed: initialize response); it said: Error: None of the specified directories are accessible');

    setLanguage('ko');
    document.body.replaceChildren();
    await openTools(app);
    expect(document.querySelector('dialog [role=tab][aria-selected=true]')?.textContent, 'the tab in Korean').toBe('도구');
    expect(byTest(server('broken'), 'tool-server-error').textContent, 'why in Korean, from its code; the server’s words as it wrote them')
      .toBe('시작하지 못했습니다: 실행됐지만 MCP 서버로 응답하지 않았습니다(connection closed: initialize response). 서버가 남긴 말: Error: None of the specified directories are accessible');
  });

  it('a server turned off says so when asked for its tools, in Korean in the words of errors.ts', async () => {
    setLanguage('ko');
    const { app } = setUp([view({ enabled: false })]);
    await openTools(app);
    expect(byTest(server('files'), 'tool-server-status').textContent).toBe('꺼짐');
    byTest(server('files'), 'tool-server-load').click();
    await sleep(5);
    expect(byTest(server('files'), 'tool-server-error').textContent).toBe('도구 서버 files은(는) 꺼져 있습니다.');
  });

  it('removes a server after asking', async () => {
    const { app, calls } = setUp([view()]);
    await openTools(app);
    byTest(server('files'), 'tool-server-remove').click();
    const confirm = [...document.querySelectorAll('dialog')].at(-1)!;
    expect(confirm.querySelector('h2')?.textContent).toBe('Remove the tool server files?');
    [...confirm.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === 'Remove')!.click();
    await sleep(5);
    expect(calls.filter((c) => c.method === 'deleteToolServer').map((c) => c.args[0])).toEqual([1]);
    expect(server('files'), 'gone from the list').toBeNull();
  });

  it('a whole command line pasted into Command is split before it is saved, and the split is what is saved', async () => {
    const line = 'node "/home/me/My Servers/weather/index.js" stdio';
    // The server's answer for that line (shell rules: the quoted path is one argument).
    const { app, calls } = setUp([], {}, {
      splitCommandLine: async (l: string) => {
        expect(l, 'the line as typed goes to the one splitter, on the server').toBe(line);
        return { command: 'node', args: ['/home/me/My Servers/weather/index.js', 'stdio'] };
      },
    });
    await openTools(app);
    byTest(pane(), 'add-tool-server').click();
    const form = byTest(pane(), 'tool-server-form');
    type(byTest(form, 'tool-server-name'), 'weather');
    type(byTest(form, 'tool-server-command'), line);
    byTest(form, 'tool-server-save').click();
    await sleep(5);
    expect(calls.some((c) => c.method === 'createToolServer'), 'the first Save only shows the split').toBe(false);
    expect(byTest<HTMLInputElement>(form, 'tool-server-command').value).toBe('node');
    expect(byTest<HTMLTextAreaElement>(form, 'tool-server-args').value, 'each argument on its own line').toBe('/home/me/My Servers/weather/index.js\nstdio');
    expect(byTest(form, 'tool-server-split').textContent, 'and says what it did').toContain('the program is node, and its 2 arguments are now under Arguments');
    byTest(form, 'tool-server-save').click();
    await sleep(5);
    expect(calls.find((c) => c.method === 'createToolServer')?.args[0], 'saved as a program and its arguments, not as a program named by the whole line')
      .toEqual({ name: 'weather', transport: 'stdio', command: 'node', args: ['/home/me/My Servers/weather/index.js', 'stdio'], env: {} });
  });

  it('imports from an mcp.json: a preview with a box per server, a clash left unchosen, a broken one not choosable; then adds the chosen at once', async () => {
    const text = '{"mcpServers": {"files": {"command": "npx"}, "brave-search": {"command": "npx", "env": {"BRAVE_API_KEY": "…"}}, "broken": {}}}';
    const shown = [
      { key: 'files', name: 'files-2', transport: 'stdio' as const, command: 'npx', args: [], url: '', env: [], headers: [], clash: true, enabled: true, problem: null, notes: [] },
      { key: 'brave-search', name: 'brave-search', transport: 'stdio' as const, command: 'npx', args: ['-y', '@modelcontextprotocol/server-brave-search'], url: '',
        env: [{ name: 'BRAVE_API_KEY', secret: true, placeholder: false }], headers: [], clash: false, enabled: true, problem: null, notes: [] },
      { key: 'broken', name: 'broken', transport: 'stdio' as const, command: '', args: [], url: '', env: [], headers: [], clash: false, enabled: true,
        problem: { code: 'mcp_server_incomplete' as const, params: {} }, notes: [] },
    ];
    const { app, calls } = setUp([view({ name: 'files' })], {}, {
      previewToolServerImport: async () => ({ servers: shown }),
      importToolServers: async (_text: string, chosen: string[]) =>
        chosen.map((key, i) => view({ id: 10 + i, name: shown.find((s) => s.key === key)!.name, env_keys: key === 'brave-search' ? ['BRAVE_API_KEY'] : [] })),
    });
    await openTools(app);
    byTest(pane(), 'import-tool-servers').click();
    const form = byTest(pane(), 'tool-server-import');
    type(byTest(form, 'import-text'), text);
    byTest(form, 'import-preview-btn').click();
    await sleep(5);
    const rows = [...form.querySelectorAll<HTMLElement>('[data-testid=import-item]')];
    expect(rows.map((r) => r.dataset.name), 'every server of the file, by the name it would get').toEqual(['files-2', 'brave-search', 'broken']);
    const box = (r: HTMLElement) => byTest<HTMLInputElement>(r, 'import-choose');
    expect(rows.map((r) => [box(r).checked, box(r).disabled]), 'a clash waits to be chosen; what cannot be added cannot be chosen').toEqual([[false, false], [true, false], [false, true]]);
    expect(byTest(rows[0], 'import-clash').textContent).toContain('You have a server named “files” already');
    expect(byTest(rows[1], 'import-values').textContent, 'a secret is named and marked, its value never shown').toBe('Variables: BRAVE_API_KEYsecret');
    expect(byTest(rows[2], 'import-problem').textContent).toBe('It has neither a command nor a url: nothing to start or reach.');
    expect(byTest(form, 'import-add').textContent).toBe('Add 1 server');
    byTest(form, 'import-add').click();
    await sleep(5);
    expect(calls.find((c) => c.method === 'importToolServers')?.args, 'the text as previewed, and the chosen by their names in the file').toEqual([text, ['brave-search']]);
    expect(server('brave-search'), 'the added server is listed').not.toBeNull();
    expect(pane().querySelector('[data-testid=tool-server-import]'), 'and the import closes').toBeNull();
  });

  it('says why an mcp.json is refused, in Korean too', async () => {
    setLanguage('ko');
    const { app } = setUp([], {}, {
      previewToolServerImport: async () => {
        throw new ApiError('mcp_config_no_servers', 'the text has no "mcpServers" object', 400);
      },
    });
    await openTools(app);
    byTest(pane(), 'import-tool-servers').click();
    const form = byTest(pane(), 'tool-server-import');
    type(byTest(form, 'import-text'), '{"servers_list": []}');
    byTest(form, 'import-preview-btn').click();
    await sleep(5);
    expect(byTest(form, 'import-error').textContent).toBe('이 JSON에는 "mcpServers"(VS Code의 "servers")가 없습니다. mcp.json이 아닙니다.');
    expect(byTest<HTMLButtonElement>(form, 'import-add').hidden, 'nothing to add').toBe(true);
  });
});

describe('reading the secrets’ lines', () => {
  it('reads NAME=value and Name: value, and points at the first line that is neither', () => {
    expect(parsePairs('A=1\n\n B = x=y \n', '=')).toEqual({ pairs: [['A', '1'], ['B', ' x=y']], bad: null });
    expect(parsePairs('Authorization: Bearer abc\nX-Team:  7 ', ':')).toEqual({ pairs: [['Authorization', 'Bearer abc'], ['X-Team', '7']], bad: null });
    expect(parsePairs('A=1\n=2', '=').bad).toBe(2);
    expect(parsePairs('nothing', ':').bad).toBe(1);
  });

  it('a known name left empty is kept (left out), one deleted is removed, a new empty one is set empty', () => {
    expect(secretsPatch([['A', ''], ['B', '2'], ['C', '']], ['A', 'D'])).toEqual({ B: '2', C: '', D: null });
    expect(secretsPatch([['A', '']], ['A']), 'nothing changed: nothing to send').toBeUndefined();
  });
});
