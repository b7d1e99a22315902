// A new project (its name, instructions and, if the user wants, the folder on disk it follows),
// and a project's settings: everything in them takes effect as it is done and says so. The name
// and instructions save themselves as they are typed; Link, Unlink and Add files act at once,
// Unlink only after saying what goes. Nothing waits for a Save that Cancel could drop.

import type { App } from '../app';
import type { Project } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren } from '../lib/dom';
import { count } from '../lib/format';
import { t } from '../lib/i18n';
import { inDesktop, pickFolder } from '../lib/platform';
import { scopeKey } from '../state/files';
import { confirmDialog, openDialog } from './dialog';
import { projectFilesSection } from './projectFiles';
import { projectInstructionsSection } from './instructionFiles';
import { toast } from './toast';

/** Where the settings open: at a field, or scrolled to the folder or the files. */
export type ProjectFocus = 'name' | 'instructions' | 'folder' | 'files';


/** The new project's dialog, or a project's settings. */
export function openProjectDialog(app: App, project?: Project, focus: ProjectFocus = 'name'): void {
  if (project) openProjectSettings(app, project, focus);
  else openNewProject(app);
}

/** A folder's path, typed or (in the desktop window) chosen in the system's picker. */
function folderPicker(app: App, title: () => string, onChosen: (path: string) => void) {
  const path = h('input', {
    class: 'input', type: 'text', name: 'folder', placeholder: t('folderPlaceholder'), 'aria-label': t('folderPath'),
    spellcheck: 'false', autocomplete: 'off', 'data-testid': 'folder-input',
  });
  const choose = inDesktop()
    ? h('button', {
      class: 'btn btn-small', type: 'button', 'data-testid': 'folder-choose',
      onClick: async () => {
        const picked = await app.attempt(() => pickFolder(title()));
        if (!picked) return;
        path.value = picked;
        onChosen(picked);
      },
    }, icon('folder'), t('chooseFolder'))
    : null;
  return { path, choose };
}

function openNewProject(app: App): void {
  const name = h('input', { class: 'input', type: 'text', placeholder: t('projectNamePlaceholder'), maxlength: 200, name: 'name' });
  const instructions = h('textarea', { class: 'input textarea', rows: 5, name: 'instructions' });
  const folder = folderPicker(app, () => t('chooseFolderTitle', { project: name.value.trim() || t('newProject') }), () => {});
  const createBtn = h('button', { class: 'btn btn-primary', type: 'submit', form: 'project-form', 'data-testid': 'project-create' }, t('createProject'));
  const form = h('form', {
    id: 'project-form',
    class: 'form',
    onSubmit: async (e: Event) => {
      e.preventDefault();
      createBtn.disabled = true;
      const created = await app.sessions.createProject(name.value, instructions.value);
      createBtn.disabled = false;
      if (!created) return;
      handle.close();
      app.chat.newChat(created.id);
      const path = folder.path.value.trim();
      if (!path) return;
      // The project exists now: a folder refused is said in its settings, where it can be fixed.
      try {
        const linked = await app.sessions.linkFolder(created.id, path);
        toast(t('folderLinkedToast', { folder: linked.folder ?? path }));
        void app.attachments.followFolderSync(created.id, true);
      } catch (err) {
        openProjectSettings(app, created, 'folder', { path, error: errorMessage(err) });
      }
    },
  },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('projectName')), name),
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('projectInstructions')), instructions, h('span', { class: 'field-hint' }, t('projectInstructionsHint'))),
    h('div', { class: 'field', 'data-testid': 'new-project-folder' },
      h('span', { class: 'field-label' }, t('projectFolderOptional')),
      h('div', { class: 'folder-link' }, folder.path, folder.choose),
      h('span', { class: 'field-hint' }, t('folderHint')),
    ),
  );
  const handle = openDialog({
    title: t('newProject'),
    body: form,
    footer: [h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('cancel')), createBtn],
  });
  name.focus();
}

/**
 * A project's settings: name and instructions (saved as typed), the folder it follows, the
 * instructions files that folder gives the model, and its files. `refused`: a folder the new
 * project's dialog could not link, shown to be corrected.
 */
export function openProjectSettings(app: App, project: Project, focus: ProjectFocus = 'name', refused?: { path: string; error: string }): void {
  const files = projectFilesSection(app, project);
  const status = h('span', { class: 'save-status muted', 'data-testid': 'project-status', 'aria-live': 'polite' });
  const general = project.is_default ? null : generalSection(app, project, status);
  // The Default project cannot follow a folder (the server refuses it).
  const instructions = project.is_default ? null : projectInstructionsSection(app, project);
  const folder = project.is_default ? null : folderSection(app, project, refused, () => instructions?.refresh());
  const handle = openDialog({
    title: t('projectSettingsTitle', { project: app.sessions.projectName(project) }),
    wide: true,
    className: 'project-settings',
    body: h('div', { class: 'project-settings-body', 'data-testid': 'project-settings' },
      general?.el ?? h('p', { class: 'field-hint' }, t('defaultUsesCustomInstructions', { settings: t('settings'), tab: t('settingsInstructions') })),
      folder,
      instructions?.el,
      toolApprovalField(app, project),
      files.el),
    onClose: () => {
      void general?.flush();
      files.dispose();
    },
    footer: [status, h('span', { class: 'field-hint foot-hint' }, t('savedAsYouGo')), h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'project-done', onClick: () => handle.close() }, t('done'))],
  });
  if (focus === 'folder' && folder) folder.scrollIntoView({ block: 'start' });
  else if (focus === 'files') files.el.scrollIntoView({ block: 'start' });
  else general?.focus(focus === 'instructions' ? 'instructions' : 'name');
  if (refused && folder) folder.querySelector<HTMLInputElement>('[data-testid=folder-input]')?.focus();
}

