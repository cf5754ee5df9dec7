// A Redocly plugin used by `redocly bundle` (see /redocly.yaml): it tidies the bundled document so
// that it is one plain OpenAPI 3.1 document, whatever the JSON Schema files it was made from.
//
// - `$id`, `$schema` and `$defs` go from every schema: the bundler has already moved each `$defs`
//   entry that is referenced into components/schemas, and a `$id` left inside the document would
//   make the `#/components/...` references below it resolve against the schema's own URN.
// - Components named after the files or definitions they came from (`configuration`, `duration`)
//   get the document's names: the four YAML documents theirs (`names`), the rest `Hub` + PascalCase.
'use strict';

const ROOT_NAMES = {
  configuration: 'HubConfiguration',
  trigger: 'HubTrigger',
  'legacy-hub': 'HubLegacyHubFile',
  'legacy-workflow': 'HubLegacyWorkflow',
};

function pascal(name) {
  return name.replace(/(^|[-_.])([a-z0-9])/g, (_match, _sep, letter) => letter.toUpperCase());
}

function rewriteRefs(node, renames) {
  if (Array.isArray(node)) {
    for (const item of node) rewriteRefs(item, renames);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      const match = /^#\/components\/schemas\/([^/]+)(.*)$/.exec(value);
      if (match !== null && renames.has(match[1])) node.$ref = `#/components/schemas/${renames.get(match[1])}${match[2]}`;
    } else {
      rewriteRefs(value, renames);
    }
  }
}

function tidy() {
  return {
    Schema: {
      leave(schema) {
        delete schema.$id;
        delete schema.$schema;
        delete schema.$defs;
      },
    },
    Root: {
      leave(root) {
        const schemas = root.components?.schemas;
        if (schemas === undefined) return;
        const renames = new Map();
        for (const name of Object.keys(schemas)) {
          const renamed = ROOT_NAMES[name] ?? (/^[a-z]/.test(name) ? `Hub${pascal(name)}` : undefined);
          if (renamed === undefined) continue;
          if (renamed in schemas) throw new Error(`redocly-plugin: cannot rename ${name} to ${renamed}: taken`);
          renames.set(name, renamed);
        }
        const ordered = {};
        for (const [name, schema] of Object.entries(schemas)) ordered[renames.get(name) ?? name] = schema;
        root.components.schemas = Object.fromEntries(Object.entries(ordered).sort(([a], [b]) => a.localeCompare(b)));
        rewriteRefs(root, renames);
      },
    },
  };
}

module.exports = function hubPlugin() {
  return { id: 'hub', decorators: { oas3: { tidy } } };
};
