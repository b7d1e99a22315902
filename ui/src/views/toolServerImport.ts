// Tool servers from an mcp.json, as people copy them: the file of Claude Desktop, Cursor, LM Studio
// or VS Code, pasted or chosen. The server reads it and says what each of its servers would be
// here (its name, what it runs or reaches, which values look like secrets, what stops it); the
// user ticks the ones to add, and they are added at once. Nothing is added before that, and no
// value of a variable or header is ever shown: the server answers with their names only.

import type { App } from '../app';
import type { ImportedServer, ImportedValue, ImportPreview } from '../backend/types';
import { ApiError, errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { reasonText } from '../lib/reasons';
import { toast } from './toast';

/** Larger than any mcp.json (the server refuses past this too, with the same words). */
const FILE_MAX_BYTES = 1024 * 1024;

/** The import form; `done` closes it (added, or cancelled). */
export function toolServerImport(app: App, done: () => void): HTMLElement {
  const text = textArea();
  const file = h('input', { type: 'file', accept: '.json,application/json', hidden: true, tabindex: -1, 'data-testid': 'import-file' });
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'import-error', hidden: true });
  const list = h('div', { 'data-testid': 'import-preview' });
  const addBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'import-add', hidden: true }, '');
  const say = (words: string | null) => {
    problem.textContent = words ?? '';
    problem.hidden = words === null;
  };
  /** What was previewed: the text (added from as it was shown), and a box per server. */
  let shown: { text: string; boxes: [string, HTMLInputElement][] } | null = null;

  const chosen = () => (shown ? shown.boxes.filter(([, box]) => box.checked && !box.disabled).map(([key]) => key) : []);
  const refreshAdd = () => {
    const n = chosen().length;
    addBtn.textContent = t('importAdd', { n });
    addBtn.hidden = !shown;
    addBtn.disabled = n === 0;
  };

  const preview = async () => {
    const pasted = text.value;
    shown = null;
    replaceChildren(list);
    refreshAdd();
    let answer: ImportPreview;
    try {
      answer = await app.tooling.previewImport(pasted);
    } catch (e) {
      say(errorMessage(e));
      return;
    }
    say(null);
    const boxes = previewList(list, answer, refreshAdd);
    shown = { text: pasted, boxes };
    refreshAdd();
  };

  // Edited after the preview: the list no longer says what the text would add.
  text.addEventListener('input', () => {
    if (!shown) return;
    shown = null;
    replaceChildren(list);
    refreshAdd();
  });
  file.addEventListener('change', () => void readPicked(file, text, say, preview));
  addBtn.addEventListener('click', async () => {
    if (!shown) return;
    addBtn.disabled = true;
    try {
      const added = await app.tooling.importServers(shown.text, chosen());
      toast(t('importAdded', { n: added.length }));
    } catch (e) {
      say(errorMessage(e));
      refreshAdd();
      return;
    }
    done();
  });

  queueMicrotask(() => text.focus());
  return h('div', { class: 'tool-server-form form', 'data-testid': 'tool-server-import' },
    h('h3', null, t('importTitle')),
    h('p', { class: 'hint' }, t('importHint')),
    text,
    h('div', { class: 'row-end' },
      file,
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-choose-file', onClick: () => file.click() }, icon('upload'), t('importChoose')),
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-preview-btn', onClick: () => void preview() }, t('importPreview')),
    ),
    problem,
    list,
    h('div', { class: 'row-end' },
      h('button', { class: 'btn', type: 'button', onClick: done }, t('cancel')),
      addBtn,
    ),
  );
}

/** Where the file's text is pasted; its placeholder is the shape such files have. */
function textArea(): HTMLTextAreaElement {
  return h('textarea', {
    class: 'input textarea mono', rows: 8, spellcheck: 'false', autocomplete: 'off',
    placeholder: '{\n  "mcpServers": {\n    "filesystem": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"] }\n  }\n}',
    'data-testid': 'import-text', 'aria-label': t('importText'),
  });
}

