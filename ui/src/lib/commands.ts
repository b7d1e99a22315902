// The composer's `/` commands, as text: which `/word` is being typed where the caret is, which
// commands match it, and which commands a message names. A command is a skill to load now; the
// kind leaves room for others (a tool server's prompts) in the same menu.

/** One entry of the `/` menu. */
export interface SlashCommand {
  kind: 'skill';
  /** What follows the `/`, as the message names it. */
  name: string;
  description: string;
}

/** The `/word` ending at `caret`, if one is being typed: a `/` at the start of a line or after a
 *  space, then no space up to the caret. `start`: where the `/` is. */
export function slashAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const m = /(^|\s)\/([^\s/]*)$/.exec(before);
  if (!m) return null;
  return { start: caret - m[2].length - 1, query: m[2] };
}

/** The commands whose name holds `query` (any case): those it begins first, then by name. */
export function matchCommands(commands: readonly SlashCommand[], query: string): SlashCommand[] {
  const q = query.toLowerCase();
  const rank = (c: SlashCommand) => (c.name.toLowerCase().startsWith(q) ? 0 : 1);
  return commands
    .filter((c) => c.name.toLowerCase().includes(q) || (q.length > 2 && c.description.toLowerCase().includes(q)))
    .sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** The text with `/query` at `start` replaced by the command's `/name` and a space. */
export function insertCommand(text: string, at: { start: number; query: string }, name: string): { text: string; caret: number } {
  const end = at.start + 1 + at.query.length;
  const rest = text.slice(end).replace(/^ /, '');
  const inserted = `/${name} `;
  return { text: text.slice(0, at.start) + inserted + rest, caret: at.start + inserted.length };
}

/** The commands a message names (`/name` at a line's start or after a space, any case), each
 *  once, in the order written; a `/word` that is no command (a path, a fraction) is just text. */
export function commandsIn(text: string, commands: readonly SlashCommand[]): SlashCommand[] {
  const byName = new Map(commands.map((c) => [c.name.toLowerCase(), c]));
  const out: SlashCommand[] = [];
  for (const m of text.matchAll(/(?:^|\s)\/([^\s/]+)(?=\s|$)/g)) {
    const c = byName.get(m[1].toLowerCase());
    if (c && !out.includes(c)) out.push(c);
  }
  return out;
}
