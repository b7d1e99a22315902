// The parts of a file's view that every list of files shares: its kind and state in words, saving
// it, picking files from disk and dropping them on an area. Apart from files.ts so that the
// project's settings (a chunk of their own) use them without importing the files panel.

import type { App } from '../app';
import type { Attachment, Kind } from '../backend/types';
import { h, icon } from '../lib/dom';
import { t, type Key } from '../lib/i18n';
import { reasonText } from '../lib/reasons';
import { saveBlob } from '../lib/save';
import type { FileToAttach } from '../state/files';
import { toast } from './toast';

export function kindLabel(kind: Kind): string {
  return t(`kind_${kind}` as Key);
}

/** A file's state: a spinner while it is sent or indexed, then ready or failed (the note says why). */
export function statusNode(a: Attachment | null): HTMLElement {
  const status = a ? a.status : 'uploading';
  const label = !a ? t('fileUploading') : a.status === 'indexing' ? t('fileIndexing') : a.status === 'ready' ? t('fileReady') : t('fileFailed');
  const busy = status === 'uploading' || status === 'indexing';
  return h('span', { class: ['file-status', `file-${status}`], 'data-testid': 'file-status', dataset: { status }, title: a?.note ? reasonText(a.note_reason, a.note) : undefined },
    busy ? h('span', { class: 'spinner', 'aria-hidden': 'true' }) : icon(status === 'ready' ? 'check' : 'warn'),
    h('span', null, label),
  );
}

/** Saves a file as attached. The route needs the access token, so the bytes come through fetch. */
export async function downloadFile(app: App, a: Attachment): Promise<void> {
  const blob = await app.attempt(() => app.attachments.download(a.id));
  if (!blob) return;
  const path = await app.attempt(() => saveBlob(blob, a.name));
  if (path) toast(t('savedTo', { path }));
}

/** The files to attach from a file list; a pasted image gets a name that says so. */
export function filesToAttach(files: Iterable<File> | ArrayLike<File> | null | undefined, pasted = false): FileToAttach[] {
  if (!files) return [];
  return Array.from(files).map((f) => ({ blob: f, name: pasted && (!f.name || /^image\.\w+$/i.test(f.name)) ? pastedName(f.type) : f.name || 'file' }));
}

function pastedName(mime: string): string {
  const ext = /^image\/(png|jpeg|gif|webp|bmp)$/.exec(mime)?.[1]?.replace('jpeg', 'jpg') ?? 'png';
  const d = new Date();
  const p = (n: number) => String(n).padStart(2, '0');
  return `pasted-${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}.${ext}`;
}

/** A hidden file input (several files at once) and what opens it. */
export function filePicker(onFiles: (files: FileToAttach[]) => void, testId?: string): { input: HTMLInputElement; open(): void } {
  const input = h('input', { type: 'file', multiple: true, hidden: true, tabindex: -1, 'data-testid': testId });
  input.addEventListener('change', () => {
    const files = filesToAttach(input.files);
    input.value = '';
    if (files.length) onFiles(files);
  });
  return { input, open: () => input.click() };
}

function hasFiles(e: DragEvent): boolean {
  return !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
}

/** Files dragged over `area` show a drop zone saying what dropping does; dropped, they go to `onFiles`. */
export function mountDropZone(area: HTMLElement, label: () => string, onFiles: (files: FileToAttach[]) => void): void {
  const text = h('span', null);
  const zone = h('div', { class: 'drop-zone', 'data-testid': 'drop-zone', hidden: true, 'aria-hidden': 'true' },
    h('div', { class: 'drop-zone-inner' }, icon('paperclip'), text));
  area.appendChild(zone);
  let timer = 0;
  const hide = () => {
    window.clearTimeout(timer);
    zone.hidden = true;
  };
  const over = (e: DragEvent) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer!.dropEffect = 'copy';
    text.textContent = label();
    zone.hidden = false;
    // dragleave also fires when moving over a child; the zone goes when the dragging stops.
    window.clearTimeout(timer);
    timer = window.setTimeout(hide, 250);
  };
  area.addEventListener('dragenter', over);
  area.addEventListener('dragover', over);
  area.addEventListener('drop', (e) => {
    hide();
    const files = filesToAttach(e.dataTransfer?.files);
    if (files.length === 0) return;
    e.preventDefault();
    e.stopPropagation();
    onFiles(files);
  });
}

