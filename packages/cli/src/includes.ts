// The prompt `include` values of a document, so that discovery sends exactly the partials that
// are referenced: the compiler's `promptIncludes`, which reads the YAML as compiling it will (the
// fast readings; a second full parse with yaml's composer cost more than the compile itself on
// large documents).
export { promptIncludes as includesOf, type IncludeShape } from '@hub/compiler';
