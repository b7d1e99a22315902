// What a tool call did, for a result stored before the server kept it as data (toolOutcomes.test.ts
// has the chips drawn from that data), read back from the text the server stored for the model. The texts are
// the real templates (prompts/tools/memory_result.md, search_attachment_result.md,
// messages.md, prompts/tool_output_kept.md) rendered as the server renders them: a change to a
// template's words that the UI would no longer read fails here.

import { describe, expect, it } from 'vitest';
import { shortArgs, toolOutcome, type ToolCallView } from '../src/lib/tools';
import { render } from './templates';

const memory = (vars: Record<string, unknown>) => render('tools/memory_result', vars);

const call = (name: string, args: object, result?: string, isError?: boolean): ToolCallView =>
  ({ id: 'c1', name, arguments: JSON.stringify(args), result, isError });

describe('a memory tool’s result', () => {
  it('reads a proposal as the fact proposed and its number, without the words meant for the model', () => {
    const o = toolOutcome(call('remember', { fact: 'Prefers tea.' }, memory({ outcome: 'pending', id: 12, fact: 'Prefers tea.' })));
    expect(o, 'the chat shows what was proposed and links to its review').toEqual({ kind: 'proposed', id: 12, fact: 'Prefers tea.' });
  });

  it('reads saved, merged (pending or not), updated, forgotten and "needs review"', () => {
    expect(toolOutcome(call('remember', {}, memory({ outcome: 'saved', id: 3, fact: 'Has a dog named "Bori".' }))))
      .toEqual({ kind: 'saved', id: 3, fact: 'Has a dog named "Bori".' });
    expect(toolOutcome(call('remember', {}, memory({ outcome: 'merged', id: 4, fact: 'Lives in Seoul.', pending: false }))))
      .toEqual({ kind: 'merged', id: 4, fact: 'Lives in Seoul.', pending: false });
    expect(toolOutcome(call('remember', {}, memory({ outcome: 'merged', id: 4, fact: 'Lives in Seoul.', pending: true }))))
      .toEqual({ kind: 'merged', id: 4, fact: 'Lives in Seoul.', pending: true });
    expect(toolOutcome(call('update_memory', {}, memory({ outcome: 'updated', id: 5, fact: 'Works from home.' }))))
      .toEqual({ kind: 'updated', id: 5, fact: 'Works from home.' });
    expect(toolOutcome(call('forget', {}, memory({ outcome: 'forgotten', id: 6 })))).toEqual({ kind: 'forgotten', id: 6 });
    expect(toolOutcome(call('forget', {}, memory({ outcome: 'needs_review', id: 7 })))).toEqual({ kind: 'needsReview', id: 7 });
  });

  it('reads a memory search as the facts found, or nothing found', () => {
    const facts = [{ id: 3, content: 'Has a dog.' }, { id: 9, content: 'Has a cat\nnamed Nabi.' }];
    expect(toolOutcome(call('search_memory', { query: 'pets' }, memory({ outcome: 'found', query: 'pets', facts }))))
      .toEqual({ kind: 'facts', facts });
    expect(toolOutcome(call('search_memory', { query: 'pets' }, memory({ outcome: 'found', query: 'pets', facts: [] }))))
      .toEqual({ kind: 'nothingFound', query: 'pets' });
  });
});

