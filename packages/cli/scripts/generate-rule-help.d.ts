// Types of generate-rule-help.js, for the test that checks the generated module.
export declare const DOCS: string;
export declare const TARGET: string;
export declare function sections(markdown: string): Record<string, string>;
export declare function generate(markdown?: string): string;
