import { beforeEach, describe, expect, it } from 'vitest';
import { App } from '../src/app';
import type { Project } from '../src/backend/types';
import { setLanguage, t } from '../src/lib/i18n';
import { placeMenu } from '../src/views/menu';
import { messageNode } from '../src/views/message';
import { projectMenu } from '../src/views/sidebar';
import { fakeBackend } from './fakeBackend';
import { message } from './fixtures';

const DEFAULT: Project = { id: 1, name: 'Default', instructions: '', is_default: true, folder: null, exclude: [], tool_approval: 'ask', session_count: 3, created_at: 0, updated_at: 0 };

describe('plurals', () => {
  beforeEach(() => setLanguage('en'));

  it('says "1 model", "2 models", "1 chat", "0 chats" in English', () => {
    expect(t('modelsFound', { n: 1, url: 'http://x' })).toBe('1 model at http://x');
    expect(t('modelsFound', { n: 2, url: 'http://x' })).toBe('2 models at http://x');
    expect(t('chatsCount', { n: 1 })).toBe('1 chat');
    expect(t('chatsCount', { n: 0 })).toBe('0 chats');
    expect(t('deleteProjectDone', { n: 1 })).toBe('Project deleted; 1 chat moved to Default');
    expect(t('deleteProjectBody', { n: 2 })).toBe('Its 2 chats move to the Default project; nothing in them is lost.');
    expect(t('toolFactsLong', { n: 1 })).toBe('1 saved fact matched:');
    expect(t('tokens', { n: '1,234' })).toBe('1,234 tokens');
    expect(t('memoryPending', { n: 1 })).toBe('1 proposed fact waits for review');
  });

  it('keeps one form in Korean', () => {
    setLanguage('ko');
    expect(t('modelsFound', { n: 1, url: 'http://x' })).toBe('http://x에 모델 1개');
    expect(t('chatsCount', { n: 2 })).toBe('대화 2개');
  });
});

describe("the user's own message while the reply streams", () => {
  it('is marked as being sent, not with the warning box class', () => {
    setLanguage('en');
    const m = message({ id: -5, content: 'hi' });
    const node = messageNode(new App(fakeBackend({}).backend), m, { regenerable: false, busy: true, editing: false, onEdit: () => {}, onCancelEdit: () => {} });
    expect(node.classList.contains('sending')).toBe(true);
    // `.pending` is the context panel's warning box.
    expect(node.classList.contains('pending')).toBe(false);
  });
});

describe("Default's menu", () => {
  it('says why its instructions cannot be edited: it uses the custom instructions', () => {
    setLanguage('en');
    const items = projectMenu(new App(fakeBackend({}).backend), { project: DEFAULT, sessions: [], nextCursor: null, loaded: true, loading: false, expanded: true });
    const edit = items.find((i) => i.label === t('editInstructions'))!;
    expect(edit.disabled).toBe(true);
    // The tab is called Instructions: the tooltip must name it as the dialog does.
    expect(edit.title).toMatch(/Settings → Instructions\)/);
    expect(edit.title).not.toMatch(/renamed/);
  });
});

describe('placing a menu', () => {
  const view = { width: 360, height: 640 };

  it('stays inside a narrow window: aligned on the anchor\'s right edge when it would overflow', () => {
    const anchor = { left: 320, right: 352, top: 10, bottom: 42 };
    const { left, top } = placeMenu(anchor, { width: 220, height: 200 }, view);
    expect(left + 220).toBeLessThanOrEqual(view.width - 8);
    expect(left).toBe(352 - 220);
    expect(top).toBe(46);
  });

  it('goes above the anchor when there is no room below, and is never pushed off the top or left', () => {
    const anchor = { left: 10, right: 40, top: 600, bottom: 630 };
    expect(placeMenu(anchor, { width: 200, height: 300 }, view)).toEqual({ left: 10, top: 296 });
    const wide = placeMenu({ left: 300, right: 330, top: 5, bottom: 20 }, { width: 500, height: 900 }, view);
    expect(wide.left).toBe(8);
    expect(wide.top).toBe(8);
  });
});
