const PLACEHOLDER = /\{\{\s*(prompt|inputs\.([a-z][a-z0-9_]*))\s*\}\}/g;

/**
 * Fills a compiled prompt template in one pass: {{ prompt }} and {{ inputs.<name> }} (empty when
 * the input has no value). Values are inserted as they are and never expanded again.
 */
export function renderPrompt(template: string, values: { prompt: string; inputs: Record<string, string> }): string {
  return template.replace(PLACEHOLDER, (_match, _name: string, input: string | undefined) => {
    if (input === undefined) return values.prompt;
    return Object.hasOwn(values.inputs, input) ? (values.inputs[input] as string) : '';
  });
}