/** The file chosen, read into the text and previewed; one larger than any mcp.json is not read. */
async function readPicked(file: HTMLInputElement, text: HTMLTextAreaElement, say: (words: string | null) => void, preview: () => Promise<void>) {
  const picked = file.files?.[0];
  file.value = '';
  if (!picked) return;
  if (picked.size > FILE_MAX_BYTES) {
    say(errorMessage(new ApiError('mcp_config_too_large', `the file has ${picked.size} bytes; Maru reads up to ${FILE_MAX_BYTES}`, 400)));
    return;
  }
  try {
    text.value = await picked.text();
  } catch {
    say(t('importFileUnreadable'));
    return;
  }
  await preview();
}

/** The servers of a preview into `list`, each with a box to choose it; returns the boxes by the
 *  servers' names in the file. */
function previewList(list: HTMLElement, answer: ImportPreview, changed: () => void): [string, HTMLInputElement][] {
  const boxes: [string, HTMLInputElement][] = [];
  replaceChildren(list, answer.servers.length
    ? h('ul', { class: 'import-list' }, answer.servers.map((s) => {
        const box = h('input', { type: 'checkbox', 'data-testid': 'import-choose' });
        // A server that cannot be added cannot be chosen; one named like yours waits to be chosen.
        box.checked = !s.problem && !s.clash;
        box.disabled = !!s.problem;
        box.addEventListener('change', changed);
        boxes.push([s.key, box]);
        return importedRow(s, box);
      }))
    : h('p', { class: 'hint' }, t('importNone')));
  return boxes;
}

/** One server of the file as it would be added: its name (and the file's, when they differ), what
 *  it runs or reaches, its variables or headers by name, and what to know or what stops it. */
function importedRow(s: ImportedServer, box: HTMLInputElement): HTMLElement {
  const what = s.transport === 'stdio' ? [s.command, ...s.args.map(quoted)].join(' ') : s.url;
  const values = s.transport === 'stdio' ? s.env : s.headers;
  return h('li', { class: ['import-item', s.problem && 'unusable'], 'data-testid': 'import-item', dataset: { key: s.key, name: s.name } },
    h('label', { class: 'check' }, box,
      h('strong', { class: 'tool-server-name', 'data-testid': 'import-name' }, s.name),
      s.name !== s.key && !s.clash ? h('span', { class: 'hint' }, ` (${t('importFromKey', { key: s.key })})`) : null,
      h('span', { class: 'badge' }, s.transport === 'stdio' ? 'stdio' : 'HTTP'),
    ),
    what ? h('code', { class: 'tool-server-what', 'data-testid': 'import-what' }, what) : null,
    values.length
      ? h('p', { class: 'import-values', 'data-testid': 'import-values' },
          h('span', { class: 'hint' }, `${t(s.transport === 'stdio' ? 'importVariables' : 'importHeaders')}: `),
          values.map(valueChip))
      : null,
    s.clash ? h('p', { class: 'hint', 'data-testid': 'import-clash' }, icon('warn'), t('importClash', { key: s.key, name: s.name })) : null,
    !s.enabled ? h('p', { class: 'hint' }, t('importOff')) : null,
    s.notes.map((n) => h('p', { class: 'hint', 'data-testid': 'import-note' }, reasonText(n, n.code))),
    s.problem ? h('p', { class: 'field-error', 'data-testid': 'import-problem' }, reasonText(s.problem, s.problem.code)) : null,
  );
}

function valueChip(v: ImportedValue): HTMLElement {
  return h('span', { class: 'import-value', dataset: { name: v.name, secret: String(v.secret), placeholder: String(v.placeholder) } },
    h('code', null, v.name),
    v.secret ? h('span', { class: 'badge badge-present', title: t('importSecretHint') }, t('importSecret')) : null,
    v.placeholder ? h('span', { class: 'badge badge-error', title: t('importPlaceholderHint') }, t('importPlaceholder')) : null,
  );
}

/** An argument as a shell would need it to read as one. */
export function quoted(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
