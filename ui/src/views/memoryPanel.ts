// The long-term memory panel: the facts every chat sees (section ⑤), and above them the facts the
// model proposed that wait for the user (memory in "review first" mode): accept, edit then accept,
// or dismiss each. Every fact says which chat it came from (a link that opens it at the message).
// Facts are added, edited, pinned and deleted here; a fact that looks like a secret is refused by
// the server, which says why (a toast) and the text stays for the user to fix.

import { diffWordsWithSpace } from 'diff';
import type { App } from '../app';
import type { Memory, MemoryMode } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { relative } from '../lib/format';
import { t, type Key } from '../lib/i18n';
import { confirmDialog } from './dialog';
import { openSettingsDialog } from './settingsLink';

const MODE_LINES: Record<MemoryMode, Key> = { off: 'memoryModeLineOff', review: 'memoryModeLineReview', auto: 'memoryModeLineAuto' };

/** How long a fact brought into view is flashed (the `flash` animation's length). */
const FLASH_MS = 2400;

const isSubmit = (e: KeyboardEvent) => e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229;

/** Old and new wording of a fact, the words taken out struck through and the words put in marked. */
function changeDiff(was: string, now: string): HTMLElement {
  const parts = diffWordsWithSpace(was, now).map((p) =>
    p.removed ? h('del', { 'data-testid': 'memory-diff-removed' }, p.value) : p.added ? h('ins', { 'data-testid': 'memory-diff-added' }, p.value) : p.value);
  return h('div', { class: 'memory-text memory-diff', 'data-testid': 'memory-diff' }, ...parts);
}

export function mountMemoryPanel(app: App, root: HTMLElement, onClose: () => void): () => void {
  const panel = new MemoryPanel(app, root, onClose);
  const redraw = () => {
    if (app.panels.panel === 'memory') panel.render();
  };
  app.on('memories', redraw);
  app.on('settings', redraw);
  return () => panel.render();
}

class MemoryPanel {
  /** The fact or proposal being edited, and its text so far (kept across redraws). */
  private editing: { id: number; text: string } | null = null;
  /** The fact flashed as it was brought into view, and since when. */
  private flashing: { id: number; since: number } | null = null;
  private readonly addArea = h('textarea', { class: 'input textarea', rows: 2, placeholder: t('memoryAddPlaceholder'), 'data-testid': 'memory-input', maxlength: 2000 });

  constructor(private readonly app: App, private readonly root: HTMLElement, private readonly onClose: () => void) {
    this.addArea.addEventListener('keydown', (e) => {
      if (isSubmit(e)) {
        e.preventDefault();
        void this.add();
      }
    });
  }

  private async add(): Promise<void> {
    const content = this.addArea.value.trim();
    if (!content) return;
    // Refused (a secret, say): the text stays so the user can fix it.
    if (await this.app.memory.addMemory(content)) this.addArea.value = '';
    else this.addArea.focus();
  }

  /** Where a fact came from: a link that opens its chat, at its message when known. */
  private source(m: Memory): HTMLElement | null {
    const app = this.app;
    const sid = m.source_session_id;
    if (sid == null) return null;
    const title = app.memory.sourceTitle(sid);
    const mid = m.source_message_id;
    return h('a', {
      class: 'memory-source', href: `#/chat/${sid}`, 'data-testid': 'memory-source',
      dataset: { sessionId: String(sid), ...(mid != null ? { messageId: String(mid) } : {}) },
      title: mid != null ? t('openSourceMessage') : t('openSource'),
      onClick: (e: Event) => {
        e.preventDefault();
        void app.chat.openSession(sid, true, mid ?? null);
      },
    }, icon('chat'), h('span', null, title ? t('fromChatTitled', { title }) : t('fromChat', { id: sid })));
  }

  private edit(m: Memory): void {
    this.editing = { id: m.id, text: m.content };
    this.render();
  }

