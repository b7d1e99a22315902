// The Tools tab of settings: the user's MCP tool servers. Each shows how it runs (a program on this
// computer, or an address), whether it runs (and the words it failed with), its tools, the tools
// that run without asking, and the projects it is on in; it can be turned off, edited and removed.
// A server's secrets (its variables' and headers' values) are never shown: Maru does not send
// them back. Editing names them with nothing after them, which keeps them as they are.
// Changes are saved as they are made (no Save button), like presets.

import type { App } from '../app';
import { ApiError, errorMessage } from '../lib/apiError';
import type { NewToolServer, ServerStatus, ToolServerPatch, ToolServerView, Transport } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { t, type Key } from '../lib/i18n';
import { confirmDialog } from './dialog';

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
  /** The server being edited: its id, "new", or none. Its form is kept while the list redraws. */
  let editing: number | 'new' | null = null;
  let form: HTMLElement | null = null;

  const edit = (which: number | 'new' | null) => {
    editing = which;
    form = which === null ? null : serverForm(which === 'new' ? null : app.tooling.toolServers.find((s) => s.id === which) ?? null);
    render();
  };

  const serverForm = (server: ToolServerView | null): HTMLElement => {
    const name = h('input', { class: 'input', type: 'text', value: server?.name ?? '', maxlength: 32, spellcheck: 'false', autocomplete: 'off', 'data-testid': 'tool-server-name' });
    const transports = (['stdio', 'http'] as Transport[]).map((tr) => {
      const radio = h('input', { type: 'radio', name: 'tool-server-transport', value: tr, 'data-testid': `tool-server-transport-${tr}` });
      radio.checked = (server?.transport ?? 'stdio') === tr;
      radio.addEventListener('change', () => shown());
      return { tr, radio, node: h('label', { class: 'choice' }, radio, h('span', { class: 'choice-text' },
        h('span', { class: 'choice-label' }, t(tr === 'stdio' ? 'transportStdio' : 'transportHttp')),
        h('span', { class: 'field-hint' }, t(tr === 'stdio' ? 'transportStdioHint' : 'transportHttpHint')))) };
    });
    const transport = (): Transport => server?.transport ?? transports.find((x) => x.radio.checked)?.tr ?? 'stdio';
    const command = h('input', { class: 'input', type: 'text', value: server?.command ?? '', spellcheck: 'false', placeholder: 'npx', 'data-testid': 'tool-server-command' });
    const args = h('textarea', { class: 'input textarea mono', rows: 3, spellcheck: 'false', placeholder: '-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes', 'data-testid': 'tool-server-args' });
    args.value = (server?.args ?? []).join('\n');
    // Known names with nothing after them: kept as they are unless the user writes a value.
    const env = h('textarea', { class: 'input textarea mono', rows: 3, spellcheck: 'false', autocomplete: 'off', placeholder: 'API_KEY=…', 'data-testid': 'tool-server-env' });
    env.value = (server?.env_keys ?? []).map((k) => `${k}=`).join('\n');
    const url = h('input', { class: 'input', type: 'url', value: server?.url ?? '', spellcheck: 'false', placeholder: 'https://example.com/mcp', 'data-testid': 'tool-server-url' });
    const headers = h('textarea', { class: 'input textarea mono', rows: 2, spellcheck: 'false', autocomplete: 'off', placeholder: 'Authorization: Bearer …', 'data-testid': 'tool-server-headers' });
    headers.value = (server?.header_keys ?? []).map((k) => `${k}: `).join('\n');
    const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'tool-server-form-error', hidden: true });
    const say = (text: string | null) => {
      problem.textContent = text ?? '';
      problem.hidden = text === null;
    };
    const stdio = h('div', { class: 'tool-server-fields' },
      field(t('toolServerCommand'), command, t('toolServerCommandHint')),
      field(t('toolServerArgs'), args, t('toolServerArgsHint')),
      field(t('toolServerEnv'), env, t(server ? 'toolServerSecretsEditHint' : 'toolServerEnvHint')),
    );
    const http = h('div', { class: 'tool-server-fields' },
      field(t('toolServerUrl'), url),
      field(t('toolServerHeaders'), headers, t(server ? 'toolServerSecretsEditHint' : 'toolServerHeadersHint')),
    );
    const shown = () => {
      stdio.hidden = transport() !== 'stdio';
      http.hidden = transport() !== 'http';
    };
    shown();

    const save = async () => {
      const tr = transport();
      const secrets = parsePairs(tr === 'stdio' ? env.value : headers.value, tr === 'stdio' ? '=' : ':');
      if (secrets.bad !== null) {
        say(t(tr === 'stdio' ? 'envLineInvalid' : 'headerLineInvalid', { line: secrets.bad }));
        return;
      }
      say(null);
      saveBtn.disabled = true;
      try {
        if (!server) {
          const made: NewToolServer = { name: name.value.trim(), transport: tr };
          const values = Object.fromEntries(secrets.pairs);
          if (tr === 'stdio') Object.assign(made, { command: command.value.trim(), args: lines(args.value), env: values });
          else Object.assign(made, { url: url.value.trim(), headers: values });
          await app.tooling.addToolServer(made);
        } else {
          const patch: ToolServerPatch = {};
          if (name.value.trim() !== server.name) patch.name = name.value.trim();
          if (tr === 'stdio') {
            if (command.value.trim() !== server.command) patch.command = command.value.trim();
            const list = lines(args.value);
            if (list.join('\n') !== server.args.join('\n')) patch.args = list;
            const changed = secretsPatch(secrets.pairs, server.env_keys);
            if (changed) patch.env = changed;
          } else {
            if (url.value.trim() !== server.url) patch.url = url.value.trim();
            const changed = secretsPatch(secrets.pairs, server.header_keys);
            if (changed) patch.headers = changed;
          }
          if (Object.keys(patch).length) await app.tooling.editToolServer(server.id, patch);
        }
      } catch (e) {
        saveBtn.disabled = false;
        // The form knows what the name is for: the rule, rather than the words shared with projects.
        say(e instanceof ApiError && e.code === 'invalid_name' ? t('toolServerNameRule') : errorMessage(e));
        return;
      }
      edit(null);
    };
    const saveBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'tool-server-save', onClick: () => void save() }, t(server ? 'save' : 'addToolServer'));
    queueMicrotask(() => name.focus());
    return h('div', { class: 'tool-server-form form', 'data-testid': 'tool-server-form' },
      h('h3', null, server ? t('editToolServer', { name: server.name }) : t('newToolServer')),
      field(t('toolServerName'), name, t('toolServerNameHint')),
      server
        ? h('p', { class: 'hint' }, t(server.transport === 'stdio' ? 'transportStdio' : 'transportHttp'))
        : h('fieldset', { class: 'choices' }, h('legend', null, t('toolServerTransport')), transports.map((x) => x.node)),
      stdio,
      http,
      problem,
      h('div', { class: 'row-end' },
        h('button', { class: 'btn', type: 'button', onClick: () => edit(null) }, t('cancel')),
        saveBtn,
      ),
    );
  };

  const item = (s: ToolServerView): HTMLElement => {
    if (editing === s.id && form) return h('li', { class: 'tool-server editing', 'data-testid': 'tool-server', dataset: { name: s.name } }, form);
    const starting = app.tooling.startingServers.has(s.id);
    const status = !s.enabled ? { key: 'serverStatusOff' as Key, cls: 'badge-absent' } : starting ? STATUS.starting : STATUS[s.status];
    const enabled = h('input', { type: 'checkbox', checked: s.enabled, 'data-testid': 'tool-server-enabled' });
    enabled.addEventListener('change', () => void app.tooling.patchToolServer(s.id, { enabled: enabled.checked }));
    const problem = s.status === 'failed' && s.error ? t('toolServerFailedWith', { error: s.error }) : app.tooling.toolsProblems.get(s.id) ?? null;
    const allowed = s.always_allowed;
    const secrets = s.transport === 'stdio' ? s.env_keys : s.header_keys;
    return h('li', { class: ['tool-server', !s.enabled && 'off'], 'data-testid': 'tool-server', dataset: { name: s.name, id: String(s.id) } },
      h('div', { class: 'tool-server-top' },
        h('strong', { class: 'tool-server-name' }, s.name),
        h('span', { class: 'badge' }, s.transport === 'stdio' ? 'stdio' : 'HTTP'),
        h('span', { class: ['badge', status.cls], 'data-testid': 'tool-server-status', dataset: { status: s.enabled ? s.status : 'off' } }, t(status.key)),
        h('span', { class: 'spacer' }),
        h('label', { class: 'switch', title: t('toolServerEnabledHint') }, enabled, h('span', null, t('toolServerEnabled'))),
        h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), 'data-testid': 'tool-server-edit', onClick: () => edit(s.id) }, icon('edit')),
        h('button', {
          class: 'icon-btn danger', type: 'button', title: t('removeToolServer'), 'aria-label': t('removeToolServer'), 'data-testid': 'tool-server-remove',
          onClick: async () => {
            if (await confirmDialog({ title: t('removeToolServerTitle', { name: s.name }), body: t('removeToolServerBody'), confirm: t('removeToolServer'), danger: true })) {
              await app.tooling.removeToolServer(s.id);
            }
          },
        }, icon('trash')),
      ),
      h('code', { class: 'tool-server-what', 'data-testid': 'tool-server-what' }, s.transport === 'stdio' ? [s.command, ...s.args.map(quoted)].join(' ') : s.url),
      secrets.length ? h('p', { class: 'hint', 'data-testid': 'tool-server-secrets' }, t(s.transport === 'stdio' ? 'toolServerEnvNames' : 'toolServerHeaderNames', { names: secrets.join(', ') })) : null,
      problem ? h('p', { class: 'field-error tool-server-error', 'data-testid': 'tool-server-error' }, problem) : null,
      h('div', { class: 'tool-server-section' },
        h('div', { class: 'row-between' },
          h('h4', null, t('toolServerTools')),
          h('button', {
            class: 'btn btn-small', type: 'button', disabled: starting, 'data-testid': 'tool-server-load',
            onClick: () => void app.tooling.listServerTools(s.id),
          }, icon('refresh'), t(starting ? 'toolServerStarting' : s.status === 'running' ? 'toolServerRefreshTools' : 'toolServerLoadTools')),
        ),
        s.tools.length
          ? h('ul', { class: 'server-tools', 'data-testid': 'server-tools' }, s.tools.map((tool) => h('li', { 'data-testid': 'server-tool', dataset: { tool: tool.name } },
              h('code', { class: 'server-tool-name' }, tool.name),
              allowed.includes(tool.name)
                ? h('span', { class: 'badge badge-present' }, t('runsWithoutAsking'))
                : h('button', {
                    class: 'btn btn-small', type: 'button', title: t('alwaysAllowHint'), 'data-testid': 'server-tool-allow',
                    onClick: () => void app.tooling.patchToolServer(s.id, { always_allowed: [...allowed, tool.name] }),
                  }, t('alwaysAllow')),
              tool.description ? h('p', { class: 'hint server-tool-description' }, tool.description) : null,
            )))
          : h('p', { class: 'hint' }, t(s.status === 'running' ? 'toolServerNoTools' : 'toolServerToolsHint')),
      ),
      h('div', { class: 'tool-server-section' },
        h('h4', null, t('alwaysAllowed')),
        allowed.length
          ? h('ul', { class: 'always-allowed', 'data-testid': 'always-allowed' }, allowed.map((tool) => h('li', { class: 'allowed-tool', dataset: { tool } },
              h('code', null, tool),
              h('button', {
                class: 'icon-btn', type: 'button', title: t('askAgain', { tool }), 'aria-label': t('askAgain', { tool }), 'data-testid': 'always-allowed-remove',
                onClick: () => void app.tooling.patchToolServer(s.id, { always_allowed: allowed.filter((x) => x !== tool) }),
              }, icon('close')),
            )))
          : h('p', { class: 'hint' }, t('alwaysAllowedNone')),
      ),
      app.sessions.projects.length ? h('div', { class: 'tool-server-section' },
        h('h4', null, t('toolServerProjects')),
        h('div', { class: 'server-projects', 'data-testid': 'tool-server-projects' }, app.sessions.projects.map(({ project }) => {
          const box = h('input', { type: 'checkbox', checked: !s.off_in.includes(project.id), disabled: !s.enabled, dataset: { projectId: String(project.id) } });
          box.addEventListener('change', () => {
            const off = s.off_in.filter((id) => id !== project.id);
            void app.tooling.patchToolServer(s.id, { off_in: box.checked ? off : [...off, project.id] });
          });
          return h('label', { class: 'check', 'data-testid': 'tool-server-project' }, box, app.sessions.projectName(project));
        })),
      ) : null,
    );
  };

  const render = () => {
    const list = app.tooling.toolServers;
    const newForm = editing === 'new' && form ? form : null;
    replaceChildren(root,
      h('div', { class: 'row-between' },
        h('h3', null, t('yourToolServers')),
        editing === 'new' ? null : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'add-tool-server', onClick: () => edit('new') }, icon('plus'), t('addToolServer')),
      ),
      h('p', { class: 'hint' }, t('toolServersHint')),
      newForm,
      app.tooling.toolServersError ? h('p', { class: 'field-error' }, app.tooling.toolServersError) : null,
      !app.tooling.toolServersLoaded ? h('p', { class: 'hint' }, t('loading'))
        : list.length ? h('ul', { class: 'tool-server-list', 'data-testid': 'tool-servers' }, list.map(item))
          : newForm ? null : h('p', { class: 'hint', 'data-testid': 'no-tool-servers' }, t('noToolServers')),
    );
  };

  const offs = [app.on('toolServers', () => redraw()), app.on('sidebar', () => redraw())];
  const redraw = () => {
    if (root.isConnected) render();
    else offs.forEach((off) => off());
  };
  render();
  void app.tooling.loadToolServers();
}

/** An argument as a shell would need it to read as one. */
function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function field(label: string, control: HTMLElement, hint?: string | null): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
}
