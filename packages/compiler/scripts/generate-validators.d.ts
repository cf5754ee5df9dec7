// Types of generate-validators.js, for the test that checks the generated module.
export declare const TARGET: string;
export declare const OPTIONS: { strict: true; allErrors: true; allowUnionTypes: true; verbose: true; messages: false };
export declare function publishedSchemas(): Record<
  'configuration' | 'trigger' | 'legacyHub' | 'legacyWorkflow',
  Record<string, unknown>
>;
export declare function generate(schemas?: Record<string, Record<string, unknown>>): string;
