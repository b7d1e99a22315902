// Searching every chat from the sidebar (Ctrl+K / ⌘K): results across projects, best first, each
// with its title, project and the matching excerpt with the words marked. Opening one opens the
// chat at that message. The files attached to chats and projects are searched alongside, their
// passages in a group of their own after the chats (a file's opens its chat, or its project's files).
// Typing is debounced; an answer to an older query is dropped. A toggle searches earlier versions of
// messages too (remembered for the page's life), each such hit marked.

import type { App } from '../app';
import { errorMessage } from '../lib/apiError';
import type { ChatHit, FileHit } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { openProjectFilesDialog } from './files';

const DEBOUNCE_MS = 200;
const LIMIT = 30;

/** Whether earlier versions of messages are searched too: for the page's life, not saved. */
let withVersions = false;

/**
 * The snippet as text nodes with the highlighted ranges in <mark>. Ranges are `[start, end)` in
 * characters (Unicode code points, as the server counts them), not UTF-16 units. Never HTML.
 */
export function highlightedSnippet(snippet: string, highlights: Array<[number, number]>): Node[] {
  const chars = Array.from(snippet);
  const out: Node[] = [];
  let pos = 0;
  const ranges = [...highlights].sort((a, b) => a[0] - b[0]);
  for (const [start, end] of ranges) {
    const a = Math.max(pos, Math.min(start, chars.length));
    const b = Math.min(Math.max(end, a), chars.length);
    if (a > pos) out.push(document.createTextNode(chars.slice(pos, a).join('')));
    if (b > a) out.push(h('mark', null, chars.slice(a, b).join('')));
    pos = Math.max(pos, b);
  }
  if (pos < chars.length) out.push(document.createTextNode(chars.slice(pos).join('')));
  return out;
}

/** "Ctrl+K", or "⌘K" on a Mac. */
function shortcut(): string {
  return /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent) ? '⌘K' : 'Ctrl+K';
}

export interface SearchBox {
  /** The input, always in the sidebar. */
  box: HTMLElement;
  /** The results, shown in place of the projects while there is a query. */
  results: HTMLElement;
  active(): boolean;
  focus(): void;
  /** Redraws the results (a chat opened, the language changed). */
  render(): void;
}

