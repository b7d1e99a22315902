// Skills as the settings' Skills tab keeps them: the list (global and every project's), added,
// edited, turned on or off (everywhere, or a global one in chosen projects) and deleted; and a
// skill folder read from the user's disk into what the server takes (its SKILL.md and its other
// text files). A SKILL.md is read here only to show it (its name, its procedure's size): the server
// is the one that decides whether it is a skill.

import type { Backend } from '../backend/backend';
import { errorMessage } from '../backend/backend';
import type { NewSkill, SkillFile, SkillPatch, SkillView } from '../backend/types';

/** The server's limit (store/skills.rs): a skill's SKILL.md and reference files together, in
 *  bytes. No one file can be larger; the server checks the sum and says by how much it is over. */
export const SKILL_MAX_BYTES = 10 * 1024 * 1024;

/** The front matter and the procedure, when the text opens with a `---` block (as the server splits it). */
function split(text: string): { front: string; body: string } | null {
  let rest = text.replace(/^\uFEFF+/, '');
  if (!rest.startsWith('---')) return null;
  rest = rest.slice(3);
  if (rest.startsWith('\r\n')) rest = rest.slice(2);
  else if (rest.startsWith('\n')) rest = rest.slice(1);
  else return null;
  const end = rest.indexOf('\n---');
  if (end === -1) return null;
  const after = rest.slice(end + 4);
  const nl = after.indexOf('\n');
  return { front: rest.slice(0, end), body: nl === -1 ? '' : after.slice(nl + 1) };
}

/** The procedure: what the model gets when it loads the skill (the text after the front matter). */
export function skillBody(text: string): string {
  return (split(text)?.body ?? text).trim();
}

