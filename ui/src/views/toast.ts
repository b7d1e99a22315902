// Short notices at the bottom of the window: confirmations fade, errors stay until dismissed
// or replaced, and show the server's message as it is. A notice can offer one action (Undo),
// shown as long as the notice. Notices sit above the composer, never over it or its Send button.

import { h, icon } from '../lib/dom';
import { t } from '../lib/i18n';
import type { NoticeHandle, NoticeKind, NoticeOptions } from '../state/notices';

let host: HTMLElement | null = null;
/** What notices keep clear of: the composer, once the chat is mounted. */
let avoid: HTMLElement | null = null;
const GAP = 10;

function container(): HTMLElement {
  if (!host || !host.isConnected) {
    host = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite', 'data-testid': 'toasts' });
    document.body.appendChild(host);
  }
  place();
  return host;
}

/** Puts the notices just above what they keep clear of (at the window's bottom without it). */
function place(): void {
  if (!host) return;
  const r = avoid?.isConnected ? avoid.getBoundingClientRect() : null;
  host.style.bottom = r && r.height > 0 ? `${Math.max(GAP, window.innerHeight - r.top + GAP)}px` : '';
}

/** Notices stay above `el` (the composer), however it grows and whatever the window's size. */
export function keepToastsAbove(el: HTMLElement): void {
  avoid = el;
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(place).observe(el);
  window.addEventListener('resize', place);
  place();
}

/** Shows a notice: the views' own, and every one the state gives (`renderNotices(toast)` at start). */
export function toast(message: string, kind: NoticeKind = 'info', opts: NoticeOptions = {}): NoticeHandle {
  const box = container();
  // The same error twice in a row shows once.
  const last = box.lastElementChild as HTMLElement | null;
  if (last && last.dataset.message === message && !opts.action) last.remove();
  const remove = () => item.remove();
  const close = h('button', { class: 'icon-btn', type: 'button', title: t('close'), 'aria-label': t('close'), onClick: remove }, icon('close'));
  const action = opts.action;
  const ms = opts.ms ?? (kind === 'info' ? 3500 : 12000);
  const item = h('div', { class: ['toast', `toast-${kind}`, action && 'toast-action'], dataset: { message }, role: kind === 'error' ? 'alert' : undefined, 'data-testid': 'toast' },
    kind === 'error' ? icon('warn') : icon('check'),
    h('span', { class: 'toast-text' }, message),
    action ? h('button', {
      class: 'btn btn-small toast-btn', type: 'button', 'data-testid': 'toast-action',
      onClick: () => {
        remove();
        action.run();
      },
    }, action.label) : null,
    close,
    // How long the action is offered, as a bar that runs out.
    action ? h('span', { class: 'toast-timer', 'aria-hidden': 'true', style: `animation-duration: ${ms}ms` }) : null,
  );
  box.appendChild(item);
  while (box.children.length > 4) box.firstElementChild!.remove();
  window.setTimeout(remove, ms);
  return { close: remove };
}
