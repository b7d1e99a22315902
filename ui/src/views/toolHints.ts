// What a tool's server says the tool does (its MCP annotations), as badges: on the card of a call
// waiting for approval and in the tool servers' list. Only what the server says: a tool whose
// server says nothing shows none, and the tooltip says whose word it is.

import type { ToolHints } from '../backend/types';
import { h } from '../lib/dom';
import { t, type Key } from '../lib/i18n';

export function toolHintBadges(hints: ToolHints | null | undefined): HTMLElement | null {
  const keys: Key[] = [];
  if (hints?.read_only === true) keys.push('toolReadOnly');
  else if (hints?.destructive === true) keys.push('toolDestructive');
  if (hints?.open_world === true) keys.push('toolOpenWorld');
  if (!keys.length) return null;
  return h('span', { class: 'tool-hints', title: t('toolHintsBy'), 'data-testid': 'tool-hints' },
    keys.map((k) => h('span', { class: ['badge', k === 'toolDestructive' ? 'badge-stopped' : 'badge-folder'], dataset: { hint: k } }, t(k))));
}
