// An imported chat is marked as a copy in the sidebar, so it is not taken for the original.

import { beforeEach, describe, expect, it } from 'vitest';
import type { Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountSidebar } from '../src/views/sidebar';
import { appInProject } from './fakeBackend';

const PROJECT: Project = { id: 2, name: 'Work', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 2, created_at: 0, updated_at: 0 };
const chat = (id: number, imported_at: number | null): Session =>
  ({ id, project_id: 2, title: 'Launch plans', preset: null, model: null, connection_id: null, created_at: 0, updated_at: id, imported_at, temporary: false });

describe('imported copies', () => {
  beforeEach(() => document.body.replaceChildren());

  it('marks the imported chat, not the original, in English and Korean', () => {
    for (const [lang, word] of [['en', 'copy'], ['ko', '사본']] as const) {
      setLanguage(lang);
      const { app } = appInProject({}, PROJECT, { sessions: [chat(1, null), chat(2, 1_700_000_000_000)] });
      const root = document.createElement('aside');
      document.body.replaceChildren(root);
      mountSidebar(app, root);
      const rows = [...root.querySelectorAll('[data-testid=session]')];
      const marked = rows.map((r) => r.querySelector('[data-testid=imported-copy]')?.textContent ?? null);
      expect(marked.sort(), 'two chats of the same title: only the imported one says it is a copy').toEqual([null, word].sort());
    }
    setLanguage('en');
  });
});
