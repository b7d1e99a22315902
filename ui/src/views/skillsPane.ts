// The Skills tab of settings: the user's skills, global ones first, then each project's. Each
// shows its name, its description, what it takes of the prompt (listed, and its procedure once
// loaded) and its reference files; it can be turned off, turned off in chosen projects (a global
// one), edited (its SKILL.md, and its reference files removed or added) and deleted. A new skill
// starts from a SKILL.md to fill in, global or a project's; a skill folder from disk (a folder
// with a SKILL.md, or a folder of such folders) is read here and sent as its SKILL.md and its
// other text files. Changes are saved as they are made (no Save button), like tool servers.

import type { App } from '../app';
import type { SkillFile, SkillView } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import { h, icon, replaceChildren, type Child } from '../lib/dom';
import { count } from '../lib/format';
import { language, t, type Key } from '../lib/i18n';
import { importRefusal, pickedFiles, readReferenceFiles, readSkillFolder, skillFrontMatter, skillSizes, chars, SkillsStore, type FolderSkill, type ImportRefusal, type SkipReason } from '../state/skills';
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
  const pane = new SkillsPane(app, root, store);
  const offs = [store.onChange(() => redraw()), app.on('sidebar', () => redraw())];
  const redraw = () => {
    if (root.isConnected) pane.render();
    else offs.forEach((off) => off());
  };
  pane.render();
  void store.load();
  return store;
}

/** Where a new skill or an imported one goes: global, or one of the projects. */
function whereSelect(app: App, testid: string): HTMLSelectElement {
  return h('select', { class: 'input', 'data-testid': testid },
    h('option', { value: '' }, t('skillWhereGlobal')),
    app.sessions.projects.map(({ project }) => h('option', { value: String(project.id) }, app.sessions.projectName(project))));
}

function whereValue(select: HTMLSelectElement): number | undefined {
  return select.value === '' ? undefined : Number(select.value);
}

class SkillsPane {
  /** The skill being edited: its id, "new", or none. Its form is kept while the list redraws. */
  private editing: number | 'new' | null = null;
  private form: HTMLElement | null = null;
  private importing: Importing | null = null;
  private importForm: HTMLElement | null = null;
  /** What the last folder picked said when it held no skill. */
  private folderProblem: string | null = null;
  /** Why a skill's last quick change or delete failed, shown on it (a notice would sit behind the dialog). */
  private readonly problems = new Map<number, string>();
  private readonly folderInput = h('input', { type: 'file', multiple: true, hidden: true, webkitdirectory: true, 'data-testid': 'skill-folder-input' });
  private readonly zipInput = h('input', { type: 'file', accept: '.zip,application/zip', hidden: true, 'data-testid': 'skill-zip-input' });

  constructor(private readonly app: App, private readonly root: HTMLElement, private readonly store: SkillsStore) {
    this.folderInput.addEventListener('change', () => void this.folderPicked());
    this.zipInput.addEventListener('change', () => void this.zipPicked());
  }

  private projectLabel(id: number): string {
    const entry = this.app.sessions.projects.find((p) => p.project.id === id);
    return entry ? this.app.sessions.projectName(entry.project) : `#${id}`;
  }

  private edit(which: number | 'new' | null): void {
    this.editing = which;
    const skill = which === 'new' ? null : this.store.skills.find((s) => s.id === which) ?? null;
    this.form = which === null ? null : skillForm(this.app, this.store, skill, () => this.edit(null));
    this.render();
  }

  /** A folder from disk: its skills, shown before they are sent. */
  private async folderPicked(): Promise<void> {
    const picked = pickedFiles(this.folderInput.files ?? []);
    this.folderInput.value = '';
    if (picked.length === 0) return;
    const folder = picked[0].path.split('/')[0] || picked[0].path;
    const skills = await readSkillFolder(picked);
    this.folderProblem = skills.length ? null : t('skillFolderEmpty', { folder });
    this.importing = skills.length ? { folder, skills: skills.map((s) => ({ ...s, error: s.text ? null : t('skillMdNotText') })) } : null;
    this.importForm = this.importing ? this.importView(this.importing) : null;
    this.render();
  }

  /** A zip: the server reads it, and says what it left out. */
  private async zipPicked(): Promise<void> {
    const file = this.zipInput.files?.[0];
    this.zipInput.value = '';
    if (!file) return;
    try {
      const { imported, leftOut } = await this.store.importZip(file);
      this.folderProblem = leftOut.length ? t('skillZipLeftOut', { list: leftOut.join(', ') }) : null;
      toast(t('skillsImported', { n: imported }));
    } catch (e) {
      this.folderProblem = errorMessage(e);
    }
    this.render();
  }

