// Files the model can search while it answers: a chat's own and its project's (section ④).
// The files panel (list, status, download, delete), a project's files (in its dialogs), the chips
// of files just attached in the composer, the drop zone, and picking files from disk.

import type { App } from '../app';
import type { Attachment, FolderFile, FolderSync, Kind, Project } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { count, dateTime, fileSize } from '../lib/format';
import { language, t, type Key } from '../lib/i18n';
import { reasonText } from '../lib/reasons';
import { saveBlob } from '../lib/save';
import { scopeKey, type FileToAttach, type Upload } from '../state/files';
import { confirmDialog, openDialog } from './dialog';
import { toast } from './toast';

export function kindLabel(kind: Kind): string {
  return t(`kind_${kind}` as Key);
}

/** A file's state: a spinner while it is sent or indexed, then ready or failed (the note says why). */
export function statusNode(a: Attachment | null): HTMLElement {
  const status = a ? a.status : 'uploading';
  const label = !a ? t('fileUploading') : a.status === 'indexing' ? t('fileIndexing') : a.status === 'ready' ? t('fileReady') : t('fileFailed');
  const busy = status === 'uploading' || status === 'indexing';
  return h('span', { class: ['file-status', `file-${status}`], 'data-testid': 'file-status', dataset: { status }, title: a?.note ? reasonText(a.note_reason, a.note) : undefined },
    busy ? h('span', { class: 'spinner', 'aria-hidden': 'true' }) : icon(status === 'ready' ? 'check' : 'warn'),
    h('span', null, label),
  );
}

/** Saves a file as attached. The route needs the access token, so the bytes come through fetch. */
export async function downloadFile(app: App, a: Attachment): Promise<void> {
  const blob = await app.attempt(() => app.attachments.download(a.id));
  if (!blob) return;
  const path = await app.attempt(() => saveBlob(blob, a.name));
  if (path) toast(t('savedTo', { path }));
}

/** One file in a list: name, kind, size, pages, status and note, download, and delete when allowed.
 *  A file mirrored from the project's folder shows its path there, and has no delete: it follows
 *  the file on disk (deleted here, the next sync would bring it back). */
export function fileRow(app: App, a: Attachment, opts: { project?: Project | null; deletable: boolean }): HTMLElement {
  const fromProject = a.project_id !== null;
  const fromFolder = a.folder_path !== null;
  const meta = [kindLabel(a.kind), fileSize(a.size), a.pages ? t('pagesCount', { n: a.pages }) : null].filter(Boolean).join(' · ');
  const deleteIt = async () => {
    const ok = await confirmDialog({
      title: t('deleteFileTitle', { name: a.name }),
      body: fromProject ? t('deleteProjectFileBody') : t('deleteFileBody'),
      confirm: t('delete'),
      danger: true,
    });
    if (ok) await app.attachments.deleteFile(a);
  };
  return h('li', { class: ['file-row', `file-row-${a.status}`], 'data-testid': 'file', dataset: { fileId: String(a.id), scope: fromProject ? 'project' : 'chat' } },
    h('span', { class: 'file-icon' }, icon(a.kind === 'image' ? 'image' : 'file')),
    h('div', { class: 'file-main' },
      h('div', { class: 'file-top' },
        h('span', { class: 'file-name', title: `${a.name}\n${dateTime(a.created_at)}`, 'data-testid': 'file-name' }, a.name),
        fromProject && opts.project !== undefined
          ? h('span', { class: 'badge badge-project', title: t('fromProjectTitle', { project: opts.project ? app.sessions.projectName(opts.project) : '' }) }, icon('folder'), t('fromProject'))
          : null,
        fromFolder ? h('span', { class: 'badge badge-folder', title: t('fromFolderTitle'), 'data-testid': 'file-from-folder' }, t('fromFolder')) : null,
      ),
      fromFolder ? h('div', { class: 'file-folder-path', title: a.folder_path ?? undefined, 'data-testid': 'file-folder-path' }, a.folder_path) : null,
      h('div', { class: 'file-meta' }, h('span', null, meta), statusNode(a)),
      a.note ? h('p', { class: ['file-note', a.status === 'failed' && 'file-note-error'] }, reasonText(a.note_reason, a.note)) : null,
    ),
    h('div', { class: 'file-actions' },
      h('button', { class: 'icon-btn', type: 'button', title: t('download'), 'aria-label': t('downloadFile', { name: a.name }), 'data-testid': 'file-download', onClick: () => void downloadFile(app, a) }, icon('download')),
      opts.deletable && !fromFolder
        ? h('button', { class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('deleteFile', { name: a.name }), 'data-testid': 'file-delete', onClick: () => void deleteIt() }, icon('trash'))
        : null,
    ),
  );
}

