// The Skills tab of settings: the user's skills, global ones first, then each project's. Each
// shows its name, its description, what it takes of the prompt (listed, and its procedure once
// loaded) and its reference files; it can be turned off, turned off in chosen projects (a global
// one), edited (its SKILL.md, and its reference files removed or added) and deleted. A new skill
// starts from a SKILL.md to fill in, global or a project's; a skill folder from disk (a folder
// with a SKILL.md, or a folder of such folders) is read here and sent as its SKILL.md and its
// other text files. Changes are saved as they are made (no Save button), like tool servers.

import type { App } from '../app';
import { errorMessage } from '../lib/apiError';
import type { SkillFile, SkillView } from '../backend/types';
import { h, icon, replaceChildren, type Child } from '../lib/dom';
import { count } from '../lib/format';
import { t, type Key } from '../lib/i18n';
import { pickedFiles, readReferenceFiles, readSkillFolder, skillFrontMatter, skillSizes, chars, SkillsStore, type FolderSkill, type SkipReason } from '../state/skills';
import { confirmDialog } from './dialog';
import { toast } from './toast';

const SKIP_WORDS: Record<SkipReason, Key> = { hidden: 'skipHidden', binary: 'skipBinary', tooLarge: 'skipTooLarge' };

/** "logo.png (not text), .git (hidden)". */
export function leftOutText(skipped: readonly { path: string; why: SkipReason }[]): string {
  return skipped.map((s) => `${s.path} (${t(SKIP_WORDS[s.why])})`).join(', ');
}

/** A skill folder read from disk, shown before it is sent: its skills and where they go. */
interface Importing {
  folder: string;
  skills: (FolderSkill & { error: string | null })[];
}

