// What a tool call did, read back from the text the server stored for the model
// (prompts/tools/memory_result.md and search_attachment_result.md, version 1).

import { describe, expect, it } from 'vitest';
import { shortArgs, toolOutcome, type ToolCallView } from '../src/lib/tools';

const call = (name: string, args: object, result?: string, isError?: boolean): ToolCallView =>
  ({ id: 'c1', name, arguments: JSON.stringify(args), result, isError });

describe('a memory tool’s result', () => {
  it('reads a proposal as the fact proposed and its number, without the words meant for the model', () => {
    const o = toolOutcome(call('remember', { fact: 'Prefers tea.' },
      'Proposed fact #12: "Prefers tea.". The user reviews it before it is kept; do not repeat it in your answer.'));
    expect(o, 'the chat shows what was proposed and links to its review').toEqual({ kind: 'proposed', id: 12, fact: 'Prefers tea.' });
  });

  it('reads saved, merged (pending or not), updated, forgotten and "needs review"', () => {
    expect(toolOutcome(call('remember', {}, 'Saved fact #3: "Has a dog named "Bori".".'))).toEqual({ kind: 'saved', id: 3, fact: 'Has a dog named "Bori".' });
    expect(toolOutcome(call('remember', {}, 'Fact #4 already said this; it now reads: "Lives in Seoul.".')))
      .toEqual({ kind: 'merged', id: 4, fact: 'Lives in Seoul.', pending: false });
    expect(toolOutcome(call('remember', {}, 'Fact #4 already said this; it now reads: "Lives in Seoul.". The user reviews the change before it is kept.')))
      .toEqual({ kind: 'merged', id: 4, fact: 'Lives in Seoul.', pending: true });
    expect(toolOutcome(call('update_memory', {}, 'Fact #5 now reads: "Works from home.".'))).toEqual({ kind: 'updated', id: 5, fact: 'Works from home.' });
    expect(toolOutcome(call('forget', {}, 'Fact #6 is forgotten.'))).toEqual({ kind: 'forgotten', id: 6 });
    expect(toolOutcome(call('forget', {}, 'The user reviews changes to saved facts: tell them in your answer what should change about fact #7, and they will edit it in the memory panel.')))
      .toEqual({ kind: 'needsReview', id: 7 });
  });

  it('reads a memory search as the facts found, or nothing found', () => {
    expect(toolOutcome(call('search_memory', { query: 'pets' }, '#3: Has a dog.\n#9: Has a cat\nnamed Nabi.')))
      .toEqual({ kind: 'facts', facts: [{ id: 3, content: 'Has a dog.' }, { id: 9, content: 'Has a cat\nnamed Nabi.' }] });
    expect(toolOutcome(call('search_memory', { query: 'pets' }, 'No saved fact matches "pets".'))).toEqual({ kind: 'nothingFound', query: 'pets' });
  });
});

describe('a file search’s result', () => {
  it('reads the passages found with their file, page and lines', () => {
    const text = '[notes.md, lines 3-5]\nThe trip is in May.\nWe fly to Busan.\n\n[plan.pdf, page 2, lines 10-12]\nHotel near the beach.\n\n';
    expect(toolOutcome(call('search_attachment', { query: 'trip' }, text))).toEqual({
      kind: 'passages',
      passages: [
        { file: 'notes.md', page: null, lines: [3, 5], text: 'The trip is in May.\nWe fly to Busan.' },
        { file: 'plan.pdf', page: 2, lines: [10, 12], text: 'Hotel near the beach.' },
      ],
    });
  });

  it('reads "no passage" as nothing found for the query', () => {
    expect(toolOutcome(call('search_attachment', { query: 'visa' }, 'No passage matches "visa". Files here: notes.md.')))
      .toEqual({ kind: 'nothingFound', query: 'visa' });
  });

  it('reads the first lines of a long result kept aside, without the note to the model', () => {
    const text = '[This output is long (400 lines, about 9000 tokens), so only its first 20 lines are shown. It is stored whole as out-3: call read_tool_output with ref "out-3" and offset 21 to read on, or another offset to read any part.]\n[notes.md, lines 1-4]\nFirst passage.';
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
