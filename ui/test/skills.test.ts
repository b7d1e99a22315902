// Skills: the settings' Skills tab (global skills, then each project's; a new one starts from a
// SKILL.md to fill in and goes where the user chose; a skill folder from disk is sent as its
// SKILL.md and its other text files, hidden and binary ones left out; the on/off switches send
// exactly what changed; the server's refusals are said in the UI's language), and the inspector's
// card of the skills a chat is offered and which it loaded. In English and Korean.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import { ApiError, type Backend } from '../src/backend/backend';
import type { Project, Session, SkillView } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { toolOutcome } from '../src/lib/tools';
import { readSkillFolder, skillBody, skillSizes, SkillsStore, type PickedFile } from '../src/state/skills';
import { mountContextPanel } from '../src/views/contextPanel';
import { openSettingsDialog } from '../src/views/settingsDialog';
import { appInProject, contextView, fakeBackend, settingsView } from './fakeBackend';

type NewSkill = Parameters<Backend['createSkill']>[0];
type SkillPatch = Parameters<Backend['updateSkill']>[1];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const WORK: Project = { id: 2, name: 'Work', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };

const TRIP_MD = '---\nname: trip-checklist\ndescription: Plan a trip: bookings, packing, documents.\n---\n# Steps\n1. Ask where and when.\n2. List the bookings.\n';

function skill(over: Partial<SkillView> = {}): SkillView {
  return {
    id: 1, project_id: null, name: 'trip-checklist', description: 'Plan a trip: bookings, packing, documents.', text: TRIP_MD, enabled: true,
    off_in: [], files: [], created_at: 0, updated_at: 0, ...over,
  };
}

/** The skill routes over skills kept here, as Maru behaves: the name and description come from the
 *  front matter (or `invalid_skill`), a name is one per place (`name_taken`), a patch's files replace. */
function skillRoutes(initial: SkillView[]) {
  const store = initial.map((s) => ({ ...s }));
  let next = Math.max(0, ...store.map((s) => s.id)) + 1;
  const read = (text: string) => {
    const name = /^name:\s*(.+)$/m.exec(text)?.[1].trim();
    const description = /^description:\s*(.+)$/m.exec(text)?.[1].trim();
    if (!text.startsWith('---\n') || !name || !description) {
      throw new ApiError('invalid_skill', 'a SKILL.md starts with front matter: ---, name: …, description: …, ---, then the procedure', 400);
    }
    return { name, description };
  };
  const free = (project: number | null, name: string, except?: number) => {
    if (store.some((s) => s.project_id === project && s.name === name && s.id !== except)) {
      throw new ApiError('name_taken', `a skill named "${name}" already exists here`, 409, { name });
    }
  };
  const find = (id: number) => {
    const s = store.find((x) => x.id === id);
    if (!s) throw new ApiError('not_found', `skill ${id} not found`, 404);
    return s;
  };
  const methods: Partial<Backend> = {
    listSkills: async () => store.map((s) => ({ ...s })),
    createSkill: async (n: NewSkill) => {
      const { name, description } = read(n.text);
      free(n.project_id ?? null, name);
      const made = skill({ id: next++, project_id: n.project_id ?? null, name, description, text: n.text, files: n.files ?? [] });
      store.push(made);
      return { ...made };
    },
    updateSkill: async (id: number, p: SkillPatch) => {
      const s = find(id);
      if (p.text != null) {
        const { name, description } = read(p.text);
        free(s.project_id, name, id);
        Object.assign(s, { name, description, text: p.text });
      }
      if (p.enabled != null) s.enabled = p.enabled;
      if (p.off_in != null) s.off_in = [...p.off_in];
      if (p.files != null) s.files = p.files.map((f) => ({ ...f }));
      return { ...s };
    },
    deleteSkill: async (id: number) => {
      find(id);
      store.splice(store.findIndex((s) => s.id === id), 1);
      return { id, deleted: true };
    },
  };
  return { store, methods };
}

