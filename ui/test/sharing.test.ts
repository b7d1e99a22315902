// Settings → Share with other apps: nothing is shared until the user checks it; a checked group or
// project is saved as the sharing setting at once; the lines that connect Claude Code and Claude
// Desktop are shown; and the calls other apps made are listed, newest first, a refused one with
// why. In English and Korean.

import { afterEach, describe, expect, it } from 'vitest';
import type { SharedCall, Sharing } from '../src/backend/types';
import { setLanguage, t } from '../src/lib/i18n';
import { CONNECT_LINES, SHOWN, sharingPane, toggled } from '../src/views/sharingPane';
import { appInProject } from './fakeBackend';

const OFF: Sharing = { memory_read: false, memory_write: false, chats: false, projects: [] };
const project = { id: 7, name: 'Thesis', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask' as const, session_count: 0, created_at: 0, updated_at: 0 };
const calls: SharedCall[] = [
  { id: 2, at: Date.UTC(2026, 0, 2), client: 'claude-ai', tool: 'remember', summary: 'prefers tea', ok: false, error: 'Maru does not share remember' },
  { id: 1, at: Date.UTC(2026, 0, 1), client: 'claude-code', tool: 'search_chats', summary: 'launch date', ok: true, error: null },
];
const tick = () => new Promise((r) => setTimeout(r, 0));

function mount(sharing: Sharing = OFF) {
  const saved: Sharing[] = [];
  const { app } = appInProject({
    sharedCalls: async () => calls,
    updateSettings: async (patch) => {
      saved.push((patch as { sharing: Sharing }).sharing);
      return { ...app.config.settings!, ...(patch as object) };
    },
  }, project, { settings: { sharing } });
  const pane = sharingPane(app);
  document.body.append(pane);
  return { pane, saved };
}

const box = (pane: HTMLElement, id: string) => pane.querySelector<HTMLInputElement>(`[data-testid=${id}]`)!;

describe('sharing with other apps', () => {
  afterEach(() => {
    document.body.replaceChildren();
    setLanguage('en');
  });

  it('shares nothing until the user checks it, and saves each check at once', async () => {
    const { pane, saved } = mount();
    for (const id of ['share-memory_read', 'share-memory_write', 'share-chats', `share-project-${project.id}`]) {
      expect(box(pane, id).checked, `${id} starts unchecked: nothing is shared by default`).toBe(false);
    }
    box(pane, 'share-chats').click();
    await tick();
    expect(saved.at(-1), 'checking "Search your chats" shares the chats at once').toEqual({ ...OFF, chats: true });
    box(pane, `share-project-${project.id}`).click();
    await tick();
    expect(saved.at(-1), 'a checked project shares its files, the chats stay shared').toEqual({ ...OFF, chats: true, projects: [project.id] });
  });

  it('lists the calls other apps made, a refused one with why', async () => {
    const { pane } = mount({ ...OFF, chats: true });
    pane.dispatchEvent(new Event(SHOWN));
    await tick();
    await tick();
    const rows = [...pane.querySelectorAll('[data-testid=shared-calls] li')].map((li) => li.textContent ?? '');
    expect(rows.length, 'one row per call').toBe(2);
    expect(rows[0], 'the newest first, with the app, the tool and what it asked').toContain('claude-ai');
    expect(rows[0]).toContain('remember');
    expect(rows[0], 'a refused call says it was refused and why').toContain(t('sharingCallRefused', { error: 'Maru does not share remember' }));
    expect(rows[1]).toContain('launch date');
  });

  it('names an app that gave no name in the user’s language', async () => {
    setLanguage('ko');
    const { pane } = mount();
    calls.push({ id: 0, at: 0, client: '', tool: 'search_chats', summary: 'x', ok: true, error: null });
    pane.dispatchEvent(new Event(SHOWN));
    await tick();
    await tick();
    calls.pop();
    expect(pane.querySelector('[data-testid=shared-calls] li:last-child')?.textContent, 'not an empty name, nor an English one').toContain('이름을 밝히지 않은 앱');
  });

  it('shows the lines that add Maru to Claude Code and Claude Desktop', () => {
    const { pane } = mount();
    const shown = [...pane.querySelectorAll('pre')].map((p) => p.textContent);
    expect(shown, 'the user copies these to connect an app').toEqual(CONNECT_LINES);
    expect(CONNECT_LINES[0]).toBe('claude mcp add maru -- maru mcp');
  });

  it('speaks Korean', () => {
    setLanguage('ko');
    const { pane } = mount();
    expect(pane.textContent, 'the section in the user’s language').toContain('저장된 사실 검색');
  });

  it('unchecking a project keeps the others', () => {
    expect(toggled({ ...OFF, projects: [1, 2] }, { project: 1 }, false), 'only that project stops sharing').toEqual({ ...OFF, projects: [2] });
  });
});
