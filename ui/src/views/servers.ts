// The Servers tab of settings: the user's model servers, the default one first. Each shows its
// address, whether a key is saved (never the key: Maru does not send it back), whether it is on,
// and what it answers (how many models, or why none), asked again whenever its address or key
// changes. Servers are added (or found on the usual local ports), edited, made the default,
// turned off and removed, the default one excepted. Changes are saved as they are made.

import type { App } from '../app';
import type { ConnectionPatch, ConnectionView, FoundServer } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { sameAddress, type ModelList } from '../state/connections';
import { confirmDialog } from './dialog';
import { modelsProblem } from './modelsProblem';

/** What a server is named after until the user names it: its host and port ("127.0.0.1:8080"). */
function addressName(address: string): string {
  try {
    return new URL(address.trim()).host;
  } catch {
    return '';
  }
}

/** A server's status badge: off, being asked, its models counted, or why it listed none. */
function status(c: ConnectionView, list: ModelList | undefined): { text: string; cls: string } {
  if (!c.enabled) return { text: t('serverStatusOff'), cls: 'badge-absent' };
  if (list?.error) return { text: modelsProblem(list.error), cls: 'badge-error' };
  if (!list?.models) return { text: t('serverChecking'), cls: 'badge-streaming' };
  return { text: t('serverModelsCount', { n: list.models.length }), cls: list.models.length ? 'badge-present' : 'badge-absent' };
}

export function mountServers(app: App, root: HTMLElement): void {
  const pane = new ServersPane(app);
  replaceChildren(root, pane.head, pane.newSlot, pane.listEl);
  const off = app.on('servers', () => {
    if (root.isConnected) pane.render();
    else off();
  });
  pane.render();
  void app.servers.loadModelLists();
}

type Found = FoundServer[] | 'looking' | { error: unknown } | null;

class ServersPane {
  readonly head = h('div');
  readonly newSlot = h('div');
  readonly listEl = h('ul', { class: 'tool-server-list', 'data-testid': 'servers' });

  /** The server being edited: its id, "new", or none. Its form is kept while the list redraws. */
  private editing: number | 'new' | null = null;
  private form: HTMLElement | null = null;
  /** What the last quick change of a server (on/off, default, remove) was refused with. */
  private readonly problems = new Map<number, unknown>();
  /** Servers answering on the usual local ports, once looked for. */
  private found: Found = null;
  // Rows are patched, not redrawn: the one being edited keeps its element (and the field typed
  // in keeps its focus) while the others change around it.
  private readonly rows = new Map<number, { el: HTMLElement; sig: string }>();

  constructor(private readonly app: App) {}

  private edit(which: number | 'new' | null): void {
    this.editing = which;
    const server = which === 'new' ? null : this.app.servers.connections.find((c) => c.id === which) ?? null;
    this.form = which === null ? null : serverForm(this.app, server, () => this.edit(null));
    this.render();
  }

  /** A change made with one click; a refusal shows on the server, and the list is read again (it
   *  may come from a change made in another window). */
  private async quick(id: number, change: () => Promise<unknown>): Promise<void> {
    this.problems.delete(id);
    try {
      await change();
    } catch (e) {
      this.problems.set(id, e);
      await this.app.servers.loadConnections();
    }
    this.render();
  }

  private item(c: ConnectionView): HTMLElement {
    if (this.editing === c.id && this.form) return h('li', { class: 'tool-server server editing', 'data-testid': 'server', dataset: { name: c.name, id: String(c.id) } }, this.form);
    const servers = this.app.servers;
    const list = servers.modelLists.get(c.id);
    const problem = this.problems.get(c.id);
    const models = list?.models ?? [];
    return h('li', { class: ['tool-server', 'server', !c.enabled && 'off'], 'data-testid': 'server', dataset: { name: c.name, id: String(c.id) } },
      this.itemTop(c, list),
      h('code', { class: 'tool-server-what', 'data-testid': 'server-url' }, c.base_url),
      c.enabled ? h('div', { class: 'server-models' },
        list?.error
          ? h('p', { class: 'field-error tool-server-error', 'data-testid': 'server-error' }, servers.serverError(list.error))
          : h('p', { class: 'hint', 'data-testid': 'server-models' }, models.length > 4 ? `${models.slice(0, 4).map((m) => m.id).join(', ')}…` : models.map((m) => m.id).join(', ')),
        h('button', { class: 'btn btn-small btn-ghost', type: 'button', disabled: !!list?.asking, 'data-testid': 'server-check', onClick: () => void servers.loadModelList(c.id) }, icon('refresh'), t('checkAgain')),
      ) : null,
      problem ? h('p', { class: 'field-error tool-server-error', role: 'alert', 'data-testid': 'server-problem' }, errorMessage(problem)) : null,
    );
  }