function setUp(initial: SkillView[], over: Partial<Backend> = {}) {
  const routes = skillRoutes(initial);
  const { app, calls } = appInProject({ ...routes.methods, listModels: async () => [], probeServers: async () => [], listToolServers: async () => [], ...over }, DEFAULT);
  app.sessions.projects = [DEFAULT, WORK].map((project) => ({ project, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: false }));
  const sent = (method: string) => calls.filter((c) => c.method === method).map((c) => c.args);
  return { app, calls, sent, ...routes };
}

async function openSkills(app: App): Promise<HTMLElement> {
  openSettingsDialog(app, 'skills');
  await sleep(5);
  return pane();
}
const pane = () => document.querySelector<HTMLElement>('dialog [data-testid=skills-pane]')!;
const byTest = <T extends HTMLElement = HTMLElement>(root: ParentNode, id: string) => root.querySelector<T>(`[data-testid=${id}]`)!;
const skillItem = (name: string) => pane().querySelector<HTMLElement>(`[data-testid=skill][data-name="${name}"]`)!;

function type(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string): void {
  el.value = value;
  el.dispatchEvent(new Event('input'));
}

function toggle(box: HTMLInputElement, checked: boolean): void {
  box.checked = checked;
  box.dispatchEvent(new Event('change'));
}

/** Hands `files` to an <input type=file> as the browser would, then says it changed. */
function pick(input: HTMLInputElement, files: File[]): void {
  Object.defineProperty(input, 'files', { configurable: true, get: () => files });
  input.dispatchEvent(new Event('change'));
}

/** A file as a folder picker gives it: `webkitRelativePath` is its path in the folder picked. */
function inFolder(path: string, content: string | Uint8Array<ArrayBuffer>): File {
  const file = new File([content], path.split('/').pop()!);
  Object.defineProperty(file, 'webkitRelativePath', { configurable: true, get: () => path });
  return file;
}

/** What a PNG starts with: bytes no text file has (a NUL among them). */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
/** Latin-1 "café": not UTF-8, so not text the server can keep as such. */
const LATIN1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]);

