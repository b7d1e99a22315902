// What a tool call did, in the user's terms. The server stores with each tool result what the call
// did as data (`tool_outcome`: the fact proposed, the passages found, the call the user denied…),
// beside the text the model reads, which comes from prompts/ templates the user may rewrite: the
// chat shows the data and never reads the model's words. Results stored before the server kept it
// have none: for those only, these functions read the text back as the templates of that time
// (prompts/tools/*_result.md, version 1) wrote it; a text they do not recognise is shown as it is.

import type { ErrorBody, KeptOutput, SearchRanking, ToolFailure, ToolOutcome as StoredOutcome } from '../backend/types';

/** The tools Maru offers, and how the chat names them. */
export type ToolName = 'remember' | 'update_memory' | 'forget' | 'search_memory' | 'search_attachment' | 'read_tool_output';

export const MEMORY_TOOLS: ReadonlySet<string> = new Set(['remember', 'update_memory', 'forget', 'search_memory']);

export interface Passage {
  file: string;
  page: number | null;
  lines: [number, number] | null;
  text: string;
}

export type ToolOutcome =
  /** No result yet: the tool is running (live), or the turn ended before it answered (stored). */
  | { kind: 'running' }
  /** A tool server's call waiting for the user's approval (live). */
  | { kind: 'waiting' }
  /** The user did not allow a tool server's call; or no one answered in time (or the reply stopped). */
  | { kind: 'denied' }
  | { kind: 'notApproved' }
  | { kind: 'unanswered' }
  /** `message`: what the tool or the model was told. Why, when the server stored it: a `failure`
   *  (the tool server gone, a bad argument…) or Maru's refusal as the API words it (`refused`). */
  | { kind: 'error'; message: string; failure?: ToolFailure | 'server_removed' | 'server_turned_off'; refused?: ErrorBody }
  /** A fact the model proposed, waiting for the user's review. */
  | { kind: 'proposed'; id: number; fact: string }
  | { kind: 'saved'; id: number; fact: string }
  /** The fact was already there; it now reads `fact` (`pending`: the change waits for review). */
  | { kind: 'merged'; id: number; fact: string; pending: boolean }
  | { kind: 'updated'; id: number; fact: string }
  | { kind: 'forgotten'; id: number }
  /** The model asked to change or forget a saved fact; in review mode the user does it. */
  | { kind: 'needsReview'; id: number }
  | { kind: 'facts'; facts: { id: number; content: string }[] }
  /** `ranking`: how a hybrid search ranked (none: by the words alone). */
  | { kind: 'passages'; passages: Passage[]; ranking?: SearchRanking | null }
  | { kind: 'nothingFound'; query: string; ranking?: SearchRanking | null }
  /** search_skills: the skills found. */
  | { kind: 'skills'; names: string[] }
  /** search_tools: the tool servers' tools found (listed to the model from then on). */
  | { kind: 'tools'; names: string[] }
  /** load_skill and read_skill_file, and a page of a kept output (`read_tool_output`): the text
   *  the model got, under a line of what it is. */
  | { kind: 'skillLoaded'; name: string; files: string[]; text: string }
  | { kind: 'skillFile'; name: string; path: string; text: string }
  | { kind: 'page'; reference: string; from: number; to: number; lines: number; text: string }
  /** A result in no form known here: its text. */
  | { kind: 'text'; text: string };

/** The stored content of a failed call starts so (`format!("error: {msg}")` in the turn). */
const ERROR_PREFIX = 'error: ';

/** A call as the chat shows it: from a stored reply and its tool messages, or from a live turn. */
export interface ToolCallView {
  id: string;
  name: string;
  arguments: string;
  /** The tool's result as stored or streamed; undefined while there is none. */
  result?: string;
  /** Known for a live turn (`tool_result.is_error`); read from the text for a stored one. */
  isError?: boolean;
  /** What the call did, as the server stored it beside the result; absent for an old result. */
  outcome?: StoredOutcome | null;
  /** A tool server's call that asked the user: null while it waits, then how it was answered. */
  approval?: { decision: string | null };
}

/** A tool server's tools reach the model as `server__tool` (Maru's own names have no `__`, nor
 *  has a server's name): the server and the tool's name, or null for one of Maru's tools. */
export function serverTool(name: string): { server: string; tool: string } | null {
  const at = name.indexOf('__');
  return at > 0 && at + 2 < name.length ? { server: name.slice(0, at), tool: name.slice(at + 2) } : null;
}

