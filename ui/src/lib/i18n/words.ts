// The shape every area's Korean takes from its English: the same keys, none missing, none extra.

export type Words<English> = { readonly [K in keyof English]: string };
