// Short notices for the user (a confirmation, an error, an offer to undo), as state gives them.
// State says what to tell; the view that draws them (views/toast.ts) registers itself here.

export interface NoticeOptions {
  /** One button beside the text (Undo); it closes the notice. */
  action?: { label: string; run(): void };
  /** How long it shows; by default 3.5 s for a confirmation, 12 s for an error. */
  ms?: number;
}

export type NoticeKind = 'info' | 'error';

export interface NoticeHandle {
  close(): void;
}

export type NoticeRenderer = (message: string, kind: NoticeKind, opts: NoticeOptions) => NoticeHandle;

let renderer: NoticeRenderer | null = null;

/** Tells the user something; without a view to draw it (a test of state alone) it goes unseen. */
export function notify(message: string, kind: NoticeKind = 'info', opts: NoticeOptions = {}): NoticeHandle {
  return renderer ? renderer(message, kind, opts) : { close() {} };
}

/** The view that draws every notice from now on. */
export function renderNotices(render: NoticeRenderer): void {
  renderer = render;
}
