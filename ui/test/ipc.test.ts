// The desktop window's transport: ipc.ts's `ipcFetch` under the same typed client, over a stand-in
// for Tauri's `invoke` and `Channel`. What reaches the commands (`api`, `api_stream`) is the
// contract with the Rust side (src-tauri's desktop commands), so it is checked exactly.

import { beforeEach, describe, expect, it, vi } from 'vitest';

const tauri = vi.hoisted(() => {
  class Channel<T> {
    onmessage: (message: T) => void = () => {};
  }
  return { invoke: vi.fn(), Channel };
});
vi.mock('@tauri-apps/api/core', () => ({ invoke: tauri.invoke, Channel: tauri.Channel, isTauri: () => true }));

import { ApiError } from '../src/backend/backend';
import { httpBackend } from '../src/backend/http';
import { DESKTOP_ORIGIN, ipcFetch } from '../src/backend/ipc';
import type { TurnEvent } from '../src/backend/types';

const bytes = (text: string) => new TextEncoder().encode(text).buffer;
const text = (body: unknown) => new TextDecoder().decode(body as Uint8Array);

function desktop() {
  const reach: boolean[] = [];
  const backend = httpBackend({ token: 'desktop', baseUrl: DESKTOP_ORIGIN, fetch: ipcFetch, onReachable: (r) => reach.push(r) });
  return { backend, reach };
}

beforeEach(() => {
  tauri.invoke.mockReset();
});

describe('ipcFetch', () => {
  it('is a fetch: a Request in, the answer as a Response', async () => {
    tauri.invoke.mockResolvedValue(bytes('{"status":"ok"}'));
    const res = await ipcFetch(new Request(`${DESKTOP_ORIGIN}/api/health?x=1`, { headers: { accept: 'application/json' } }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(tauri.invoke).toHaveBeenCalledWith('api', new Uint8Array(), {
      headers: { 'x-maru-method': 'GET', 'x-maru-path': '/api/health?x=1', 'x-maru-content-type': '', accept: 'application/json' },
    });
  });

  it("answers a refusal as the server would: its status and {code, message, params}", async () => {
    tauri.invoke.mockRejectedValue({ status: 404, body: '{"code":"not_found","message":"no such session","params":{}}' });
    const res = await ipcFetch(new Request(`${DESKTOP_ORIGIN}/api/sessions/9`));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ code: 'not_found', message: 'no such session', params: {} });
  });
});

