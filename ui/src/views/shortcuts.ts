// The list of keyboard shortcuts (Ctrl+/, ⌘/ on a Mac).

import { h } from '../lib/dom';
import { t } from '../lib/i18n';
import { shortcutGroups } from '../lib/shortcuts';
import { openDialog, type DialogHandle } from './dialog';

let open: DialogHandle | null = null;

/** Opens the list, or closes it when it is already open. */
export function toggleShortcuts(): void {
  if (open) {
    open.close();
    return;
  }
  const body = h('div', { class: 'shortcuts', 'data-testid': 'shortcuts' },
    shortcutGroups().map((g) => h('section', { class: 'shortcut-group' },
      h('h3', null, g.title),
      h('dl', null, g.rows.map((r) => h('div', { class: 'shortcut', 'data-testid': 'shortcut' },
        h('dt', null, r.keys.map((combo, i) => [
          i > 0 ? h('span', { class: 'kbd-or' }, ' / ') : null,
          combo.map((k, j) => [j > 0 ? h('span', { class: 'kbd-plus' }, '+') : null, h('kbd', null, k)]),
        ])),
        h('dd', null, r.label),
      ))),
    )),
  );
  open = openDialog({ title: t('kbTitle'), body, className: 'dialog-shortcuts', onClose: () => (open = null) });
}
