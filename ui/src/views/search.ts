// Searching every chat from the sidebar (Ctrl+K / ⌘K): results across projects, best first, each
// with its title, project and the matching excerpt with the words marked. Opening one opens the
// chat at that message. The files attached to chats and projects are searched alongside, their
// passages in a group of their own after the chats (a file's opens its chat, or its project's files).
// Typing is debounced; an answer to an older query is dropped. A toggle searches earlier versions of
// messages too (remembered for the page's life), each such hit marked.

import type { App } from '../app';
import type { ChatHit, FileHit } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren, type Child } from '../lib/dom';
import { t } from '../lib/i18n';
import { openProjectDialog } from './projectLink';

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
  return new Search(app, onActive);
}

class Search implements SearchBox {
  readonly box: HTMLElement;
  readonly results = h('div', { class: 'search-results', 'data-testid': 'search-results' });

  private readonly input = h('input', {
    class: 'search-input', type: 'search', autocomplete: 'off', spellcheck: 'false', 'data-testid': 'search',
    enterkeyhint: 'search',
  });
  private readonly keys = h('kbd', { class: 'search-keys' });
  // Made once, so that redrawing the results keeps its focus.
  private readonly versionsBox = h('input', { type: 'checkbox', checked: withVersions, 'data-testid': 'search-versions' });
  private readonly versionsText = h('span');
  private readonly versionsToggle = h('label', { class: 'search-toggle' }, this.versionsBox, this.versionsText);

  private query = '';
  private hits: ChatHit[] = [];
  private error: string | null = null;
  private files: FileHit[] = [];
  /** Why the files could not be searched: said in their group, the chats still shown. */
  private filesError: string | null = null;
  private loading = false;
  private selected = 0;
  private seq = 0;
  private timer = 0;
  /** The search under way, if any. */
  private pending: Promise<void> | null = null;

  constructor(private readonly app: App, private readonly onActive: () => void) {
    this.box = h('div', { class: 'search-box', role: 'search' }, icon('search'), this.input, this.keys);
    this.versionsBox.addEventListener('change', () => {
      withVersions = this.versionsBox.checked;
      if (!this.query) return;
      window.clearTimeout(this.timer);
      this.timer = 0;
      void this.run(this.query);
    });
    this.input.addEventListener('input', () => this.setQuery(this.input.value));
    this.input.addEventListener('keydown', (e) => this.onKey(e));
    this.render();
  }

  active(): boolean {
    return this.query !== '';
  }

  focus(): void {
    this.input.focus();
    this.input.select();
  }

