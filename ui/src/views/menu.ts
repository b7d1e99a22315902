// A small pop-up menu under a button; closes on a choice, a click elsewhere or Escape.

import { h, icon } from '../lib/dom';
import { t } from '../lib/i18n';

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

/** Items whose label holds every word of `query` (any case), each with the headings above it
 *  that still head something. */
export function filterMenu(items: MenuItem[], query: string): MenuItem[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return items;
  const out: MenuItem[] = [];
  let section: MenuItem | null = null;
  let group: MenuItem | null = null;
  for (const item of items) {
    if (item.heading) {
      if (item.group) group = item;
      else [section, group] = [item, null];
      continue;
    }
    const label = item.label.toLowerCase();
    if (item.disabled || !words.every((w) => label.includes(w))) continue;
    if (section) out.push(section);
    if (group) out.push(group);
    [section, group] = [null, null];
    out.push(item);
  }
  return out;
}

/** A search box atop a menu: what is typed narrows the items (`filterMenu`); ↓ goes into them. */
function menuSearch(menu: HTMLElement, placeholder: string, items: () => MenuItem[], list: HTMLElement): HTMLInputElement {
  const input = h('input', { class: 'input menu-search', type: 'search', placeholder, 'aria-label': placeholder, 'data-testid': 'menu-search', spellcheck: 'false', autocomplete: 'off' });
  const draw = () => {
    const shown = filterMenu(items(), input.value);
    list.replaceChildren(...(shown.length ? itemNodes(shown) : [h('div', { class: 'menu-empty' }, t('menuNoMatch'))]));
  };
  input.addEventListener('input', draw);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      list.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      list.querySelector<HTMLButtonElement>('button:not([disabled])')?.click();
    }
  });
  menu.prepend(input);
  return input;
}

export function showMenu(anchor: HTMLElement, items: MenuItem[], label?: string, opts: { search?: string } = {}): MenuHandle {
  closeMenu();
  let current = items;
  const list = h('div', { class: 'menu-items' }, itemNodes(items));
  const menu = h('div', { class: ['menu', opts.search && 'menu-searchable'], role: 'menu', 'aria-label': label ?? '' }, list);
  const search = opts.search ? menuSearch(menu, opts.search, () => current, list) : null;
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
  if (search) search.focus();
  else (menu.querySelector('button:not([disabled])') as HTMLButtonElement | null)?.focus();
  const handle: MenuHandle = {
    get open() {
      return openMenu?.el === menu;
    },
    update(next) {
      if (!handle.open) return;
      const focused = document.activeElement instanceof HTMLElement && menu.contains(document.activeElement) ? document.activeElement.textContent : null;
      const scroll = menu.scrollTop;
      current = next;
      list.replaceChildren(...itemNodes(search ? filterMenu(next, search.value) : next));
      place();
      menu.scrollTop = scroll;
      if (search && (focused === null || document.activeElement === search)) return;
      const again = [...list.querySelectorAll<HTMLButtonElement>('button:not([disabled])')];
      (again.find((b) => b.textContent === focused) ?? again[0])?.focus();
    },
  };
  return handle;
}
