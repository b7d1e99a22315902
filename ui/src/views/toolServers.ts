// The Tools tab of settings: the user's MCP tool servers. Each shows how it runs (a program on this
// computer, or an address), whether it runs (and the words it failed with), its tools, the tools
// that run without asking, and the projects it is on in; it can be turned off, edited and removed.
// A server's secrets (its variables' and headers' values) are never shown: Maru does not send
// them back. Editing names them with nothing after them, which keeps them as they are.
// Changes are saved as they are made (no Save button), like presets.

import type { App } from '../app';
import type { NewToolServer, ServerStatus, ToolServerPatch, ToolServerView, Transport } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren } from '../lib/dom';
import { t, type Key } from '../lib/i18n';
import { reasonText } from '../lib/reasons';
import { confirmDialog } from './dialog';
import { toolHintBadges } from './toolHints';
import { quoted, toolServerImport } from './toolServerImport';

/** `NAME=value` (variables) or `Name: value` (headers) lines, read; `bad`: the first line that is neither. */
export function parsePairs(text: string, sep: '=' | ':'): { pairs: [string, string][]; bad: number | null } {
  const pairs: [string, string][] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(sep);
    const name = at === -1 ? '' : line.slice(0, at).trim();
    if (!name) return { pairs, bad: i + 1 };
    const value = line.slice(at + 1);
    pairs.push([name, sep === ':' ? value.trim() : value]);
  }
  return { pairs, bad: null };
}

/**
 * What the lines change of the secrets a server has (`known`, names only): a name with a value sets
 * it, a known name left empty keeps its unseen value (left out), and a known name no longer there
 * is removed (`null`). Undefined when nothing changes.
 */
export function secretsPatch(pairs: [string, string][], known: readonly string[]): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  const named = new Set(pairs.map(([k]) => k));
  for (const [k, v] of pairs) if (v !== '' || !known.includes(k)) patch[k] = v;
  for (const k of known) if (!named.has(k)) patch[k] = null;
  return Object.keys(patch).length ? patch : undefined;
}

/** One per line, blank lines left out. */
const lines = (text: string) => text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

const STATUS: Record<ServerStatus, { key: Key; cls: string }> = {
  stopped: { key: 'serverStatusStopped', cls: 'badge-absent' },
  starting: { key: 'serverStatusStarting', cls: 'badge-streaming' },
  running: { key: 'serverStatusRunning', cls: 'badge-present' },
  failed: { key: 'serverStatusFailed', cls: 'badge-error' },
};

export function mountToolServers(app: App, root: HTMLElement): void {
  const pane = new ToolServersPane(app, root);
  const offs = [app.on('toolServers', () => redraw()), app.on('sidebar', () => redraw())];
  const redraw = () => {
    if (root.isConnected) pane.render();
    else offs.forEach((off) => off());
  };
  pane.render();
  void app.tooling.loadToolServers();
}

class ToolServersPane {
  /** The server being edited: its id, "new", "import" (from an mcp.json), or none. Its form is
   *  kept while the list redraws. */
  private editing: number | 'new' | 'import' | null = null;
  private form: HTMLElement | null = null;

  constructor(private readonly app: App, private readonly root: HTMLElement) {}

  private edit(which: number | 'new' | 'import' | null): void {
    this.editing = which;
    const server = typeof which === 'number' ? this.app.tooling.toolServers.find((s) => s.id === which) ?? null : null;
    this.form = which === null ? null
      : which === 'import' ? toolServerImport(this.app, () => this.edit(null))
      : toolServerForm(this.app, server, () => this.edit(null));
    this.render();
  }

