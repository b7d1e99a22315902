// The long-term memory panel: the facts every chat sees (section ⑤). Add, edit, pin, delete.

import type { App } from '../app';
import type { Memory } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { relative } from '../lib/format';
import { t } from '../lib/i18n';
import { confirmDialog } from './dialog';

export function mountMemoryPanel(app: App, root: HTMLElement, onClose: () => void): () => void {
  let editing: number | null = null;
  const addArea = h('textarea', { class: 'input textarea', rows: 2, placeholder: t('memoryAddPlaceholder'), 'data-testid': 'memory-input', maxlength: 2000 });
  const add = async () => {
    const content = addArea.value.trim();
    if (!content) return;
    if (await app.addMemory(content)) addArea.value = '';
  };
  addArea.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      void add();
    }
  });

  const item = (m: Memory): HTMLElement => {
    if (editing === m.id) {
      const area = h('textarea', { class: 'input textarea', rows: 3, maxlength: 2000 });
      area.value = m.content;
      queueMicrotask(() => area.focus());
      const save = async () => {
        if (area.value.trim() === m.content || (await app.updateMemory(m.id, { content: area.value }))) {
          editing = null;
          render();
        }
      };
      area.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
          e.preventDefault();
          void save();
        } else if (e.key === 'Escape') {
          editing = null;
          render();
        }
      });
      return h('li', { class: 'memory editing' }, area,
        h('div', { class: 'row-end' },
          h('button', { class: 'btn btn-small', type: 'button', onClick: () => { editing = null; render(); } }, t('cancel')),
          h('button', { class: 'btn btn-primary btn-small', type: 'button', onClick: () => void save() }, t('save')),
        ));
    }
    return h('li', { class: ['memory', m.pinned && 'pinned'], 'data-testid': 'memory' },
      h('div', { class: 'memory-text' }, m.content),
      h('div', { class: 'memory-meta' },
        m.pinned ? h('span', { class: 'badge badge-pin' }, icon('pin'), t('pinned')) : null,
        m.source_session_id ? h('a', { href: `#/chat/${m.source_session_id}`, onClick: (e: Event) => { e.preventDefault(); void app.openSession(m.source_session_id!); } }, t('fromChat', { id: m.source_session_id })) : null,
        h('span', { title: new Date(m.updated_at).toLocaleString() }, relative(m.updated_at)),
        h('span', { class: 'spacer' }),
        h('button', { class: ['icon-btn', m.pinned && 'active'], type: 'button', title: m.pinned ? t('unpin') : t('pin'), 'aria-label': m.pinned ? t('unpin') : t('pin'), 'aria-pressed': String(m.pinned), onClick: () => void app.updateMemory(m.id, { pinned: !m.pinned }) }, icon('pin')),
        h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), onClick: () => { editing = m.id; render(); } }, icon('edit')),
        h('button', {
          class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('delete'),
          onClick: async () => {
            if (await confirmDialog({ title: t('deleteMemoryTitle'), body: m.content, confirm: t('delete'), danger: true })) await app.deleteMemory(m.id);
          },
        }, icon('trash')),
      ),
    );
  };

  const render = () => {
    addArea.placeholder = t('memoryAddPlaceholder');
    replaceChildren(root,
      h('header', { class: 'panel-head' },
        h('h2', null, icon('brain'), t('memoryTitle')),
        h('button', { class: 'icon-btn', type: 'button', 'aria-label': t('close'), onClick: onClose }, icon('close')),
      ),
      h('div', { class: 'panel-body' },
        h('p', { class: 'hint' }, t('memoryHint')),
        h('div', { class: 'memory-add' }, addArea, h('button', { class: 'btn btn-primary', type: 'button', onClick: () => void add() }, icon('plus'), t('add'))),
        !app.memoriesLoaded && app.memoriesError ? h('div', { class: 'msg-error' }, icon('warn'), h('span', null, app.memoriesError))
          : !app.memoriesLoaded ? h('p', { class: 'hint' }, t('loading'))
          : app.memories.length === 0 ? h('p', { class: 'empty-note' }, t('memoryEmpty'))
          : h('ul', { class: 'memory-list' }, app.memories.map(item)),
      ),
    );
  };
  app.on('memories', () => {
    if (app.panel === 'memory') render();
  });
  return render;
}