  private closeImport(): void {
    this.importing = null;
    this.importForm = null;
    this.render();
  }

  /** The skills of a folder read from disk, where they go, and the button that sends them. */
  private importView(imp: Importing): HTMLElement {
    const where = whereSelect(this.app, 'skill-import-where');
    const list = h('ul', { class: 'skill-import-list' });
    const draw = () => replaceChildren(list, imp.skills.map(importItem));
    draw();
    const go = async () => {
      goBtn.disabled = true;
      const project = whereValue(where);
      let done = 0;
      for (const s of [...imp.skills]) {
        if (importRefusal(s)) continue;
        try {
          await this.store.create({ ...(project !== undefined ? { project_id: project } : {}), text: s.text, ...(s.files.length ? { files: s.files } : {}) });
          imp.skills = imp.skills.filter((x) => x !== s);
          done++;
        } catch (e) {
          s.error = errorMessage(e);
        }
      }
      if (done) toast(t('skillsImported', { n: done }));
      goBtn.disabled = false;
      if (imp.skills.length === 0) this.closeImport();
      else draw();
    };
    // What the server would refuse is said on each skill now, and is not offered for import.
    const importable = imp.skills.filter((s) => !importRefusal(s)).length;
    const goBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'skill-import', disabled: importable === 0, onClick: () => void go() }, t('skillImport', { n: importable }));
    return h('div', { class: 'skill-form form', 'data-testid': 'skill-import-form' },
      h('h3', null, t('skillImportTitle', { folder: imp.folder })),
      list,
      field(t('skillWhere'), where),
      h('div', { class: 'row-end' },
        h('button', { class: 'btn', type: 'button', onClick: () => this.closeImport() }, t('cancel')),
        goBtn,
      ),
    );
  }

  /** A quick change (on/off, a project) or a delete: a failure is said on the skill, which shows what is saved. */
  private async quick(id: number, change: () => Promise<unknown>): Promise<void> {
    try {
      this.problems.delete(id);
      await change();
    } catch (e) {
      this.problems.set(id, errorMessage(e));
      this.render();
    }
  }

  private item(s: SkillView): HTMLElement {
    if (this.editing === s.id && this.form) return h('li', { class: 'skill editing', 'data-testid': 'skill', dataset: { name: s.name, id: String(s.id) } }, this.form);
    const sizes = skillSizes(s);
    return h('li', { class: ['skill', !s.enabled && 'off'], 'data-testid': 'skill', dataset: { name: s.name, id: String(s.id) } },
      this.itemTop(s),
      h('p', { class: 'skill-description' }, s.description),
      this.problems.has(s.id) ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-error' }, this.problems.get(s.id)) : null,
      h('p', { class: 'hint skill-sizes', title: t('skillSizesHint'), 'data-testid': 'skill-sizes' },
        t('skillSizes', { listed: count(sizes.listed), body: count(sizes.body), files: t('skillFileCount', { n: s.files.length }) })),
      s.files.length ? h('ul', { class: 'skill-file-names', 'data-testid': 'skill-files' }, s.files.map((f) => h('li', null, h('code', null, f.path)))) : null,
      this.projectsSection(s),
    );
  }

  /** A skill's name and buttons (on/off, edit, delete). */
  private itemTop(s: SkillView): HTMLElement {
    const store = this.store;
    const enabled = h('input', { type: 'checkbox', checked: s.enabled, 'data-testid': 'skill-enabled' });
    enabled.addEventListener('change', () => void this.quick(s.id, () => store.update(s.id, { enabled: enabled.checked })));
    return h('div', { class: 'skill-top' },
      h('strong', { class: 'skill-name' }, s.name),
      s.enabled ? null : h('span', { class: 'badge badge-absent' }, t('skillOffBadge')),
      h('span', { class: 'spacer' }),
      h('label', { class: 'skill-switch', title: t('skillOnHint') }, enabled, h('span', null, t('skillOn'))),
      h('button', { class: 'icon-btn', type: 'button', title: t('edit'), 'aria-label': t('edit'), 'data-testid': 'skill-edit', onClick: () => this.edit(s.id) }, icon('edit')),
      h('button', {
        class: 'icon-btn danger', type: 'button', title: t('delete'), 'aria-label': t('delete'), 'data-testid': 'skill-delete',
        onClick: async () => {
          if (!(await confirmDialog({ title: t('deleteSkillTitle', { name: s.name }), body: t('deleteSkillBody'), confirm: t('delete'), danger: true }))) return;
          await this.quick(s.id, () => store.remove(s.id));
        },
      }, icon('trash')),
    );
  }

  /** The projects a global skill is on in (all, unless turned off in some). */
  private projectsSection(s: SkillView): HTMLElement | null {
    const sessions = this.app.sessions;
    if (s.project_id !== null || !sessions.projects.length) return null;
    return h('div', { class: 'skill-section' },
      h('h4', null, t('skillOnInProjects')),
      h('div', { class: 'skill-projects', 'data-testid': 'skill-projects' }, sessions.projects.map(({ project }) => {
        const box = h('input', { type: 'checkbox', checked: !s.off_in.includes(project.id), disabled: !s.enabled, dataset: { projectId: String(project.id) } });
        box.addEventListener('change', () => {
          const off = s.off_in.filter((id) => id !== project.id);
          void this.quick(s.id, () => this.store.update(s.id, { off_in: box.checked ? off : [...off, project.id] }));
        });
        return h('label', { class: 'check', 'data-testid': 'skill-project' }, box, sessions.projectName(project));
      })),
    );
  }

  private group(title: Child, hint: string, list: SkillView[], empty: string | null, testid: string, projectId?: number): HTMLElement | null {
    if (!list.length && empty === null) return null;
    return h('section', { class: 'skill-group', 'data-testid': testid, dataset: projectId !== undefined ? { projectId: String(projectId) } : undefined },
      h('h4', { class: 'skill-group-title' }, title),
      h('p', { class: 'hint' }, hint),
      list.length ? h('ul', { class: 'skill-list' }, list.map((s) => this.item(s))) : h('p', { class: 'hint' }, empty),
    );
  }

  render(): void {
    const { store, editing } = this;
    const newForm = editing === 'new' && this.form ? this.form : null;
    replaceChildren(this.root,
      h('div', { class: 'row-between skills-head' },
        h('h3', null, t('yourSkills')),
        h('div', { class: 'row' },
          editing === 'new' ? null : h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'new-skill', onClick: () => this.edit('new') }, icon('plus'), t('newSkill')),
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-skill-folder', onClick: () => this.folderInput.click() }, icon('folder'), t('importSkillFolder')),
          h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'import-skill-zip', onClick: () => this.zipInput.click() }, icon('upload'), t('importSkillZip')),
        ),
      ),
      h('p', { class: 'hint' }, t('skillsHint')),
      this.folderInput,
      this.zipInput,
      this.folderProblem ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-folder-problem' }, this.folderProblem) : null,
      this.importForm,
      newForm,
      store.error ? h('p', { class: 'field-error', 'data-testid': 'skills-error' }, store.error) : null,
      !store.loaded ? h('p', { class: 'hint' }, t('loading'))
        : store.skills.length === 0 && !newForm && !this.importForm ? h('p', { class: 'hint', 'data-testid': 'no-skills' }, t('noSkills'))
          : this.groups(),
    );
  }

  /** The global skills, then each project's (in the sidebar's order, then any it does not list). */
  private groups(): (HTMLElement | null)[] {
    const all = this.store.skills;
    const global = all.filter((s) => s.project_id === null);
    const order = [...this.app.sessions.projects.map((p) => p.project.id), ...all.map((s) => s.project_id).filter((id): id is number => id !== null)];
    const projects = [...new Set(order)].filter((id) => all.some((s) => s.project_id === id));
    return [
      this.group(t('skillsGlobal'), t('skillsGlobalHint'), global, t('noGlobalSkills'), 'skills-global'),
      ...projects.map((id) => this.group([icon('folder'), ' ', this.projectLabel(id)], t('skillsProjectHint'), all.filter((s) => s.project_id === id), null, 'skills-project', id)),
    ];
  }
}