  render(): void {
    const tooling = this.app.tooling;
    const list = tooling.toolServers;
    const newForm = (this.editing === 'new' || this.editing === 'import') && this.form ? this.form : null;
    replaceChildren(this.root,
      h('div', { class: 'row-between' },
        h('h3', null, t('yourToolServers')),
        newForm ? null : h('div', { class: 'row-end' },
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-tool-servers', onClick: () => this.edit('import') }, icon('upload'), t('importToolServers')),
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'add-tool-server', onClick: () => this.edit('new') }, icon('plus'), t('addToolServer')),
        ),
      ),
      h('p', { class: 'hint' }, t('toolServersHint')),
      newForm,
      tooling.toolServersError ? h('p', { class: 'field-error' }, tooling.toolServersError) : null,
      !tooling.toolServersLoaded ? h('p', { class: 'hint' }, t('loading'))
        : list.length ? h('ul', { class: 'tool-server-list', 'data-testid': 'tool-servers' }, list.map((s) => this.item(s)))
          : newForm ? null : h('p', { class: 'hint', 'data-testid': 'no-tool-servers' }, t('noToolServers')),
    );
  }

  private item(s: ToolServerView): HTMLElement {
    if (this.editing === s.id && this.form) return h('li', { class: 'tool-server editing', 'data-testid': 'tool-server', dataset: { name: s.name } }, this.form);
    const problem = s.status === 'failed' && s.error ? t('toolServerFailedWith', { error: reasonText(s.why, s.error) }) : this.app.tooling.toolsProblems.get(s.id) ?? null;
    const secrets = s.transport === 'stdio' ? s.env_keys : s.header_keys;
    return h('li', { class: ['tool-server', !s.enabled && 'off'], 'data-testid': 'tool-server', dataset: { name: s.name, id: String(s.id) } },
      this.itemTop(s),
      h('code', { class: 'tool-server-what', 'data-testid': 'tool-server-what' }, s.transport === 'stdio' ? [s.command, ...s.args.map(quoted)].join(' ') : s.url),
      secrets.length ? h('p', { class: 'hint', 'data-testid': 'tool-server-secrets' }, t(s.transport === 'stdio' ? 'toolServerEnvNames' : 'toolServerHeaderNames', { names: secrets.join(', ') })) : null,
      problem ? h('p', { class: 'field-error tool-server-error', 'data-testid': 'tool-server-error' }, problem) : null,
      this.toolsSection(s),
      this.allowedSection(s),
      this.projectsSection(s),
    );
  }

  /** A server's name, badges and buttons (on/off, edit, remove). */
  private itemTop(s: ToolServerView): HTMLElement {
    const tooling = this.app.tooling;
    const starting = tooling.startingServers.has(s.id);
    const status = !s.enabled ? { key: 'serverStatusOff' as Key, cls: 'badge-absent' } : starting ? STATUS.starting : STATUS[s.status];
    const enabled = h('input', { type: 'checkbox', checked: s.enabled, 'data-testid': 'tool-server-enabled' });
    enabled.addEventListener('change', () => void tooling.patchToolServer(s.id, { enabled: enabled.checked }));
    return h('div', { class: 'tool-server-top' },
      h('strong', { class: 'tool-server-name' }, s.name),
      h('span', { class: 'badge' }, s.transport === 'stdio' ? 'stdio' : 'HTTP'),
      h('span', { class: ['badge', status.cls], 'data-testid': 'tool-server-status', dataset: { status: s.enabled ? s.status : 'off' } }, t(status.key)),
      h('span', { class: 'spacer' }),
      h('label', { class: 'switch', title: t('toolServerEnabledHint') }, enabled, h('span', null, t('toolServerEnabled'))),
      h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), 'data-testid': 'tool-server-edit', onClick: () => this.edit(s.id) }, icon('edit')),
      h('button', {
        class: 'icon-btn danger', type: 'button', title: t('removeToolServer'), 'aria-label': t('removeToolServer'), 'data-testid': 'tool-server-remove',
        onClick: async () => {
          if (await confirmDialog({ title: t('removeToolServerTitle', { name: s.name }), body: t('removeToolServerBody'), confirm: t('removeToolServer'), danger: true })) {
            await tooling.removeToolServer(s.id);
          }
        },
      }, icon('trash')),
    );
  }

  /** Its tools (listed by starting it), each one allowed to run without asking with a click. */
  private toolsSection(s: ToolServerView): HTMLElement {
    const tooling = this.app.tooling;
    const starting = tooling.startingServers.has(s.id);
    const allowed = s.always_allowed;
    return h('div', { class: 'tool-server-section' },
      h('div', { class: 'row-between' },
        h('h4', null, t('toolServerTools')),
        h('button', {
          class: 'btn btn-small', type: 'button', disabled: starting, 'data-testid': 'tool-server-load',
          onClick: () => void tooling.listServerTools(s.id),
        }, icon('refresh'), t(starting ? 'toolServerStarting' : s.status === 'running' ? 'toolServerRefreshTools' : 'toolServerLoadTools')),
      ),
      s.tools.length
        ? h('ul', { class: 'server-tools', 'data-testid': 'server-tools' }, s.tools.map((tool) => h('li', { 'data-testid': 'server-tool', dataset: { tool: tool.name } },
            h('code', { class: 'server-tool-name' }, tool.name),
            toolHintBadges(tool.hints),
            allowed.includes(tool.name)
              ? h('span', { class: 'badge badge-present' }, t('runsWithoutAsking'))
              : h('button', {
                  class: 'btn btn-small', type: 'button', title: t('alwaysAllowHint'), 'data-testid': 'server-tool-allow',
                  onClick: () => void tooling.patchToolServer(s.id, { always_allowed: [...allowed, tool.name] }),
                }, t('alwaysAllow')),
            tool.description ? h('p', { class: 'hint server-tool-description' }, tool.description) : null,
          )))
        : h('p', { class: 'hint' }, t(s.status === 'running' ? 'toolServerNoTools' : 'toolServerToolsHint')),
    );
  }

  /** The tools that run without asking, each one asked about again with a click. */
  private allowedSection(s: ToolServerView): HTMLElement {
    const allowed = s.always_allowed;
    return h('div', { class: 'tool-server-section' },
      h('h4', null, t('alwaysAllowed')),
      allowed.length
        ? h('ul', { class: 'always-allowed', 'data-testid': 'always-allowed' }, allowed.map((tool) => h('li', { class: 'allowed-tool', dataset: { tool } },
            h('code', null, tool),
            h('button', {
              class: 'icon-btn', type: 'button', title: t('askAgain', { tool }), 'aria-label': t('askAgain', { tool }), 'data-testid': 'always-allowed-remove',
              onClick: () => void this.app.tooling.patchToolServer(s.id, { always_allowed: allowed.filter((x) => x !== tool) }),
            }, icon('close')),
          )))
        : h('p', { class: 'hint' }, t('alwaysAllowedNone')),
    );
  }

  /** The projects it is on in (all, unless turned off in some). */
  private projectsSection(s: ToolServerView): HTMLElement | null {
    const { sessions, tooling } = this.app;
    if (!sessions.projects.length) return null;
    return h('div', { class: 'tool-server-section' },
      h('h4', null, t('toolServerProjects')),
      h('div', { class: 'server-projects', 'data-testid': 'tool-server-projects' }, sessions.projects.map(({ project }) => {
        const box = h('input', { type: 'checkbox', checked: !s.off_in.includes(project.id), disabled: !s.enabled, dataset: { projectId: String(project.id) } });
        box.addEventListener('change', () => {
          const off = s.off_in.filter((id) => id !== project.id);
          void tooling.patchToolServer(s.id, { off_in: box.checked ? off : [...off, project.id] });
        });
        return h('label', { class: 'check', 'data-testid': 'tool-server-project' }, box, sessions.projectName(project));
      })),
    );
  }
}