describe('a skill folder read from disk', () => {
  const picked = (entries: [string, string | Uint8Array<ArrayBuffer>][]): PickedFile[] => entries.map(([path, c]) => ({ path, file: new Blob([c]) }));

  it('is its SKILL.md and its other text files by their path inside it; hidden, binary and too large ones are left out and named', async () => {
    const skills = await readSkillFolder(picked([
      ['pdf-forms/SKILL.md', '---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\nRead reference/fields.md first.\n'],
      ['pdf-forms/reference/fields.md', '# Fields\nText, checkbox, radio.\n'],
      ['pdf-forms/scripts/fill.py', 'print("filled")\n'],
      ['pdf-forms/logo.png', PNG],
      ['pdf-forms/notes-latin1.txt', LATIN1],
      ['pdf-forms/.DS_Store', 'Bud1'],
      ['pdf-forms/.git/config', '[core]\n'],
      ['pdf-forms/.git/HEAD', 'ref: refs/heads/main\n'],
      ['pdf-forms/reference/.cache/x.md', 'cached\n'],
      ['pdf-forms/big.csv', 'x'.repeat(10 * 1024 * 1024 + 1)],
    ]));
    expect(skills.length).toBe(1);
    const [s] = skills;
    expect(s.folder).toBe('pdf-forms');
    expect(s.text, 'the SKILL.md as written').toContain('name: pdf-forms');
    expect(s.files, 'the text files, by their path inside the skill’s folder, in order').toEqual([
      { path: 'reference/fields.md', content: '# Fields\nText, checkbox, radio.\n' },
      { path: 'scripts/fill.py', content: 'print("filled")\n' },
    ]);
    expect(s.skipped, 'what was left out, each hidden folder once, so the user knows').toEqual(expect.arrayContaining([
      { path: 'logo.png', why: 'binary' },
      { path: 'notes-latin1.txt', why: 'binary' },
      { path: '.DS_Store', why: 'hidden' },
      { path: '.git', why: 'hidden' },
      { path: 'reference/.cache', why: 'hidden' },
      { path: 'big.csv', why: 'tooLarge' },
    ]));
    expect(s.skipped.length).toBe(6);
  });

  it('a skill shaped like the official collection’s keeps its 60 reference files; its font is left out as not text', async () => {
    // anthropics/skills' docx has 60 reference files; canvas-design carries .ttf fonts.
    const TTF = new Uint8Array([0x00, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x80, 0x00, 0x03, 0x00, 0x70]);
    const refs: [string, string][] = Array.from({ length: 60 }, (_, n) => [`docx/scripts/office/schemas/part${String(n).padStart(2, '0')}.xsd`, `<xsd:schema id="${n}"/>\n`]);
    const [s] = await readSkillFolder(picked([
      ['docx/SKILL.md', '---\nname: docx\ndescription: Word documents.\n---\nRead the schemas.\n'],
      ...refs,
      ['docx/canvas-fonts/Lora-Regular.ttf', TTF],
    ]));
    expect(s.files.length, 'every text file is kept: the server limits a skill by size, not by a count of files').toBe(60);
    expect(s.skipped, 'the font is named as left out, so the user knows').toEqual([{ path: 'canvas-fonts/Lora-Regular.ttf', why: 'binary' }]);
  });

  it('a folder of skill folders gives each skill with its own files; a file in no skill’s folder is not taken', async () => {
    const skills = await readSkillFolder(picked([
      ['skills/README.md', 'A collection.\n'],
      ['skills/b-skill/SKILL.md', '---\nname: b\ndescription: B.\n---\nDo B.\n'],
      ['skills/a-skill/SKILL.md', '---\nname: a\ndescription: A.\n---\nDo A.\n'],
      ['skills/a-skill/ref.md', 'about A\n'],
      ['skills/a-skill/inner/SKILL.md', '---\nname: inner\ndescription: I.\n---\nInner.\n'],
      ['skills/.hidden-skill/SKILL.md', '---\nname: h\ndescription: H.\n---\nH.\n'],
    ]));
    expect(skills.map((s) => s.folder), 'one skill per folder with a SKILL.md, not one inside another nor a hidden one').toEqual(['skills/a-skill', 'skills/b-skill']);
    expect(skills[0].files.map((f) => f.path), 'a SKILL.md inside a skill is one of its files').toEqual(['inner/SKILL.md', 'ref.md']);
    expect(skills[1].files).toEqual([]);
  });

  it('takes a hidden folder the user picked (~/.claude, say), but not the hidden folders inside it', async () => {
    const skills = await readSkillFolder(picked([
      ['.claude/skills/pdf/SKILL.md', '---\nname: pdf\ndescription: PDF.\n---\nDo.\n'],
      ['.claude/.cache/old/SKILL.md', '---\nname: old\ndescription: Old.\n---\nOld.\n'],
    ]));
    expect(skills.map((s) => s.folder)).toEqual(['.claude/skills/pdf']);
  });

  it('finds nothing in a folder without a SKILL.md', async () => {
    expect(await readSkillFolder(picked([['notes/a.md', 'x'], ['notes/b.md', 'y']]))).toEqual([]);
  });

  it('measures a skill as the server does: its line in the list, and its procedure without the front matter', () => {
    expect(skillBody(TRIP_MD)).toBe('# Steps\n1. Ask where and when.\n2. List the bookings.');
    const sizes = skillSizes(skill({ name: '여행', description: '짐 싸기 😀', text: '---\nname: 여행\ndescription: 짐 싸기 😀\n---\n단계 😀\n' }));
    expect(sizes, 'characters, not UTF-16 units: 😀 is one').toEqual({ listed: 2 + 6 + 4, body: 4, files: 0 });
  });
});

