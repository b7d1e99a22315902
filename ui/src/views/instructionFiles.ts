// The instructions files of a project's folder (AGENTS.md, CLAUDE.md, GEMINI.md and their
// imports): those sent with their size, and those found but not sent with why. The chat's
// inspector shows them in section ③; the project's settings show them for the project itself.

import type { App } from '../app';
import type { InstructionFiles, Project } from '../backend/types';
import { h, replaceChildren } from '../lib/dom';
import { count } from '../lib/format';
import { t, type Key } from '../lib/i18n';

/** Why a folder's instructions file was not sent, by the server's code. */
const INSTRUCTION_WHY: Record<string, Key> = {
  shadowed: 'instructionWhy_shadowed', duplicate: 'instructionWhy_duplicate', too_large: 'instructionWhy_too_large', too_many: 'instructionWhy_too_many',
  unreadable: 'instructionWhy_unreadable', not_text: 'instructionWhy_not_text', deadline: 'instructionWhy_deadline', outside: 'instructionWhy_outside',
  budget: 'instructionWhy_budget', cycle: 'instructionWhy_cycle', too_deep: 'instructionWhy_too_deep', missing: 'instructionWhy_missing',
  not_importable: 'instructionWhy_not_importable', imports_only: 'instructionWhy_imports_only',
};

/** A code a newer server may send is shown as it is. */
function instructionWhy(why: string): string {
  return INSTRUCTION_WHY[why] ? t(INSTRUCTION_WHY[why]) : why;
}

/** Which file's `@path` import brought this one in. */
function importedBy(path: string | null): HTMLElement | null {
  return path ? h('span', { class: 'hint' }, t('instructionImportedBy', { path })) : null;
}

/**
 * The AGENTS.md / CLAUDE.md files of the project's folder in section ③: those sent with their
 * size, and those found but not sent with why, so a user sees which of them the model reads.
 * Nothing when the project follows no folder.
 */
export function instructionFilesView(f: InstructionFiles): HTMLElement | null {
  if (!f.folder && !f.sent.length && !f.skipped.length) return null;
  return h('div', { class: 'instruction-files', 'data-testid': 'instruction-files' },
    h('h4', null, t('instructionFiles')),
    f.folder ? h('p', { class: 'hint' }, t('instructionFilesHint', { folder: f.folder })) : null,
    f.sent.length
      ? h('ul', { class: 'instruction-list' }, f.sent.map((x) =>
          h('li', { 'data-testid': 'instruction-sent', dataset: { path: x.path } },
            h('code', { class: 'path' }, x.path),
            h('span', { class: 'n' }, x.raw_chars != null
              ? t('instructionFileCut', { raw: count(x.raw_chars), kept: count(x.chars) })
              : t('chars', { n: count(x.chars) })),
            importedBy(x.imported_by))))
      : h('p', { class: 'hint' }, t('noInstructionFiles')),
    f.skipped.length
      ? [
          h('h5', null, t('instructionFilesSkipped')),
          h('ul', { class: 'instruction-list skipped' }, f.skipped.map((x) =>
            h('li', { 'data-testid': 'instruction-skipped', dataset: { path: x.path, why: x.why } },
              h('code', { class: 'path' }, x.path), h('span', { class: 'why' }, instructionWhy(x.why)), importedBy(x.imported_by)))),
        ]
      : null,
  );
}


/** The project's instructions files in its settings, read when they open (and again after the
 *  folder changes: `refresh`). */
export function projectInstructionsSection(app: App, project: Project): { el: HTMLElement; refresh(): void } {
  const el = h('section', { class: 'project-instructions', 'data-testid': 'project-instructions' });
  let reads = 0;
  const note = (testid: string, text: string) => [h('h4', null, t('instructionFiles')), h('p', { class: 'field-hint', 'data-testid': testid }, text)];
  const refresh = () => {
    const mine = ++reads;
    replaceChildren(el, note('instructions-loading', t('instructionsLoading')));
    void app.attempt(() => app.sessions.projectInstructions(project.id)).then((f) => {
      if (mine !== reads) return;
      if (!f) return replaceChildren(el);
      if (!f.folder) return replaceChildren(el, note('instructions-no-folder', t('instructionsFilesNoFolder')));
      if (!f.sent.length && !f.skipped.length) return replaceChildren(el, note('instructions-none', t('instructionsFilesNone')));
      replaceChildren(el, instructionFilesView(f));
    });
  };
  refresh();
  return { el, refresh };
}
