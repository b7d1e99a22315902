// Creating a project, or renaming one and editing its instructions (section ③), the folder on
// disk it follows, and its files.

import type { App } from '../app';
import type { Project } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren } from '../lib/dom';
import { t } from '../lib/i18n';
import { inDesktop, pickFolder } from '../lib/platform';
import { openDialog } from './dialog';
import { projectFilesSection } from './files';

/** The server mirrors a linked folder's files in the background: the list is asked for again after this. */
const FOLDER_SYNC_MS = 4000;

export function openProjectDialog(app: App, project?: Project, focus: 'name' | 'instructions' = 'name'): void {
  const name = h('input', { class: 'input', type: 'text', value: project?.name ?? '', placeholder: t('projectNamePlaceholder'), maxlength: 200, name: 'name' });
  const instructions = h('textarea', { class: 'input textarea', rows: 8, name: 'instructions' });
  instructions.value = project?.instructions ?? '';
  const saveBtn = h('button', { class: 'btn btn-primary', type: 'submit', form: 'project-form' }, project ? t('save') : t('newProject'));
  const form = h('form', {
    id: 'project-form',
    class: 'form',
    onSubmit: async (e: Event) => {
      e.preventDefault();
      saveBtn.disabled = true;
      let ok: boolean;
      if (project) {
        const patch: { name?: string; instructions?: string } = {};
        if (name.value.trim() !== project.name) patch.name = name.value;
        if (instructions.value !== project.instructions) patch.instructions = instructions.value;
        ok = Object.keys(patch).length === 0 || (await app.sessions.updateProject(project.id, patch));
      } else {
        const created = await app.sessions.createProject(name.value, instructions.value);
        ok = !!created;
        if (created) app.chat.newChat(created.id);
      }
      saveBtn.disabled = false;
      if (ok) handle.close();
    },
  },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('projectName')), name),
    h('label', { class: 'field' },
      h('span', { class: 'field-label' }, t('projectInstructions')),
      instructions,
      h('span', { class: 'field-hint' }, t('projectInstructionsHint')),
    ),
  );
  // The folder and the files are stored as they change (not with Save): the project exists already.
  const files = project ? projectFilesSection(app, project) : null;
  let closed = false;
  // The Default project cannot follow a folder (the server refuses it).
  const folder = project && !project.is_default ? folderSection(app, project, () => reloadAsFolderSyncs(app, project.id, () => closed)) : null;
  const handle = openDialog({
    title: project ? app.sessions.projectName(project) : t('newProject'),
    body: [form, folder, files?.el],
    onClose: () => {
      closed = true;
      files?.dispose();
    },
    footer: [h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('cancel')), saveBtn],
  });
  (focus === 'instructions' ? instructions : name).focus();
}

/** The project's files now, and again once the server had time to mirror (or drop) the folder's. */
function reloadAsFolderSyncs(app: App, projectId: number, closed: () => boolean): void {
  void app.attachments.loadFiles({ project_id: projectId });
  void app.attachments.followFolderSync(projectId, true);
  window.setTimeout(() => {
    if (!closed()) void app.attachments.loadFiles({ project_id: projectId });
  }, FOLDER_SYNC_MS);
}

/**
 * The folder on disk the project follows: shown (or "No folder"), linked by its typed path or, in
 * the desktop window, by the system's picker, and unlinked. A refusal shows beside the path.
 */
function folderSection(app: App, project: Project, onChanged: () => void): HTMLElement {
  let linked = project.folder;
  const current = h('div', { class: 'folder-current' });
  const path = h('input', {
    class: 'input', type: 'text', name: 'folder', placeholder: t('folderPlaceholder'), 'aria-label': t('folderPath'),
    spellcheck: 'false', autocomplete: 'off', 'data-testid': 'folder-input',
  });
  const linkBtn = h('button', { class: 'btn btn-small', type: 'submit', 'data-testid': 'folder-link' }, t('linkFolder'));
  const chooseBtn = inDesktop()
    ? h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'folder-choose', onClick: () => void choose() }, icon('folder'), t('chooseFolder'))
    : null;
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'folder-error', hidden: true });
  const buttons = () => [...current.querySelectorAll('button'), linkBtn, chooseBtn].filter((b): b is HTMLButtonElement => !!b);

  const show = () => replaceChildren(current, linked
    ? [
        h('code', { class: 'folder-path', title: linked, 'data-testid': 'folder-current' }, linked),
        h('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'folder-unlink', onClick: () => void link(null) }, t('unlinkFolder')),
      ]
    : h('span', { class: 'muted', 'data-testid': 'folder-current' }, t('noFolder')));

  const link = async (folder: string | null) => {
    problem.hidden = true;
    for (const b of buttons()) b.disabled = true;
    try {
      linked = (await app.sessions.linkFolder(project.id, folder)).folder;
      path.value = '';
      show();
      onChanged();
    } catch (e) {
      problem.textContent = errorMessage(e);
      problem.hidden = false;
    } finally {
      for (const b of buttons()) b.disabled = false;
    }
  };

  const choose = async () => {
    const picked = await app.attempt(() => pickFolder(t('chooseFolderTitle', { project: app.sessions.projectName(project) })));
    if (!picked) return;
    path.value = picked;
    await link(picked);
  };

  show();
  // Its own form, so Enter in the path links (the dialog's form saves the name and instructions).
  return h('section', { class: 'project-folder', 'data-testid': 'project-folder' },
    h('span', { class: 'field-label' }, t('projectFolder')),
    current,
    h('form', {
      class: 'folder-link',
      onSubmit: (e: Event) => {
        e.preventDefault();
        if (path.value.trim()) void link(path.value.trim());
        else path.focus();
      },
    }, path, chooseBtn, linkBtn),
    problem,
    h('span', { class: 'field-hint' }, t('folderHint')),
  );
}
