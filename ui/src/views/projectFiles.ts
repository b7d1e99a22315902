// A project's files in its settings: added by hand (button or drop) and listed apart, the linked
// folder's as a tree with a filter (fileTree.ts), and how far the folder's sync got.

import type { App } from '../app';
import type { FolderFile, FolderSync, Project } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { count } from '../lib/format';
import { t } from '../lib/i18n';
import { scopeKey, type FileToAttach } from '../state/files';
import { filePicker, mountDropZone } from './fileParts';
import { leftReason, mountFileTree, treeFileRow } from './fileTree';
import { toast } from './toast';

/** A project's files with upload (button or drop): the folder's as a tree with a filter
 *  (fileTree.ts), those added by hand apart, with delete; `dispose` stops following changes. */
export function projectFilesSection(app: App, project: Project): { el: HTMLElement; dispose(): void } {
  const scope = { project_id: project.id };
  const list = h('div', { class: 'project-files-list' });
  const tree = mountFileTree(app);
  const added = (files: FileToAttach[]) => void app.attachments.attachToProject(project.id, files).then((n) => {
    if (n > 0) toast(t('filesAddedToProject', { n, project: app.sessions.projectName(project) }));
  });
  const picker = filePicker(added, 'project-files-input');
  const el = h('section', { class: 'project-files', 'data-testid': 'project-files-section' },
    h('div', { class: 'files-section-head' },
      h('h3', { class: 'field-label' }, t('projectFiles')),
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'project-files-add', onClick: () => picker.open() }, icon('upload'), t('addFiles')),
    ),
    h('span', { class: 'field-hint' }, t('projectFilesHint')),
    list,
    picker.input,
  );
  mountDropZone(el, () => t('addFiles'), added);
  const render = () => {
    const files = app.attachments.files.get(scopeKey(scope));
    const sync = app.attachments.folderSyncs.get(project.id);
    const folder = app.sessions.entry(project.id)?.project.folder ?? project.folder;
    const byHand = files?.filter((a) => a.folder_path === null) ?? [];
    const fromFolder = files?.some((a) => a.folder_path !== null) || !!sync?.skipped.length || !!sync?.failed.length;
    if (fromFolder) tree.render(files ?? [], sync);
    replaceChildren(list, sync && folder ? folderSyncView(sync) : null, !files
      ? h('p', { class: 'empty-files' }, t('loading'))
      : files.length === 0 && !fromFolder
        ? (sync?.running ? null : h('p', { class: 'empty-files' }, t('noProjectFiles')))
        : [
            fromFolder ? h('div', { class: 'files-group', 'data-testid': 'folder-files' }, h('h4', null, icon('folder'), t('filesFromFolder')), tree.el) : null,
            byHand.length
              ? h('div', { class: 'files-group', 'data-testid': 'hand-files' },
                  fromFolder ? h('h4', null, icon('upload'), t('filesAddedHere')) : null,
                  h('ul', { class: 'file-tree' }, byHand.map((a) => treeFileRow(app, a, a.name, 0, true))))
              : null,
          ]);
  };
  const off = app.on('files', render);
  const offSidebar = app.on('sidebar', render);
  render();
  void app.attachments.loadFiles(scope);
  if (project.folder) void app.attachments.followFolderSync(project.id);
  return {
    el,
    dispose: () => {
      off();
      offSidebar();
    },
  };
}

/** How far the folder's sync got: running (found, read), or done with what it skipped (grey, with
 *  why) and what failed (red). */
function folderSyncView(sync: FolderSync): HTMLElement {
  const files = (list: FolderFile[], cls: string, testid: string, label: string) => list.length === 0 ? null
    : h('details', { class: ['folder-sync-files', cls], 'data-testid': testid },
      h('summary', null, label),
      h('ul', null, list.map((f) => h('li', null, h('code', null, f.path || '—'), ' ', h('span', { class: 'muted' }, leftReason(f.reason))))));
  const line = sync.error ? t('folderSyncFailed', { error: sync.error })
    : sync.running ? t('folderSyncing', { read: count(sync.read), found: count(sync.found) })
      : sync.done ? t('folderSynced', { found: count(sync.found) }) : t('folderSyncWaiting');
  return h('div', { class: 'folder-sync', 'data-testid': 'folder-sync', 'aria-live': 'polite', dataset: { state: sync.running ? 'running' : sync.done ? 'done' : 'waiting' } },
    h('p', { class: sync.error ? 'field-error' : 'field-hint' }, line),
    files(sync.skipped, 'folder-sync-skipped', 'folder-sync-skipped', t('folderSkipped', { n: count(sync.skipped.length) })),
    files(sync.failed, 'folder-sync-failed', 'folder-sync-failed', t('folderFailed', { n: count(sync.failed.length) })),
  );
}
