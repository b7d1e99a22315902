// Types of generate-api.mjs, for test/generated.test.ts.

export declare const DOCUMENT: string;
export declare const OUTPUT: string;
export declare function danglingSchemas(doc: { components?: { schemas?: Record<string, unknown> } }): string[];
/** The text of api.generated.ts for the document's text (read from DOCUMENT when omitted). */
export declare function generate(text?: string): Promise<string>;
export declare const TYPES: string;
export declare const BOUNDS: string;
/** The text of generated/index.ts: every schema under its own name. */
export declare function generateTypes(text?: string): Promise<string>;
/** The text of generated/setting-bounds.ts: the settings' bounds from the document. */
export declare function generateBounds(text?: string): Promise<string>;