  /** A server's name, badges and buttons (on/off, make default, edit, remove). */
  private itemTop(c: ConnectionView, list: ModelList | undefined): HTMLElement {
    const servers = this.app.servers;
    const badge = status(c, list);
    const enabled = h('input', { type: 'checkbox', checked: c.enabled, disabled: c.is_default, 'data-testid': 'server-enabled' });
    enabled.addEventListener('change', () => void this.quick(c.id, () => servers.editConnection(c.id, { enabled: enabled.checked })));
    return h('div', { class: 'tool-server-top' },
      h('strong', { class: 'tool-server-name' }, c.name),
      c.is_default ? h('span', { class: 'badge badge-project', title: t('serverDefaultHint'), 'data-testid': 'server-default' }, t('serverIsDefault')) : null,
      c.api_key_set ? h('span', { class: 'badge badge-folder', title: t('serverKeyHint'), 'data-testid': 'server-key-set' }, icon('shield'), t('serverKey')) : null,
      h('span', { class: ['badge', badge.cls], 'data-testid': 'server-status' }, badge.text),
      h('span', { class: 'spacer' }),
      h('label', { class: 'switch', title: c.is_default ? t('defaultAlwaysOn') : t('serverEnabledHint') }, enabled, h('span', null, t('serverEnabled'))),
      !c.is_default && c.enabled ? h('button', {
        class: 'btn btn-small', type: 'button', title: t('makeDefaultHint'), 'data-testid': 'server-make-default',
        onClick: () => void this.quick(c.id, () => servers.editConnection(c.id, { is_default: true })),
      }, t('makeDefault')) : null,
      h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), 'data-testid': 'server-edit', onClick: () => this.edit(c.id) }, icon('edit')),
      c.is_default ? null : h('button', {
        class: 'icon-btn danger', type: 'button', title: t('removeServer'), 'aria-label': t('removeServer'), 'data-testid': 'server-remove',
        onClick: async () => {
          if (await confirmDialog({ title: t('removeServerTitle', { name: c.name }), body: t('removeServerBody'), confirm: t('removeServer'), danger: true })) {
            await this.quick(c.id, () => servers.removeConnection(c.id));
          }
        },
      }, icon('trash')),
    );
  }

  private async detect(): Promise<void> {
    this.found = 'looking';
    this.render();
    try {
      this.found = await this.app.servers.probeServers();
    } catch (e) {
      this.found = { error: e };
    }
    this.render();
  }

  private foundList(): HTMLElement | null {
    const found = this.found;
    if (found === null) return null;
    if (found === 'looking') return h('ul', { class: 'found-servers' }, h('li', { class: 'hint' }, t('detecting')));
    if ('error' in found) return h('ul', { class: 'found-servers' }, h('li', { class: 'field-error' }, errorMessage(found.error)));
    if (found.length === 0) return h('ul', { class: 'found-servers' }, h('li', { class: 'hint' }, t('noServersFound')));
    return h('ul', { class: 'found-servers', 'data-testid': 'found-servers' }, found.map((srv) => this.foundItem(srv)));
  }

  private foundItem(srv: FoundServer): HTMLElement {
    const added = this.app.servers.connections.some((c) => sameAddress(c.base_url, srv.base_url));
    return h('li', { dataset: { url: srv.base_url } },
      h('div', null, h('strong', null, srv.kind_guess), ' ', h('code', null, srv.base_url)),
      h('div', { class: 'hint' }, srv.needs_api_key ? t('needsKey') : srv.models.slice(0, 4).join(', ')),
      added
        ? h('span', { class: 'badge badge-present' }, t('serverAdded'))
        : h('button', {
            class: 'btn btn-small', type: 'button', 'data-testid': 'add-found-server',
            onClick: async () => {
              try {
                const view = await this.app.servers.addFoundServer(srv);
                // It wants a key: its form is where to type it.
                if (srv.needs_api_key) this.edit(view.id);
              } catch (e) {
                this.found = { error: e };
                this.render();
              }
            },
          }, icon('plus'), t('add')),
    );
  }

  private renderRows(): void {
    const { rows, listEl } = this;
    const servers = this.app.servers;
    const wanted = servers.connections.map((c) => {
      const list = servers.modelLists.get(c.id);
      const sig = this.editing === c.id ? 'editing' : JSON.stringify([c, list?.models?.map((m) => m.id), list?.asking, list && errorMessage(list.error), errorMessage(this.problems.get(c.id) ?? ''), t('serverEnabled')]);
      let row = rows.get(c.id);
      if (!row || row.sig !== sig || (sig === 'editing' && !row.el.contains(this.form))) {
        row = { el: this.item(c), sig };
        rows.get(c.id)?.el.replaceWith(row.el);
        rows.set(c.id, row);
      }
      return row.el;
    });
    for (const [id, row] of rows) {
      if (servers.connections.some((c) => c.id === id)) continue;
      row.el.remove();
      rows.delete(id);
    }
    // In order, moving only what is out of place.
    let cursor = listEl.firstChild;
    for (const el of wanted) {
      if (cursor === el) cursor = el.nextSibling;
      else listEl.insertBefore(el, cursor);
    }
  }

  render(): void {
    const servers = this.app.servers;
    replaceChildren(this.head,
      h('div', { class: 'row-between' },
        h('h3', null, t('yourServers')),
        h('div', { class: 'row' },
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'detect-servers', onClick: () => void this.detect() }, icon('search'), t('detectServers')),
          this.editing === 'new' ? null : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'add-server', onClick: () => this.edit('new') }, icon('plus'), t('addServer')),
        ),
      ),
      h('p', { class: 'hint' }, t('serversHint')),
      this.foundList(),
      servers.connectionsError ? h('p', { class: 'field-error', 'data-testid': 'servers-error' }, errorMessage(servers.connectionsError)) : null,
      !servers.connectionsLoaded && !servers.connectionsError ? h('p', { class: 'hint' }, t('loading')) : null,
    );
    const newForm = this.editing === 'new' ? this.form : null;
    if (this.newSlot.firstChild !== newForm) replaceChildren(this.newSlot, newForm);
    this.renderRows();
  }
}

