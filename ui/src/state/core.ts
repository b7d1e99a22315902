// What every state module is given: the backend, the topics views listen to, and the way a
// failure reaches the user. The app (app.ts) is all of it; a module asks for it by this name so
// that it never imports the app that composes it.

import type { Backend } from '../backend/backend';
import type { Topic } from './events';

export interface Core {
  readonly backend: Backend;
  emit(...topics: Topic[]): void;
  fail(e: unknown): void;
  attempt<T>(fn: () => Promise<T>): Promise<T | undefined>;
}
