/** Catalog prose: text in which `backquoted` spans are code. Preact escapes every part. */
export function Inline({ text }: { text: string }) {
  const parts = text.split('`');
  return <>{parts.map((part, index) => (index % 2 === 1 ? <code>{part}</code> : part))}</>;
}