/** The form that adds a server (`server` null) or edits one; `done` closes it (saved, or cancelled). */
function serverForm(app: App, server: ConnectionView | null, done: () => void): HTMLElement {
  const address = h('input', { class: 'input', type: 'url', value: server?.base_url ?? '', spellcheck: 'false', autocomplete: 'off', placeholder: 'http://127.0.0.1:8080/v1', 'data-testid': 'server-address' });
  const name = h('input', { class: 'input', type: 'text', value: server?.name ?? '', maxlength: 64, spellcheck: 'false', autocomplete: 'off', 'data-testid': 'server-name' });
  // Named after its address until the user names it: the name follows a new address.
  let nameFollows = !server || server.name === addressName(server.base_url);
  const follow = () => {
    const derived = addressName(address.value);
    if (server && nameFollows) name.value = derived || server.name;
    name.placeholder = derived;
  };
  follow();
  address.addEventListener('input', follow);
  name.addEventListener('input', () => (nameFollows = false));
  // Write-only: a saved key is never shown, only replaced or removed.
  const key = h('input', { class: 'input', type: 'password', value: '', autocomplete: 'new-password', placeholder: server?.api_key_set ? '••••••••' : '', 'data-testid': 'server-key' });
  const removeKey = h('input', { type: 'checkbox', 'data-testid': 'server-remove-key' });
  removeKey.addEventListener('change', () => {
    key.disabled = removeKey.checked;
    if (removeKey.checked) key.value = '';
  });
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'server-form-error', hidden: true });
  const saveBtn = h('button', { class: 'btn btn-primary', type: 'submit', 'data-testid': 'server-save' }, t(server ? 'save' : 'addServer'));
  const save = async (e: Event) => {
    e.preventDefault();
    problem.hidden = true;
    problem.textContent = '';
    saveBtn.disabled = true;
    try {
      await saveServer(app, server, { address: address.value.trim(), name: name.value.trim(), key: key.value, removeKey: removeKey.checked });
    } catch (err) {
      saveBtn.disabled = false;
      // The form knows what the name is for: the rule, rather than the words shared with projects.
      problem.textContent = err instanceof ApiError && err.code === 'invalid_name' ? t('serverNameRule') : errorMessage(err);
      problem.hidden = false;
      return;
    }
    done();
  };
  queueMicrotask(() => (server ? name : address).focus());
  // A form: Enter in any field saves. The server checks the address, and says why in the UI's language.
  return h('form', { class: 'tool-server-form server-form form', novalidate: true, 'data-testid': 'server-form', onSubmit: (e: Event) => void save(e) },
    h('h3', null, server ? t('editServer', { name: server.name }) : t('newServer')),
    field(t('endpointUrl'), address, t('endpointHint')),
    field(t('serverName'), name, t('serverNameHint')),
    field(t('apiKey'), key, server?.api_key_set ? t('serverKeyReplace') : t('apiKeyNone')),
    server?.api_key_set ? h('label', { class: 'check' }, removeKey, t('removeKey')) : null,
    problem,
    h('div', { class: 'row-end' },
      h('button', { class: 'btn', type: 'button', onClick: done }, t('cancel')),
      saveBtn,
    ),
  );
}

/** Adds the server, or sends what the form changed of it; rejects with the server's refusal. */
async function saveServer(app: App, server: ConnectionView | null, form: { address: string; name: string; key: string; removeKey: boolean }): Promise<void> {
  if (!server) {
    await app.servers.addConnection({ name: form.name || addressName(form.address), base_url: form.address, ...(form.key ? { api_key: form.key } : {}) });
    return;
  }
  const patch: ConnectionPatch = {};
  if (form.name !== server.name) patch.name = form.name;
  if (form.address !== server.base_url) patch.base_url = form.address;
  if (form.key) patch.api_key = form.key;
  else if (form.removeKey) patch.api_key = null;
  if (Object.keys(patch).length) await app.servers.editConnection(server.id, patch);
}

function field(label: string, control: HTMLElement, hint?: string | null): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
}