/** A chip in the composer for a file just attached; × removes the file from the chat. */
export function uploadChip(app: App, u: Upload): HTMLElement {
  const a = u.attachment;
  const status = a ? a.status : 'uploading';
  return h('li', { class: ['chip', `chip-${status}`], 'data-testid': 'upload-chip', dataset: { status }, title: a?.note ? `${u.name}\n${reasonText(a.note_reason, a.note)}` : u.name },
    icon(a?.kind === 'image' ? 'image' : 'file'),
    h('span', { class: 'chip-name' }, u.name),
    statusNode(a),
    h('button', {
      class: 'icon-btn', type: 'button', disabled: !a, title: t('removeFile', { name: u.name }), 'aria-label': t('removeFile', { name: u.name }),
      onClick: () => {
        if (a) void app.attachments.deleteFile(a);
      },
    }, icon('close')),
  );
}

/** The files to attach from a file list; a pasted image gets a name that says so. */
export function filesToAttach(files: Iterable<File> | ArrayLike<File> | null | undefined, pasted = false): FileToAttach[] {
  if (!files) return [];
  return Array.from(files).map((f) => ({ blob: f, name: pasted && (!f.name || /^image\.\w+$/i.test(f.name)) ? pastedName(f.type) : f.name || 'file' }));
}

function pastedName(mime: string): string {
  const ext = /^image\/(png|jpeg|gif|webp|bmp)$/.exec(mime)?.[1]?.replace('jpeg', 'jpg') ?? 'png';
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `pasted-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}.${ext}`;
}

/** A hidden file input (several files at once) and what opens it. */
export function filePicker(onFiles: (files: FileToAttach[]) => void, testId?: string): { input: HTMLInputElement; open(): void } {
  const input = h('input', { type: 'file', multiple: true, hidden: true, tabindex: -1, 'data-testid': testId });
  input.addEventListener('change', () => {
    const files = filesToAttach(input.files);
    input.value = '';
    if (files.length) onFiles(files);
  });
  return { input, open: () => input.click() };
}

function hasFiles(e: DragEvent): boolean {
  return !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
}

/** Files dragged over `area` show a drop zone saying what dropping does; dropped, they go to `onFiles`. */
export function mountDropZone(area: HTMLElement, label: () => string, onFiles: (files: FileToAttach[]) => void): void {
  const text = h('span', null);
  const zone = h('div', { class: 'drop-zone', 'data-testid': 'drop-zone', hidden: true, 'aria-hidden': 'true' },
    h('div', { class: 'drop-zone-inner' }, icon('paperclip'), text));
  area.appendChild(zone);
  let timer = 0;
  const hide = () => {
    window.clearTimeout(timer);
    zone.hidden = true;
  };
  const over = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer!.dropEffect = 'copy';
    text.textContent = label();
    zone.hidden = false;
    // dragleave also fires when moving over a child; the zone goes when the dragging stops.
    window.clearTimeout(timer);
    timer = window.setTimeout(hide, 250);
  };
  area.addEventListener('dragenter', over);
  area.addEventListener('dragover', over);
  area.addEventListener('drop', (e) => {
    hide();
    const files = filesToAttach(e.dataTransfer?.files);
    if (files.length === 0) return;
    e.preventDefault();
    e.stopPropagation();
    onFiles(files);
  });
}

/** The files panel: the open chat's own files, then its project's (marked so). */
export function mountFilesPanel(app: App, root: HTMLElement, onClose: () => void): () => void {
  const picker = filePicker((files) => void app.attachments.attachToChat(files), 'files-panel-input');
  let sig = '';
  const render = (force = false) => {
    const { own, project } = app.attachments.chatFiles();
    const p = app.chat.currentProject();
    const next = JSON.stringify([app.chat.session?.id, p?.id, p?.name, own, project, language()]);
    if (!force && next === sig) return;
    sig = next;
    replaceChildren(root,
      h('header', { class: 'panel-head' },
        h('h2', null, icon('paperclip'), t('filesTitle')),
        h('button', { class: 'icon-btn', type: 'button', 'aria-label': t('close'), title: t('close'), onClick: onClose }, icon('close')),
      ),
      h('div', { class: 'panel-body', 'data-testid': 'files-panel' },
        h('p', { class: 'hint' }, t('filesHint')),
        h('section', { class: 'files-section' },
          h('div', { class: 'files-section-head' },
            h('h3', null, t('chatFilesHeading')),
            h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'files-attach', onClick: () => picker.open() }, icon('upload'), t('attachFiles')),
          ),
          own.length
            ? h('ul', { class: 'file-list', 'data-testid': 'chat-files' }, own.map((a) => fileRow(app, a, { deletable: true })))
            : h('p', { class: 'empty-files' }, t('noChatFiles')),
        ),
        p ? h('section', { class: 'files-section' },
          h('div', { class: 'files-section-head' },
            h('h3', null, t('projectFilesHeading', { project: app.sessions.projectName(p) })),
            h('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'manage-project-files', onClick: () => openProjectFilesDialog(app, p) }, icon('folder'), t('manageProjectFiles')),
          ),
          project.length
            ? h('ul', { class: 'file-list', 'data-testid': 'project-files' }, project.map((a) => fileRow(app, a, { project: p, deletable: false })))
            : h('p', { class: 'empty-files' }, t('noProjectFiles')),
        ) : null,
        picker.input,
      ),
    );
  };
  const update = () => {
    if (app.panels.panel === 'files') render();
  };
  app.on('files', update);
  app.on('chat', update);
  app.on('sidebar', update);
  return () => render(true);
}

