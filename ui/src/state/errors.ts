// Failures as the user meets them: the server out of reach (a banner, until it answers again), the
// access token no longer valid (a page saying so), anything else a notice with the server's words.

import { ApiError, errorMessage } from '../lib/apiError';
import type { Events } from './events';
import { notify } from './notices';

export class Errors {
  reachable = true;
  unauthorized = false;
  /** Maru restarts on purpose (after a restore): out of reach meanwhile is expected, not a fault. */
  restarting = false;

  private healthTimer: number | undefined;

  /** `recover`: asks whether the server is back and reads everything again (throws while it is not). */
  constructor(private readonly events: Events, private readonly recover: () => Promise<void>) {}

  /** Runs an action; a failure is shown to the user and reported as `undefined`. */
  async attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      this.fail(e);
      return undefined;
    }
  }

  fail(e: unknown): void {
    if (e instanceof ApiError && e.status === 401) {
      this.unauthorized = true;
      this.events.emit('connection');
      return;
    }
    if (e instanceof ApiError && e.offline) {
      this.setReachable(false);
      return;
    }
    notify(errorMessage(e), 'error');
  }

  /** Maru is about to restart on purpose: while it is away the window says so, not that it
   *  cannot be reached. */
  restartPlanned(): void {
    this.restarting = true;
    this.events.emit('connection');
  }

  /** Called by the backend on every request: shows or clears the "server is down" banner. */
  setReachable(reachable: boolean): void {
    if (this.reachable === reachable) return;
    this.reachable = reachable;
    this.events.emit('connection');
    if (!reachable) this.watchHealth();
  }

  private watchHealth(): void {
    window.clearTimeout(this.healthTimer);
    this.healthTimer = window.setTimeout(async () => {
      try {
        await this.recover();
      } catch {
        if (!this.reachable) this.watchHealth();
      }
    }, 3000);
  }
}
