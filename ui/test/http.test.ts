import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/backend/backend';
import { HttpBackend } from '../src/backend/http';
import { takeToken } from '../src/backend/token';
import type { TurnEvent } from '../src/backend/types';

type Call = { url: string; init: RequestInit };

function backendWith(respond: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const reach: boolean[] = [];
  const fetchFn = (async (url: string, init: RequestInit) => {
    const call = { url, init };
    calls.push(call);
    return respond(call);
  }) as unknown as typeof fetch;
  const backend = new HttpBackend({ baseUrl: 'http://127.0.0.1:9/', token: 'tok', fetch: fetchFn, onReachable: (r) => reach.push(r) });
  return { backend, calls, reach };
}

function sse(chunks: string[]): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      c.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

describe('HttpBackend', () => {
  it('sends the bearer token and JSON, and builds query strings', async () => {
    const { backend, calls } = backendWith(() => Response.json({ sessions: [], next_cursor: null }));
    await backend.listSessions({ project_id: 3, cursor: '12.4', limit: 30 });
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/sessions?project_id=3&cursor=12.4&limit=30');
    expect((calls[0].init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    await backend.updateSession(5, { preset: null });
    expect(calls[1].init.method).toBe('PATCH');
    expect(calls[1].init.body).toBe('{"preset":null}');
  });

  it("turns the server's {code, message} into an ApiError", async () => {
    const { backend } = backendWith(() => Response.json({ code: 'default_project', message: 'the Default project cannot be deleted' }, { status: 409 }));
    const err = await backend.deleteProject(1).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('default_project');
    expect(err.message).toBe('the Default project cannot be deleted');
    expect(err.status).toBe(409);
  });

  it('reports an unreachable server as offline', async () => {
    const { backend, reach } = backendWith(() => {
      throw new TypeError('Failed to fetch');
    });
    const err = await backend.health().catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.offline).toBe(true);
    expect(err.message).toMatch(/Cannot reach Maru/);
    expect(reach).toEqual([false]);
  });

  it('streams turn events split across chunks, in order', async () => {
    const { backend, calls } = backendWith(() => sse([
      'event: token\ndata: {"type":"token","te', 'xt":"Hel"}\n\nevent: tok', 'en\ndata: {"type":"token","text":"lo"}\n\n',
      ': ping\n\nevent: usage\ndata: {"type":"usage","usage":{"prompt_tokens":5,"completion_tokens":2,"cached_tokens":null}}\n\n',
      'event: done\ndata: {"type":"done","message":{"id":9}}\n\n',
    ]));
    const events: TurnEvent[] = [];
    await backend.sendMessage(4, 'hi', (e) => events.push(e));
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/sessions/4/messages');
    expect(calls[0].init.body).toBe('{"content":"hi"}');
    expect(events.map((e) => e.type)).toEqual(['token', 'token', 'usage', 'done']);
    expect(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text).join('')).toBe('Hello');
  });

  it('rejects a refused turn with the server message, before any event', async () => {
    const { backend } = backendWith(() => Response.json({ code: 'turn_running', message: 'a reply is already being written' }, { status: 409 }));
    const events: TurnEvent[] = [];
    const err = await backend.regenerate(4, (e) => events.push(e)).catch((e) => e);
    expect(err.code).toBe('turn_running');
    expect(events).toEqual([]);
  });

  it('attaches to a running turn with GET /events, parsed as a turn', async () => {
    const { backend, calls } = backendWith(() => sse(['event: token\ndata: {"type":"token","text":"so far"}\n\n', 'event: done\ndata: {"type":"done","message":{"id":9}}\n\n']));
    const events: TurnEvent[] = [];
    await backend.attach(4, (e) => events.push(e));
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/sessions/4/events');
    expect(calls[0].init.method).toBe('GET');
    expect(calls[0].init.body).toBeUndefined();
    expect((calls[0].init.headers as Record<string, string>).Accept).toBe('text/event-stream');
    expect(events.map((e) => e.type)).toEqual(['token', 'done']);
  });

  it('rejects an attach when nothing is being written (no_turn_running)', async () => {
    const { backend } = backendWith(() => Response.json({ code: 'no_turn_running', message: 'nothing is being written' }, { status: 409 }));
    const err = await backend.attach(4, () => {}).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('no_turn_running');
  });

  it('reports a stream that closes before done or error', async () => {
    const { backend } = backendWith(() => sse(['event: token\ndata: {"type":"token","text":"par"}\n\n']));
    const events: TurnEvent[] = [];
    await backend.resend(7, 'again', (e) => events.push(e));
    expect(events.map((e) => e.type)).toEqual(['token', 'error']);
    expect(events[1]).toMatchObject({ type: 'error', code: 'stream_closed' });
  });
});

describe('takeToken', () => {
  it('takes the token from the fragment, keeps it for the tab and clears the address bar', () => {
    history.replaceState(null, '', '/#token=abc123');
    sessionStorage.clear();
    expect(takeToken()).toBe('abc123');
    expect(window.location.hash).toBe('');
    expect(sessionStorage.getItem('maru.token')).toBe('abc123');
    // A reload without the fragment still has it.
    expect(takeToken()).toBe('abc123');
  });
});