/** A project's files with upload (button or drop) and delete; `dispose` stops following changes. */
export function projectFilesSection(app: App, project: Project): { el: HTMLElement; dispose(): void } {
  const scope = { project_id: project.id };
  const list = h('div', { class: 'project-files-list' });
  const picker = filePicker((files) => void app.attachments.attachToProject(project.id, files), 'project-files-input');
  const el = h('section', { class: 'project-files', 'data-testid': 'project-files-section' },
    h('div', { class: 'files-section-head' },
      h('span', { class: 'field-label' }, t('projectFiles')),
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'project-files-add', onClick: () => picker.open() }, icon('upload'), t('addFiles')),
    ),
    h('span', { class: 'field-hint' }, t('projectFilesHint')),
    list,
    picker.input,
  );
  mountDropZone(el, () => t('addFiles'), (files) => void app.attachments.attachToProject(project.id, files));
  const render = () => {
    const files = app.attachments.files.get(scopeKey(scope));
    const sync = app.attachments.folderSyncs.get(project.id);
    replaceChildren(list, sync ? folderSyncView(sync) : null, !files
      ? h('p', { class: 'empty-files' }, t('loading'))
      : files.length === 0
        ? (sync?.running ? null : h('p', { class: 'empty-files' }, t('noProjectFiles')))
        : h('ul', { class: 'file-list' }, files.map((a) => fileRow(app, a, { deletable: true }))));
  };
  const off = app.on('files', render);
  render();
  void app.attachments.loadFiles(scope);
  if (project.folder) void app.attachments.followFolderSync(project.id);
  return { el, dispose: off };
}

/** How far the folder's sync got: running (found, read), or done with what it skipped (grey, with
 *  why) and what failed (red). */
function folderSyncView(sync: FolderSync): HTMLElement {
  const files = (list: FolderFile[], cls: string, testid: string, label: string) => list.length === 0 ? null
    : h('details', { class: ['folder-sync-files', cls], 'data-testid': testid },
      h('summary', null, label),
      h('ul', null, list.map((f) => h('li', null, h('code', null, f.path || '—'), ' ', h('span', { class: 'muted' }, folderReason(f.reason))))));
  const line = sync.error ? t('folderSyncFailed', { error: sync.error })
    : sync.running ? t('folderSyncing', { read: count(sync.read), found: count(sync.found) })
      : sync.done ? t('folderSynced', { found: count(sync.found) }) : t('folderSyncWaiting');
  return h('div', { class: 'folder-sync', 'data-testid': 'folder-sync', 'aria-live': 'polite', dataset: { state: sync.running ? 'running' : sync.done ? 'done' : 'waiting' } },
    h('p', { class: sync.error ? 'field-error' : 'field-hint' }, line),
    files(sync.skipped, 'folder-sync-skipped', 'folder-sync-skipped', t('folderSkipped', { n: count(sync.skipped.length) })),
    files(sync.failed, 'folder-sync-failed', 'folder-sync-failed', t('folderFailed', { n: count(sync.failed.length) })),
  );
}

/** Why a file was left out, in words. */
function folderReason(reason: string): string {
  const known: Record<string, Key> = {
    empty: 'folderSkipEmpty', too_large: 'folderSkipTooLarge', not_readable_kind: 'folderSkipNoText', link: 'folderSkipLink', special_file: 'folderSkipSpecial',
  };
  return reason in known ? t(known[reason]) : reason;
}

/** A project's files on their own (any project, Default too). */
export function openProjectFilesDialog(app: App, project: Project): void {
  const section = projectFilesSection(app, project);
  const handle = openDialog({
    title: t('projectFilesTitle', { project: app.sessions.projectName(project) }),
    body: section.el,
    footer: h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('close')),
    onClose: section.dispose,
  });
}
