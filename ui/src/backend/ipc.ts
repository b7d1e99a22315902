// The desktop window's transport: a `fetch` for the typed client (api.ts, under `httpBackend`) that
// carries each request over Tauri IPC to the API inside the app (no socket, no token). Everything
// above it (the generated paths, errors, event streams) is what the browser runs, so the two cannot
// drift; the desktop's Rust side hands the request to the same router `maru serve` uses.

import { inDesktop, tauri } from '../lib/platform';

export { inDesktop };

/** A placeholder origin: requests never leave the process, only their path and query matter. */
export const DESKTOP_ORIGIN = 'http://maru.desktop';

/** What the `api` and `api_stream` commands reject with: the HTTP status and the JSON error. */
interface Failed {
  status: number;
  body: string;
}

function isFailed(e: unknown): e is Failed {
  return typeof e === 'object' && e !== null && typeof (e as Failed).status === 'number' && typeof (e as Failed).body === 'string';
}

/** A failure as the HTTP server would have answered it, so the client reads its `{code, message, params}`. */
function failedResponse(e: unknown): Response {
  if (isFailed(e)) return new Response(e.body, { status: e.status, headers: { 'content-type': 'application/json' } });
  // The IPC itself failed (a command the page may not call, a closed window): a network error to fetch's callers.
  throw new TypeError(`the desktop app did not answer: ${String(e)}`);
}

export const ipcFetch: typeof fetch = async (input, init) => {
  const req = new Request(input, init);
  const url = new URL(req.url);
  const path = url.pathname + url.search;
  const accept = req.headers.get('accept') ?? '';
  if (accept.includes('text/event-stream')) return stream(req, path);
  const body = new Uint8Array(await req.arrayBuffer());
  const { invoke } = await tauri();
  try {
    const bytes = await invoke<ArrayBuffer>('api', body, {
      headers: { 'x-maru-method': req.method, 'x-maru-path': path, 'x-maru-content-type': req.headers.get('content-type') ?? '', accept },
    });
    return new Response(bytes, { status: 200 });
  } catch (e) {
    return failedResponse(e);
  }
};

/** A turn: the events' bytes arrive on a channel and are handed on as the response's body. */
async function stream(req: Request, path: string): Promise<Response> {
  const text = await req.text();
  const { Channel, invoke } = await tauri();
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const onEvent = new Channel<ArrayBuffer | null>();
  onEvent.onmessage = (chunk) => {
    try {
      if (chunk === null) feed.close();
      else feed.enqueue(new Uint8Array(chunk));
    } catch {
      // The page stopped reading (it cancelled the body): later chunks have nowhere to go.
    }
  };
  try {
    await invoke('api_stream', { call: { method: req.method, path, body: text || null }, onEvent });
  } catch (e) {
    return failedResponse(e);
  }
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}
