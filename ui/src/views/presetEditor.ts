// The presets tab of settings: built-in presets to read, the user's own to add, edit and delete.

import type { App } from '../app';
import type { Preset } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { presetDescription, presetName } from '../lib/presets';
import { confirmDialog } from './dialog';

export function mountPresetEditor(app: App, root: HTMLElement): void {
  /** The preset being edited: an id, "new", or none. */
  let editing: number | 'new' | null = null;

  const form = (p?: Preset): HTMLElement => {
    const name = h('input', { class: 'input', type: 'text', value: p?.name ?? '', maxlength: 100, placeholder: t('presetName') });
    const description = h('input', { class: 'input', type: 'text', value: p?.description ?? '' });
    const prompt = h('textarea', { class: 'input textarea', rows: 8 });
    prompt.value = p?.prompt ?? '';
    queueMicrotask(() => name.focus());
    const save = async () => {
      const ok = p && p.id !== null
        ? await app.config.updatePreset(p.id, { name: name.value, description: description.value, prompt: prompt.value })
        : await app.config.createPreset(name.value, description.value, prompt.value);
      if (ok) {
        editing = null;
        render();
      }
    };
    return h('div', { class: 'preset-form form' },
      h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('presetName')), name),
      h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('presetDescription')), description),
      h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('presetPrompt')), prompt),
      h('div', { class: 'row-end' },
        h('button', { class: 'btn', type: 'button', onClick: () => { editing = null; render(); } }, t('cancel')),
        h('button', { class: 'btn btn-primary', type: 'button', onClick: () => void save() }, t('save')),
      ),
    );
  };

  const item = (p: Preset): HTMLElement => {
    if (!p.builtin && editing === p.id) return h('li', { class: 'preset editing' }, form(p));
    return h('li', { class: 'preset' },
      h('div', { class: 'preset-top' },
        h('strong', null, presetName(p)),
        p.builtin ? h('span', { class: 'badge' }, t('builtin')) : null,
        h('span', { class: 'spacer' }),
        p.builtin || p.id === null ? null : [
          h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), onClick: () => { editing = p.id; render(); } }, icon('edit')),
          h('button', {
            class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('delete'),
            onClick: async () => {
              if (await confirmDialog({ title: t('deletePresetTitle', { name: p.name }), body: t('deletePresetBody'), confirm: t('delete'), danger: true })) await app.config.deletePreset(p.id!);
            },
          }, icon('trash')),
        ],
      ),
      p.description ? h('p', { class: 'hint' }, presetDescription(p)) : null,
      h('details', null, h('summary', null, t('showText')), h('pre', { class: 'prompt-text' }, p.prompt)),
    );
  };

  const render = () => {
    const mine = app.config.presets.filter((p) => !p.builtin);
    const builtin = app.config.presets.filter((p) => p.builtin);
    replaceChildren(root,
      h('div', { class: 'row-between' },
        h('h3', null, t('yourPresets')),
        editing === 'new' ? null : h('button', { class: 'btn btn-small', type: 'button', onClick: () => { editing = 'new'; render(); } }, icon('plus'), t('newPreset')),
      ),
      editing === 'new' ? form() : null,
      mine.length ? h('ul', { class: 'preset-list' }, mine.map(item)) : h('p', { class: 'hint' }, t('noUserPresets')),
      h('h3', null, t('builtinPresets')),
      h('ul', { class: 'preset-list' }, builtin.map(item)),
    );
  };
  const off = app.on('presets', () => {
    if (root.isConnected) render();
    else off();
  });
  render();
}