/** The form's fields for a server (`server` null: a new one), filled with what it has. */
function toolServerFields(server: ToolServerView | null) {
  const transports = (['stdio', 'http'] as Transport[]).map((tr) => {
    const radio = h('input', { type: 'radio', name: 'tool-server-transport', value: tr, 'data-testid': `tool-server-transport-${tr}` });
    radio.checked = (server?.transport ?? 'stdio') === tr;
    return { tr, radio, node: h('label', { class: 'choice' }, radio, h('span', { class: 'choice-text' },
      h('span', { class: 'choice-label' }, t(tr === 'stdio' ? 'transportStdio' : 'transportHttp')),
      h('span', { class: 'field-hint' }, t(tr === 'stdio' ? 'transportStdioHint' : 'transportHttpHint')))) };
  });
  const args = h('textarea', { class: 'input textarea mono', rows: 3, spellcheck: 'false', placeholder: '-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes', 'data-testid': 'tool-server-args' });
  args.value = (server?.args ?? []).join('\n');
  // Known names with nothing after them: kept as they are unless the user writes a value.
  const env = h('textarea', { class: 'input textarea mono', rows: 3, spellcheck: 'false', autocomplete: 'off', placeholder: 'API_KEY=…', 'data-testid': 'tool-server-env' });
  env.value = (server?.env_keys ?? []).map((k) => `${k}=`).join('\n');
  const headers = h('textarea', { class: 'input textarea mono', rows: 2, spellcheck: 'false', autocomplete: 'off', placeholder: 'Authorization: Bearer …', 'data-testid': 'tool-server-headers' });
  headers.value = (server?.header_keys ?? []).map((k) => `${k}: `).join('\n');
  return {
    name: h('input', { class: 'input', type: 'text', value: server?.name ?? '', maxlength: 32, spellcheck: 'false', autocomplete: 'off', 'data-testid': 'tool-server-name' }),
    transports,
    transport: (): Transport => server?.transport ?? transports.find((x) => x.radio.checked)?.tr ?? 'stdio',
    command: h('input', { class: 'input', type: 'text', value: server?.command ?? '', spellcheck: 'false', placeholder: 'npx', 'data-testid': 'tool-server-command' }),
    args,
    env,
    url: h('input', { class: 'input', type: 'url', value: server?.url ?? '', spellcheck: 'false', placeholder: 'https://example.com/mcp', 'data-testid': 'tool-server-url' }),
    headers,
  };
}

