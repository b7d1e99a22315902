// Short notices at the bottom of the window: confirmations fade, errors stay until dismissed
// or replaced, and show the server's message as it is.

import { h, icon } from '../lib/dom';
import { t } from '../lib/i18n';

let host: HTMLElement | null = null;

function container(): HTMLElement {
  if (!host || !host.isConnected) {
    host = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.appendChild(host);
  }
  return host;
}

export function toast(message: string, kind: 'info' | 'error' = 'info'): void {
  const box = container();
  // The same error twice in a row shows once.
  const last = box.lastElementChild as HTMLElement | null;
  if (last && last.dataset.message === message) last.remove();
  const close = h('button', { class: 'icon-btn', type: 'button', title: t('close'), 'aria-label': t('close'), onClick: () => item.remove() }, icon('close'));
  const item = h('div', { class: ['toast', `toast-${kind}`], dataset: { message }, role: kind === 'error' ? 'alert' : undefined },
    kind === 'error' ? icon('warn') : icon('check'),
    h('span', { class: 'toast-text' }, message),
    close,
  );
  box.appendChild(item);
  while (box.children.length > 4) box.firstElementChild!.remove();
  if (kind === 'info') window.setTimeout(() => item.remove(), 3500);
  else window.setTimeout(() => item.remove(), 12000);
}