/** One skill of a folder read from disk: its name, files, what was left out, and why it cannot go. */
function importItem(s: Importing['skills'][number]): HTMLElement {
  const name = skillFrontMatter(s.text).name || s.folder.split('/').pop() || s.folder;
  return h('li', { class: 'skill-import-item', 'data-testid': 'skill-import-item', dataset: { folder: s.folder } },
    h('strong', null, name),
    s.folder && s.folder !== name ? h('span', { class: 'muted' }, ` ${s.folder}/`) : null,
    h('p', { class: 'hint', 'data-testid': 'skill-import-files' }, t('skillImportFiles', { files: t('skillFileCount', { n: s.files.length }) }),
      s.files.length ? [': ', s.files.map((f) => f.path).join(', ')] : null),
    s.skipped.length ? h('p', { class: 'hint', 'data-testid': 'skill-import-skipped' }, t('skillLeftOut', { list: leftOutText(s.skipped) })) : null,
    refusalNode(importRefusal(s)),
    s.error ? h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-import-error' }, s.error) : null,
  );
}

/** Why the import will leave a skill out, before it is tried. */
function refusalNode(r: ImportRefusal | null): HTMLElement | null {
  if (!r) return null;
  const mb = (b: number) => (b / (1024 * 1024)).toLocaleString(language(), { maximumFractionDigits: 1 });
  const text = r.why === 'tooLarge' ? t('skillRefusedTooLarge', { mb: mb(r.bytes), max: mb(r.max) })
    : r.why === 'textTooLong' ? t('skillRefusedTextTooLong', { n: count(r.chars), max: count(r.max) })
      : r.why === 'badName' ? t('skillRefusedName', { max: r.max })
        : r.why === 'badDescription' ? t('skillRefusedDescription', { max: count(r.max) })
          : r.why === 'noFrontMatter' ? t('skillRefusedFrontMatter')
            : r.why === 'noProcedure' ? t('skillRefusedProcedure') : t('skillRefusedNoText');
  return h('p', { class: 'field-error', 'data-testid': 'skill-import-refused' }, t('skillWillBeLeftOut', { why: text }));
}