type ToolServerFields = ReturnType<typeof toolServerFields>;

/** The form that adds a tool server (`server` null) or edits one; `done` closes it (saved, or cancelled). */
function toolServerForm(app: App, server: ToolServerView | null, done: () => void): HTMLElement {
  const f = toolServerFields(server);
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'tool-server-form-error', hidden: true });
  const say = (text: string | null) => {
    problem.textContent = text ?? '';
    problem.hidden = text === null;
  };
  const { note: split, splitCommand } = commandSplitter(app, f, say);
  const stdio = h('div', { class: 'tool-server-fields' },
    field(t('toolServerCommand'), f.command, t('toolServerCommandHint')),
    split,
    field(t('toolServerArgs'), f.args, t('toolServerArgsHint')),
    field(t('toolServerEnv'), f.env, t(server ? 'toolServerSecretsEditHint' : 'toolServerEnvHint')),
  );
  const http = h('div', { class: 'tool-server-fields' },
    field(t('toolServerUrl'), f.url),
    field(t('toolServerHeaders'), f.headers, t(server ? 'toolServerSecretsEditHint' : 'toolServerHeadersHint')),
  );
  const shown = () => {
    stdio.hidden = f.transport() !== 'stdio';
    http.hidden = f.transport() !== 'http';
  };
  for (const x of f.transports) x.radio.addEventListener('change', shown);
  shown();
  const save = async () => {
    const tr = f.transport();
    if (tr === 'stdio' && (await splitCommand())) return;
    const secrets = parsePairs(tr === 'stdio' ? f.env.value : f.headers.value, tr === 'stdio' ? '=' : ':');
    if (secrets.bad !== null) {
      say(t(tr === 'stdio' ? 'envLineInvalid' : 'headerLineInvalid', { line: secrets.bad }));
      return;
    }
    say(null);
    saveBtn.disabled = true;
    try {
      await saveToolServer(app, server, f, secrets.pairs);
    } catch (e) {
      saveBtn.disabled = false;
      // The form knows what the name is for: the rule, rather than the words shared with projects.
      say(e instanceof ApiError && e.code === 'invalid_name' ? t('toolServerNameRule') : errorMessage(e));
      return;
    }
    done();
  };
  const saveBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'tool-server-save', onClick: () => void save() }, t(server ? 'save' : 'addToolServer'));
  queueMicrotask(() => f.name.focus());
  return h('div', { class: 'tool-server-form form', 'data-testid': 'tool-server-form' },
    h('h3', null, server ? t('editToolServer', { name: server.name }) : t('newToolServer')),
    field(t('toolServerName'), f.name, t('toolServerNameHint')),
    server
      ? h('p', { class: 'hint' }, t(server.transport === 'stdio' ? 'transportStdio' : 'transportHttp'))
      : h('fieldset', { class: 'choices' }, h('legend', null, t('toolServerTransport')), f.transports.map((x) => x.node)),
    stdio,
    http,
    problem,
    h('div', { class: 'row-end' },
      h('button', { class: 'btn', type: 'button', onClick: done }, t('cancel')),
      saveBtn,
    ),
  );
}

