// Files the model can search while it answers: a chat's own and its project's (section ④).
// The files panel (list, status, download, delete) and the chips of files just attached in the
// composer; the parts every file list shares are in fileParts.ts.

import type { App } from '../app';
import type { Attachment, Project } from '../backend/types';
import { h, icon, replaceChildren } from '../lib/dom';
import { count, dateTime, fileSize } from '../lib/format';
import { language, t } from '../lib/i18n';
import { reasonText } from '../lib/reasons';
import type { Upload } from '../state/files';
import { confirmDialog } from './dialog';
import { downloadFile, filePicker, kindLabel, statusNode } from './fileParts';
import { openProjectDialog } from './projectLink';

export { downloadFile, filePicker, filesToAttach, kindLabel, mountDropZone, statusNode } from './fileParts';

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

/** A project's files in the panel: those added by hand one per row, the folder's counted, to be
 *  browsed as a tree in the project's settings (1,600 rows are no list for a side panel). */
function projectFilesList(app: App, p: Project, files: Attachment[]): HTMLElement {
  if (files.length === 0) return h('p', { class: 'empty-files' }, t('noProjectFiles'));
  const byHand = files.filter((a) => a.folder_path === null);
  const fromFolder = files.length - byHand.length;
  return h('div', { 'data-testid': 'project-files' },
    byHand.length ? h('ul', { class: 'file-list' }, byHand.map((a) => fileRow(app, a, { project: p, deletable: false }))) : null,
    fromFolder
      ? h('p', { class: 'folder-files-note', 'data-testid': 'panel-folder-files' },
          icon('folder'), h('span', null, t('panelFolderFiles', { n: count(fromFolder) })),
          h('button', { class: 'btn btn-small btn-ghost', type: 'button', onClick: () => openProjectDialog(app, p, 'files') }, t('browseFolderFiles')))
      : null,
  );
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
            h('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'manage-project-files', onClick: () => openProjectDialog(app, p, 'files') }, icon('folder'), t('manageProjectFiles')),
          ),
          projectFilesList(app, p, project),
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
