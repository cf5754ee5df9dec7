const PLACEHOLDER = /\{\{\s*(prompt|inputs\.([a-z][a-z0-9_]*)|event\.([a-z][a-z0-9_]*))\s*\}\}/g;

/** What a run fills a template with; `event` holds the {{ event.<name> }} values its kind gives. */
export interface PromptValues {
  prompt: string;
  inputs: Record<string, string>;
  event?: Record<string, string>;
}

/**
 * Fills a compiled prompt template in one pass: {{ prompt }}, {{ inputs.<name> }} and
 * {{ event.<name> }} (empty when the input or event value is not given). Values are inserted as
 * they are and never expanded again.
 */
export function renderPrompt(template: string, values: PromptValues): string {
  if (typeof template !== 'string') return '';
  const prompt = typeof values?.prompt === 'string' ? values.prompt : '';
  const record = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const inputs = record(values?.inputs);
  const event = record(values?.event);
  return template.replace(PLACEHOLDER, (_match, _name: string, input?: string, name?: string) => {
    if (input === undefined && name === undefined) return prompt;
    const from = input === undefined ? event : inputs;
    const key = (input ?? name) as string;
    const value = Object.hasOwn(from, key) ? from[key] : undefined;
    return typeof value === 'string' ? value : '';
  });
}
