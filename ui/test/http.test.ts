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