describe('the typed client over IPC', () => {
  it('carries an operation: method, path with its query, body and content type', async () => {
    const project = { id: 2, name: 'Home', instructions: '', is_default: false, folder: null, created_at: 1, updated_at: 1, session_count: 0 };
    tauri.invoke.mockResolvedValueOnce(bytes(JSON.stringify(project))).mockResolvedValueOnce(bytes('{"sessions":[],"next_cursor":null}'));
    const { backend, reach } = desktop();
    expect(await backend.createProject({ name: 'Home', instructions: '' })).toEqual(project);
    await backend.listSessions({ project_id: 2, cursor: null, limit: 30 });
    const [create, list] = tauri.invoke.mock.calls;
    expect(create[0]).toBe('api');
    expect(text(create[1])).toBe('{"name":"Home","instructions":""}');
    expect(create[2]).toEqual({ headers: { 'x-maru-method': 'POST', 'x-maru-path': '/api/projects', 'x-maru-content-type': 'application/json', accept: 'application/json' } });
    expect(list[2].headers).toMatchObject({ 'x-maru-method': 'GET', 'x-maru-path': '/api/sessions?project_id=2&limit=30' });
    expect(reach).toEqual([true, true]);
  });

  it("turns a refusal into the server's ApiError", async () => {
    tauri.invoke.mockRejectedValue({ status: 409, body: '{"code":"name_taken","message":"a project named Home exists","params":{"name":"Home"}}' });
    const err = await desktop().backend.createProject({ name: 'Home', instructions: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'name_taken', status: 409, params: { name: 'Home' } });
  });

  it('reports an IPC that fails as offline', async () => {
    tauri.invoke.mockRejectedValue('command api not allowed');
    const { backend, reach } = desktop();
    const err = await backend.health().catch((e: unknown) => e);
    expect((err as ApiError).offline).toBe(true);
    expect(reach).toEqual([false]);
  });

  it('uploads the multipart bytes with their boundary', async () => {
    tauri.invoke.mockResolvedValue(bytes('{"id":3}'));
    await desktop().backend.uploadAttachment({ project_id: 2 }, new Blob(['hello']), 'a.md');
    const [, body, { headers }] = tauri.invoke.mock.calls[0];
    expect(headers['x-maru-path']).toBe('/api/attachments');
    expect(headers['x-maru-content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(text(body)).toContain('filename="a.md"');
    expect(text(body)).toContain('hello');
  });

  it('imports a project zip over IPC as the same multipart bytes', async () => {
    tauri.invoke.mockResolvedValue(bytes('{"project":{"id":7},"chats":0,"files":0,"skipped":[]}'));
    await desktop().backend.importProject(new File(['PK zip'], 'trip.zip'));
    const [, body, { headers }] = tauri.invoke.mock.calls[0];
    expect(headers['x-maru-method']).toBe('POST');
    expect(headers['x-maru-path']).toBe('/api/import/project');
    expect(headers['x-maru-content-type'], 'the boundary goes with the bytes, or the server cannot split the parts').toMatch(/^multipart\/form-data; boundary=/);
    expect(text(body)).toContain('name="file"; filename="trip.zip"');
    expect(text(body)).toContain('PK zip');
  });

  it('streams a turn from the channel, chunk by chunk', async () => {
    tauri.invoke.mockImplementation(async (_cmd: string, args: { onEvent: InstanceType<typeof tauri.Channel<ArrayBuffer | null>> }) => {
      args.onEvent.onmessage(bytes('event: token\ndata: {"type":"token","text":"안'));
      args.onEvent.onmessage(bytes('녕"}\n\nevent: done\ndata: {"type":"done","message":{"id":9}}\n\n'));
      args.onEvent.onmessage(null);
    });
    const events: TurnEvent[] = [];
    await desktop().backend.sendMessage(4, 'hi', (e) => events.push(e));
    expect(tauri.invoke).toHaveBeenCalledWith('api_stream', {
      call: { method: 'POST', path: '/api/sessions/4/messages', body: '{"content":"hi"}' },
      onEvent: expect.any(tauri.Channel),
    });
    expect(events).toMatchObject([{ type: 'token', text: '안녕' }, { type: 'done' }]);
  });

  it('follows a running turn with no body, and rejects a refused one before any event', async () => {
    tauri.invoke.mockRejectedValue({ status: 409, body: '{"code":"no_turn_running","message":"nothing is being written","params":{}}' });
    const events: TurnEvent[] = [];
    const err = await desktop().backend.attach(4, (e) => events.push(e)).catch((e: unknown) => e);
    expect(tauri.invoke).toHaveBeenCalledWith('api_stream', { call: { method: 'GET', path: '/api/sessions/4/events', body: null }, onEvent: expect.any(tauri.Channel) });
    expect(err).toMatchObject({ code: 'no_turn_running', status: 409 });
    expect(events).toEqual([]);
  });

  it('downloads bytes, named by the fallback (IPC answers carry no headers)', async () => {
    tauri.invoke.mockResolvedValue(new Uint8Array([80, 75]).buffer);
    const file = await desktop().backend.exportProject(2);
    expect(tauri.invoke.mock.calls[0][2].headers).toMatchObject({ 'x-maru-path': '/api/projects/2/export', accept: '*/*' });
    expect(file.name).toBe('project-2.zip');
    expect(new Uint8Array(await file.blob.arrayBuffer())).toEqual(new Uint8Array([80, 75]));
  });
});