describe('settings: the Skills tab', () => {
  beforeEach(() => setLanguage('en'));
  afterEach(() => {
    document.body.replaceChildren();
    setLanguage('en');
  });

  it('lists global skills, then each project’s, each with its description, sizes and files', async () => {
    const { app } = setUp([
      skill({ files: [{ path: 'reference/visa.md', content: 'Check visas.' }] }),
      skill({ id: 2, project_id: 2, name: 'standup-notes', description: 'Write the daily standup notes.', text: '---\nname: standup-notes\ndescription: Write the daily standup notes.\n---\nYesterday, today, blockers.\n' }),
    ]);
    await openSkills(app);
    const tab = [...document.querySelectorAll<HTMLButtonElement>('dialog .tab')].find((b) => b.dataset.tab === 'skills')!;
    expect(tab.textContent).toBe('Skills');
    expect(tab.getAttribute('aria-selected')).toBe('true');
    const global = byTest(pane(), 'skills-global');
    const project = byTest(pane(), 'skills-project');
    expect(global.querySelector('h4')?.textContent).toBe('Global');
    expect(project.querySelector('h4')?.textContent?.trim(), 'a project’s skills under its name').toBe('Work');
    expect(global.compareDocumentPosition(project) & Node.DOCUMENT_POSITION_FOLLOWING, 'global skills first').toBeTruthy();
    expect([...global.querySelectorAll<HTMLElement>('[data-testid=skill]')].map((e) => e.dataset.name)).toEqual(['trip-checklist']);
    expect([...project.querySelectorAll<HTMLElement>('[data-testid=skill]')].map((e) => e.dataset.name)).toEqual(['standup-notes']);
    const trip = skillItem('trip-checklist');
    expect(trip.textContent).toContain('Plan a trip: bookings, packing, documents.');
    expect(byTest(trip, 'skill-sizes').textContent, 'what it takes of the prompt listed, and once loaded')
      .toBe('Listed: 60 chars · Procedure: 52 chars · 1 reference file');
    expect(byTest(trip, 'skill-files').textContent).toBe('reference/visa.md');
    expect(byTest(trip, 'skill-projects'), 'a global skill can be turned off per project').not.toBeNull();
    expect(byTest(skillItem('standup-notes'), 'skill-projects'), 'a project’s skill is only in its project').toBeNull();
    expect(document.querySelector('[data-testid=save-settings]'), 'saved as changed: no Save button').toBeNull();
  });

  it('a new skill starts from a SKILL.md to fill in, and is added where the user chose', async () => {
    const { app, sent } = setUp([]);
    await openSkills(app);
    expect(byTest(pane(), 'no-skills').textContent).toContain('No skills yet');
    byTest(pane(), 'new-skill').click();
    const form = byTest(pane(), 'skill-form');
    const text = byTest<HTMLTextAreaElement>(form, 'skill-text');
    expect(text.value, 'the template has the front matter the server reads').toMatch(/^---\nname: my-skill\ndescription: .+\n---\n#/);
    const where = byTest<HTMLSelectElement>(form, 'skill-where');
    expect([...where.options].map((o) => o.textContent), 'global, or one of the projects').toEqual(['Every project (global)', 'Default', 'Work']);
    type(where, '2');
    type(text, TRIP_MD);
    byTest(form, 'skill-save').click();
    await sleep(5);
    expect(sent('createSkill'), 'the text as written, to the project chosen').toEqual([[{ project_id: 2, text: TRIP_MD }]]);
    expect(byTest(pane(), 'skill-form'), 'the form closes once added').toBeNull();
    expect(byTest(pane(), 'skills-project').dataset.projectId).toBe('2');
    expect(skillItem('trip-checklist')).not.toBeNull();

    // A global one is sent without a project.
    byTest(pane(), 'new-skill').click();
    type(byTest(pane(), 'skill-text'), TRIP_MD.replace('trip-checklist', 'packing'));
    byTest(pane(), 'skill-save').click();
    await sleep(5);
    expect(sent('createSkill')[1]).toEqual([{ text: TRIP_MD.replace('trip-checklist', 'packing') }]);
    expect(byTest(pane(), 'skills-global').querySelector('[data-name=packing]')).not.toBeNull();
  });

  it('imports a picked folder: shows what it found and left out, then sends its SKILL.md and text files where chosen', async () => {
    const { app, sent } = setUp([]);
    await openSkills(app);
    const md = '---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\nRead reference/fields.md first.\n';
    pick(byTest<HTMLInputElement>(pane(), 'skill-folder-input'), [
      inFolder('pdf-forms/SKILL.md', md),
      inFolder('pdf-forms/reference/fields.md', '# Fields\n'),
      inFolder('pdf-forms/logo.png', PNG),
      inFolder('pdf-forms/.git/HEAD', 'ref: refs/heads/main\n'),
    ]);
    await sleep(10);
    const form = byTest(pane(), 'skill-import-form');
    expect(form.querySelector('h3')?.textContent).toBe('Import from pdf-forms');
    const found = byTest(form, 'skill-import-item');
    expect(found.querySelector('strong')?.textContent).toBe('pdf-forms');
    expect(byTest(found, 'skill-import-files').textContent).toBe('SKILL.md and 1 reference file: reference/fields.md');
    expect(byTest(found, 'skill-import-skipped').textContent, 'the user sees what was not taken, and why').toBe('Left out: .git (hidden), logo.png (not text)');
    expect(sent('createSkill'), 'nothing is sent before the user says so').toEqual([]);
    type(byTest(form, 'skill-import-where'), '2');
    byTest(form, 'skill-import').click();
    await sleep(10);
    expect(sent('createSkill')).toEqual([[{ project_id: 2, text: md, files: [{ path: 'reference/fields.md', content: '# Fields\n' }] }]]);
    expect(byTest(pane(), 'skill-import-form'), 'done: the preview goes').toBeNull();
    expect(byTest(skillItem('pdf-forms'), 'skill-files').textContent).toBe('reference/fields.md');
    expect(document.querySelector('[data-testid=toasts]')?.textContent).toContain('Imported 1 skill');
  });

  it('says in the preview which skills the import will refuse, and why, before Import is pressed', async () => {
    const { app, sent } = setUp([]);
    await openSkills(app);
    const ok = '---\nname: pdf-forms\ndescription: Fill in PDF forms.\n---\nRead the form.\n';
    const big = 'x'.repeat(3 * 1024 * 1024);
    pick(byTest<HTMLInputElement>(pane(), 'skill-folder-input'), [
      inFolder('skills/pdf-forms/SKILL.md', ok),
      inFolder('skills/huge/SKILL.md', ok.replace('pdf-forms', 'huge')),
      ...[1, 2, 3, 4].map((n) => inFolder(`skills/huge/schemas/part${n}.xsd`, big)),
      inFolder('skills/bare/SKILL.md', 'Just steps, no front matter.\n'),
    ]);
    await sleep(20);
    const form = byTest(pane(), 'skill-import-form');
    const item = (folder: string) => form.querySelector<HTMLElement>(`[data-testid=skill-import-item][data-folder="${folder}"]`)!;
    expect(item('skills/pdf-forms').querySelector('[data-testid=skill-import-refused]'), 'a good skill has nothing against it').toBeNull();
    expect(item('skills/huge').querySelector('[data-testid=skill-import-refused]')?.textContent, 'too much for one skill: said now, not after Import')
      .toBe('Not imported: its files hold 12 MB of text, over the 10 MB a skill can hold (SKILL.md and reference files together).');
    expect(item('skills/bare').querySelector('[data-testid=skill-import-refused]')?.textContent)
      .toBe('Not imported: its SKILL.md does not start with front matter (---, name: …, description: …, ---).');
    expect(byTest(form, 'skill-import').textContent, 'the button counts what will be imported').toBe('Import the skill');
    byTest(form, 'skill-import').click();
    await sleep(10);
    expect(sent('createSkill').map((c) => (c[0] as { text: string }).text), 'only the skill the server takes is sent').toEqual([ok]);
  });

  it('a folder without a SKILL.md says so and sends nothing', async () => {
    const { app, sent } = setUp([]);
    await openSkills(app);
    pick(byTest<HTMLInputElement>(pane(), 'skill-folder-input'), [inFolder('notes/a.md', '# A\n')]);
    await sleep(10);
    expect(byTest(pane(), 'skill-folder-problem').textContent).toBe('There is no SKILL.md in “notes”. A skill folder holds a SKILL.md, and any files it refers to.');
    expect(byTest(pane(), 'skill-import-form')).toBeNull();
    expect(sent('createSkill')).toEqual([]);
  });

  it('the switches send only what changed: on/off, and the projects a global skill is off in', async () => {
    const { app, sent } = setUp([skill()]);
    await openSkills(app);
    const boxes = () => [...byTest(skillItem('trip-checklist'), 'skill-projects').querySelectorAll<HTMLInputElement>('input')];
    expect(boxes().map((b) => b.checked), 'on in every project at first').toEqual([true, true]);
    toggle(boxes()[1], false);
    await sleep(5);
    expect(sent('updateSkill').at(-1), 'off in Work').toEqual([1, { off_in: [2] }]);
    expect(boxes().map((b) => b.checked)).toEqual([true, false]);
    toggle(boxes()[1], true);
    await sleep(5);
    expect(sent('updateSkill').at(-1), 'on again in Work').toEqual([1, { off_in: [] }]);

    toggle(byTest<HTMLInputElement>(skillItem('trip-checklist'), 'skill-enabled'), false);
    await sleep(5);
    expect(sent('updateSkill').at(-1), 'off everywhere').toEqual([1, { enabled: false }]);
    expect(skillItem('trip-checklist').classList.contains('off')).toBe(true);
    expect(boxes().every((b) => b.disabled), 'per project means nothing while it is off everywhere').toBe(true);
    expect(sent('updateSkill').length).toBe(3);
  });

  it('a switch the server refuses says why and shows what is saved', async () => {
    const { app } = setUp([skill()], { updateSkill: async () => { throw new ApiError('not_found', 'skill 1 not found', 404); } });
    await openSkills(app);
    toggle(byTest<HTMLInputElement>(skillItem('trip-checklist'), 'skill-enabled'), false);
    await sleep(5);
    expect(byTest(skillItem('trip-checklist'), 'skill-error').textContent, 'said on the skill, not in a notice behind the dialog').toBe('skill 1 not found');
    expect(byTest<HTMLInputElement>(skillItem('trip-checklist'), 'skill-enabled').checked, 'still on, as Maru has it').toBe(true);
  });

  it('editing sends the SKILL.md and the reference files as changed: one removed, one added', async () => {
    const { app, sent } = setUp([skill({ files: [{ path: 'reference/visa.md', content: 'Check visas.' }, { path: 'old.md', content: 'old' }] })]);
    await openSkills(app);
    byTest(skillItem('trip-checklist'), 'skill-edit').click();
    const item = skillItem('trip-checklist');
    const text = byTest<HTMLTextAreaElement>(item, 'skill-text');
    expect(text.value, 'the SKILL.md as written').toBe(TRIP_MD);
    const files = () => [...item.querySelectorAll<HTMLElement>('[data-testid=skill-form-file]')].map((e) => e.dataset.path);
    expect(files()).toEqual(['reference/visa.md', 'old.md']);
    item.querySelector<HTMLElement>('[data-testid=skill-form-file][data-path="old.md"] [data-testid=skill-file-remove]')!.click();
    pick(byTest<HTMLInputElement>(item, 'skill-add-files-input'), [new File(['Bring adapters.'], 'packing.md'), new File([PNG], 'map.png')]);
    await sleep(10);
    expect(files()).toEqual(['packing.md', 'reference/visa.md']);
    expect(byTest(item, 'skill-files-note').textContent, 'a binary file is not added, and the user is told').toBe('Not added: map.png (not text)');
    type(text, TRIP_MD.replace('2. List the bookings.', '2. List the bookings.\n3. Pack.'));
    byTest(item, 'skill-save').click();
    await sleep(5);
    expect(sent('updateSkill')).toEqual([[1, {
      text: TRIP_MD.replace('2. List the bookings.', '2. List the bookings.\n3. Pack.'),
      files: [{ path: 'packing.md', content: 'Bring adapters.' }, { path: 'reference/visa.md', content: 'Check visas.' }],
    }]]);
    expect(byTest(skillItem('trip-checklist'), 'skill-files').textContent).toBe('packing.mdreference/visa.md');

    // Saving with nothing changed sends nothing.
    byTest(skillItem('trip-checklist'), 'skill-edit').click();
    byTest(skillItem('trip-checklist'), 'skill-save').click();
    await sleep(5);
    expect(sent('updateSkill').length).toBe(1);
  });

  it('deletes only once the user confirms', async () => {
    const { app, sent } = setUp([skill()]);
    await openSkills(app);
    const confirmWith = async (label: string) => {
      byTest(skillItem('trip-checklist'), 'skill-delete').click();
      const confirm = [...document.querySelectorAll('dialog')].at(-1)!;
      expect(confirm.querySelector('h2')?.textContent).toBe('Delete the skill trip-checklist?');
      [...confirm.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === label)!.click();
      await sleep(5);
    };
    await confirmWith('Cancel');
    expect(sent('deleteSkill'), 'cancelled: nothing deleted').toEqual([]);
    expect(skillItem('trip-checklist')).not.toBeNull();
    await confirmWith('Delete');
    expect(sent('deleteSkill')).toEqual([[1]]);
    expect(skillItem('trip-checklist')).toBeNull();
  });

  it('says the server’s refusals in the form, in English and in Korean', async () => {
    const { app } = setUp([skill()]);
    await openSkills(app);
    byTest(pane(), 'new-skill').click();
    type(byTest(pane(), 'skill-text'), TRIP_MD);
    byTest(pane(), 'skill-save').click();
    await sleep(5);
    expect(byTest(pane(), 'skill-form-error').textContent, 'English: the server’s own words').toBe('a skill named "trip-checklist" already exists here');
    expect(byTest(pane(), 'skill-form'), 'the form stays, with what the user wrote').not.toBeNull();
    document.body.replaceChildren();

    setLanguage('ko');
    await openSkills(app);
    const tab = [...document.querySelectorAll<HTMLButtonElement>('dialog .tab')].find((b) => b.dataset.tab === 'skills')!;
    expect(tab.textContent).toBe('스킬');
    byTest(pane(), 'new-skill').click();
    expect(byTest<HTMLTextAreaElement>(pane(), 'skill-text').value, 'the template in Korean, its keys as the server reads them').toMatch(/^---\nname: my-skill\ndescription: 이 스킬이/);
    type(byTest(pane(), 'skill-text'), TRIP_MD);
    byTest(pane(), 'skill-save').click();
    await sleep(5);
    expect(byTest(pane(), 'skill-form-error').textContent, 'name_taken, in Korean with the name').toBe('“trip-checklist” 이름이 이미 있습니다. 다른 이름을 쓰세요.');
    type(byTest(pane(), 'skill-text'), 'no front matter');
    byTest(pane(), 'skill-save').click();
    await sleep(5);
    expect(byTest(pane(), 'skill-form-error').textContent, 'invalid_skill, in Korean, with the server’s reason').toMatch(/^이 스킬은 지금 상태로 저장할 수 없습니다\. \(a SKILL\.md starts with front matter/);
    expect(byTest(pane(), 'skill-sizes').textContent).toBe('목록: 60자 · 절차: 52자 · 참조 파일 없음');
  });
});

describe('the inspector: skills offered', () => {
  const SESSION: Session = { id: 9, project_id: 1, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

  async function open(skills: ReturnType<typeof contextView>['skills']) {
    const fake = fakeBackend({ context: async () => contextView({ skills }) });
    const app = new App(fake.backend);
    app.config.settings = settingsView();
    app.chat.session = SESSION;
    app.panels.panel = 'context';
    const root = document.createElement('aside');
    document.body.replaceChildren(root);
    mountContextPanel(app, root, () => app.panels.closePanel())();
    await app.panels.loadContext();
    return byTest(root, 'context-skills');
  }

  afterEach(() => {
    document.body.replaceChildren();
    setLanguage('en');
  });

  it('lists each skill the prompt offers with its sizes, and badges the ones this chat loaded', async () => {
    setLanguage('en');
    const card = await open([
      { name: 'pdf-forms', description: 'Fill in PDF forms.', listed_chars: 31, body_chars: 1234, loaded: false, listed: true },
      { name: 'trip-checklist', description: 'Plan a trip.', listed_chars: 30, body_chars: 52, loaded: true, listed: true },
    ]);
    expect(card.querySelector('h3')?.textContent).toBe('Skills offered');
    const rows = [...card.querySelectorAll<HTMLElement>('[data-testid=context-skill]')];
    expect(rows.map((r) => r.dataset.skill)).toEqual(['pdf-forms', 'trip-checklist']);
    expect(byTest(rows[0], 'skill-offered-sizes').textContent).toBe('31 chars listed · 1,234 chars when loaded');
    expect(byTest(rows[0], 'skill-loaded'), 'not loaded: no badge').toBeNull();
    expect(byTest(rows[1], 'skill-loaded').textContent, 'loaded in this chat').toBe('loaded');
    expect(rows[1].textContent).toContain('Plan a trip.');

    setLanguage('ko');
    const ko = await open([{ name: 'trip-checklist', description: 'Plan a trip.', listed_chars: 30, body_chars: 1052, loaded: true, listed: true }]);
    expect(ko.querySelector('h3')?.textContent).toBe('제공되는 스킬');
    expect(byTest(ko, 'skill-offered-sizes').textContent).toBe('목록 30자 · 불러오면 1,052자');
    expect(byTest(ko, 'skill-loaded').textContent).toBe('불러옴');
  });

  it('says when none is offered, with the way to add one', async () => {
    setLanguage('en');
    const card = await open([]);
    expect(card.textContent).toContain('No skills are offered in this chat.');
    expect(byTest(card, 'manage-skills').textContent).toBe('Manage skills');
  });
});

describe('a reply’s chip for a skill loaded', () => {
  it('shows the procedure the model loaded, or the file it read, without the lines meant for the model', () => {
    const loaded = toolOutcome({
      id: 'c1', name: 'load_skill', arguments: '{"name":"trip-checklist"}',
      result: '[Skill trip-checklist]\n# Steps\n1. Ask where and when.\n\nReference files (read one with read_skill_file): reference/visa.md',
    });
    expect(loaded).toEqual({ kind: 'text', text: '# Steps\n1. Ask where and when.' });
    const read = toolOutcome({ id: 'c2', name: 'read_skill_file', arguments: '{}', result: '[Skill trip-checklist: reference/visa.md]\nCheck visas.' });
    expect(read).toEqual({ kind: 'text', text: 'Check visas.' });
    const missing = toolOutcome({ id: 'c3', name: 'load_skill', arguments: '{}', result: 'error: There is no skill named "x" here; use a name listed under [Skills].' });
    expect(missing.kind, 'a skill not there is a failure, said as one').toBe('error');
  });
});

describe('a zip of skills', () => {
  it('is read by the server; the skills it made join the list and the files it left out are said', async () => {
    const docx = skill({ id: 9, name: 'docx', description: 'Word documents.' });
    const { backend, calls } = fakeBackend({
      importSkills: async () => ({ skills: [docx], left_out: [{ path: 'skills/canvas-design/canvas-fonts/Lora-Regular.ttf', why: 'binary' }] }),
    });
    const store = new SkillsStore(backend);
    const file = new File(['PK'], 'skills.zip', { type: 'application/zip' });
    const done = await store.importZip(file);
    expect(calls.find((c) => c.method === 'importSkills')?.args[0], 'the chosen zip is what is sent').toBe(file);
    expect(store.skills.map((s) => s.name), 'the new skill is listed without reloading').toEqual(['docx']);
    expect(done, 'the font left out is named for the user').toEqual({ imported: 1, leftOut: ['skills/canvas-design/canvas-fonts/Lora-Regular.ttf'] });
  });
});
