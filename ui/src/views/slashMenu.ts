// The composer's `/` menu: typing `/` at the start of a line (or after a space) lists what can be
// run from the message box, narrowed as the word is typed; ↑ ↓ choose, Enter or Tab puts the
// command in the message, Escape closes. A skill named so is loaded with the message: its
// procedure reaches the model before it answers. Grouped by kind, so a tool server's prompts can
// join the same list.

import type { App } from '../app';
import { insertCommand, matchCommands, slashAt, type SlashCommand } from '../lib/commands';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';

export interface SlashMenu {
  readonly el: HTMLElement;
  /** A key pressed in the box: true when the menu took it (the box must not act on it). */
  keydown(e: KeyboardEvent): boolean;
  /** The text or the caret changed: the menu follows. */
  update(): void;
  close(): void;
}

export function mountSlashMenu(app: App, area: HTMLTextAreaElement, changed: () => void): SlashMenu {
  const el = h('div', { class: 'slash-menu', role: 'listbox', 'aria-label': t('slashTitle'), 'data-testid': 'slash-menu', hidden: true });
  let shown: SlashCommand[] = [];
  let selected = 0;
  let open = false;
  let asked = 0;

  const at = () => (area.selectionStart === area.selectionEnd ? slashAt(area.value, area.selectionStart ?? 0) : null);

  const choose = (c: SlashCommand) => {
    const where = at();
    if (!where) return close();
    const next = insertCommand(area.value, where, c.name);
    area.value = next.text;
    area.setSelectionRange(next.caret, next.caret);
    close();
    changed();
    area.focus();
  };

  const draw = (commands: SlashCommand[], query: string) => {
    shown = matchCommands(commands, query);
    selected = Math.min(selected, Math.max(0, shown.length - 1));
    open = true;
    el.hidden = false;
    drawItems(el, shown, selected, commands.length > 0, query, choose);
  };

  const update = () => {
    const where = at();
    if (!where) return close();
    draw(app.commands.known(), where.query);
    // Read (again) when not fresh; the list is drawn again if the same word is still typed.
    const mine = ++asked;
    void app.commands.list().then((commands) => {
      const still = at();
      if (mine === asked && open && still) draw(commands, still.query);
    }, () => {});
  };

  const close = () => {
    open = false;
    selected = 0;
    el.hidden = true;
    el.replaceChildren();
  };

  const keydown = (e: KeyboardEvent): boolean => {
    if (!open || e.isComposing) return false;
    if (e.key === 'Escape') {
      close();
      return true;
    }
    if (shown.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      selected = (selected + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
      const where = at();
      if (where) draw(app.commands.known(), where.query);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      choose(shown[selected]);
      return true;
    }
    return false;
  };

  area.addEventListener('blur', () => close());
  area.addEventListener('click', () => update());
  return { el, keydown, update, close };
}

/** The menu's rows: the kind's heading, the commands that match (the selected one marked), or why
 *  none shows, and the keys that work. */
function drawItems(el: HTMLElement, shown: SlashCommand[], selected: number, any: boolean, query: string, choose: (c: SlashCommand) => void): void {
  replaceChildren(el,
    h('div', { class: 'slash-heading' }, icon('layers'), t('slashSkills')),
    shown.length
      ? shown.map((c, i) => h('button', {
          class: ['slash-item', i === selected && 'selected'], type: 'button', role: 'option', 'aria-selected': String(i === selected),
          'data-testid': 'slash-item', dataset: { name: c.name },
          // Chosen on mousedown: a click would first take the focus from the box.
          onMousedown: (e: Event) => {
            e.preventDefault();
            choose(c);
          },
        }, h('span', { class: 'slash-name' }, `/${c.name}`), h('span', { class: 'slash-desc' }, c.description)))
      : h('p', { class: 'slash-empty', 'data-testid': 'slash-empty' }, any ? t('slashNoMatch', { query }) : t('slashNoSkills', { settings: t('settings'), tab: t('settingsSkills') })),
    h('p', { class: 'slash-hint' }, t('slashHint')),
  );
}