/** A skill's reference files as the form edits them: listed, removed, added from disk (a file of
 *  the same name replaces the one there). */
function referenceFiles(skill: SkillView | null) {
  let files: SkillFile[] = skill ? skill.files.map((f) => ({ ...f })) : [];
  const list = h('ul', { class: 'skill-files', 'data-testid': 'skill-form-files' });
  const note = h('p', { class: 'hint', 'data-testid': 'skill-files-note', hidden: true });
  const draw = () => replaceChildren(list, files.length
    ? files.map((f) => h('li', { class: 'skill-file', 'data-testid': 'skill-form-file', dataset: { path: f.path } },
        h('code', null, f.path),
        h('span', { class: 'muted' }, t('skillChars', { n: count(chars(f.content)) })),
        h('button', {
          class: 'icon-btn', type: 'button', title: t('skillRemoveFile', { path: f.path }), 'aria-label': t('skillRemoveFile', { path: f.path }), 'data-testid': 'skill-file-remove',
          onClick: () => {
            files = files.filter((x) => x.path !== f.path);
            draw();
          },
        }, icon('close'))))
    : h('li', { class: 'hint' }, t('skillNoFiles')));
  draw();
  const input = h('input', { type: 'file', multiple: true, hidden: true, 'data-testid': 'skill-add-files-input' });
  input.addEventListener('change', async () => {
    const read = await readReferenceFiles(Array.from(input.files ?? []));
    input.value = '';
    files = [...files.filter((f) => !read.files.some((n) => n.path === f.path)), ...read.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    draw();
    note.textContent = read.skipped.length ? t('skillFilesNotAdded', { list: leftOutText(read.skipped) }) : '';
    note.hidden = read.skipped.length === 0;
  });
  const section = h('div', { class: 'skill-section' },
    h('div', { class: 'row-between' },
      h('h4', null, t('skillFiles')),
      h('button', { class: 'btn btn-small', type: 'button', 'data-testid': 'skill-add-files', onClick: () => input.click() }, icon('plus'), t('skillAddFiles')),
    ),
    h('p', { class: 'hint' }, t('skillFilesHint')),
    list,
    note,
    input,
  );
  return { section, files: () => files };
}

/** A skill's form: its SKILL.md and its reference files (and, for a new one, where it goes);
 *  `done` closes it (saved, or cancelled). */
function skillForm(app: App, store: SkillsStore, skill: SkillView | null, done: () => void): HTMLElement {
  const text = h('textarea', { class: 'input textarea skill-text', rows: 14, spellcheck: 'false', 'data-testid': 'skill-text' });
  text.value = skill?.text ?? t('skillTemplate');
  const where = skill ? null : whereSelect(app, 'skill-where');
  const refs = referenceFiles(skill);
  const problem = h('p', { class: 'field-error', role: 'alert', 'data-testid': 'skill-form-error', hidden: true });
  const save = async () => {
    problem.hidden = true;
    saveBtn.disabled = true;
    const files = refs.files();
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
    done();
  };
  const saveBtn = h('button', { class: 'btn btn-primary', type: 'button', 'data-testid': 'skill-save', onClick: () => void save() }, t(skill ? 'save' : 'addSkill'));
  queueMicrotask(() => text.focus());
  return h('div', { class: 'skill-form form', 'data-testid': 'skill-form' },
    h('h3', null, skill ? t('editSkill', { name: skill.name }) : t('newSkill')),
    where ? field(t('skillWhere'), where) : null,
    field(t('skillText'), text, t('skillTextHint')),
    refs.section,
    problem,
    h('div', { class: 'row-end' },
      h('button', { class: 'btn', type: 'button', onClick: done }, t('cancel')),
      saveBtn,
    ),
  );
}

function field(label: string, control: HTMLElement, hint?: string | null): HTMLElement {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('span', { class: 'field-hint' }, hint) : null);
}
