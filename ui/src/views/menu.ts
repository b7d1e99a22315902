// A small pop-up menu under a button; closes on a choice, a click elsewhere or Escape.

import { h, icon } from '../lib/dom';

export interface MenuItem {
  label: string;
  icon?: Parameters<typeof icon>[0];
  onSelect?: () => void;
  disabled?: boolean;
  /** Why it is disabled, shown on hover. */
  title?: string;
  danger?: boolean;
  /** A non-clickable heading inside the menu. */
  heading?: boolean;
  checked?: boolean;
}

let openMenu: { el: HTMLElement; cleanup: () => void } | null = null;

export function closeMenu(): void {
  if (openMenu) {
    openMenu.cleanup();
    openMenu = null;
  }
}

export function showMenu(anchor: HTMLElement, items: MenuItem[], label?: string): void {
  closeMenu();
  const menu = h('div', { class: 'menu', role: 'menu', 'aria-label': label ?? '' });
  for (const item of items) {
    if (item.heading) {
      menu.appendChild(h('div', { class: 'menu-heading' }, item.label));
      continue;
    }
    const btn = h('button', {
      class: ['menu-item', item.danger && 'menu-danger', item.checked && 'menu-checked'],
      type: 'button',
      role: 'menuitem',
      disabled: !!item.disabled,
      title: item.title,
      onClick: (e: Event) => {
        e.stopPropagation();
        closeMenu();
        item.onSelect?.();
      },
    }, item.icon ? icon(item.icon) : h('span', { class: 'icon-space' }), h('span', null, item.label), item.checked ? icon('check') : null);
    menu.appendChild(btn);
  }
  document.body.appendChild(menu);
  const r = anchor.getBoundingClientRect();
  const mw = menu.offsetWidth;
  const mh = menu.offsetHeight;
  const left = Math.max(8, Math.min(r.left, window.innerWidth - mw - 8));
  const top = r.bottom + 4 + mh > window.innerHeight ? Math.max(8, r.top - mh - 4) : r.bottom + 4;
  menu.style.left = `${left}px`;
  menu.style.top = `${top}px`;
  const onDown = (e: MouseEvent) => {
    if (!menu.contains(e.target as Node) && e.target !== anchor) closeMenu();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') closeMenu();
  };
  setTimeout(() => document.addEventListener('mousedown', onDown), 0);
  document.addEventListener('keydown', onKey);
  window.addEventListener('resize', closeMenu, { once: true });
  openMenu = {
    el: menu,
    cleanup: () => {
      menu.remove();
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    },
  };
  (menu.querySelector('button:not([disabled])') as HTMLButtonElement | null)?.focus();
}