  /** The editor for a fact or a proposal; `save` is told the text and says whether it is done. */
  private editor(m: Memory, saveLabel: Key, save: (text: string) => Promise<boolean>): HTMLElement {
    const area = h('textarea', { class: 'input textarea', rows: 3, maxlength: 2000, 'data-testid': 'memory-edit-input' });
    area.value = this.editing?.text ?? m.content;
    area.addEventListener('input', () => {
      if (this.editing) this.editing.text = area.value;
    });
    queueMicrotask(() => {
      area.focus();
      area.setSelectionRange(area.value.length, area.value.length);
    });
    const cancel = () => {
      this.editing = null;
      this.render();
    };
    const submit = async () => {
      if (!area.value.trim()) return;
      if (await save(area.value)) cancel();
      else area.focus();
    };
    area.addEventListener('keydown', (e) => {
      if (isSubmit(e)) {
        e.preventDefault();
        void submit();
      } else if (e.key === 'Escape') {
        e.stopPropagation();
        cancel();
      }
    });
    return h('li', { class: ['memory', 'editing', m.status === 'pending' && 'proposal'], 'data-testid': m.status === 'pending' ? 'memory-proposal' : 'memory', dataset: { memoryId: String(m.id) } },
      area,
      h('div', { class: 'row-end' },
        h('button', { class: 'btn btn-small', type: 'button', onClick: cancel }, t('cancel')),
        h('button', { class: 'btn btn-primary btn-small', type: 'button', 'data-testid': 'memory-save', onClick: () => void submit() }, t(saveLabel)),
      ));
  }