export function mountSkillsPane(app: App, root: HTMLElement, store = app.skillsStore()): SkillsStore {
  /** The skill being edited: its id, "new", or none. Its form is kept while the list redraws. */
  let editing: number | 'new' | null = null;
  let form: HTMLElement | null = null;
  let importing: Importing | null = null;
  let importForm: HTMLElement | null = null;
  /** What the last folder picked said when it held no skill. */
  let folderProblem: string | null = null;
  /** Why a skill's last quick change or delete failed, shown on it (a notice would sit behind the dialog). */
  const problems = new Map<number, string>();

  const projectLabel = (id: number) => {
    const entry = app.sessions.projects.find((p) => p.project.id === id);
    return entry ? app.sessions.projectName(entry.project) : `#${id}`;
  };

  /** Where a new skill or an imported one goes: global, or one of the projects. */
  const whereSelect = (testid: string) => h('select', { class: 'input', 'data-testid': testid },
    h('option', { value: '' }, t('skillWhereGlobal')),
    app.sessions.projects.map(({ project }) => h('option', { value: String(project.id) }, app.sessions.projectName(project))));
  const whereValue = (select: HTMLSelectElement): number | undefined => (select.value === '' ? undefined : Number(select.value));

  const edit = (which: number | 'new' | null) => {
    editing = which;
    form = which === null ? null : skillForm(which === 'new' ? null : store.skills.find((s) => s.id === which) ?? null);
    render();
  };

  // ---- a skill's form: its SKILL.md and its reference files (and, for a new one, where it goes)
  const skillForm = (skill: SkillView | null): HTMLElement => {
    const text = h('textarea', { class: 'input textarea skill-text', rows: 14, spellcheck: 'false', 'data-testid': 'skill-text' });
    text.value = skill?.text ?? t('skillTemplate');
    const where = skill ? null : whereSelect('skill-where');
    let files: SkillFile[] = skill ? skill.files.map((f) => ({ ...f })) : [];
    const fileList = h('ul', { class: 'skill-files', 'data-testid': 'skill-form-files' });
    const filesNote = h('p', { class: 'hint', 'data-testid': 'skill-files-note', hidden: true });
    const drawFiles = () => replaceChildren(fileList, files.length
      ? files.map((f) => h('li', { class: 'skill-file', 'data-testid': 'skill-form-file', dataset: { path: f.path } },
          h('code', null, f.path),
          h('span', { class: 'muted' }, t('skillChars', { n: count(chars(f.content)) })),
          h('button', {
            class: 'icon-btn', type: 'button', title: t('skillRemoveFile', { path: f.path }), 'aria-label': t('skillRemoveFile', { path: f.path }), 'data-testid': 'skill-file-remove',
            onClick: () => {
              files = files.filter((x) => x.path !== f.path);
              drawFiles();
            },
          }, icon('close'))))
      : h('li', { class: 'hint' }, t('skillNoFiles')));
    drawFiles();
    const fileInput = h('input', { type: 'file', multiple: true, hidden: true, 'data-testid': 'skill-add-files-input' });
    fileInput.addEventListener('change', async () => {
      const read = await readReferenceFiles(Array.from(fileInput.files ?? []));
      fileInput.value = '';
      // A file of the same name replaces the one there.
      files = [...files.filter((f) => !read.files.some((n) => n.path === f.path)), ...read.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      drawFiles();
      filesNote.textContent = read.skipped.length ? t('skillFilesNotAdded', { list: leftOutText(read.skipped) }) : '';
      filesNote.hidden = read.skipped.length === 0;
    });
    const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-form-error', hidden: true });
    const save = async () => {
      problem.hidden = true;
      saveBtn.disabled = true;
      try {
        if (!skill) {
          const project = whereValue(where!);
          await store.create({ ...(project !== undefined ? { project_id: project } : {}), text: text.value, ...(files.length ? { files } : {}) });
        } else {
          const patch: { text?: string; files?: SkillFile[] } = {};
          if (text.value !== skill.text) patch.text = text.value;
          if (JSON.stringify(files) !== JSON.stringify(skill.files)) patch.files = files;
          if (Object.keys(patch).length) await store.update(skill.id, patch);
        }
      } catch (e) {
        saveBtn.disabled = false;
        problem.textContent = errorMessage(e);
        problem.hidden = false;
        return;
      }
      edit(null);
    };
    const saveBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'skill-save', onClick: () => void save() }, t(skill ? 'save' : 'addSkill'));
    queueMicrotask(() => text.focus());
    return h('div', { class: 'skill-form form', 'data-testid': 'skill-form' },
      h('h3', null, skill ? t('editSkill', { name: skill.name }) : t('newSkill')),
      where ? field(t('skillWhere'), where) : null,
      field(t('skillText'), text, t('skillTextHint')),
      h('div', { class: 'skill-section' },
        h('div', { class: 'row-between' },
          h('h4', null, t('skillFiles')),
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'skill-add-files', onClick: () => fileInput.click() }, icon('plus'), t('skillAddFiles')),
        ),
        h('p', { class: 'hint' }, t('skillFilesHint')),
        fileList,
        filesNote,
        fileInput,
      ),
      problem,
      h('div', { class: 'row-end' },
        h('button', { class: 'btn', type: 'button', onClick: () => edit(null) }, t('cancel')),
        saveBtn,
      ),
    );
  };

  // ---- a folder from disk
  const folderInput = h('input', { type: 'file', multiple: true, hidden: true, webkitdirectory: true, 'data-testid': 'skill-folder-input' });
  folderInput.addEventListener('change', async () => {
    const picked = pickedFiles(folderInput.files ?? []);
    folderInput.value = '';
    if (picked.length === 0) return;
    const folder = picked[0].path.split('/')[0] || picked[0].path;
    const skills = await readSkillFolder(picked);
    folderProblem = skills.length ? null : t('skillFolderEmpty', { folder });
    importing = skills.length ? { folder, skills: skills.map((s) => ({ ...s, error: s.text ? null : t('skillMdNotText') })) } : null;
    importForm = importing ? importView(importing) : null;
    render();
  });

  // ---- a zip: the server reads it, and says what it left out
  const zipInput = h('input', { type: 'file', accept: '.zip,application/zip', hidden: true, 'data-testid': 'skill-zip-input' });
  zipInput.addEventListener('change', async () => {
    const file = zipInput.files?.[0];
    zipInput.value = '';
    if (!file) return;
    try {
      const { imported, leftOut } = await store.importZip(file);
      folderProblem = leftOut.length ? t('skillZipLeftOut', { list: leftOut.join(', ') }) : null;
      toast(t('skillsImported', { n: imported }));
    } catch (e) {
      folderProblem = errorMessage(e);
    }
    render();
  });

  const importView = (imp: Importing): HTMLElement => {
    const where = whereSelect('skill-import-where');
    const list = h('ul', { class: 'skill-import-list' });
    const draw = () => replaceChildren(list, imp.skills.map((s) => {
      const name = skillFrontMatter(s.text).name || s.folder.split('/').pop() || s.folder;
      return h('li', { class: 'skill-import-item', 'data-testid': 'skill-import-item', dataset: { folder: s.folder } },
        h('strong', null, name),
        s.folder && s.folder !== name ? h('span', { class: 'muted' }, ` ${s.folder}/`) : null,
        h('p', { class: 'hint', 'data-testid': 'skill-import-files' }, t('skillImportFiles', { files: t('skillFileCount', { n: s.files.length }) }),
          s.files.length ? [': ', s.files.map((f) => f.path).join(', ')] : null),
        s.skipped.length ? h('p', { class: 'hint', 'data-testid': 'skill-import-skipped' }, t('skillLeftOut', { list: leftOutText(s.skipped) })) : null,
        s.error ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-import-error' }, s.error) : null,
      );
    }));
    draw();
    const go = async () => {
      goBtn.disabled = true;
      const project = whereValue(where);
      let done = 0;
      for (const s of [...imp.skills]) {
        if (!s.text) continue;
        try {
          await store.create({ ...(project !== undefined ? { project_id: project } : {}), text: s.text, ...(s.files.length ? { files: s.files } : {}) });
          imp.skills = imp.skills.filter((x) => x !== s);
          done++;
        } catch (e) {
          s.error = errorMessage(e);
        }
      }
      if (done) toast(t('skillsImported', { n: done }));
      goBtn.disabled = false;
      if (imp.skills.length === 0) {
        importing = null;
        importForm = null;
        render();
      } else draw();
    };
    const goBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'skill-import', onClick: () => void go() }, t('skillImport', { n: imp.skills.length }));
    return h('div', { class: 'skill-form form', 'data-testid': 'skill-import-form' },
      h('h3', null, t('skillImportTitle', { folder: imp.folder })),
      list,
      field(t('skillWhere'), where),
      h('div', { class: 'row-end' },
        h('button', { class: 'btn', type: 'button', onClick: () => { importing = null; importForm = null; render(); } }, t('cancel')),
        goBtn,
      ),
    );
  };

  // ---- the list
  /** A quick change (on/off, a project): a failure is said on the skill, which shows what is saved. */
  const quick = async (id: number, patch: { enabled?: boolean; off_in?: number[] }) => {
    try {
      problems.delete(id);
      await store.update(id, patch);
    } catch (e) {
      problems.set(id, errorMessage(e));
      render();
    }
  };

  const item = (s: SkillView): HTMLElement => {
    if (editing === s.id && form) return h('li', { class: 'skill editing', 'data-testid': 'skill', dataset: { name: s.name, id: String(s.id) } }, form);
    const sizes = skillSizes(s);
    const enabled = h('input', { type: 'checkbox', checked: s.enabled, 'data-testid': 'skill-enabled' });
    enabled.addEventListener('change', () => void quick(s.id, { enabled: enabled.checked }));
    return h('li', { class: ['skill', !s.enabled && 'off'], 'data-testid': 'skill', dataset: { name: s.name, id: String(s.id) } },
      h('div', { class: 'skill-top' },
        h('strong', { class: 'skill-name' }, s.name),
        s.enabled ? null : h('span', { class: 'badge badge-absent' }, t('skillOffBadge')),
        h('span', { class: 'spacer' }),
        h('label', { class: 'skill-switch', title: t('skillOnHint') }, enabled, h('span', null, t('skillOn'))),
        h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), 'data-testid': 'skill-edit', onClick: () => edit(s.id) }, icon('edit')),
        h('button', {
          class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('delete'), 'data-testid': 'skill-delete',
          onClick: async () => {
            if (!(await confirmDialog({ title: t('deleteSkillTitle', { name: s.name }), body: t('deleteSkillBody'), confirm: t('delete'), danger: true }))) return;
            try {
              problems.delete(s.id);
              await store.remove(s.id);
            } catch (e) {
              problems.set(s.id, errorMessage(e));
              render();
            }
          },
        }, icon('trash')),
      ),
      h('p', { class: 'skill-description' }, s.description),
      problems.has(s.id) ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-error' }, problems.get(s.id)) : null,
      h('p', { class: 'hint skill-sizes', title: t('skillSizesHint'), 'data-testid': 'skill-sizes' },
        t('skillSizes', { listed: count(sizes.listed), body: count(sizes.body), files: t('skillFileCount', { n: s.files.length }) })),
      s.files.length ? h('ul', { class: 'skill-file-names', 'data-testid': 'skill-files' }, s.files.map((f) => h('li', null, h('code', null, f.path)))) : null,
      s.project_id === null && app.sessions.projects.length ? h('div', { class: 'skill-section' },
        h('h4', null, t('skillOnInProjects')),
        h('div', { class: 'skill-projects', 'data-testid': 'skill-projects' }, app.sessions.projects.map(({ project }) => {
          const box = h('input', { type: 'checkbox', checked: !s.off_in.includes(project.id), disabled: !s.enabled, dataset: { projectId: String(project.id) } });
          box.addEventListener('change', () => {
            const off = s.off_in.filter((id) => id !== project.id);
            void quick(s.id, { off_in: box.checked ? off : [...off, project.id] });
          });
          return h('label', { class: 'check', 'data-testid': 'skill-project' }, box, app.sessions.projectName(project));
        })),
      ) : null,
    );
  };

  const group = (title: Child, hint: string, list: SkillView[], empty: string | null, testid: string, projectId?: number): HTMLElement | null => {
    if (!list.length && empty === null) return null;
    return h('section', { class: 'skill-group', 'data-testid': testid, dataset: projectId !== undefined ? { projectId: String(projectId) } : undefined },
      h('h4', { class: 'skill-group-title' }, title),
      h('p', { class: 'hint' }, hint),
      list.length ? h('ul', { class: 'skill-list' }, list.map(item)) : h('p', { class: 'hint' }, empty),
    );
  };

  const render = () => {
    const all = store.skills;
    const global = all.filter((s) => s.project_id === null);
    // Projects in the sidebar's order, then any the sidebar does not list.
    const order = [...app.sessions.projects.map((p) => p.project.id), ...all.map((s) => s.project_id).filter((id): id is number => id !== null)];
    const projects = [...new Set(order)].filter((id) => all.some((s) => s.project_id === id));
    const newForm = editing === 'new' && form ? form : null;
    replaceChildren(root,
      h('div', { class: 'row-between skills-head' },
        h('h3', null, t('yourSkills')),
        h('div', { class: 'row' },
          editing === 'new' ? null : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'new-skill', onClick: () => edit('new') }, icon('plus'), t('newSkill')),
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-skill-folder', onClick: () => folderInput.click() }, icon('folder'), t('importSkillFolder')),
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-skill-zip', onClick: () => zipInput.click() }, icon('upload'), t('importSkillZip')),
        ),
      ),
      h('p', { class: 'hint' }, t('skillsHint')),
      folderInput,
      zipInput,
      folderProblem ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-folder-problem' }, folderProblem) : null,
      importForm,
      newForm,
      store.error ? h('p', { class: 'field-error', 'data-testid': 'skills-error' }, store.error) : null,
      !store.loaded ? h('p', { class: 'hint' }, t('loading'))
        : all.length === 0 && !newForm && !importForm ? h('p', { class: 'hint', 'data-testid': 'no-skills' }, t('noSkills'))
          : [
              group(t('skillsGlobal'), t('skillsGlobalHint'), global, t('noGlobalSkills'), 'skills-global'),
              projects.map((id) => group([icon('folder'), ' ', projectLabel(id)], t('skillsProjectHint'), all.filter((s) => s.project_id === id), null, 'skills-project', id)),
            ],
    );
  };

  const offs = [store.onChange(() => redraw()), app.on('sidebar', () => redraw())];
  const redraw = () => {
    if (root.isConnected) render();
    else offs.forEach((off) => off());
  };
  render();
  void store.load();
  return store;
}

function field(label: string, control: HTMLElement, hint?: string | null): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
}