describe('a file search’s result', () => {
  it('reads the passages found with their file, page and lines', () => {
    const hits = [
      { name: 'notes.md', page: null, line_start: 3, line_end: 5, text: 'The trip is in May.\nWe fly to Busan.' },
      { name: 'plan.pdf', page: 2, line_start: 10, line_end: 12, text: 'Hotel near the beach.' },
    ];
    const text = render('tools/search_attachment_result', { hits, query: 'trip', file: null, files: 'notes.md, plan.pdf' });
    expect(toolOutcome(call('search_attachment', { query: 'trip' }, text))).toEqual({
      kind: 'passages',
      passages: [
        { file: 'notes.md', page: null, lines: [3, 5], text: 'The trip is in May.\nWe fly to Busan.' },
        { file: 'plan.pdf', page: 2, lines: [10, 12], text: 'Hotel near the beach.' },
      ],
    });
  });

  it('reads "no passage" as nothing found for the query', () => {
    const none = render('tools/search_attachment_result', { hits: [], query: 'visa', file: null, files: 'notes.md' });
    expect(toolOutcome(call('search_attachment', { query: 'visa' }, none))).toEqual({ kind: 'nothingFound', query: 'visa' });
    const nothingHere = render('tools/search_attachment_result', { hits: [], query: 'visa', file: 'notes.md', files: '' });
    expect(toolOutcome(call('search_attachment', { query: 'visa' }, nothingHere))).toEqual({ kind: 'nothingFound', query: 'visa' });
  });

  it('reads the first lines of a long result kept aside, without the note to the model', () => {
    const text = render('tool_output_kept', { ref: 'out-3', lines: 400, tokens: 9000, shown: 20, next: 21, preview: '[notes.md, lines 1-4]\nFirst passage.' });
    expect(toolOutcome(call('search_attachment', { query: 'x' }, text)))
      .toEqual({ kind: 'passages', passages: [{ file: 'notes.md', page: null, lines: [1, 4], text: 'First passage.' }] });
  });
});

describe('any tool', () => {
  it('is running while a live turn has no result, and unanswered in a stored reply', () => {
    expect(toolOutcome(call('remember', {}), true).kind).toBe('running');
    expect(toolOutcome(call('remember', {}), false).kind, 'a stopped reply must not spin forever').toBe('unanswered');
  });

  it('failed: the error without its "error: " prefix, from the live flag or the stored text', () => {
    expect(toolOutcome(call('remember', {}, 'error: saving facts is turned off in settings'))).toEqual({ kind: 'error', message: 'saving facts is turned off in settings' });
    expect(toolOutcome(call('search_attachment', {}, 'error: "?!" has no words to search for', true))).toEqual({ kind: 'error', message: '"?!" has no words to search for' });
  });

  it('a tool server’s call that did not run reads as denied, not approved in time, or the server’s words', () => {
    const said = (say: string) => `error: ${render('tools/messages', { say, server: 'mini', tool: 'echo' }).trim()}`;
    expect(toolOutcome(call('mini__echo', {}, said('call_denied'))).kind, 'the chip says the user denied it').toBe('denied');
    expect(toolOutcome(call('mini__echo', {}, said('approval_timed_out'))).kind, 'the chip says no one answered').toBe('notApproved');
    expect(toolOutcome(call('mini__echo', {}, said('server_removed'))), 'a removed server’s call says so')
      .toEqual({ kind: 'error', message: expect.stringContaining('was removed') });
  });

  it('an unknown result shows as its text', () => {
    expect(toolOutcome(call('weather', { city: 'Seoul' }, 'Sunny, 21°C'))).toEqual({ kind: 'text', text: 'Sunny, 21°C' });
  });
});

describe('a chip’s short arguments', () => {
  it('names the fact, the query (and file), or the fact’s number; long ones are cut', () => {
    expect(shortArgs(call('remember', { fact: 'Prefers tea.' }))).toBe('Prefers tea.');
    expect(shortArgs(call('search_attachment', { query: 'trip', file: 'notes.md' }))).toBe('“trip” · notes.md');
    expect(shortArgs(call('forget', { id: 7 }))).toBe('#7');
    const long = shortArgs(call('remember', { fact: 'x'.repeat(200) }));
    expect(Array.from(long).length).toBe(60);
    expect(long.endsWith('…')).toBe(true);
    expect(shortArgs({ id: 'c', name: 'remember', arguments: '{"fact": "half' }), 'invalid JSON shows nothing rather than failing').toBe('');
  });
});
