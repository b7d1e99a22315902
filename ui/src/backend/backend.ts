// What the UI's state shares about the backend: its type (`Backend`, the methods of http.ts's
// `httpBackend` over the typed client of api.ts, over `maru serve` or, in the desktop window, over
// Tauri IPC), the errors it throws and the sink a turn's events go to. Nothing in backend/ imports
// this file: it only gathers names from the modules that define them.

/** The API's methods, one per operation: declared once, by their implementation (http.ts). */
export type { Backend } from './http';
export type { DownloadedFile, TurnSink } from './types';
export { ApiError, errorMessage } from '../lib/apiError';
