import { configurationSchema, legacyHubSchema, legacyWorkflowSchema, triggerSchema, type JsonSchema } from '@hub/schemas';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type SchemaObject = { [key: string]: Json };

/** The YAML documents' JSON Schemas (@hub/schemas), by the component name they get. */
export const yamlDocuments = {
  HubConfiguration: configurationSchema,
  HubTrigger: triggerSchema,
  HubLegacyHubFile: legacyHubSchema,
  HubLegacyWorkflow: legacyWorkflowSchema,
} as const satisfies Record<string, JsonSchema>;

export type YamlDocumentName = keyof typeof yamlDocuments;

const DEFS_REF = /^#\/\$defs\/([^/]+)(\/.*)?$/;

/**
 * The YAML documents' schemas as OpenAPI components: each document's root becomes
 * components/schemas/<Name>, and each of its $defs components/schemas/<Name><Def> (HubTrigger's
 * `duration` is HubTriggerDuration), with every `#/$defs/x` rewritten to point there. `$id` and
 * `$schema` go: inside the OpenAPI document a `$id` would make `#/components/...` resolve
 * against the schema's own URN, and the document's dialect (2020-12) is theirs already.
 */
export function yamlDocumentComponents(): Record<string, SchemaObject> {
  const components: Record<string, SchemaObject> = {};
  const add = (name: string, schema: SchemaObject) => {
    if (name in components) throw new Error(`two YAML schema components are named ${name}`);
    components[name] = schema;
  };
  for (const [document, schema] of Object.entries(yamlDocuments)) {
    const { $schema: _dialect, $id: _id, $defs, ...root } = structuredClone(schema) as SchemaObject;
    const defName = (def: string) => `${document}${def.charAt(0).toUpperCase()}${def.slice(1)}`;
    const rewrite = (node: Json): Json => {
      if (Array.isArray(node)) return node.map(rewrite);
      if (node === null || typeof node !== 'object') return node;
      const out: SchemaObject = {};
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          const match = DEFS_REF.exec(value);
          if (match === null) throw new Error(`${document}: cannot place the reference ${value} in the OpenAPI document`);
          const def = (match[1] as string).replace(/~1/g, '/').replace(/~0/g, '~');
          out[key] = `#/components/schemas/${defName(def)}${match[2] ?? ''}`;
        } else {
          out[key] = rewrite(value);
        }
      }
      return out;
    };
    add(document, rewrite(root) as SchemaObject);
    for (const [def, value] of Object.entries(($defs ?? {}) as SchemaObject)) add(defName(def), rewrite(value) as SchemaObject);
  }
  return components;
}
