import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type Backend } from '../src/backend/backend';
import type { Attachment, AttachmentScope, Project, Session } from '../src/backend/types';
import { setLanguage } from '../src/lib/i18n';
import { mountComposer } from '../src/views/composer';
import { filesToAttach, mountFilesPanel } from '../src/views/files';
import { appInProject } from './fakeBackend';

const PROJECT: Project = { id: 2, name: 'Family', instructions: '', is_default: false, folder: null, exclude: [], tool_approval: 'ask', session_count: 0, created_at: 0, updated_at: 0 };
const SESSION: Session = { id: 5, project_id: 2, title: '', preset: null, model: null, connection_id: null, created_at: 0, updated_at: 0, imported_at: null, temporary: false };

function file(over: Partial<Attachment>): Attachment {
  return { id: 1, session_id: 5, project_id: null, name: 'a.txt', kind: 'text', mime: 'text/plain', size: 2048, pages: null, sha256: 'x', status: 'ready', note: null, note_reason: null, created_at: 0, folder_path: null, ...over };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const appWith = (methods: Partial<Backend>) => appInProject(methods, PROJECT, { settings: { attachment_max_mb: 1 } });

describe('attaching files to a chat', () => {
  beforeEach(() => {
    setLanguage('en');
    document.body.replaceChildren();
  });

  it('creates a draft chat once, shows a chip per file, and follows indexing to ready or failed', async () => {
    const stored = new Map<number, Attachment>();
    let next = 10;
    const { app, calls } = appWith({
      createSession: async () => SESSION,
      uploadAttachment: async (scope: AttachmentScope, _blob: Blob, name: string) => {
        const a = file({ id: next++, session_id: scope.session_id ?? null, name, status: 'indexing' });
        stored.set(a.id, a);
        return a;
      },
      getAttachment: async (id: number) => {
        const a = stored.get(id)!;
        return a.name.endsWith('.pdf') ? { ...a, status: 'failed', note: 'the PDF has no text layer' } : { ...a, status: 'ready' };
      },
    });
    const root = document.createElement('footer');
    document.body.append(root);
    mountComposer(app, root);

    const done = app.attachments.attachToChat([
      { blob: new Blob(['one']), name: 'notes.txt' },
      { blob: new Blob(['%PDF']), name: 'scan.pdf' },
    ]);
    // Attaching more at once (a drop while the first is under way) still makes one chat.
    const more = app.attachments.attachToChat([{ blob: new Blob(['two']), name: 'more.md' }]);
    await Promise.all([done, more]);
    expect(calls.filter((c) => c.method === 'createSession').length).toBe(1);
    expect(app.chat.session?.id).toBe(5);
    const uploads = calls.filter((c) => c.method === 'uploadAttachment');
    expect(uploads.map((c) => c.args[2]).sort()).toEqual(['more.md', 'notes.txt', 'scan.pdf']);
    expect(uploads.every((c) => (c.args[0] as AttachmentScope).session_id === 5)).toBe(true);
    const chips = () => [...root.querySelectorAll<HTMLElement>('[data-testid=upload-chip]')];
    expect(chips().map((c) => c.querySelector('.chip-name')?.textContent).sort()).toEqual(['more.md', 'notes.txt', 'scan.pdf']);
    expect(chips().every((c) => c.dataset.status === 'indexing')).toBe(true);
    expect(root.querySelector('.spinner')).not.toBeNull();

    await sleep(700);
    const byName = (n: string) => chips().find((c) => c.querySelector('.chip-name')?.textContent === n)!;
    expect(byName('notes.txt').dataset.status).toBe('ready');
    expect(byName('notes.txt').textContent).toContain('Ready');
    expect(byName('scan.pdf').dataset.status).toBe('failed');
    expect(byName('scan.pdf').title).toContain('the PDF has no text layer');
    expect(app.attachments.chatFiles().own.map((a) => a.status).sort()).toEqual(['failed', 'ready', 'ready']);
  });

  it('lists a new chat once when the sidebar read the list again while the chat was being created', async () => {
    const { app } = appWith({
      createSession: async () => {
        // The change feed's reload answers before the create does.
        await app.sessions.loadSessions(PROJECT.id);
        return SESSION;
      },
      listSessions: async () => ({ sessions: [SESSION], next_cursor: null }),
    });
    await app.chat.ensureSession();
    expect(app.sessions.entry(PROJECT.id)!.sessions.map((s) => s.id), 'the sidebar shows each chat once').toEqual([SESSION.id]);
  });

  it("says why a file was refused in the server's words, and drops its chip", async () => {
    const { app } = appWith({
      uploadAttachment: async () => {
        throw new ApiError('binary_file', 'bin.dat is a binary file with no text Maru can read', 400);
      },
    });
    app.chat.session = SESSION;
    const root = document.createElement('footer');
    document.body.append(root);
    mountComposer(app, root);
    await app.attachments.attachToChat([{ blob: new Blob(['\u0000\u0001']), name: 'bin.dat' }]);
    expect(document.querySelector('.toast-error')?.textContent).toContain('bin.dat is a binary file with no text Maru can read');
    expect(root.querySelector('[data-testid=upload-chip]')).toBeNull();
  });

  it('refuses a file over the size limit without sending it', async () => {
    const { app, calls } = appWith({});
    app.chat.session = SESSION;
    await app.attachments.attachToChat([{ blob: new Blob([new Uint8Array(1024 * 1024 + 1)]), name: 'huge.txt' }]);
    expect(calls.filter((c) => c.method === 'uploadAttachment')).toEqual([]);
    expect(document.querySelector('.toast-error')?.textContent).toContain('huge.txt is larger than the 1 MB limit');
  });
});

describe('the files panel', () => {
  beforeEach(() => setLanguage('en'));

  it("lists the chat's own files (deletable) and its project's (marked, not deletable)", async () => {
    const own = file({ id: 1, name: '<b>notes</b>.txt', size: 2048 });
    const shared = file({ id: 2, session_id: null, project_id: 2, name: 'report.pdf', kind: 'pdf', size: 3 * 1024 * 1024, pages: 12, status: 'failed', note: 'page 3 could not be read' });
    const { app } = appWith({
      listAttachments: async (scope: AttachmentScope) => (scope.session_id ? [own] : [shared]),
    });
    app.chat.session = SESSION;
    app.panels.panel = 'files';
    const root = document.createElement('aside');
    document.body.replaceChildren(root);
    const render = mountFilesPanel(app, root, () => {});
    render();
    await app.attachments.loadChatFiles();
    const rows = [...root.querySelectorAll<HTMLElement>('[data-testid=file]')];
    expect(rows.map((r) => r.dataset.scope)).toEqual(['chat', 'project']);
    expect(rows[0].querySelector('[data-testid=file-name]')?.textContent).toBe('<b>notes</b>.txt');
    expect(root.querySelector('b')).toBeNull();
    expect(rows[0].textContent, 'the size as the prompt names it').toContain('Text · 2 KB');
    expect(rows[0].querySelector('[data-testid=file-status]')?.textContent).toBe('Ready');
    expect(rows[0].querySelector('[data-testid=file-delete]')?.getAttribute('aria-label')).toBe('Delete <b>notes</b>.txt');
    expect(rows[0].querySelector('[data-testid=file-download]')?.getAttribute('aria-label')).toBe('Download <b>notes</b>.txt');
    expect(rows[1].textContent).toContain('PDF · 3.0 MB · 12 pages');
    expect(rows[1].querySelector('.badge-project')?.textContent).toBe('project');
    expect(rows[1].querySelector('[data-testid=file-delete]')).toBeNull();
    expect(rows[1].querySelector('.file-note')?.textContent).toBe('page 3 could not be read');
    expect(root.textContent).toContain('Project “Family”');
  });
});

describe('files to attach', () => {
  it('names a pasted image so it can be told apart, and keeps real names', () => {
    const pasted = filesToAttach([new File(['x'], 'image.png', { type: 'image/png' }), new File(['y'], '', { type: 'image/jpeg' })], true);
    expect(pasted[0].name).toMatch(/^pasted-\d{8}-\d{6}\.png$/);
    expect(pasted[1].name).toMatch(/^pasted-\d{8}-\d{6}\.jpg$/);
    const picked = filesToAttach([new File(['x'], 'image.png', { type: 'image/png' }), new File(['z'], '회의록.md')]);
    expect(picked.map((f) => f.name)).toEqual(['image.png', '회의록.md']);
    expect(filesToAttach(null)).toEqual([]);
  });
});
