// The typed client as the UI uses it (`httpBackend`), against a stub fetch: the requests it builds
// for the server's operations, how answers and failures come back, turns as event streams, files.

import { describe, expect, it } from 'vitest';
import { createApi, type Api } from '../src/backend/api';
import { ApiError } from '../src/backend/backend';
import { fileName, httpBackend } from '../src/backend/http';
import { takeToken } from '../src/backend/token';
import type { TurnEvent } from '../src/backend/types';

/** What the stub fetch was asked, read back from the Request the client built. */
interface Sent {
  method: string;
  url: string;
  headers: Headers;
  request: Request;
}

function backendWith(respond: (sent: Sent) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const reach: boolean[] = [];
  const fetch = async (request: Request) => {
    const call = { method: request.method, url: request.url, headers: request.headers, request };
    sent.push(call);
    return respond(call);
  };
  const backend = httpBackend({ baseUrl: 'http://127.0.0.1:9/', token: 'tok', fetch, onReachable: (r: boolean) => reach.push(r) });
  return { backend, sent, reach };
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

const lines = (sent: Sent[]) => sent.map((s) => `${s.method} ${s.url}`);

describe('the requests the client builds', () => {
  it('asks one server for its models by its id, and the default one without', async () => {
    const { backend, sent } = backendWith(() => Response.json([]));
    await backend.listModels(3);
    await backend.listModels();
    await backend.updateConnection(3, { api_key: null });
    expect(lines(sent), 'one request per server: a slow one holds up no other').toEqual([
      'GET http://127.0.0.1:9/api/models?connection_id=3',
      'GET http://127.0.0.1:9/api/models',
      'PATCH http://127.0.0.1:9/api/connections/3',
    ]);
    expect(await sent[2].request.json(), 'a key removed is sent as null, not left out').toEqual({ api_key: null });
  });

  it('puts path parameters in the path, drops absent and null query values, and sends the token', async () => {
    const { backend, sent } = backendWith(() => Response.json({ sessions: [], next_cursor: null }));
    await backend.listSessions({ project_id: 3, cursor: '12.4', limit: 30 });
    await backend.listSessions({ project_id: 3, cursor: null });
    await backend.listMessages(4, { before: 17, limit: 50 });
    await backend.listMessages(4);
    expect(lines(sent)).toEqual([
      'GET http://127.0.0.1:9/api/sessions?project_id=3&cursor=12.4&limit=30',
      'GET http://127.0.0.1:9/api/sessions?project_id=3',
      'GET http://127.0.0.1:9/api/sessions/4/messages?before=17&limit=50',
      'GET http://127.0.0.1:9/api/sessions/4/messages',
    ]);
    for (const s of sent) {
      expect(s.headers.get('authorization')).toBe('Bearer tok');
      expect(s.headers.get('accept')).toBe('application/json');
      expect(s.headers.get('content-type')).toBeNull();
      expect(await s.request.text()).toBe('');
    }
  });

  it('sends a body as JSON, null fields included, with its method', async () => {
    const { backend, sent } = backendWith(({ method }) => Response.json(method === 'DELETE' ? { id: 5, deleted: true } : { id: 5 }));
    await backend.updateSession(5, { preset: null, title: 'Plans' });
    await backend.createProject({ name: 'Home', instructions: '' });
    await backend.editMessage(8, '고친 글');
    await backend.deleteSession(5);
    await backend.chooseVersion(9);
    expect(lines(sent)).toEqual([
      'PATCH http://127.0.0.1:9/api/sessions/5',
      'POST http://127.0.0.1:9/api/projects',
      'PATCH http://127.0.0.1:9/api/messages/8',
      'DELETE http://127.0.0.1:9/api/sessions/5',
      'POST http://127.0.0.1:9/api/messages/9/choose',
    ]);
    const bodies = await Promise.all(sent.map((s) => s.request.text()));
    expect(bodies).toEqual(['{"preset":null,"title":"Plans"}', '{"name":"Home","instructions":""}', '{"content":"고친 글"}', '', '']);
    expect(sent.map((s) => s.headers.get('content-type'))).toEqual(['application/json', 'application/json', 'application/json', null, null]);
  });

  it('answers with the JSON the server sent', async () => {
    const project = { id: 2, name: 'Home', instructions: '', is_default: false, folder: null, created_at: 1, updated_at: 2, session_count: 0 };
    const { backend } = backendWith(() => Response.json(project));
    expect(await backend.updateProject(2, { name: 'Home' })).toEqual(project);
  });

  it('searches with the words form-encoded and a limit', async () => {
    const hit = { session_id: 1, project_id: 1, title: 'Plans', message_id: 7, snippet: '…가족 일정…', highlights: [[1, 3]] };
    const { backend, sent } = backendWith(() => Response.json([hit]));
    expect(await backend.searchChats('가족 & plans', 5)).toEqual([hit]);
    await backend.searchChats('x');
    await backend.searchChats('x', 5, true);
    await backend.searchChats('x', 5, false);
    expect(lines(sent), 'earlier versions are asked for only when wanted').toEqual([
      'GET http://127.0.0.1:9/api/search?q=%EA%B0%80%EC%A1%B1+%26+plans&limit=5',
      'GET http://127.0.0.1:9/api/search?q=x',
      'GET http://127.0.0.1:9/api/search?q=x&limit=5&versions=true',
      'GET http://127.0.0.1:9/api/search?q=x&limit=5',
    ]);
  });

  it('lists memories by status, accepts and deletes one', async () => {
    const fact = { id: 4, content: 'Prefers answers in Korean.', pinned: false, status: 'pending', source_session_id: 2, source_message_id: 9, created_at: 0, updated_at: 0, confirmed_at: null };
    const { backend, sent } = backendWith(({ method, url }) => {
      if (method === 'DELETE') return Response.json({ id: 4, deleted: true });
      if (url.endsWith('/accept')) return Response.json({ ...fact, status: 'accepted', confirmed_at: 5 });
      return Response.json([fact]);
    });
    await backend.listMemories();
    await backend.listMemories('pending');
    await backend.listMemories('all');
    expect((await backend.acceptMemory(4)).status).toBe('accepted');
    await backend.deleteMemory(4);
    expect(lines(sent)).toEqual([
      'GET http://127.0.0.1:9/api/memories',
      'GET http://127.0.0.1:9/api/memories?status=pending',
      'GET http://127.0.0.1:9/api/memories?status=all',
      'POST http://127.0.0.1:9/api/memories/4/accept',
      'DELETE http://127.0.0.1:9/api/memories/4',
    ]);
  });
});

describe('tool servers and their calls', () => {
  it('lists, adds, edits, lists the tools of and removes a server; answers a waiting call', async () => {
    const { backend, sent } = backendWith(({ method, url }) => {
      if (url.includes('/tool-calls/')) return Response.json({ approval: 'ap 1', decision: url.endsWith('/deny') ? 'denied' : 'once', session_id: 3 });
      if (url.endsWith('/tools')) return Response.json([{ name: 'echo', description: 'Says it back.' }]);
      if (method === 'DELETE') return Response.json({ id: 2, deleted: true });
      return Response.json(method === 'GET' ? [] : { id: 2 });
    });
    await backend.listToolServers();
    await backend.createToolServer({ name: 'mini', transport: 'stdio', command: 'python3', env: { KEY: 'v' } });
    await backend.updateToolServer(2, { env: { KEY: null }, off_in: [4] });
    expect(await backend.toolServerTools(2)).toEqual([{ name: 'echo', description: 'Says it back.' }]);
    await backend.deleteToolServer(2);
    await backend.approveToolCall('ap 1');
    await backend.approveToolCall('ap 1', true);
    expect((await backend.denyToolCall('ap 1')).decision).toBe('denied');
    expect(lines(sent)).toEqual([
      'GET http://127.0.0.1:9/api/tool-servers',
      'POST http://127.0.0.1:9/api/tool-servers',
      'PATCH http://127.0.0.1:9/api/tool-servers/2',
      'GET http://127.0.0.1:9/api/tool-servers/2/tools',
      'DELETE http://127.0.0.1:9/api/tool-servers/2',
      'POST http://127.0.0.1:9/api/tool-calls/ap%201/approve',
      'POST http://127.0.0.1:9/api/tool-calls/ap%201/approve',
      'POST http://127.0.0.1:9/api/tool-calls/ap%201/deny',
    ]);
    expect(await sent[2].request.text(), 'a variable removed is sent as null').toBe('{"env":{"KEY":null},"off_in":[4]}');
    expect(await sent[5].request.text(), 'Allow once').toBe('{}');
    expect(await sent[6].request.text(), 'Always allow this tool').toBe('{"always":true}');
  });
});

describe('failures', () => {
  it("turns the server's {code, message, params} into an ApiError", async () => {
    const { backend, reach } = backendWith(() =>
      Response.json({ code: 'secret_refused', message: 'That looks like an API key; Maru does not keep secrets.', params: { kind: 'key' } }, { status: 400 }),
    );
    const err = await backend.updateMemory(4, { content: 'sk-…' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'secret_refused', message: 'That looks like an API key; Maru does not keep secrets.', status: 400, params: { kind: 'key' } });
    expect(reach).toEqual([true]);
  });

  it('keeps params empty when the server sent none', async () => {
    const { backend } = backendWith(() => Response.json({ code: 'default_project', message: 'the Default project cannot be deleted' }, { status: 409 }));
    const err = await backend.deleteProject(1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'default_project', message: 'the Default project cannot be deleted', status: 409, params: {} });
  });

  it('words an answer that is not an error body by its status', async () => {
    const { backend } = backendWith(() => new Response('Bad Gateway from the proxy', { status: 502, statusText: 'Bad Gateway' }));
    const err = await backend.listModels().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'http_502', status: 502, message: 'The server answered 502 Bad Gateway: Bad Gateway from the proxy' });
  });

  it('reports an unreachable server as offline', async () => {
    const { backend, reach } = backendWith(() => {
      throw new TypeError('Failed to fetch');
    });
    const err = await backend.health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).offline).toBe(true);
    expect((err as ApiError).message).toBe('Cannot reach Maru at http://127.0.0.1:9. Is `maru serve` still running?');
    expect(reach).toEqual([false]);
  });

  it('rejects a 200 that is not JSON as bad_response', async () => {
    const { backend } = backendWith(() => new Response('<!doctype html>', { status: 200, headers: { 'content-type': 'text/html' } }));
    const err = await backend.listSessions({ project_id: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'bad_response', status: 200, message: 'The server sent something that is not JSON for /api/sessions?project_id=2.' });
  });
});

