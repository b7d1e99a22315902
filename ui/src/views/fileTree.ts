// A project's files as a folder tree with a filter box: the linked folder's files under their
// folders (each named once, by its place), what the sync left out among them in grey with why (red
// when it failed), and the files added by hand apart. Only open folders have rows, a page at a
// time, so a folder of thousands of files draws as fast as a handful.

import type { App } from '../app';
import type { Attachment, FolderFile, FolderSync } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { buildTree, filterTree, filterWords, openFolders, type TreeFolder, type TreeLeaf } from '../lib/fileTree';
import { count, dateTime, fileSize } from '../lib/format';
import { t, type Key } from '../lib/i18n';
import { reasonText } from '../lib/reasons';
import { confirmDialog } from './dialog';
import { downloadFile, kindLabel, statusNode } from './fileParts';

/** A row of the tree: a file Maru keeps, or one the folder's sync left out (and why). */
export type TreeEntry = { kind: 'file'; file: Attachment } | { kind: 'left'; left: FolderFile; failed: boolean };

/** How many of one folder's files are drawn at first, and at each "Show more". */
export const TREE_PAGE = 200;

/** The rows of a folder's files: kept and left out, by their path in the folder. */
export function folderEntries(files: readonly Attachment[], sync: FolderSync | undefined): TreeEntry[] {
  const kept = files.filter((a) => a.folder_path !== null).map((file): TreeEntry => ({ kind: 'file', file }));
  const left = [
    ...(sync?.skipped ?? []).map((left): TreeEntry => ({ kind: 'left', left, failed: false })),
    ...(sync?.failed ?? []).map((left): TreeEntry => ({ kind: 'left', left, failed: true })),
  ];
  return [...kept, ...left];
}

export function entryPath(e: TreeEntry): string {
  return e.kind === 'file' ? e.file.folder_path ?? e.file.name : e.left.path;
}

/** The tree and its filter; `render` draws it again for the files now (the filter, the open
 *  folders and the pages shown are kept). */
export function mountFileTree(app: App): { el: HTMLElement; render(files: readonly Attachment[], sync: FolderSync | undefined): void } {
  const opened = new Set<string>();
  const pages = new Map<string, number>();
  let last: { files: readonly Attachment[]; sync: FolderSync | undefined } = { files: [], sync: undefined };
  const filter = h('input', {
    class: 'input tree-filter', type: 'search', placeholder: t('treeFilterPlaceholder'), 'aria-label': t('treeFilter'), 'data-testid': 'tree-filter',
    spellcheck: 'false', autocomplete: 'off',
  });
  const summary = h('p', { class: 'field-hint tree-summary', 'data-testid': 'tree-summary', 'aria-live': 'polite' });
  const rows = h('ul', { class: 'file-tree', role: 'tree', 'aria-label': t('projectFiles'), 'data-testid': 'file-tree' });
  const el = h('div', { class: 'file-tree-wrap' }, h('div', { class: 'tree-tools' }, icon('search'), filter), summary, rows);

  const draw = () => {
    const tree = buildTree(folderEntries(last.files, last.sync), entryPath);
    const query = filter.value;
    const shown = filterTree(tree, query);
    const filtering = filterWords(query).length > 0;
    summary.textContent = filtering ? t('treeMatches', { n: count(shown.count), total: count(tree.count) }) : t('treeCount', { n: count(tree.count) });
    const open = openFolders(shown, filtering, opened);
    const ctx: DrawContext = {
      app, open, pages, redraw: draw,
      toggle: (path) => {
        if (opened.has(path)) opened.delete(path);
        else opened.add(path);
        draw();
      },
    };
    replaceChildren(rows, shown.count === 0 && filtering ? h('li', { class: 'empty-files' }, t('treeNoMatch')) : folderChildren(ctx, shown, 0));
  };
  filter.addEventListener('input', () => {
    pages.clear();
    draw();
  });
  return {
    el,
    render(files, sync) {
      last = { files, sync };
      draw();
    },
  };
}

interface DrawContext {
  app: App;
  open: ReadonlySet<string>;
  pages: Map<string, number>;
  toggle(path: string): void;
  redraw(): void;
}

/** A folder's rows: its folders (closed ones without rows under them), then a page of its files. */
function folderChildren(ctx: DrawContext, f: TreeFolder<TreeEntry>, depth: number): HTMLElement[] {
  const limit = ctx.pages.get(f.path) ?? TREE_PAGE;
  const out: HTMLElement[] = f.folders.map((sub) => folderRow(ctx, sub, depth));
  out.push(...f.files.slice(0, limit).map((leaf) => leafRow(ctx.app, leaf, depth)));
  const rest = f.files.length - limit;
  if (rest > 0) {
    out.push(h('li', { class: 'tree-more', style: indent(depth) },
      h('button', {
        class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'tree-more',
        onClick: () => {
          ctx.pages.set(f.path, limit + TREE_PAGE);
          ctx.redraw();
        },
      }, t('treeShowMore', { n: count(Math.min(rest, TREE_PAGE)), rest: count(rest) })),
    ));
  }
  return out;
}