describe('HttpBackend: files and search', () => {
  const attachment = { id: 3, session_id: 4, project_id: null, name: 'notes.txt', kind: 'text', mime: 'text/plain', size: 5, pages: null, sha256: 'ab', status: 'indexing', note: null, created_at: 1 };

  it('uploads a file as multipart form data: the file under its name, and the scope', async () => {
    const { backend, calls } = backendWith(() => Response.json(attachment));
    const a = await backend.uploadAttachment({ session_id: 4 }, new Blob(['hello'], { type: 'text/plain' }), '회의 notes.txt');
    expect(a).toEqual(attachment);
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/attachments');
    expect(calls[0].init.method).toBe('POST');
    const headers = calls[0].init.headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer tok');
    // The browser sets the multipart Content-Type with its boundary; a JSON one would break it.
    expect(headers['Content-Type']).toBeUndefined();
    const form = calls[0].init.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.get('session_id')).toBe('4');
    expect(form.has('project_id')).toBe(false);
    const file = form.get('file') as File;
    expect(file.name).toBe('회의 notes.txt');
    expect(await file.text()).toBe('hello');
  });

  it('uploads to a project', async () => {
    const { backend, calls } = backendWith(() => Response.json({ ...attachment, session_id: null, project_id: 2 }));
    await backend.uploadAttachment({ project_id: 2 }, new Blob(['x']), 'a.md');
    const form = calls[0].init.body as FormData;
    expect(form.get('project_id')).toBe('2');
    expect(form.has('session_id')).toBe(false);
  });

  it("rejects a refused file with the server's code and message", async () => {
    const { backend } = backendWith(() => Response.json({ code: 'binary_file', message: 'bin.txt is a binary file with no text Maru can read' }, { status: 400 }));
    const err = await backend.uploadAttachment({ session_id: 4 }, new Blob([new Uint8Array([0, 1, 2])]), 'bin.txt').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('binary_file');
    expect(err.message).toBe('bin.txt is a binary file with no text Maru can read');
    expect(err.status).toBe(400);
  });

  it('lists, gets and deletes files', async () => {
    const { backend, calls } = backendWith((call) => {
      if (call.init.method === 'DELETE') return Response.json({ id: 3, deleted: true });
      return call.url.includes('/api/attachments?') ? Response.json([attachment]) : Response.json({ ...attachment, status: 'ready' });
    });
    expect(await backend.listAttachments({ session_id: 4 })).toEqual([attachment]);
    await backend.listAttachments({ project_id: 2 });
    expect((await backend.getAttachment(3)).status).toBe('ready');
    expect(await backend.deleteAttachment(3)).toEqual({ id: 3, deleted: true });
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET http://127.0.0.1:9/api/attachments?session_id=4',
      'GET http://127.0.0.1:9/api/attachments?project_id=2',
      'GET http://127.0.0.1:9/api/attachments/3',
      'DELETE http://127.0.0.1:9/api/attachments/3',
    ]);
  });

  it('downloads the bytes with the token (a plain link could not send it)', async () => {
    const { backend, calls } = backendWith(() => new Response(new Uint8Array([104, 105]), { headers: { 'content-type': 'text/plain' } }));
    const blob = await backend.downloadAttachment(3);
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/attachments/3/content');
    expect((calls[0].init.headers as Record<string, string>).Authorization).toBe('Bearer tok');
    expect(await blob.text()).toBe('hi');
  });

  it('searches chats with the words and a limit', async () => {
    const hit = { session_id: 1, project_id: 1, title: 'Plans', message_id: 7, snippet: '…가족 일정…', highlights: [[1, 3]] };
    const { backend, calls } = backendWith(() => Response.json([hit]));
    expect(await backend.searchChats('가족 & plans', 5)).toEqual([hit]);
    expect(calls[0].url).toBe('http://127.0.0.1:9/api/search?q=%EA%B0%80%EC%A1%B1+%26+plans&limit=5');
    await backend.searchChats('x');
    expect(calls[1].url).toBe('http://127.0.0.1:9/api/search?q=x');
  });
  it('lists memories by status, accepts and dismisses a proposal, and reports a refused secret', async () => {
    const fact = { id: 4, content: 'Prefers answers in Korean.', pinned: false, status: 'pending', source_session_id: 2, source_message_id: 9, created_at: 0, updated_at: 0, confirmed_at: null };
    const { backend, calls } = backendWith((call) => {
      if (call.init.method === 'DELETE') return Response.json({ id: 4, deleted: true });
      if (call.url.endsWith('/accept')) return Response.json({ ...fact, status: 'accepted', confirmed_at: 5 });
      if (call.init.method === 'PATCH') return Response.json({ code: 'secret_refused', message: 'That looks like an API key; Maru does not keep secrets.' }, { status: 400 });
      return Response.json([fact]);
    });
    await backend.listMemories();
    await backend.listMemories('pending');
    await backend.listMemories('all');
    expect((await backend.acceptMemory(4)).status).toBe('accepted');
    const err = await backend.updateMemory(4, { content: 'sk-…' }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('secret_refused');
    expect(err.message).toBe('That looks like an API key; Maru does not keep secrets.');
    await backend.deleteMemory(4);
    expect(calls.map((c) => `${c.init.method} ${c.url}`)).toEqual([
      'GET http://127.0.0.1:9/api/memories',
      'GET http://127.0.0.1:9/api/memories?status=pending',
      'GET http://127.0.0.1:9/api/memories?status=all',
      'POST http://127.0.0.1:9/api/memories/4/accept',
      'PATCH http://127.0.0.1:9/api/memories/4',
      'DELETE http://127.0.0.1:9/api/memories/4',
    ]);
  });
});
