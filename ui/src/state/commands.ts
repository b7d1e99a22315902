// What the composer's `/` menu offers the open chat: the skills its project may load (enabled,
// global or the project's own, not turned off in it). Read when the menu is first wanted and again
// when it is older than a moment (a skill added in Settings shows the next time).

import type { Project, SkillView } from '../backend/types';
import type { SlashCommand } from '../lib/commands';
import type { Core } from './core';

/** How long a read list is used before it is read again. */
const FRESH_MS = 15_000;

/** What the commands need of the rest of the state. */
export interface CommandsNeeds extends Core {
  readonly chat: { currentProject(): Project | null };
}

export class CommandsState {
  private skills: SkillView[] = [];
  private readAt = 0;
  private reading: Promise<void> | null = null;

  constructor(private readonly app: CommandsNeeds) {}

  /** The commands now, for the open chat's project (read first when not fresh). */
  async list(): Promise<SlashCommand[]> {
    if (Date.now() - this.readAt > FRESH_MS) {
      this.reading ??= this.app.backend.listSkills().then((skills) => {
        this.skills = skills;
        this.readAt = Date.now();
      }).finally(() => {
        this.reading = null;
      });
      await this.reading;
    }
    return this.known();
  }

  /** The commands as last read (none before the first read). */
  known(): SlashCommand[] {
    const project = this.app.chat.currentProject()?.id ?? null;
    return this.skills
      .filter((s) => s.enabled && (s.project_id === null || s.project_id === project) && (project === null || !s.off_in.includes(project)))
      .map((s) => ({ kind: 'skill', name: s.name, description: s.description }));
  }
}
