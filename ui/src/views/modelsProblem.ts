// A model server's failure to list its models, in a few words: for the header's model picker (in
// the entry script) and the servers' badges in Settings (a chunk of its own), so that the picker
// does not pull the Settings pane into every start.

import { ApiError } from '../lib/apiError';
import { t, type Key } from '../lib/i18n';

/** `model_server.*` codes that mean the server does not answer at all. */
const NOT_ANSWERING = new Set(['unreachable', 'dns', 'network', 'timeout_connect', 'timeout_first_byte', 'invalid_url'].map((c) => `model_server.${c}`));

/** A server's answer in a few words, for a badge or a menu (the whole sentence goes beside it or on hover). */
export function modelsProblem(error: unknown): string {
  const code = error instanceof ApiError ? error.code : '';
  const key: Key = NOT_ANSWERING.has(code) ? 'serverNotAnswering' : code === 'model_server.unauthorized' ? 'serverKeyRefused' : 'serverModelsFailed';
  return t(key);
}
