// Saving a file the user asked for (an export, a backup, an attachment): a download in a browser;
// in the desktop app, whose web view has no download manager, the app writes it to the Downloads
// folder and says where.

import { inDesktop, tauri } from './platform';

/** Saves `blob` as `name`; answers the path when the desktop app wrote it, else null. */
export async function saveBlob(blob: Blob, name: string): Promise<string | null> {
  if (inDesktop()) {
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const { invoke } = await tauri();
    return invoke<string>('save_download', bytes, { headers: { 'x-maru-name': encodeURIComponent(name) } });
  }
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return null;
}