/**
 * A whole command line in Command (`node …/index.js stdio`), split by shell rules (by the server)
 * into the program and its arguments, which go before any under Arguments: when it is pasted, and
 * before saving. `splitCommand` is true when the form changed (or the line cannot be split), so it
 * is not saved before the user has seen the result, which `note` tells.
 */
function commandSplitter(app: App, f: ToolServerFields, say: (text: string | null) => void) {
  const note = h('p', { class: 'hint', 'data-testid': 'tool-server-split', hidden: true });
  // The Command the split shown was made for: it is not split again unless edited (a quoted
  // path with spaces stays one program).
  let splitFor = f.command.value.trim();
  const splitCommand = async (): Promise<boolean> => {
    const line = f.command.value.trim();
    if (!/\s/.test(line) || line === splitFor) return false;
    let parts;
    try {
      parts = await app.tooling.splitCommandLine(line);
    } catch (e) {
      say(errorMessage(e));
      return true;
    }
    say(null);
    f.command.value = parts.command;
    splitFor = parts.command;
    if (!parts.args.length) return false;
    f.args.value = [...parts.args, ...lines(f.args.value)].join('\n');
    note.textContent = t('commandSplit', { command: parts.command, n: parts.args.length });
    note.hidden = false;
    return true;
  };
  f.command.addEventListener('paste', () => setTimeout(() => void splitCommand(), 0));
  return { note, splitCommand };
}

/** Adds the server, or sends what the form changed of it (`secrets`: its variables or headers as
 *  typed); rejects with the server's refusal. */
async function saveToolServer(app: App, server: ToolServerView | null, f: ToolServerFields, secrets: [string, string][]): Promise<void> {
  const tr = f.transport();
  if (!server) {
    const made: NewToolServer = { name: f.name.value.trim(), transport: tr };
    const values = Object.fromEntries(secrets);
    if (tr === 'stdio') Object.assign(made, { command: f.command.value.trim(), args: lines(f.args.value), env: values });
    else Object.assign(made, { url: f.url.value.trim(), headers: values });
    await app.tooling.addToolServer(made);
    return;
  }
  const patch: ToolServerPatch = {};
  if (f.name.value.trim() !== server.name) patch.name = f.name.value.trim();
  if (tr === 'stdio') {
    if (f.command.value.trim() !== server.command) patch.command = f.command.value.trim();
    const list = lines(f.args.value);
    if (list.join('\n') !== server.args.join('\n')) patch.args = list;
    const changed = secretsPatch(secrets, server.env_keys);
    if (changed) patch.env = changed;
  } else {
    if (f.url.value.trim() !== server.url) patch.url = f.url.value.trim();
    const changed = secretsPatch(secrets, server.header_keys);
    if (changed) patch.headers = changed;
  }
  if (Object.keys(patch).length) await app.tooling.editToolServer(server.id, patch);
}

function field(label: string, control: HTMLElement, hint?: string | null): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
}
