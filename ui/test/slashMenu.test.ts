// The composer's `/` menu: `/` at a line's start lists the skills the chat's project may load,
// narrowed as the word is typed; Enter puts `/name ` in the message, and sending it loads that
// skill with the message (its procedure reaches the model before it answers). A `/` inside a path
// or a fraction is just text.

import { beforeEach, describe, expect, it } from 'vitest';
import type { Project, Session, SkillView } from '../src/backend/types';
import { commandsIn, insertCommand, matchCommands, slashAt, type SlashCommand } from '../src/lib/commands';
import { setLanguage } from '../src/lib/i18n';
import { mountChat } from '../src/views/chat';
import { appInProject } from './fakeBackend';

const cmd = (name: string, description = ''): SlashCommand => ({ kind: 'skill', name, description });

describe('the `/` commands in text', () => {
  it('finds the `/word` being typed only at a line’s start or after a space', () => {
    expect(slashAt('/pd', 3), 'at the start').toEqual({ start: 0, query: 'pd' });
    expect(slashAt('fill it /pdf', 12), 'after a space').toEqual({ start: 8, query: 'pdf' });
    expect(slashAt('line\n/', 6), 'at a new line, nothing typed yet').toEqual({ start: 5, query: '' });
    expect(slashAt('see src/main', 12), 'a path is no command').toBeNull();
    expect(slashAt('1/2', 3), 'nor a fraction').toBeNull();
    expect(slashAt('/pdf forms', 10), 'a space ends the word').toBeNull();
  });

  it('ranks the names that begin with the word first', () => {
    const list = [cmd('trip-plan', 'Plan a trip'), cmd('pdf-forms', 'Fill PDF forms'), cmd('forms-help', 'About forms')];
    expect(matchCommands(list, 'form').map((c) => c.name)).toEqual(['forms-help', 'pdf-forms']);
    expect(matchCommands(list, '').map((c) => c.name), 'nothing typed: all, by name').toEqual(['forms-help', 'pdf-forms', 'trip-plan']);
    expect(matchCommands(list, 'trip').map((c) => c.name)).toEqual(['trip-plan']);
  });

  it('puts the chosen command in place of what was typed, and finds the commands a message names', () => {
    expect(insertCommand('please /pd now', { start: 7, query: 'pd' }, 'pdf-forms')).toEqual({ text: 'please /pdf-forms now', caret: 18 });
    const list = [cmd('pdf-forms'), cmd('trip-plan')];
    expect(commandsIn('/PDF-forms fill this, see /tmp/x and /trip-plan /pdf-forms', list).map((c) => c.name), 'each once, in order, any case').toEqual(['pdf-forms', 'trip-plan']);
    expect(commandsIn('a/pdf-forms b', list), 'only as a word of its own').toEqual([]);
  });
});

const PROJECT: Project = { id: 2, name: 'Paperwork', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: 'Taxes', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
function skill(over: Partial<SkillView>): SkillView {
  return { id: 1, name: 'pdf-forms', description: 'Fill in PDF forms.', enabled: true, files: [], off_in: [], project_id: null, text: '', created_at: 0, updated_at: 0, ...over } as SkillView;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function composer(skills: SkillView[]) {
  const sent: unknown[][] = [];
  const { app } = appInProject({
    listSkills: async () => skills,
    listMessages: async () => ({ messages: [], next_before: null }),
    sendMessage: async (...args: unknown[]) => {
      sent.push(args.filter((a) => typeof a !== 'function'));
    },
  }, PROJECT, { sessions: [SESSION] });
  app.chat.session = SESSION;
  const root = document.createElement('main');
  document.body.replaceChildren(root);
  mountChat(app, root, () => {});
  const area = root.querySelector<HTMLTextAreaElement>('[data-testid=composer]')!;
  const type = async (text: string) => {
    area.value = text;
    area.setSelectionRange(text.length, text.length);
    area.dispatchEvent(new Event('input'));
    // The menu's code is fetched at the first `/`; then the skills are read.
    for (let i = 0; i < 100 && slashAt(text, text.length) && !root.querySelector('[data-testid=slash-menu]'); i++) await sleep(10);
    await sleep(10);
  };
  const key = (k: string) => area.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true, cancelable: true }));
  const menu = () => root.querySelector<HTMLElement>('[data-testid=slash-menu]');
  const names = () => [...menu()!.querySelectorAll<HTMLElement>('[data-testid=slash-item]')].map((b) => b.dataset.name);
  return { app, area, type, key, menu, names, sent };
}

describe('the `/` menu in the composer', () => {
  beforeEach(() => setLanguage('en'));

  it('lists the project’s skills as `/` is typed, and Enter puts the chosen one in the message', async () => {
    const { area, type, key, menu, names } = composer([
      skill({ id: 1, name: 'pdf-forms' }), skill({ id: 2, name: 'trip-plan', description: 'Plan a trip.' }),
      skill({ id: 3, name: 'elsewhere', project_id: 9 }), skill({ id: 4, name: 'off-here', off_in: [2] }), skill({ id: 5, name: 'disabled', enabled: false }),
    ]);
    expect(menu()?.hidden ?? true, 'closed until `/` is typed').toBe(true);
    await type('/');
    expect(menu()!.hidden, '`/` opens it').toBe(false);
    expect(names(), 'only what this project may load: not another project’s, one off here, or one disabled').toEqual(['pdf-forms', 'trip-plan']);
    await type('/tr');
    expect(names(), 'narrowed as the word is typed').toEqual(['trip-plan']);
    key('Enter');
    expect(area.value, 'Enter puts the command in the message, not sends it').toBe('/trip-plan ');
    expect(menu()!.hidden, 'and closes the menu').toBe(true);
  });

  it('sends the skills the message names, to be loaded with it', async () => {
    const { type, key, sent } = composer([skill({ name: 'pdf-forms' })]);
    await type('/');
    await type('/pdf-forms fill my tax form');
    key('Enter');
    await sleep(10);
    expect(sent, 'the message goes with the skill to load').toEqual([[5, '/pdf-forms fill my tax form', [], ['pdf-forms']]]);
  });

  it('Escape closes it and leaves what was typed; a path is no command', async () => {
    const { area, type, key, menu, sent } = composer([skill({ name: 'pdf-forms' })]);
    await type('/pd');
    key('Escape');
    expect(menu()!.hidden).toBe(true);
    expect(area.value).toBe('/pd');
    await type('read /etc/hosts');
    expect(menu()!.hidden, 'a path does not open the menu').toBe(true);
    key('Enter');
    await sleep(10);
    expect(sent, 'no skill goes with a message that names none').toEqual([[5, 'read /etc/hosts', [], []]]);
  });

  it('says when nothing matches, and where skills are added, in Korean too', async () => {
    const none = composer([]);
    await none.type('/');
    expect(none.menu()!.textContent).toContain('No skills yet: add them in Settings → Skills.');
    setLanguage('ko');
    const some = composer([skill({ name: 'pdf-forms' })]);
    await some.type('/');
    await some.type('/zzz');
    expect(some.menu()!.textContent).toContain('이름에 “zzz”가 들어간 스킬이 없습니다.');
    expect(some.menu()!.textContent).toContain('스킬: 메시지와 함께 불러오기');
  });
});
