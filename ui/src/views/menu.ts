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
  /** A heading of a group within a section (a server's models): its words kept as written. */
  group?: boolean;
  checked?: boolean;
}

/** The least room kept between a menu and the window's edges. */
const MENU_MARGIN = 8;

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/**
 * Where a menu of `size` goes for an anchor: under it (above when there is no room below), its
 * left edge on the anchor's, or its right edge on the anchor's when it would overflow on the
 * right; always inside `view` with a margin (pinned to the top-left when it is bigger).
 */
export function placeMenu(anchor: Box, size: { width: number; height: number }, view: { width: number; height: number }): { left: number; top: number } {
  const m = MENU_MARGIN;
  const clamp = (v: number, max: number) => Math.max(m, Math.min(v, max));
  const left = anchor.left + size.width + m <= view.width ? anchor.left : anchor.right - size.width;
  let top = anchor.bottom + 4;
  if (top + size.height + m > view.height) {
    const above = anchor.top - 4 - size.height;
    top = above >= m ? above : view.height - size.height - m;
  }
  return { left: clamp(left, view.width - size.width - m), top: clamp(top, view.height - size.height - m) };
}

let openMenu: { el: HTMLElement; cleanup: () => void } | null = null;

export function closeMenu(): void {
  if (openMenu) {
    openMenu.cleanup();
    openMenu = null;
  }
}

/** An open menu: `update` redraws its items in place (what arrived while it was open), keeping
 *  the focused item; it does nothing once the menu has closed. */
export interface MenuHandle {
  update(items: MenuItem[]): void;
  readonly open: boolean;
}

function itemNodes(items: MenuItem[]): HTMLElement[] {
  return items.map((item) => item.heading
    ? h('div', { class: ['menu-heading', item.group && 'menu-group'] }, item.label)
    : h('button', {
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
    }, item.icon ? icon(item.icon) : h('span', { class: 'icon-space' }), h('span', null, item.label), item.checked ? icon('check') : null));
}

export function showMenu(anchor: HTMLElement, items: MenuItem[], label?: string): MenuHandle {
  closeMenu();
  const menu = h('div', { class: 'menu', role: 'menu', 'aria-label': label ?? '' }, itemNodes(items));
  document.body.appendChild(menu);
  // Kept inside the visible area (the page's scroll bar excluded), however narrow the window.
  const place = () => {
    const view = { width: document.documentElement.clientWidth || window.innerWidth, height: document.documentElement.clientHeight || window.innerHeight };
    menu.style.maxWidth = `${Math.max(0, view.width - 2 * MENU_MARGIN)}px`;
    const { left, top } = placeMenu(anchor.getBoundingClientRect(), { width: menu.offsetWidth, height: menu.offsetHeight }, view);
    menu.style.left = `${left}px`;
    menu.style.top = `${top}px`;
  };
  place();
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
  const handle: MenuHandle = {
    get open() {
      return openMenu?.el === menu;
    },
    update(next) {
      if (!handle.open) return;
      const focused = document.activeElement instanceof HTMLElement && menu.contains(document.activeElement) ? document.activeElement.textContent : null;
      const scroll = menu.scrollTop;
      menu.replaceChildren(...itemNodes(next));
      place();
      menu.scrollTop = scroll;
      const again = [...menu.querySelectorAll<HTMLButtonElement>('button:not([disabled])')];
      (again.find((b) => b.textContent === focused) ?? again[0])?.focus();
    },
  };
  return handle;
}