/** How long typing pauses before what was typed is saved. */
const TYPING_PAUSE_MS = 700;

/** The name and instructions, each saved as it is typed (after a pause), as the field is left,
 *  and as the settings close. An empty name is not saved (it says why); clearing the
 *  instructions offers Undo. */
function generalSection(app: App, project: Project, status: HTMLElement) {
  const name = h('input', { class: 'input', type: 'text', value: project.name, placeholder: t('projectNamePlaceholder'), maxlength: 200, name: 'name' });
  const nameError = h('span', { class: 'field-error', hidden: true, 'data-testid': 'project-name-error' }, t('projectNameNeeded'));
  const instructions = h('textarea', { class: 'input textarea', rows: 6, name: 'instructions' });
  instructions.value = project.instructions;
  let saved = { name: project.name, instructions: project.instructions };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  const save = async () => {
    const patch: { name?: string; instructions?: string } = {};
    nameError.hidden = name.value.trim() !== '';
    if (name.value.trim() && name.value.trim() !== saved.name) patch.name = name.value.trim();
    if (instructions.value !== saved.instructions) patch.instructions = instructions.value;
    if (Object.keys(patch).length === 0) return;
    status.textContent = t('saving');
    const before = saved;
    const ok = await app.sessions.updateProject(project.id, patch);
    status.textContent = ok ? t('savedShort') : '';
    if (!ok) return;
    saved = { ...saved, ...patch };
    if (patch.instructions === '' && before.instructions !== '') {
      toast(t('projectInstructionsCleared'), 'info', { action: { label: t('undo'), run: () => void app.sessions.updateProject(project.id, { instructions: before.instructions }).then((back) => {
        if (!back) return;
        saved = { ...saved, instructions: before.instructions };
        if (instructions.isConnected) instructions.value = before.instructions;
      }) } });
    }
  };
  const flush = (): Promise<void> => {
    clearTimeout(timer);
    chain = chain.then(save);
    return chain;
  };
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void flush(), TYPING_PAUSE_MS);
  };
  for (const field of [name, instructions]) {
    field.addEventListener('input', soon);
    field.addEventListener('change', () => void flush());
  }
  const el = h('section', { class: 'project-general', 'data-testid': 'project-general' },
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('projectName')), name, nameError),
    h('label', { class: 'field' }, h('span', { class: 'field-label' }, t('projectInstructions')), instructions, h('span', { class: 'field-hint' }, t('projectInstructionsHint'))),
  );
  return { el, flush, focus: (which: 'name' | 'instructions') => (which === 'name' ? name : instructions).focus() };
}

/** Whether the project's chats let tools their server marks read-only run without asking: saved
 *  as it is ticked (put back when the save fails). */
function toolApprovalField(app: App, project: Project): HTMLElement {
  const box = h('input', { type: 'checkbox', 'data-testid': 'read-only-tools-run', checked: project.tool_approval === 'read_only_runs' });
  box.addEventListener('change', () => {
    const wanted = box.checked;
    void app.sessions.updateProject(project.id, { tool_approval: wanted ? 'read_only_runs' : 'ask' }).then((ok) => {
      if (!ok) box.checked = !wanted;
    });
  });
  return h('section', { class: 'project-tools', 'data-testid': 'project-tools' },
    h('h3', { class: 'field-label' }, t('projectToolServers')),
    h('label', { class: 'check' }, box, h('span', null, t('readOnlyToolsRun'))),
    h('span', { class: 'field-hint' }, t('readOnlyToolsRunHint')));
}

/** How many of the project's files are mirrored from its folder (read first when not yet known). */
async function mirroredCount(app: App, projectId: number): Promise<number> {
  const key = scopeKey({ project_id: projectId });
  if (!app.attachments.files.has(key)) await app.attachments.loadFiles({ project_id: projectId });
  return (app.attachments.files.get(key) ?? []).filter((a) => a.folder_path !== null).length;
}

/**
 * The folder on disk the project follows: shown (or "No folder"), linked by its typed path or, in
 * the desktop window, by the system's picker, and unlinked after saying what goes. Each action
 * says what it did beside it; a refusal shows beside the path.
 */