  private proposal(m: Memory): HTMLElement {
    const memory = this.app.memory;
    if (this.editing?.id === m.id) return this.editor(m, 'saveAndAccept', (text) => memory.acceptMemory(m.id, text));
    // A change to a saved fact shows what it changes, word by word, against the fact as it is.
    const saved = m.replaces != null ? memory.memories.find((f) => f.id === m.replaces) : undefined;
    return h('li', { class: 'memory proposal', 'data-testid': 'memory-proposal', dataset: { memoryId: String(m.id), ...(m.replaces != null ? { replaces: String(m.replaces) } : {}) } },
      saved ? h('div', { class: 'memory-change-label' }, icon('edit'), t('proposedChange')) : null,
      saved ? changeDiff(saved.content, m.content) : h('div', { class: 'memory-text' }, m.content),
      h('div', { class: 'memory-meta' }, this.source(m), when(m)),
      h('div', { class: 'proposal-actions' },
        h('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'memory-dismiss', onClick: () => void memory.dismissMemory(m.id) }, icon('close'), t('dismiss')),
        h('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'memory-edit', onClick: () => this.edit(m) }, icon('edit'), t('editProposal')),
        h('button', { class: 'btn btn-small btn-primary', type: 'button', 'data-testid': 'memory-accept', onClick: () => void memory.acceptMemory(m.id) }, icon('check'), t('accept')),
      ),
    );
  }

  private fact(m: Memory): HTMLElement {
    const memory = this.app.memory;
    if (this.editing?.id === m.id) {
      return this.editor(m, 'save', async (text) => text.trim() === m.content || memory.updateMemory(m.id, { content: text }));
    }
    return h('li', { class: ['memory', m.pinned && 'pinned'], 'data-testid': 'memory', dataset: { memoryId: String(m.id) } },
      h('div', { class: 'memory-text' }, m.content),
      h('div', { class: 'memory-meta' },
        m.pinned ? h('span', { class: 'badge badge-pin' }, icon('pin'), t('pinned')) : null,
        this.source(m),
        when(m),
        h('span', { class: 'spacer' }),
        h('button', { class: ['icon-btn', m.pinned && 'active'], type: 'button', title: m.pinned ? t('unpin') : t('pin'), 'aria-label': m.pinned ? t('unpin') : t('pin'), 'aria-pressed': String(m.pinned), onClick: () => void memory.updateMemory(m.id, { pinned: !m.pinned }) }, icon('pin')),
        h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), onClick: () => this.edit(m) }, icon('edit')),
        h('button', {
          class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('delete'),
          onClick: async () => {
            if (await confirmDialog({ title: t('deleteMemoryTitle'), body: m.content, confirm: t('delete'), danger: true })) await memory.deleteMemory(m.id);
          },
        }, icon('trash')),
      ),
    );
  }

  private modeLine(): HTMLElement | null {
    const mode = this.app.config.settings?.memory_mode;
    if (!mode) return null;
    return h('p', { class: ['memory-mode', `memory-mode-${mode}`], 'data-testid': 'memory-mode-line' },
      h('span', null, t(MODE_LINES[mode])), ' ',
      h('button', { class: 'link-btn', type: 'button', onClick: () => openSettingsDialog(this.app, 'memory') }, t('changeMemoryMode')));
  }

  render(): void {
    const { app, addArea, root } = this;
    const memory = app.memory;
    addArea.placeholder = t('memoryAddPlaceholder');
    // A proposal accepted or dismissed elsewhere (another window) is no longer edited here.
    const editing = this.editing;
    if (editing && ![...memory.pendingMemories, ...memory.memories].some((m) => m.id === editing.id)) this.editing = null;
    // Redrawn when a reply finishes too: what the user is typing keeps its focus.
    const typing = document.activeElement === addArea ? [addArea.selectionStart, addArea.selectionEnd] as const : null;
    replaceChildren(root,
      h('header', { class: 'panel-head' },
        h('h2', null, icon('brain'), t('memoryTitle')),
        h('button', { class: 'icon-btn', type: 'button', 'aria-label': t('close'), onClick: this.onClose }, icon('close')),
      ),
      h('div', { class: 'panel-body', 'data-testid': 'memory-panel' },
        h('p', { class: 'hint' }, t('memoryHint')),
        this.modeLine(),
        ...this.proposals(),
        h('div', { class: 'memory-add' }, addArea, h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'memory-add', onClick: () => void this.add() }, icon('plus'), t('add'))),
        this.facts(),
      ),
    );
    if (typing) {
      addArea.focus();
      addArea.setSelectionRange(typing[0], typing[1]);
    }
    this.showFocused();
  }

  /** The proposals waiting, and the heading of the saved facts under them (nothing when none wait). */
  private proposals(): HTMLElement[] {
    const { pendingMemories: pending, memories } = this.app.memory;
    if (!pending.length) return [];
    return [
      h('section', { class: 'memory-proposals', 'data-testid': 'memory-proposals' },
        h('h3', { class: 'memory-heading' }, t('memoryProposed', { n: pending.length })),
        h('p', { class: 'hint' }, t('memoryProposedHint')),
        h('ul', { class: 'memory-list' }, pending.map((m) => this.proposal(m)))),
      h('h3', { class: 'memory-heading' }, t('memorySaved', { n: memories.length })),
    ];
  }

  private facts(): HTMLElement {
    const memory = this.app.memory;
    return !memory.memoriesLoaded && memory.memoriesError ? h('div', { class: 'msg-error' }, icon('warn'), h('span', null, memory.memoriesError))
      : !memory.memoriesLoaded ? h('p', { class: 'hint' }, t('loading'))
      : memory.memories.length === 0 ? h('p', { class: 'empty-note' }, t('memoryEmpty'))
      : h('ul', { class: 'memory-list', 'data-testid': 'memory-facts' }, memory.memories.map((m) => this.fact(m)));
  }

  /** A fact a tool call's chip pointed at: brought into view and flashed once listed (a redraw
   *  meanwhile, as the lists load again, goes on with the flash where it was). */
  private showFocused(): void {
    const { app, root } = this;
    const focus = app.memory.focusMemoryId;
    const found = focus !== null ? root.querySelector<HTMLElement>(`[data-memory-id="${focus}"]`) : null;
    if (found) {
      app.memory.focusMemoryId = null;
      this.flashing = { id: focus!, since: performance.now() };
      found.scrollIntoView({ block: 'center' });
    }
    const flashing = this.flashing;
    const elapsed = flashing ? performance.now() - flashing.since : Infinity;
    const lit = flashing && elapsed < FLASH_MS ? root.querySelector<HTMLElement>(`[data-memory-id="${flashing.id}"]`) : null;
    if (lit) {
      lit.classList.add('flash');
      lit.style.animationDelay = `-${Math.round(elapsed)}ms`;
    } else {
      this.flashing = null;
    }
  }
}

const when = (m: Memory) => h('span', { class: 'memory-when', title: new Date(m.updated_at).toLocaleString() }, relative(m.updated_at));
