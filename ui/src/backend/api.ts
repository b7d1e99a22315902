// The one typed client of Maru's API: openapi-fetch over the `paths` that `npm run generate`
// makes of the server's OpenAPI document (api.generated.ts). A path, a path or query parameter,
// a request body or a response that the document does not have is a type error. The same client
// runs in the browser (fetch to `maru serve`) and in the desktop window (ipc.ts's fetch, which
// carries the request over Tauri IPC to the same router).

import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.generated';
import { ApiError, serverCode } from '../lib/apiError';

export type { paths };
export type Api = Client<paths>;

type Method = 'get' | 'post' | 'patch' | 'delete';
/** The paths with an operation for `M`. */
type PathsWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never }[keyof paths];
type Operation<P extends PathsWith<M>, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON an operation answers with (its 200 response). */
export type Ok<P extends PathsWith<M>, M extends Method> =
  Operation<P, M> extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;
/** The JSON body an operation takes. */
export type Body<P extends PathsWith<M>, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer T } } } ? T : never;
/** The query parameters an operation takes; `null` leaves an optional one out, as an absent
 *  value in the JSON types (a page's `next_cursor`). `present` takes the nulls out for the client. */
export type Query<P extends PathsWith<M>, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? OrNull<NonNullable<Q>> : never;
type OrNull<Q> = { [K in keyof Q]: undefined extends Q[K] ? Q[K] | null : Q[K] };

/** The query without its `null`s (the client's types, like the server, know only absent ones). */
export function present<T extends object>(query: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== null)) as { [K in keyof T]: Exclude<T[K], null> };
}

export interface ApiOptions {
  /** Where `maru serve` answers (the desktop's placeholder origin over IPC). */
  baseUrl: string;
  token: string;
  /** Told whenever a request reaches the server (true) or cannot (false). */
  onReachable: (reachable: boolean) => void;
  /** `fetch`, or ipc.ts's `ipcFetch` in the desktop window. */
  fetch: (request: Request) => Promise<Response>;
}

/**
 * The client. Every request carries the bearer token and asks for JSON unless the call says
 * otherwise (a turn's event stream, a file); a request that cannot be sent rejects with
 * `ApiError('offline')`, a non-2xx answer with the server's `{code, message, params}` as an
 * `ApiError`, and a 2xx JSON answer that is not JSON with `ApiError('bad_response')`.
 */
export function createApi(opts: ApiOptions): Api {
  const base = opts.baseUrl.replace(/\/$/, '');
  const transport = async (request: Request): Promise<Response> => {
    let res: Response;
    try {
      res = await opts.fetch(request);
    } catch {
      opts.onReachable(false);
      throw new ApiError('offline', `Cannot reach Maru at ${base}. Is \`maru serve\` still running?`);
    }
    opts.onReachable(true);
    if (!res.ok) throw await errorFrom(res);
    if (request.headers.get('accept') !== 'application/json') return res;
    // Checked here, where the request is known: openapi-fetch would throw a bare SyntaxError.
    const text = await res.text();
    try {
      JSON.parse(text);
    } catch {
      const url = new URL(request.url);
      throw new ApiError('bad_response', `The server sent something that is not JSON for ${url.pathname + url.search}.`, res.status);
    }
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return createClient<paths>({
    baseUrl: base,
    fetch: transport,
    headers: { Authorization: `Bearer ${opts.token}`, Accept: 'application/json' },
    cache: 'no-store',
    querySerializer,
  });
}

/** `a=1&b=x` from the defined values (an empty string is left out too), or "". */
function querySerializer(params: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  return q.toString();
}

/** The server's `{code, message, params}`, or a readable stand-in when the body is something else. */
async function errorFrom(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; params?: unknown };
    if (typeof body.message === 'string') {
      const params = body.params && typeof body.params === 'object' ? (body.params as Record<string, string>) : {};
      return new ApiError(serverCode(body.code), body.message, res.status, params);
    }
  } catch {
    // not JSON
  }
  const detail = text.trim().slice(0, 200);
  return new ApiError(`http_${res.status}`, `The server answered ${res.status} ${res.statusText}${detail ? `: ${detail}` : ''}`, res.status);
}