describe('turns', () => {
  it('streams turn events split across chunks, in order', async () => {
    const { backend, sent } = backendWith(() => sse([
      'event: token\ndata: {"type":"token","te', 'xt":"Hel"}\n\nevent: tok', 'en\ndata: {"type":"token","text":"lo"}\n\n',
      ': ping\n\nevent: usage\ndata: {"type":"usage","usage":{"prompt_tokens":5,"completion_tokens":2,"cached_tokens":null}}\n\n',
      'event: done\ndata: {"type":"done","message":{"id":9}}\n\n',
    ]));
    const events: TurnEvent[] = [];
    await backend.sendMessage(4, 'hi', (e) => events.push(e));
    expect(lines(sent)).toEqual(['POST http://127.0.0.1:9/api/sessions/4/messages']);
    expect(sent[0].headers.get('accept')).toBe('text/event-stream');
    expect(sent[0].headers.get('content-type')).toBe('application/json');
    expect(await sent[0].request.text()).toBe('{"content":"hi"}');
    expect(events.map((e) => e.type)).toEqual(['token', 'token', 'usage', 'done']);
    expect(events.filter((e) => e.type === 'token').map((e) => (e as { text: string }).text).join('')).toBe('Hello');
  });

  it('sends the images with a message when there are some', async () => {
    const { backend, sent } = backendWith(() => sse(['event: done\ndata: {"type":"done","message":{"id":9}}\n\n']));
    await backend.sendMessage(4, 'look', () => {}, [11, 12]);
    expect(await sent[0].request.text()).toBe('{"content":"look","images":[11,12]}');
  });

  it('regenerates and resends on their own routes', async () => {
    const { backend, sent } = backendWith(() => sse(['event: done\ndata: {"type":"done","message":{"id":9}}\n\n']));
    await backend.regenerate(4, () => {});
    await backend.resend(7, 'again', () => {});
    expect(lines(sent)).toEqual(['POST http://127.0.0.1:9/api/sessions/4/regenerate', 'POST http://127.0.0.1:9/api/messages/7/resend']);
    expect(await sent[0].request.text()).toBe('');
    expect(await sent[1].request.text()).toBe('{"content":"again"}');
  });

  it('rejects a refused turn with the server message, before any event', async () => {
    const { backend } = backendWith(() => Response.json({ code: 'turn_running', message: 'a reply is already being written', params: {} }, { status: 409 }));
    const events: TurnEvent[] = [];
    const err = await backend.regenerate(4, (e) => events.push(e)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('turn_running');
    expect(events).toEqual([]);
  });

  it('rejects a turn that stored nothing after its first words, which reached the sink', async () => {
    const { backend } = backendWith(() => sse([
      'event: token\ndata: {"type":"token","text":"must "}\n\n',
      'event: error\ndata: {"type":"error","code":"internal","message":"no room","message_id":null,"nothing_stored":true}\n\n',
    ]));
    const events: TurnEvent[] = [];
    const err = await backend.sendMessage(4, 'second question', (e) => events.push(e)).catch((e: unknown) => e);
    expect(err, 'a refusal, so the window gives the message back').toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('internal');
    expect(events.map((e) => e.type)).toEqual(['token']);
  });

  it('attaches to a running turn with GET /events, parsed as a turn', async () => {
    const { backend, sent } = backendWith(() => sse(['event: token\ndata: {"type":"token","text":"so far"}\n\n', 'event: done\ndata: {"type":"done","message":{"id":9}}\n\n']));
    const events: TurnEvent[] = [];
    await backend.attach(4, (e) => events.push(e));
    expect(lines(sent)).toEqual(['GET http://127.0.0.1:9/api/sessions/4/events']);
    expect(sent[0].headers.get('accept')).toBe('text/event-stream');
    expect(events.map((e) => e.type)).toEqual(['token', 'done']);
  });

  it('hands on a tool server’s question and its answer from the stream (the card needs both)', async () => {
    const { backend } = backendWith(() => sse([
      'event: tool_call\ndata: {"id":"call_1","name":"mini__echo","arguments":"{}"}\n\n',
      'event: approval_needed\ndata: {"approval":"ap-1","id":"call_1","server":"mini","tool":"echo","arguments":"{}"}\n\n',
      'event: approval_decided\ndata: {"approval":"ap-1","decision":"denied"}\n\n',
      'event: done\ndata: {"type":"done","message":{"id":9}}\n\n',
    ]));
    const events: TurnEvent[] = [];
    await backend.attach(4, (e) => events.push(e));
    expect(events.map((e) => e.type)).toEqual(['tool_call', 'approval_needed', 'approval_decided', 'done']);
    expect(events[1]).toMatchObject({ approval: 'ap-1', server: 'mini', tool: 'echo' });
    expect(events[2]).toMatchObject({ approval: 'ap-1', decision: 'denied' });
  });

  it('rejects an answer that is not an event stream', async () => {
    const { backend } = backendWith(() => Response.json({ ok: true }));
    const err = await backend.attach(4, () => {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'bad_response' });
  });

  it('reports a stream that closes before done or error', async () => {
    const { backend } = backendWith(() => sse(['event: token\ndata: {"type":"token","text":"par"}\n\n']));
    const events: TurnEvent[] = [];
    await backend.resend(7, 'again', (e) => events.push(e));
    expect(events.map((e) => e.type)).toEqual(['token', 'error']);
    expect(events[1]).toMatchObject({ type: 'error', code: 'stream_closed' });
  });
});

describe('files', () => {
  const attachment = { id: 3, session_id: 4, project_id: null, name: 'notes.txt', kind: 'text', mime: 'text/plain', size: 5, pages: null, sha256: 'ab', status: 'indexing', note: null, note_reason: null, created_at: 1 };

  it('uploads a file as multipart form data: the scope, then the file under its name', async () => {
    const { backend, sent } = backendWith(() => Response.json(attachment));
    const a = await backend.uploadAttachment({ session_id: 4 }, new Blob(['hello'], { type: 'text/plain' }), '회의 notes.txt');
    expect(a).toEqual(attachment);
    expect(lines(sent)).toEqual(['POST http://127.0.0.1:9/api/attachments']);
    expect(sent[0].headers.get('authorization')).toBe('Bearer tok');
    // Multipart with its boundary; a JSON Content-Type would break it.
    expect(sent[0].headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    // The part's file name as sent, in UTF-8 (happy-dom's `formData()` reads it back as Latin-1).
    expect(await sent[0].request.clone().text()).toContain('name="file"; filename="회의 notes.txt"');
    const form = await sent[0].request.formData();
    expect([...form.keys()]).toEqual(['session_id', 'file']);
    expect(form.get('session_id')).toBe('4');
    expect(await (form.get('file') as File).text()).toBe('hello');
  });

  it('imports a project zip as multipart form data: the zip in a part named file', async () => {
    const imported = { project: { id: 7, name: 'Trip', instructions: '', is_default: false, folder: null, session_count: 3, created_at: 0, updated_at: 0 }, chats: 3, files: 5, skipped: [] };
    const { backend, sent } = backendWith(() => Response.json(imported));
    expect(await backend.importProject(new File(['PK'], '여행 project.zip', { type: 'application/zip' }))).toEqual(imported);
    expect(lines(sent)).toEqual(['POST http://127.0.0.1:9/api/import/project']);
    expect(sent[0].headers.get('content-type'), 'multipart with its boundary, not JSON').toMatch(/^multipart\/form-data; boundary=/);
    expect(await sent[0].request.clone().text()).toContain('name="file"; filename="여행 project.zip"');
    const form = await sent[0].request.formData();
    expect([...form.keys()]).toEqual(['file']);
    expect(await (form.get('file') as File).text()).toBe('PK');
  });

  it('restores a backup as multipart form data: the zip in a part named file', async () => {
    const restored = { created_at: 1, projects: 2, sessions: 3, messages: 4, memories: 0, tool_servers: 0, files: 1, data_dir: '/d/maru', kept_as: '/d/maru-before-restore-2026-12-01-170501' };
    const { backend, sent } = backendWith(() => Response.json(restored));
    expect(await backend.restoreBackup(new File(['PK'], 'maru-backup-20261201-170000.zip', { type: 'application/zip' }))).toEqual(restored);
    expect(lines(sent)).toEqual(['POST http://127.0.0.1:9/api/restore']);
    expect(sent[0].headers.get('content-type'), 'multipart with its boundary, not JSON: the server reads the zip from its part').toMatch(/^multipart\/form-data; boundary=/);
    const form = await sent[0].request.formData();
    expect([...form.keys()], 'the server takes the backup from the part named file').toEqual(['file']);
    expect(await (form.get('file') as File).text()).toBe('PK');
  });

  it('uploads to a project', async () => {
    const { backend, sent } = backendWith(() => Response.json({ ...attachment, session_id: null, project_id: 2 }));
    await backend.uploadAttachment({ project_id: 2, session_id: null }, new Blob(['x']), 'a.md');
    const form = await sent[0].request.formData();
    expect(form.get('project_id')).toBe('2');
    expect(form.has('session_id')).toBe(false);
  });

  it('lists, gets and deletes files', async () => {
    const { backend, sent } = backendWith(({ method, url }) => {
      if (method === 'DELETE') return Response.json({ id: 3, deleted: true });
      return url.includes('/api/attachments?') ? Response.json([attachment]) : Response.json({ ...attachment, status: 'ready' });
    });
    expect(await backend.listAttachments({ session_id: 4 })).toEqual([attachment]);
    await backend.listAttachments({ project_id: 2 });
    expect((await backend.getAttachment(3)).status).toBe('ready');
    expect(await backend.deleteAttachment(3)).toEqual({ id: 3, deleted: true });
    expect(lines(sent)).toEqual([
      'GET http://127.0.0.1:9/api/attachments?session_id=4',
      'GET http://127.0.0.1:9/api/attachments?project_id=2',
      'GET http://127.0.0.1:9/api/attachments/3',
      'DELETE http://127.0.0.1:9/api/attachments/3',
    ]);
  });

  it('downloads the bytes with the token (a plain link could not send it)', async () => {
    const { backend, sent } = backendWith(() => new Response(new Uint8Array([104, 105]), { headers: { 'content-type': 'text/plain' } }));
    const blob = await backend.downloadAttachment(3);
    expect(lines(sent)).toEqual(['GET http://127.0.0.1:9/api/attachments/3/content']);
    expect(sent[0].headers.get('authorization')).toBe('Bearer tok');
    expect(sent[0].headers.get('accept')).toBe('*/*');
    expect(await blob.text()).toBe('hi');
  });

  it('names an export as its Content-Disposition says, else by a name of its own', async () => {
    const { backend, sent } = backendWith(({ url }) =>
      url.includes('/export')
        ? new Response('# Plans', { headers: { 'content-disposition': `attachment; filename="plans.md"; filename*=UTF-8''%EA%B3%84%ED%9A%8D.md` } })
        : new Response(new Uint8Array([80, 75])),
    );
    const chat = await backend.exportChat(4, 'markdown');
    expect(chat.name).toBe('계획.md');
    expect(await chat.blob.text()).toBe('# Plans');
    expect((await backend.backup()).name).toBe('maru-backup.zip');
    expect(lines(sent)).toEqual(['GET http://127.0.0.1:9/api/sessions/4/export?format=markdown', 'GET http://127.0.0.1:9/api/backup']);
  });

  it('says how much of a backup has come, as it comes', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(3));
        c.enqueue(new Uint8Array(5));
        c.close();
      },
    });
    const { backend } = backendWith(() => new Response(body, { headers: { 'content-length': '8', 'content-disposition': 'attachment; filename="maru-backup-1.zip"' } }));
    const seen: [number, number | null][] = [];
    const file = await backend.backup((got, total) => seen.push([got, total]));
    expect(seen, 'each piece as it arrives, of the whole the server announced').toEqual([[3, 8], [8, 8]]);
    expect(file.name).toBe('maru-backup-1.zip');
    expect(file.blob.size, 'and the whole file, once it is all there').toBe(8);
  });

  it('reads the file name from a Content-Disposition', () => {
    expect(fileName(`attachment; filename="a.zip"; filename*=UTF-8''%ED%95%9C.zip`, 'x')).toBe('한.zip');
    expect(fileName('attachment; filename="a.zip"', 'x')).toBe('a.zip');
    expect(fileName(`attachment; filename*=UTF-8''%E0%A4%A`, 'x')).toBe('x');
    expect(fileName(null, 'project-2.zip')).toBe('project-2.zip');
  });
});

describe("the client's types", () => {
  // Never run: tsc (`npm run typecheck`, the build) fails unless each marked line is an error.
  function misuse(api: Api) {
    // @ts-expect-error a path the server does not have
    void api.GET('/api/project');
    // @ts-expect-error a method the path does not have
    void api.PUT('/api/projects');
    // @ts-expect-error a path parameter is required
    void api.GET('/api/sessions/{id}');
    // @ts-expect-error a path parameter of the wrong type
    void api.GET('/api/sessions/{id}', { params: { path: { id: '4' } } });
    // @ts-expect-error a query parameter the operation does not take
    void api.GET('/api/sessions', { params: { query: { page: 2 } } });
    // @ts-expect-error a body without its required field
    void api.POST('/api/projects', { body: { instructions: '' } });
    // @ts-expect-error a body field of the wrong type
    void api.PATCH('/api/sessions/{id}', { params: { path: { id: 4 } }, body: { title: 5 } });
  }

  it('are checked by tsc', () => {
    expect(typeof misuse).toBe('function');
    expect(typeof createApi).toBe('function');
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