  private run(q: string): Promise<void> {
    this.pending = this.search(q).finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  private async search(q: string): Promise<void> {
    const mine = ++this.seq;
    this.loading = true;
    this.render();
    const [chats, inFiles] = await Promise.allSettled([this.app.search.searchChats(q, LIMIT, withVersions), this.app.search.searchFiles(q, LIMIT)]);
    if (mine !== this.seq) return;
    this.hits = chats.status === 'fulfilled' ? chats.value : [];
    this.error = chats.status === 'rejected' ? errorMessage(chats.reason) : null;
    this.files = inFiles.status === 'fulfilled' ? inFiles.value : [];
    this.filesError = inFiles.status === 'rejected' ? errorMessage(inFiles.reason) : null;
    this.loading = false;
    this.selected = 0;
    this.render();
  }

  private setQuery(q: string): void {
    const was = this.active();
    this.query = q.trim();
    window.clearTimeout(this.timer);
    if (!this.query) {
      this.seq++;
      this.hits = [];
      this.error = null;
      this.files = [];
      this.filesError = null;
      this.loading = false;
    } else {
      this.timer = window.setTimeout(() => {
        this.timer = 0;
        void this.run(this.query);
      }, DEBOUNCE_MS);
    }
    if (was !== this.active()) this.onActive();
    this.render();
  }

  private clear(): void {
    this.input.value = '';
    this.setQuery('');
  }

  /** The chats' hits, then the files': what the arrows and Enter run over. */
  private count(): number {
    return this.hits.length + this.files.length;
  }

  private openFile(hit: FileHit): void {
    if (hit.session_id !== null) {
      void this.app.chat.openSession(hit.session_id, true);
      return;
    }
    const project = this.app.sessions.entry(hit.project_id)?.project;
    if (project) openProjectDialog(this.app, project, 'files');
  }

  /** Opens the `i`th result of both groups. */
  private open(i: number): void {
    if (i < this.hits.length) void this.app.search.openHit(this.hits[i]);
    else if (i < this.count()) this.openFile(this.files[i - this.hits.length]);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.isComposing || e.keyCode === 229) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const n = this.count();
      if (!n) return;
      e.preventDefault();
      this.selected = (this.selected + (e.key === 'ArrowDown' ? 1 : n - 1)) % n;
      this.render();
      this.results.querySelector('.search-hit.selected')?.scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (!this.query) return;
      // Typed faster than the debounce, or the answer is on its way: the first result of this query.
      if (this.timer) {
        window.clearTimeout(this.timer);
        this.timer = 0;
        void this.run(this.query).then(() => this.open(this.selected));
      } else if (this.pending) {
        void this.pending.then(() => this.open(this.selected));
      } else {
        this.open(this.selected);
      }
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      if (this.input.value) this.clear();
      else this.input.blur();
    }
  }

  /** A result's button: chosen, and opened, on a click. */
  private hitButton(i: number, testid: string, current: boolean, extra: { dataset?: Record<string, string> }, ...children: Child[]): HTMLElement {
    return h('li', null,
      h('button', {
        class: ['search-hit', i === this.selected && 'selected', current && 'current'],
        type: 'button',
        'data-testid': testid,
        ...extra,
        onClick: () => {
          this.selected = i;
          this.open(i);
        },
      }, ...children));
  }

  private hitNode(hit: ChatHit, i: number): HTMLElement {
    const app = this.app;
    const project = app.sessions.entry(hit.project_id)?.project;
    const title = hit.title.trim() || t('untitled');
    // Not data-session-id / data-message-id: those name the chats and messages themselves.
    const dataset = { hitSession: String(hit.session_id), hitMessage: hit.message_id === null ? '' : String(hit.message_id) };
    return this.hitButton(i, 'search-hit', app.chat.session?.id === hit.session_id, { dataset },
      h('span', { class: 'hit-top' },
        h('span', { class: 'hit-title' }, title),
        hit.earlier_version ? h('span', { class: 'hit-badge', 'data-testid': 'earlier-version', title: t('earlierVersionHint') }, t('earlierVersion')) : null,
        project ? h('span', { class: 'hit-project', title: app.sessions.projectName(project) }, icon('folder'), h('span', null, app.sessions.projectName(project))) : null,
      ),
      h('span', { class: 'hit-snippet', 'data-testid': 'search-snippet' },
        hit.message_id === null ? h('span', { class: 'hit-kind' }, `${t('titleMatch')}: `) : null,
        highlightedSnippet(hit.snippet, hit.highlights)),
    );
  }

  /** A passage of a file, `i` counted after the chats' hits. */
  private fileNode(hit: FileHit, i: number): HTMLElement {
    const app = this.app;
    const project = app.sessions.entry(hit.project_id)?.project;
    // Its chat's title (the sidebar's, or a chat hit's), else its project's name.
    const chat = hit.session_id === null ? undefined
      : (app.sessions.findSession(hit.session_id)?.title ?? this.hits.find((c) => c.session_id === hit.session_id)?.title);
    const where = hit.session_id !== null && chat !== undefined ? (chat.trim() || t('untitled')) : project ? app.sessions.projectName(project) : null;
    return this.hitButton(i, 'search-file-hit', hit.session_id !== null && app.chat.session?.id === hit.session_id, {},
      h('span', { class: 'hit-top' },
        h('span', { class: 'hit-title', title: hit.name }, hit.name),
        where !== null ? h('span', { class: 'hit-project', title: where }, icon(hit.session_id === null ? 'folder' : 'chat'), h('span', null, where)) : null,
      ),
      h('span', { class: 'hit-snippet', 'data-testid': 'search-snippet' },
        h('span', { class: 'hit-kind', 'data-testid': 'file-location' }, hit.page !== null ? t('filePage', { page: hit.page }) : t('fileLine', { line: hit.line })),
        h('span', { class: 'hit-kind' }, ': '),
        highlightedSnippet(hit.snippet, hit.highlights)),
    );
  }

  /** Redraws the box's words and the results (a chat opened, the language changed). */
  render(): void {
    const { input, keys } = this;
    input.placeholder = t('searchChats');
    input.setAttribute('aria-label', t('searchLabel', { keys: shortcut() }));
    input.title = t('searchLabel', { keys: shortcut() });
    keys.textContent = shortcut();
    keys.hidden = this.active();
    this.versionsBox.checked = withVersions;
    this.versionsText.textContent = t('searchVersions');
    if (!this.active()) {
      this.results.replaceChildren();
      return;
    }
    replaceChildren(this.results,
      h('div', { class: 'section-head' },
        h('span', null, t('searchResults')),
        h('button', { class: 'icon-btn', type: 'button', title: t('clearSearch'), 'aria-label': t('clearSearch'), 'data-testid': 'search-clear', onClick: () => { this.clear(); input.focus(); } }, icon('close')),
      ),
      this.versionsToggle,
      this.chatGroup(),
      this.fileGroup(),
    );
  }

  private chatGroup(): HTMLElement {
    const { error, loading, hits } = this;
    return error ? h('p', { class: 'search-note field-error' }, error)
      : loading && hits.length === 0 ? h('p', { class: 'search-note' }, t('searching'))
      : hits.length === 0 ? h('p', { class: 'search-note' }, t('searchNone', { q: this.query }))
      : h('ul', { class: ['search-list', loading && 'stale'] }, hits.map((hit, i) => this.hitNode(hit, i)));
  }

  private fileGroup(): HTMLElement | null {
    const { files, filesError, loading, hits } = this;
    if (!files.length && !filesError) return null;
    return h('div', { class: 'search-group', 'data-testid': 'search-files' },
      h('div', { class: 'section-head' }, h('span', null, t('inFiles'))),
      filesError ? h('p', { class: 'search-note field-error' }, filesError)
        : h('ul', { class: ['search-list', loading && 'stale'] }, files.map((f, j) => this.fileNode(f, hits.length + j))),
    );
  }
}
