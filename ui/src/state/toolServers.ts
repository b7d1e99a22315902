// The user's MCP tool servers, as the settings' Tools tab lists them: added, edited, turned on or
// off (everywhere or per project), their always-allowed tools, and their tools listed (which
// starts a server). Secrets never reach the UI: a server's view names its variables and headers
// without their values.

import type { CommandLine, ImportPreview, NewToolServer, ServerTool, ToolServerPatch, ToolServerView } from '../backend/types';
import { errorMessage } from '../lib/apiError';
import type { Core } from './core';

export class ToolServersState {
  toolServers: ToolServerView[] = [];
  toolServersLoaded = false;
  /** Why the list could not be read, in the UI's language. */
  toolServersError: string | null = null;
  /** Servers being started to list their tools. */
  readonly startingServers = new Set<number>();
  /** What listing a server's tools last said when it failed (not kept once it worked). */
  readonly toolsProblems = new Map<number, string>();

  constructor(private readonly app: Core) {}

  async loadToolServers(): Promise<void> {
    const app = this.app;
    try {
      this.toolServers = await app.backend.listToolServers();
      this.toolServersError = null;
    } catch (e) {
      this.toolServersError = errorMessage(e);
    }
    this.toolServersLoaded = true;
    app.emit('toolServers');
  }

  private changed(view: ToolServerView): ToolServerView {
    const at = this.toolServers.findIndex((s) => s.id === view.id);
    if (at === -1) this.toolServers = [...this.toolServers, view];
    else this.toolServers = this.toolServers.map((s) => (s.id === view.id ? view : s));
    this.app.emit('toolServers');
    return view;
  }

  /** Adds a server; rejects with the server's error (the form shows it). */
  async addToolServer(server: NewToolServer): Promise<ToolServerView> {
    return this.changed(await this.app.backend.createToolServer(server));
  }

  /** Edits a server; rejects with the server's error (the form shows it). */
  async editToolServer(id: number, patch: ToolServerPatch): Promise<ToolServerView> {
    const view = await this.app.backend.updateToolServer(id, patch);
    // What listing its tools said was about the server as it was.
    this.toolsProblems.delete(id);
    return this.changed(view);
  }

  /** A pasted command line as the program and its arguments; rejects with `invalid_command_line`. */
  async splitCommandLine(line: string): Promise<CommandLine> {
    return this.app.backend.splitCommandLine(line);
  }

  /** What adding from an mcp.json would add; rejects with the server's refusal (not JSON, no
   *  servers, too large, too many), which the import form shows. */
  async previewImport(text: string): Promise<ImportPreview> {
    return this.app.backend.previewToolServerImport(text);
  }

  /** Adds the chosen servers of an mcp.json at once, and lists them; rejects as `previewImport`. */
  async importServers(text: string, chosen: string[]): Promise<ToolServerView[]> {
    const added = await this.app.backend.importToolServers(text, chosen);
    this.toolServers = [...this.toolServers, ...added];
    this.app.emit('toolServers');
    return added;
  }

  /** A quick change (on/off, an always-allowed tool, a project): a failure is shown and undone. */
  async patchToolServer(id: number, patch: ToolServerPatch): Promise<boolean> {
    const view = await this.app.attempt(() => this.editToolServer(id, patch));
    if (!view) this.app.emit('toolServers');
    return !!view;
  }

  async removeToolServer(id: number): Promise<boolean> {
    const app = this.app;
    const done = await app.attempt(() => app.backend.deleteToolServer(id));
    if (!done) return false;
    this.toolServers = this.toolServers.filter((s) => s.id !== id);
    this.toolsProblems.delete(id);
    app.emit('toolServers');
    return true;
  }

  /** Starts the server if it is not running and lists its tools; the list is read again after
   *  (its status, or the words it failed with). */
  async listServerTools(id: number): Promise<ServerTool[] | null> {
    const app = this.app;
    this.startingServers.add(id);
    app.emit('toolServers');
    let tools: ServerTool[] | null = null;
    try {
      tools = await app.backend.toolServerTools(id);
      this.toolsProblems.delete(id);
    } catch (e) {
      this.toolsProblems.set(id, errorMessage(e));
    }
    this.startingServers.delete(id);
    try {
      this.toolServers = await app.backend.listToolServers();
    } catch (e) {
      app.fail(e);
    }
    app.emit('toolServers');
    return tools;
  }
}
