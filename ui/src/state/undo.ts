// Deletes that can be undone for a few seconds: what is deleted goes from the lists at once, a
// notice offers Undo, and only when it has gone is the server asked to delete. Undo puts it back
// as it was; a delete the server refuses puts it back too, so nothing is lost on a misclick.
// Closing or reloading the page sends the deletes still waiting (the user can no longer undo
// them, and meant them); a page kept in the browser's back-forward cache keeps them waiting, since
// it may come back with its Undo still showing. A delete lost on close only leaves the thing there.

import { ApiError } from '../lib/apiError';
import { t } from '../lib/i18n';
import { notify } from './notices';

/** A delete refused because the thing is gone already (deleted in another window): done. */
export function alreadyGone(e: unknown): boolean {
  return e instanceof ApiError && e.code === 'not_found';
}

/** How long Undo is offered. */
export const UNDO_MS = 7000;

interface Waiting {
  timer: number;
  commit: (closing: boolean) => Promise<void>;
  close(): void;
}

export class Undoable {
  private waiting = new Map<string, Waiting>();

  /**
   * Offers to undo a delete the caller has already shown (`message`, the notice's text). After
   * UNDO_MS `commit` runs (`closing`: the page is going, a request must outlive it); Undo instead
   * runs `restore`. `key` names the thing: deleting it again while it waits changes nothing.
   */
  offer(key: string, message: string, commit: (closing: boolean) => Promise<void>, restore: () => void): void {
    if (this.waiting.has(key)) return;
    const handle = notify(message, 'info', {
      ms: UNDO_MS,
      action: {
        label: t('undo'),
        run: () => {
          const w = this.waiting.get(key);
          if (!w) return;
          window.clearTimeout(w.timer);
          this.waiting.delete(key);
          restore();
        },
      },
    });
    const timer = window.setTimeout(() => {
      this.waiting.delete(key);
      handle.close();
      void commit(false);
    }, UNDO_MS);
    this.waiting.set(key, { timer, commit, close: handle.close });
  }

  /** Whether `key`'s delete waits (it is hidden meanwhile). */
  has(key: string): boolean {
    return this.waiting.has(key);
  }

  /** Sends every delete still waiting now. */
  flush(): void {
    for (const [key, w] of this.waiting) {
      window.clearTimeout(w.timer);
      this.waiting.delete(key);
      w.close();
      void w.commit(true);
    }
  }
}
