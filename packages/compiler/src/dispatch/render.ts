const PLACEHOLDER = /\{\{\s*(prompt|inputs\.([a-z][a-z0-9_]*))\s*\}\}/g;

/**
 * Fills a compiled prompt template in one pass: {{ prompt }} and {{ inputs.<name> }} (empty when
 * the input has no value). Values are inserted as they are and never expanded again.
 */
export function renderPrompt(template: string, values: { prompt: string; inputs: Record<string, string> }): string {
  if (typeof template !== 'string') return '';
  const prompt = typeof values?.prompt === 'string' ? values.prompt : '';
  const inputs: Record<string, unknown> =
    typeof values?.inputs === 'object' && values.inputs !== null ? values.inputs : {};
  return template.replace(PLACEHOLDER, (_match, _name: string, input: string | undefined) => {
    if (input === undefined) return prompt;
    const value = Object.hasOwn(inputs, input) ? inputs[input] : undefined;
    return typeof value === 'string' ? value : '';
  });
}