function indent(depth: number): string {
  return `--depth:${depth}`;
}

function folderRow(ctx: DrawContext, f: TreeFolder<TreeEntry>, depth: number): HTMLElement {
  const open = ctx.open.has(f.path);
  return h('li', { class: 'tree-folder', role: 'treeitem', 'aria-expanded': String(open), dataset: { path: f.path }, 'data-testid': 'tree-folder' },
    h('button', { class: 'tree-row tree-folder-row', type: 'button', style: indent(depth), title: f.path, onClick: () => ctx.toggle(f.path) },
      h('span', { class: ['chevron', open && 'open'] }, icon('chevron')),
      icon('folder'),
      h('span', { class: 'tree-name' }, f.name),
      h('span', { class: 'count', title: t('treeFolderCount', { n: f.count }) }, count(f.count)),
    ),
    open ? h('ul', { role: 'group' }, folderChildren(ctx, f, depth + 1)) : null,
  );
}

function leafRow(app: App, leaf: TreeLeaf<TreeEntry>, depth: number): HTMLElement {
  const e = leaf.item;
  if (e.kind === 'left') {
    const why = leftReason(e.left.reason);
    return h('li', {
      class: ['tree-file', e.failed ? 'tree-failed' : 'tree-skipped'], role: 'treeitem', 'data-testid': e.failed ? 'tree-failed' : 'tree-skipped',
      dataset: { path: leaf.path }, style: indent(depth), title: `${leaf.path}\n${why}`,
    },
      h('span', { class: 'tree-row' }, icon(e.failed ? 'warn' : 'file'), h('span', { class: 'tree-name' }, leaf.name),
        h('span', { class: 'tree-why' }, e.failed ? t('treeFailedWhy', { why }) : t('treeSkippedWhy', { why })))
    );
  }
  return treeFileRow(app, e.file, leaf.name, depth, false);
}

/** One kept file on one line: name, kind and size, its state (a folder's file only when it is
 *  not ready), download, and delete for a file added by hand (a folder's file follows the disk). */
export function treeFileRow(app: App, a: Attachment, name: string, depth: number, deletable: boolean): HTMLElement {
  const meta = [kindLabel(a.kind), fileSize(a.size), a.pages ? t('pagesCount', { n: a.pages }) : null].filter(Boolean).join(' · ');
  const deleteIt = async () => {
    const ok = await confirmDialog({ title: t('deleteFileTitle', { name: a.name }), body: t('deleteProjectFileBody'), confirm: t('delete'), danger: true });
    if (ok) await app.attachments.deleteFile(a);
  };
  return h('li', {
    class: ['tree-file', `file-row-${a.status}`], role: 'treeitem', 'data-testid': 'file', dataset: { fileId: String(a.id), path: a.folder_path ?? a.name },
    style: indent(depth),
  },
    h('span', { class: 'tree-row' },
      icon(a.kind === 'image' ? 'image' : 'file'),
      h('span', { class: 'tree-name', 'data-testid': 'file-name', title: `${a.folder_path ?? a.name}\n${dateTime(a.created_at)}` }, name),
      h('span', { class: 'tree-meta' }, meta),
      // A file added by hand says when it is ready; a folder's many only when they are not.
      deletable || a.status !== 'ready' ? statusNode(a) : null,
      h('span', { class: 'tree-actions' },
        h('button', { class: 'icon-btn', type: 'button', title: t('download'), 'aria-label': t('downloadFile', { name: a.name }), 'data-testid': 'file-download', onClick: () => void downloadFile(app, a) }, icon('download')),
        deletable
          ? h('button', { class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('deleteFile', { name: a.name }), 'data-testid': 'file-delete', onClick: () => void deleteIt() }, icon('trash'))
          : null,
      ),
    ),
    a.note ? h('p', { class: ['file-note', a.status === 'failed' && 'file-note-error'] }, reasonText(a.note_reason, a.note)) : null,
  );
}

/** Why the sync left a file out, in words. */
export function leftReason(reason: string): string {
  const known: Record<string, Key> = {
    empty: 'folderSkipEmpty', too_large: 'folderSkipTooLarge', not_readable_kind: 'folderSkipNoText', link: 'folderSkipLink', special_file: 'folderSkipSpecial',
  };
  return reason in known ? t(known[reason]) : reason;
}
