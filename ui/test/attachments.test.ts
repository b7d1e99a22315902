// What went with a message of the user's: its images as thumbnails (a click shows one large) and
// the chat's files attached before it as chips, with the size the prompt names.

import { beforeEach, describe, expect, it } from 'vitest';
import type { Attachment, Project, Session } from '../src/backend/types';
import { fileSize } from '../src/lib/format';
import { setLanguage } from '../src/lib/i18n';
import { entryNode, filesSentWith, groupReplies } from '../src/views/message';
import { appInProject } from './fakeBackend';
import { message } from './fixtures';

const PROJECT: Project = { id: 2, name: 'Family', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 1, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: 'Trip', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };
const CTX = { regenerable: false, busy: false, editing: false, onEdit: () => {}, onCancelEdit: () => {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function file(over: Partial<Attachment>): Attachment {
  return { id: 1, session_id: 5, project_id: null, name: 'a.txt', kind: 'text', mime: 'text/plain', size: 2048, pages: null, sha256: 'x', status: 'ready', note: null, note_reason: null, created_at: 0, folder_path: null, ...over };
}

describe('the files that went with a message', () => {
  const chat = groupReplies([
    message({ id: 1, role: 'user', created_at: 1000 }),
    message({ id: 2, role: 'assistant', created_at: 1100 }),
    message({ id: 3, role: 'user', created_at: 2000 }),
    message({ id: 4, role: 'assistant', created_at: 2100 }),
  ]);
  const before = file({ id: 10, name: 'plan.md', created_at: 500 });
  const between = file({ id: 11, name: 'budget.csv', created_at: 1500 });
  const duringReply = file({ id: 12, name: 'map.pdf', created_at: 1050 });
  const image = file({ id: 13, name: 'beach.png', kind: 'image', created_at: 1600 });
  const after = file({ id: 14, name: 'later.txt', created_at: 2500 });

  it('are those attached after the previous message was sent, and before this one', () => {
    const sent = filesSentWith(chat, [before, between, duringReply, image, after], true);
    expect(sent.get(1)?.map((a) => a.name)).toEqual(['plan.md']);
    expect(sent.get(3)?.map((a) => a.name), 'a file attached while the reply was written goes with the next message').toEqual(['budget.csv', 'map.pdf']);
    expect([...sent.keys()], 'images are named by the message itself; a file not yet sent goes with none').toEqual([1, 3]);
  });

  it('the first message shown gets none when older messages are not loaded (its earlier bound is unknown)', () => {
    const sent = filesSentWith(chat, [before, between], false);
    expect(sent.has(1)).toBe(false);
    expect(sent.get(3)?.map((a) => a.name)).toEqual(['budget.csv']);
  });

  it('a message being sent gets what was attached since the previous one', () => {
    const sending = groupReplies([message({ id: 1, role: 'user', created_at: 1000 }), message({ id: -5, role: 'user', created_at: 10 })]);
    expect(filesSentWith(sending, [between], true).get(-5)?.map((a) => a.name)).toEqual(['budget.csv']);
  });
});

describe("a message's attachments", () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('shows its images as thumbnails that open large, and its files as chips with their size', async () => {
    const { app, calls } = appInProject({ downloadAttachment: async () => new Blob(['png'], { type: 'image/png' }) }, PROJECT, { sessions: [SESSION] });
    app.chat.session = SESSION;
    app.attachments.files.set('s:5', [file({ id: 13, name: 'beach.png', kind: 'image' }), file({ id: 11, name: 'budget.csv', size: 1500 })]);
    const m = message({ id: 3, role: 'user', content: 'What does this cost?', images: [13] });
    const node = entryNode(app, { id: 3, parts: [m] }, { ...CTX, sentFiles: [file({ id: 11, name: 'budget.csv', size: 1500 })] });
    document.body.append(node);
    await sleep(10);
    const thumb = node.querySelector<HTMLButtonElement>('[data-testid=message-image]')!;
    expect(thumb.querySelector('img')?.getAttribute('src'), 'the image itself, fetched with the token').toMatch(/^blob:/);
    expect(thumb.getAttribute('aria-label')).toBe('View beach.png');
    expect(node.textContent, 'no longer only a count').not.toContain('image sent with this message');
    const chip = node.querySelector('[data-testid=message-file]')!;
    expect(chip.textContent, 'the size as the prompt and the files panel name it').toBe('budget.csv2 KB');
    thumb.click();
    await sleep(10);
    const large = document.querySelector<HTMLImageElement>('dialog[open] [data-testid=image-large]');
    expect(large?.getAttribute('src')).toBe(thumb.querySelector('img')?.getAttribute('src'));
    expect(calls.filter((c) => c.method === 'downloadAttachment').length, 'fetched once for both').toBe(1);
  });

  it('says so when an image can no longer be fetched', async () => {
    const { app } = appInProject({ downloadAttachment: async () => { throw new Error('gone'); } }, PROJECT);
    const node = entryNode(app, { id: 3, parts: [message({ id: 3, role: 'user', images: [99] })] }, CTX);
    await sleep(10);
    const thumb = node.querySelector<HTMLButtonElement>('[data-testid=message-image]')!;
    expect(thumb.disabled).toBe(true);
    expect(thumb.textContent).toBe('Image no longer available');
  });
});

describe('a file size', () => {
  it('is named as the prompt names it: bytes, whole kilobytes rounded up, tenths of megabytes (ties to even)', () => {
    expect(fileSize(812)).toBe('812 B');
    expect(fileSize(1024)).toBe('1 KB');
    expect(fileSize(1500), 'not "1.5 KB" beside a prompt saying "2 KB"').toBe('2 KB');
    expect(fileSize(1024 * 1024 - 1)).toBe('1024 KB');
    expect(fileSize(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(fileSize(1.25 * 1024 * 1024), "Rust's {:.1} rounds an exact tie to even").toBe('1.2 MB');
    expect(fileSize(Math.round(1.35 * 1024 * 1024) + 1)).toBe('1.4 MB');
    expect(fileSize(5 * 1024 * 1024 * 1024)).toBe('5120.0 MB');
  });
});