export function mountSearch(app: App, onActive: () => void): SearchBox {
  const input = h('input', {
    class: 'search-input', type: 'search', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'search',
    enterkeyhint: 'search',
  });
  const keys = h('kbd', { class: 'search-keys' });
  const box = h('div', { class: 'search-box', role: 'search' }, icon('search'), input, keys);
  const results = h('div', { class: 'search-results', 'data-testid': 'search-results' });
  // Made once, so that redrawing the results keeps its focus.
  const versionsBox = h('input', { type: 'checkbox', checked: withVersions, 'data-testid': 'search-versions' });
  const versionsText = h('span');
  const versionsToggle = h('label', { class: 'search-toggle' }, versionsBox, versionsText);
  versionsBox.addEventListener('change', () => {
    withVersions = versionsBox.checked;
    if (!query) return;
    window.clearTimeout(timer);
    timer = 0;
    void run(query);
  });

  let query = '';
  let hits: ChatHit[] = [];
  let error: string | null = null;
  let files: FileHit[] = [];
  /** Why the files could not be searched: said in their group, the chats still shown. */
  let filesError: string | null = null;
  let loading = false;
  let selected = 0;
  let seq = 0;
  let timer = 0;
  /** The search under way, if any. */
  let pending: Promise<void> | null = null;

  const active = () => query !== '';

  const run = (q: string): Promise<void> => {
    pending = search(q).finally(() => {
      pending = null;
    });
    return pending;
  };

  const search = async (q: string) => {
    const mine = ++seq;
    loading = true;
    render();
    const [chats, inFiles] = await Promise.allSettled([app.search.searchChats(q, LIMIT, withVersions), app.search.searchFiles(q, LIMIT)]);
    if (mine !== seq) return;
    hits = chats.status === 'fulfilled' ? chats.value : [];
    error = chats.status === 'rejected' ? errorMessage(chats.reason) : null;
    files = inFiles.status === 'fulfilled' ? inFiles.value : [];
    filesError = inFiles.status === 'rejected' ? errorMessage(inFiles.reason) : null;
    loading = false;
    selected = 0;
    render();
  };

  const setQuery = (q: string) => {
    const was = active();
    query = q.trim();
    window.clearTimeout(timer);
    if (!query) {
      seq++;
      hits = [];
      error = null;
      files = [];
      filesError = null;
      loading = false;
    } else {
      timer = window.setTimeout(() => {
        timer = 0;
        void run(query);
      }, DEBOUNCE_MS);
    }
    if (was !== active()) onActive();
    render();
  };

  const clear = () => {
    input.value = '';
    setQuery('');
  };

  /** The chats' hits, then the files': what the arrows and Enter run over. */
  const count = () => hits.length + files.length;

  const openFile = (hit: FileHit) => {
    if (hit.session_id !== null) {
      void app.chat.openSession(hit.session_id, true);
      return;
    }
    const project = app.sessions.entry(hit.project_id)?.project;
    if (project) openProjectFilesDialog(app, project);
  };

  /** Opens the `i`th result of both groups. */
  const open = (i: number) => {
    if (i < hits.length) void app.search.openHit(hits[i]);
    else if (i < count()) openFile(files[i - hits.length]);
  };

  input.addEventListener('input', () => setQuery(input.value));
  input.addEventListener('keydown', (e) => {
    if (e.isComposing || e.keyCode === 229) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const n = count();
      if (!n) return;
      e.preventDefault();
      selected = (selected + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
      render();
      results.querySelector('.search-hit.selected')?.scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (!query) return;
      // Typed faster than the debounce, or the answer is on its way: the first result of this query.
      if (timer) {
        window.clearTimeout(timer);
        timer = 0;
        void run(query).then(() => open(selected));
      } else if (pending) {
        void pending.then(() => open(selected));
      } else {
        open(selected);
      }
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (input.value) clear();
      else input.blur();
    }
  });

  const hitNode = (hit: ChatHit, i: number): HTMLElement => {
    const project = app.sessions.entry(hit.project_id)?.project;
    const title = hit.title.trim() || t('untitled');
    return h('li', null,
      h('button', {
        class: ['search-hit', i === selected && 'selected', app.chat.session?.id === hit.session_id && 'current'],
        type: 'button',
        'data-testid': 'search-hit',
        // Not data-session-id / data-message-id: those name the chats and messages themselves.
        dataset: { hitSession: String(hit.session_id), hitMessage: hit.message_id === null ? '' : String(hit.message_id) },
        onClick: () => {
          selected = i;
          open(i);
        },
      },
        h('span', { class: 'hit-top' },
          h('span', { class: 'hit-title' }, title),
          hit.earlier_version ? h('span', { class: 'hit-badge', 'data-testid': 'earlier-version', title: t('earlierVersionHint') }, t('earlierVersion')) : null,
          project ? h('span', { class: 'hit-project', title: app.sessions.projectName(project) }, icon('folder'), h('span', null, app.sessions.projectName(project))) : null,
        ),
        h('span', { class: 'hit-snippet', 'data-testid': 'search-snippet' },
          hit.message_id === null ? h('span', { class: 'hit-kind' }, `${t('titleMatch')}: `) : null,
          highlightedSnippet(hit.snippet, hit.highlights)),
      ));
  };

  /** A passage of a file, `i` counted after the chats' hits. */
  const fileNode = (hit: FileHit, i: number): HTMLElement => {
    const project = app.sessions.entry(hit.project_id)?.project;
    // Its chat's title (the sidebar's, or a chat hit's), else its project's name.
    const chat = hit.session_id === null ? undefined
      : (app.sessions.findSession(hit.session_id)?.title ?? hits.find((c) => c.session_id === hit.session_id)?.title);
    const where = hit.session_id !== null && chat !== undefined ? (chat.trim() || t('untitled')) : project ? app.sessions.projectName(project) : null;
    return h('li', null,
      h('button', {
        class: ['search-hit', i === selected && 'selected', hit.session_id !== null && app.chat.session?.id === hit.session_id && 'current'],
        type: 'button',
        'data-testid': 'search-file-hit',
        onClick: () => {
          selected = i;
          open(i);
        },
      },
        h('span', { class: 'hit-top' },
          h('span', { class: 'hit-title', title: hit.name }, hit.name),
          where !== null ? h('span', { class: 'hit-project', title: where }, icon(hit.session_id === null ? 'folder' : 'chat'), h('span', null, where)) : null,
        ),
        h('span', { class: 'hit-snippet', 'data-testid': 'search-snippet' },
          h('span', { class: 'hit-kind', 'data-testid': 'file-location' }, hit.page !== null ? t('filePage', { page: hit.page }) : t('fileLine', { line: hit.line })),
          h('span', { class: 'hit-kind' }, ': '),
          highlightedSnippet(hit.snippet, hit.highlights)),
      ));
  };

  const render = () => {
    input.placeholder = t('searchChats');
    input.setAttribute('aria-label', t('searchLabel', { keys: shortcut() }));
    input.title = t('searchLabel', { keys: shortcut() });
    keys.textContent = shortcut();
    keys.hidden = active();
    versionsBox.checked = withVersions;
    versionsText.textContent = t('searchVersions');
    if (!active()) {
      results.replaceChildren();
      return;
    }
    replaceChildren(results,
      h('div', { class: 'section-head' },
        h('span', null, t('searchResults')),
        h('button', { class: 'icon-btn', type: 'button', title: t('clearSearch'), 'aria-label': t('clearSearch'), 'data-testid': 'search-clear', onClick: () => { clear(); input.focus(); } }, icon('close')),
      ),
      versionsToggle,
      error ? h('p', { class: 'search-note field-error' }, error)
        : loading && hits.length === 0 ? h('p', { class: 'search-note' }, t('searching'))
        : hits.length === 0 ? h('p', { class: 'search-note' }, t('searchNone', { q: query }))
        : h('ul', { class: ['search-list', loading && 'stale'] }, hits.map(hitNode)),
      files.length || filesError ? h('div', { class: 'search-group', 'data-testid': 'search-files' },
        h('div', { class: 'section-head' }, h('span', null, t('inFiles'))),
        filesError ? h('p', { class: 'search-note field-error' }, filesError)
          : h('ul', { class: ['search-list', loading && 'stale'] }, files.map((f, j) => fileNode(f, hits.length + j))),
      ) : null,
    );
  };

  render();
  return {
    box,
    results,
    active,
    focus: () => {
      input.focus();
      input.select();
    },
    render,
  };
}