function folderSection(app: App, project: Project, refused: { path: string; error: string } | undefined, onChanged: () => void): HTMLElement {
  let linked = project.folder;
  const current = h('div', { class: 'folder-current' });
  const picker = folderPicker(app, () => t('chooseFolderTitle', { project: app.sessions.projectName(project) }), (p) => void link(p));
  const linkBtn = h('button', { class: 'btn btn-small', type: 'submit', 'data-testid': 'folder-link' }, t('linkFolder'));
  const form = h('form', {
    class: 'folder-link',
    onSubmit: (e: Event) => {
      e.preventDefault();
      if (picker.path.value.trim()) void link(picker.path.value.trim());
      else picker.path.focus();
    },
  }, picker.path, picker.choose, linkBtn);
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'folder-error', hidden: true });
  const said = h('p', { class: 'folder-said', role: 'status', 'data-testid': 'folder-said', hidden: true });
  const buttons = () => [...current.querySelectorAll('button'), linkBtn, picker.choose].filter((b): b is HTMLButtonElement => !!b);
  const say = (text: string) => {
    said.textContent = text;
    said.hidden = false;
  };

  const show = () => {
    form.hidden = !!linked;
    replaceChildren(current, linked
      ? [
          h('code', { class: 'folder-path', title: linked, 'data-testid': 'folder-current' }, linked),
          h('button', { class: 'btn btn-small btn-ghost', type: 'button', 'data-testid': 'folder-unlink', onClick: () => void unlink() }, t('unlinkFolder')),
        ]
      : h('span', { class: 'muted', 'data-testid': 'folder-current' }, t('noFolder')));
  };

  const change = async (folder: string | null): Promise<boolean> => {
    problem.hidden = true;
    for (const b of buttons()) b.disabled = true;
    try {
      linked = (await app.sessions.linkFolder(project.id, folder)).folder;
      picker.path.value = '';
      show();
      void app.attachments.loadFiles({ project_id: project.id });
      void app.attachments.followFolderSync(project.id, true);
      onChanged();
      return true;
    } catch (e) {
      problem.textContent = errorMessage(e);
      problem.hidden = false;
      return false;
    } finally {
      for (const b of buttons()) b.disabled = false;
    }
  };

  const link = async (folder: string) => {
    if (await change(folder)) say(t('folderLinkedSaid', { folder: linked ?? folder }));
  };

  const unlink = async () => {
    const was = linked;
    if (!was) return;
    const n = await mirroredCount(app, project.id);
    const ok = await confirmDialog({ title: t('unlinkTitle', { folder: was }), body: t('unlinkBody', { n, count: count(n) }), confirm: t('unlinkFolder'), danger: true });
    if (ok && (await change(null))) say(t('folderUnlinkedSaid', { n, count: count(n), folder: was }));
  };

  show();
  if (refused) {
    picker.path.value = refused.path;
    problem.textContent = t('folderNotLinkedYet', { error: refused.error });
    problem.hidden = false;
  }
  return h('section', { class: 'project-folder', 'data-testid': 'project-folder' },
    h('h3', { class: 'field-label' }, t('projectFolder')),
    current,
    form,
    problem,
    said,
    h('span', { class: 'field-hint' }, t('folderHint')),
    excludeField(app, project),
  );
}

/** The paths the project leaves out of its folder, one pattern a line, saved as typed (after a
 *  pause) and as the field is left; a line the server refuses is named below, and the saved
 *  patterns stay as they were. The files' list follows each save (its sync shows progress). */
function excludeField(app: App, project: Project): HTMLElement {
  const field = h('textarea', {
    class: 'input textarea', rows: 3, name: 'exclude', spellcheck: 'false', placeholder: t('folderExcludePlaceholder'),
    'aria-label': t('folderExclude'), 'data-testid': 'folder-exclude',
  });
  field.value = project.exclude.join('\n');
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'folder-exclude-error', hidden: true });
  const said = h('p', { class: 'folder-said', role: 'status', 'data-testid': 'folder-exclude-said', hidden: true });
  let saved = project.exclude.join('\n');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  const lines = () => field.value.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const save = async () => {
    const wanted = lines();
    if (wanted.join('\n') === saved) return;
    try {
      const now = await app.sessions.excludeFromFolder(project.id, wanted);
      saved = now.exclude.join('\n');
      problem.hidden = true;
      said.textContent = t('folderExcludeSaved', { n: now.exclude.length });
      said.hidden = false;
      void app.attachments.loadFiles({ project_id: project.id });
      void app.attachments.followFolderSync(project.id, true);
    } catch (e) {
      said.hidden = true;
      problem.textContent = errorMessage(e);
      problem.hidden = false;
    }
  };
  const flush = () => {
    clearTimeout(timer);
    chain = chain.then(save);
  };
  field.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(flush, TYPING_PAUSE_MS);
  });
  field.addEventListener('change', flush);
  return h('label', { class: 'field folder-exclude' },
    h('span', { class: 'field-label' }, t('folderExclude')), field, problem, said,
    h('span', { class: 'field-hint' }, t('folderExcludeHint')));
}
