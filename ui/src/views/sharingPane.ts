// Settings → Share with other apps: which of Maru's tools other apps (Claude Desktop, Claude Code,
// editors) may call through `maru mcp` or `/mcp` (memory read, memory write, chats, and the files
// of the projects checked), the lines that connect them, and the calls they made, newest first.
// Nothing is shared until the user checks something; each change is saved as it is made.

import type { App } from '../app';
import type { SharedCall, Sharing } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { dateTime } from '../lib/format';
import { t, type Key } from '../lib/i18n';

/** The event the settings dialog sends a pane when its tab is shown. */
export const SHOWN = 'pane-shown';

/** The lines that add Maru to Claude Code and to Claude Desktop's `mcpServers`. */
export const CONNECT_LINES = ['claude mcp add maru -- maru mcp', '"maru": { "command": "maru", "args": ["mcp"] }'];

/** The sharing setting with one group or project turned on or off. */
export function toggled(s: Sharing, what: { group: 'memory_read' | 'memory_write' | 'chats' } | { project: number }, on: boolean): Sharing {
  if ('group' in what) return { ...s, [what.group]: on };
  const projects = s.projects.filter((id) => id !== what.project);
  return { ...s, projects: on ? [...projects, what.project] : projects };
}

export function sharingPane(app: App): HTMLElement {
  const current = (): Sharing => app.config.settings?.sharing ?? { memory_read: false, memory_write: false, chats: false, projects: [] };
  const save = (next: Sharing) => void app.config.saveSettings({ sharing: next });
  const group = (key: 'memory_read' | 'memory_write' | 'chats', label: Key, hint: Key) => {
    const box = h('input', { type: 'checkbox', 'data-testid': `share-${key}` });
    box.checked = current()[key];
    box.addEventListener('change', () => save(toggled(current(), { group: key }, box.checked)));
    return h('label', { class: 'choice' }, box, h('span', { class: 'choice-text' }, h('span', { class: 'choice-label' }, t(label)), h('span', { class: 'field-hint' }, t(hint))));
  };
  const projects = app.sessions.projects.map(({ project }) => {
    const box = h('input', { type: 'checkbox', 'data-testid': `share-project-${project.id}` });
    box.checked = current().projects.includes(project.id);
    box.addEventListener('change', () => save(toggled(current(), { project: project.id }, box.checked)));
    return h('label', { class: 'row' }, box, h('span', null, app.sessions.projectName(project)));
  });
  const calls = h('ul', { class: 'shared-calls', 'data-testid': 'shared-calls' });
  const refresh = async () => {
    const list = await app.config.sharedCalls();
    if (list) replaceChildren(calls, list.length === 0 ? h('li', { class: 'muted' }, t('sharingCallsEmpty')) : list.map(callRow));
  };
  // The calls are asked for when the tab is shown (`SHOWN`), not each time Settings opens.
  const pane = h('div', { class: 'pane form', 'data-testid': 'sharing-pane' },
    h('p', { class: 'hint' }, t('sharingHint')),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('sharingWhat')),
      group('memory_read', 'sharingMemoryRead', 'sharingMemoryReadHint'),
      group('memory_write', 'sharingMemoryWrite', 'sharingMemoryWriteHint'),
      group('chats', 'sharingChats', 'sharingChatsHint'),
    ),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('sharingProjects')),
      h('p', { class: 'hint' }, t('sharingProjectsHint')),
      projects.length ? projects : h('p', { class: 'muted' }, t('sharingNoProjects')),
    ),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('sharingConnect')),
      h('p', { class: 'hint' }, t('sharingConnectHint')),
      CONNECT_LINES.map((line) => h('pre', { class: 'prompt-text' }, line)),
    ),
    h('fieldset', { class: 'choices' },
      h('legend', null, t('sharingCalls'), ' ',
        h('button', { class: 'btn btn-ghost', type: 'button', 'data-testid': 'shared-calls-refresh', onClick: () => void refresh() }, icon('refresh'), t('sharingCallsRefresh'))),
      calls,
    ),
  );
  pane.addEventListener(SHOWN, () => void refresh());
  return pane;
}

/** One call: when, which app, which tool, what it asked (and why it was refused). */
function callRow(c: SharedCall): HTMLElement {
  return h('li', { class: c.ok ? 'shared-call' : 'shared-call refused' },
    h('span', { class: 'muted' }, dateTime(c.at)), ' · ',
    h('strong', null, c.client || t('sharingUnnamedClient')), ' · ',
    h('code', null, c.tool), ' ',
    h('span', null, c.summary),
    c.ok ? null : h('span', { class: 'field-error' }, ' ', t('sharingCallRefused', { error: c.error ?? '' })),
  );
}