/** The call's arguments as an object (an empty one when the model wrote invalid JSON). */
export function toolArgs(call: Pick<ToolCallView, 'arguments'>): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.arguments);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** What the call did; `live`: the turn is still running (no result yet means it is running). */
export function toolOutcome(call: ToolCallView, live = false): ToolOutcome {
  const result = call.result;
  if (result === undefined) {
    if (!live) return { kind: 'unanswered' };
    return call.approval && call.approval.decision === null ? { kind: 'waiting' } : { kind: 'running' };
  }
  if (call.outcome) return fromStored(call.outcome, result);
  // A long result is kept aside and the model gets its first lines under a line saying so
  // (prompts/tool_output_kept.md); a page read on (`read_tool_output`) has a line naming it.
  let text = result.trim();
  const kept = /^\[This output is long \([^\n]*\]\n?/.exec(text) ?? (call.name === 'read_tool_output' ? /^\[out-\d+ [^\n]*\]\n?/.exec(text) : null);
  if (kept) text = text.slice(kept[0].length);
  if (call.isError || (call.isError === undefined && text.startsWith(ERROR_PREFIX))) {
    const message = text.startsWith(ERROR_PREFIX) ? text.slice(ERROR_PREFIX.length) : text;
    return (serverTool(call.name) && readNotRun(message)) || { kind: 'error', message };
  }
  const read = call.name === 'search_attachment' ? readPassages(text) : MEMORY_TOOLS.has(call.name) ? readMemoryResult(text)
    : SKILL_TOOLS.has(call.name) ? readSkillResult(text) : null;
  return read ?? { kind: 'text', text };
}

/** The long result kept aside, whose first lines the model got: from the stored outcome (an old
 *  result's chip reads this from its text, and says nothing of it). */
export function toolKept(call: ToolCallView): KeptOutput | null {
  return call.outcome?.kept ?? null;
}

/** The server's outcome as the chat shows it; `content` is the stored text, shown as it is where
 *  the text is the result (a skill's procedure, a page, a tool server's answer). */
function fromStored(o: StoredOutcome, content: string): ToolOutcome {
  const d = o.did;
  const text = content.startsWith(ERROR_PREFIX) ? content.slice(ERROR_PREFIX.length) : content;
  switch (d.kind) {
    case 'proposed':
    case 'saved':
    case 'updated':
      return { kind: d.kind, id: d.id, fact: d.fact };
    case 'merged':
      return { kind: 'merged', id: d.id, fact: d.fact, pending: d.pending };
    // A change to an accepted fact, waiting beside it: shown as a merge the user reviews.
    case 'change_proposed':
      return { kind: 'merged', id: d.id, fact: d.fact, pending: true };
    case 'forgotten':
      return { kind: 'forgotten', id: d.id };
    case 'needs_review':
      return { kind: 'needsReview', id: d.id };
    case 'facts':
      return { kind: 'facts', facts: d.facts.map((f) => ({ id: f.id, content: f.content })) };
    case 'passages':
      return { kind: 'passages', passages: d.passages.map((p) => ({ file: p.file, page: p.page, lines: [p.line_start, p.line_end], text: p.text })), ranking: d.ranking };
    case 'nothing_found':
      return { kind: 'nothingFound', query: d.query, ranking: d.ranking };
    case 'skills':
      return { kind: 'skills', names: d.names };
    case 'tools_found':
      return { kind: 'tools', names: d.names };
    case 'skill_loaded':
      return { kind: 'skillLoaded', name: d.name, files: d.files, text: skillBody(content) };
    case 'skill_file_read':
      return { kind: 'skillFile', name: d.name, path: d.path, text: skillBody(content) };
    case 'page_read':
      return { kind: 'page', reference: d.reference, from: d.from, to: d.to, lines: d.lines, text: content.trim() };
    case 'denied':
      return { kind: 'denied' };
    case 'not_approved':
      return { kind: 'notApproved' };
    case 'server_removed':
    case 'server_turned_off':
      return { kind: 'error', failure: d.kind, message: text.trim() };
    case 'error':
      return { kind: 'error', failure: d.code, message: d.message };
    case 'refused':
      return { kind: 'error', refused: d.error, message: d.error.message };
    case 'text':
      return { kind: 'text', text: content.trim() };
  }
}

/** What a tool server's call that did not run tells the model (prompts/tools/messages.md), read back. */
function readNotRun(text: string): ToolOutcome | null {
  if (/^The user did not allow this call of /.test(text)) return { kind: 'denied' };
  if (/^No one approved this call of [\s\S]* in time/.test(text)) return { kind: 'notApproved' };
  return null;
}

/** prompts/tools/memory_result.md, read back. */
function readMemoryResult(text: string): ToolOutcome | null {
  let m: RegExpExecArray | null;
  if ((m = /^Proposed fact #(\d+): "([\s\S]*)"\. The user reviews it before it is kept/.exec(text))) return { kind: 'proposed', id: Number(m[1]), fact: m[2] };
  if ((m = /^Saved fact #(\d+): "([\s\S]*)"\.$/.exec(text))) return { kind: 'saved', id: Number(m[1]), fact: m[2] };
  if ((m = /^Fact #(\d+) already said this; it now reads: "([\s\S]*)"\.( The user reviews the change before it is kept\.)?$/.exec(text))) {
    return { kind: 'merged', id: Number(m[1]), fact: m[2], pending: !!m[3] };
  }
  // A change to an accepted fact, waiting beside it (review mode): shown as a merge the user reviews.
  if ((m = /^Fact #(\d+) reads: "[\s\S]*"\. The change to "([\s\S]*)" waits for the user;/.exec(text))) {
    return { kind: 'merged', id: Number(m[1]), fact: m[2], pending: true };
  }
  if ((m = /^Fact #(\d+) now reads: "([\s\S]*)"\.$/.exec(text))) return { kind: 'updated', id: Number(m[1]), fact: m[2] };
  if ((m = /^Fact #(\d+) is forgotten\.$/.exec(text))) return { kind: 'forgotten', id: Number(m[1]) };
  if ((m = /^The user reviews changes to saved facts:[\s\S]*fact #(\d+)/.exec(text))) return { kind: 'needsReview', id: Number(m[1]) };
  if ((m = /^No saved fact matches "([\s\S]*)"\.$/.exec(text))) return { kind: 'nothingFound', query: m[1] };
  if (text.startsWith('#')) {
    // search_memory: `#id: content` a line each (a fact's own line breaks continue it).
    const facts: { id: number; content: string }[] = [];
    for (const line of text.split('\n')) {
      const f = /^#(\d+): (.*)$/.exec(line);
      if (f) facts.push({ id: Number(f[1]), content: f[2] });
      else if (facts.length) facts[facts.length - 1].content += '\n' + line;
    }
    if (facts.length) return { kind: 'facts', facts: facts.map((f) => ({ ...f, content: f.content.trim() })) };
  }
  return null;
}

const SKILL_TOOLS: ReadonlySet<string> = new Set(['load_skill', 'read_skill_file']);

/** prompts/tools/load_skill_result.md and read_skill_file_result.md less their lines for the model
 *  (`[Skill name]`, and which tool reads the reference files): the procedure loaded, or the file read. */
function readSkillResult(text: string): ToolOutcome {
  return { kind: 'text', text: skillBody(text) };
}

/** What a chip shows of a skill or a skill file: the text less the bundled template's lines for the
 *  model, when they are there (what the call did comes from its outcome; a rewritten template's
 *  lines are shown as they are). */
function skillBody(text: string): string {
  return text.replace(/^\[Skill [^\n]*\]\n?/, '').replace(/\n*Reference files \(read one with read_skill_file\): [^\n]*$/, '').trim();
}

/** prompts/tools/search_attachment_result.md, read back: `[name, page p, lines a-b]` and the passage. */
function readPassages(text: string): ToolOutcome | null {
  const none = /^No passage matches "([\s\S]*?)"/.exec(text);
  if (none) return { kind: 'nothingFound', query: none[1] };
  const passages: Passage[] = [];
  for (const line of text.split('\n')) {
    const head = /^\[(.+?)(?:, page (\d+))?, lines (\d+)-(\d+)\]$/.exec(line);
    if (head) passages.push({ file: head[1], page: head[2] ? Number(head[2]) : null, lines: [Number(head[3]), Number(head[4])], text: '' });
    else if (passages.length) passages[passages.length - 1].text += line + '\n';
  }
  if (passages.length === 0) return null;
  return { kind: 'passages', passages: passages.map((p) => ({ ...p, text: p.text.trim() })) };
}

/** The words of the call's arguments worth showing on its chip: the fact, the query, the fact's number. */
export function shortArgs(call: ToolCallView): string {
  const args = toolArgs(call);
  const str = (k: string) => (typeof args[k] === 'string' ? (args[k] as string).trim() : '');
  let s: string;
  switch (call.name) {
    case 'remember':
      s = str('fact');
      break;
    case 'update_memory':
      s = [args.id !== undefined ? `#${String(args.id)}` : '', str('fact')].filter(Boolean).join(' ');
      break;
    case 'forget':
      s = args.id !== undefined ? `#${String(args.id)}` : '';
      break;
    case 'read_tool_output':
      s = [str('ref'), args.offset !== undefined ? `@${String(args.offset)}` : ''].filter(Boolean).join(' ');
      break;
    case 'search_memory':
    case 'search_attachment':
      s = str('query') ? `“${str('query')}”` : '';
      if (str('file')) s += ` · ${str('file')}`;
      break;
    default:
      s = Object.values(args).filter((v) => typeof v === 'string' || typeof v === 'number').join(' · ') || call.arguments.trim();
  }
  return clip(s.replace(/\s+/g, ' '), 60);
}

export function clip(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length > max ? chars.slice(0, max - 1).join('').trimEnd() + '…' : s;
}