/** `name` and `description` as the front matter gives them (empty when it does not). */
export function skillFrontMatter(text: string): { name: string; description: string } {
  const front = split(text)?.front ?? '';
  const value = (key: string) => {
    for (const line of front.split('\n')) {
      const at = line.indexOf(':');
      if (at !== -1 && line.slice(0, at).trim() === key) return line.slice(at + 1).trim().replace(/^["']+|["']+$/g, '').trim();
    }
    return '';
  };
  return { name: value('name'), description: value('description') };
}

/** Characters as the server counts them (Unicode scalar values, not UTF-16 units). */
export function chars(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** What a skill takes of the prompt until it is loaded (its line under [Skills]: `- name: description`),
 *  and what its procedure adds once it is; the same figures as the inspector's. */
export function skillSizes(s: Pick<SkillView, 'name' | 'description' | 'text' | 'files'>): { listed: number; body: number; files: number } {
  return {
    listed: chars(s.name) + chars(s.description) + 4,
    body: chars(skillBody(s.text)),
    files: s.files.reduce((n, f) => n + chars(f.content), 0),
  };
}

// ---- a skill folder

/** A file the user picked, with its path as the folder picker gives it (`folder/sub/file.md`). */
export interface PickedFile {
  path: string;
  file: Blob;
}

export type SkipReason = 'hidden' | 'binary' | 'tooLarge';

/** One skill found in a folder: its SKILL.md, its reference files, and what was left out and why. */
export interface FolderSkill {
  /** Where its SKILL.md is, in the folder the user picked (`pdf-forms`, or `skills/pdf-forms`). */
  folder: string;
  text: string;
  files: SkillFile[];
  skipped: { path: string; why: SkipReason }[];
}

/** The files of an `<input type=file webkitdirectory>`, each with its path inside what was picked. */
export function pickedFiles(list: FileList | readonly File[]): PickedFile[] {
  return Array.from(list, (file) => ({ path: file.webkitRelativePath || file.name, file }));
}

const isSkillMd = (name: string) => name.toLowerCase() === 'skill.md';
const hidden = (segment: string) => segment.startsWith('.');

/** A file's text, or why it is not taken: bytes that are not UTF-8 text (a NUL, or not UTF-8
 *  at all) are binary; more than the server keeps of a reference file is too large. */
async function readText(file: Blob, maxChars: number): Promise<{ text: string } | { why: SkipReason }> {
  // A character is at most 4 bytes: anything bigger is too large without reading it.
  if (file.size > maxChars * 4) return { why: 'tooLarge' };
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (bytes.includes(0)) return { why: 'binary' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { why: 'binary' };
  }
  return chars(text) > maxChars ? { why: 'tooLarge' } : { text };
}

/**
 * The skills in a picked folder: each folder holding a SKILL.md is a skill (one inside another's
 * folder is just one of its files), and its other files are its reference files, by their path
 * inside it. Hidden files and folders (`.git`, `.DS_Store`) are left out, and so are binary files
 * and files larger than the server keeps; each is named in `skipped`, a hidden folder once. A file
 * in no skill's folder is not read. Empty when the folder has no SKILL.md.
 */
export async function readSkillFolder(picked: readonly PickedFile[]): Promise<FolderSkill[]> {
  const entries = picked.map((p) => ({ parts: p.path.split(/[\\/]/).filter((s) => s !== '' && s !== '.'), file: p.file }));
  // The skills' folders: where a SKILL.md is, outside hidden folders (the folder picked may be one:
  // the user chose it); the outermost ones.
  const roots = entries
    .filter((e) => e.parts.length > 0 && isSkillMd(e.parts[e.parts.length - 1]) && !e.parts.slice(1, -1).some(hidden))
    .map((e) => e.parts.slice(0, -1))
    .sort((a, b) => a.length - b.length)
    .filter((root, i, all) => !all.slice(0, i).some((outer) => outer.length < root.length && outer.every((s, j) => root[j] === s)));
  const skills: FolderSkill[] = [];
  for (const root of roots) {
    const mine = entries.filter((e) => e.parts.length > root.length && root.every((s, j) => e.parts[j] === s));
    const skill: FolderSkill = { folder: root.join('/'), text: '', files: [], skipped: [] };
    const hiddenSeen = new Set<string>();
    for (const e of mine) {
      const rel = e.parts.slice(root.length);
      const path = rel.join('/');
      if (rel.length === 1 && isSkillMd(rel[0])) {
        const read = await readText(e.file, Infinity);
        skill.text = 'text' in read ? read.text : '';
        if (!('text' in read)) skill.skipped.push({ path, why: read.why });
        continue;
      }
      const at = rel.findIndex(hidden);
      if (at !== -1) {
        const what = rel.slice(0, at + 1).join('/');
        if (!hiddenSeen.has(what)) skill.skipped.push({ path: what, why: 'hidden' });
        hiddenSeen.add(what);
        continue;
      }
      const read = await readText(e.file, SKILL_MAX_BYTES);
      if ('text' in read) skill.files.push({ path, content: read.text });
      else skill.skipped.push({ path, why: read.why });
    }
    skill.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    skill.skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    skills.push(skill);
  }
  return skills.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}

/** The server's other limits (store/skills.rs), checked before an import is sent. */
export const SKILL_TEXT_MAX_CHARS = 100_000;
export const SKILL_NAME_MAX_CHARS = 64;
export const SKILL_DESCRIPTION_MAX_CHARS = 1_024;

/** Why the server would refuse a skill read from disk, as it would check it (store/skills.rs):
 *  no SKILL.md text, no front matter, a name or description missing or too long, no procedure,
 *  or more than it keeps in all. Null when it would take it. Said before Import, not after. */
export type ImportRefusal =
  | { why: 'noText' | 'noFrontMatter' | 'noProcedure' }
  | { why: 'textTooLong'; chars: number; max: number }
  | { why: 'badName' | 'badDescription'; max: number }
  | { why: 'tooLarge'; bytes: number; max: number };

export function importRefusal(skill: Pick<FolderSkill, 'text' | 'files'>): ImportRefusal | null {
  const text = skill.text;
  if (!text.trim()) return { why: 'noText' };
  if (chars(text) > SKILL_TEXT_MAX_CHARS) return { why: 'textTooLong', chars: chars(text), max: SKILL_TEXT_MAX_CHARS };
  if (!split(text)) return { why: 'noFrontMatter' };
  const { name, description } = skillFrontMatter(text);
  if (!name || chars(name) > SKILL_NAME_MAX_CHARS) return { why: 'badName', max: SKILL_NAME_MAX_CHARS };
  if (!description || chars(description) > SKILL_DESCRIPTION_MAX_CHARS) return { why: 'badDescription', max: SKILL_DESCRIPTION_MAX_CHARS };
  if (!skillBody(text)) return { why: 'noProcedure' };
  const utf8 = (v: string) => new TextEncoder().encode(v).length;
  const bytes = utf8(text) + skill.files.reduce((n, f) => n + utf8(f.path) + utf8(f.content), 0);
  if (bytes > SKILL_MAX_BYTES) return { why: 'tooLarge', bytes, max: SKILL_MAX_BYTES };
  return null;
}

/** Picked files as reference files (the edit form's "Add files"): by name, text only. */
export async function readReferenceFiles(list: readonly File[]): Promise<{ files: SkillFile[]; skipped: { path: string; why: SkipReason }[] }> {
  const files: SkillFile[] = [];
  const skipped: { path: string; why: SkipReason }[] = [];
  for (const file of list) {
    const read = await readText(file, SKILL_MAX_BYTES);
    if ('text' in read) files.push({ path: file.name, content: read.text });
    else skipped.push({ path: file.name, why: read.why });
  }
  return { files, skipped };
}

// ---- the list

export class SkillsStore {
  skills: SkillView[] = [];
  loaded = false;
  /** Why the list could not be read, in the UI's language. */
  error: string | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly backend: Backend) {}

  /** Calls `fn` after each change; returns how to stop. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  private put(view: SkillView): SkillView {
    const at = this.skills.findIndex((s) => s.id === view.id);
    this.skills = at === -1 ? [...this.skills, view] : this.skills.map((s) => (s.id === view.id ? view : s));
    this.changed();
    return view;
  }

  async load(): Promise<void> {
    try {
      this.skills = await this.backend.listSkills();
      this.error = null;
    } catch (e) {
      this.error = errorMessage(e);
    }
    this.loaded = true;
    this.changed();
  }

  /** Adds a skill; rejects with the server's error (the form shows it). */
  async create(skill: NewSkill): Promise<SkillView> {
    return this.put(await this.backend.createSkill(skill));
  }

  /** Imports the skills of a zip, global ones; rejects with the server's error (nothing is
   *  stored then). The files it left out (fonts, images, hidden ones) come back to be said. */
  async importZip(file: File): Promise<{ imported: number; leftOut: string[] }> {
    const done = await this.backend.importSkills(file);
    for (const s of done.skills) this.put(s);
    return { imported: done.skills.length, leftOut: done.left_out.map((l) => l.path) };
  }

  /** Changes a skill; rejects with the server's error. */
  async update(id: number, patch: SkillPatch): Promise<SkillView> {
    return this.put(await this.backend.updateSkill(id, patch));
  }

  async remove(id: number): Promise<void> {
    await this.backend.deleteSkill(id);
    this.skills = this.skills.filter((s) => s.id !== id);
    this.changed();
  }
}
