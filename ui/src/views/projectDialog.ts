// Creating a project, or renaming one and editing its instructions (section ③) and its files.

import type { App } from '../app';
import type { Project } from '../backend/types';
import { h } from '../lib/dom';
import { t } from '../lib/i18n';
import { openDialog } from './dialog';
import { projectFilesSection } from './files';

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
        ok = Object.keys(patch).length === 0 || (await app.updateProject(project.id, patch));
      } else {
        const created = await app.createProject(name.value, instructions.value);
        ok = !!created;
        if (created) app.newChat(created.id);
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
  // Files are stored as they are added (not with Save): the project exists already.
  const files = project ? projectFilesSection(app, project) : null;
  const handle = openDialog({
    title: project ? app.projectName(project) : t('newProject'),
    body: files ? [form, files.el] : form,
    onClose: () => files?.dispose(),
    footer: [h('button', { class: 'btn', type: 'button', onClick: () => handle.close() }, t('cancel')), saveBtn],
  });
  (focus === 'instructions' ? instructions : name).focus();
}
