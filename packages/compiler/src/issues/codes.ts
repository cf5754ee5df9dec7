/**
 * Every issue code the compiler emits, with what it means. docs/issue-codes.md documents each
 * with an example, and test-fixtures/ holds at least one case for each.
 */
export const issueCodes = {
  'input.invalid': 'The compiler was called with something other than the documented input shape.',
  'text.malformed_unicode':
    'A text is not well-formed Unicode: a document or file has a lone surrogate, or a quoted string decodes to one ("\\uD800").',
  'text.nul_character':
    'A quoted string decodes to the NUL character ("\\0", "\\u0000"), or a partial holds one: the hub cannot store it.',
  'yaml.syntax': 'The YAML cannot be parsed.',
  'yaml.multiple_documents': 'A file holds more than one YAML document.',
  'yaml.duplicate_key': 'A mapping has the same key twice.',
  'yaml.non_string_key': 'A mapping key is not a plain string (a number, boolean, null or collection).',
  'yaml.tag': 'A node has a tag outside the YAML 1.2 core schema.',
  'yaml.merge_key': 'A mapping uses a << merge key.',
  'yaml.unknown_alias': 'An alias names an anchor that is not defined before it.',
  'limit.yaml_length': 'A configuration or trigger YAML is longer than maxYamlLength characters.',
  'limit.depth': 'The YAML nests deeper than maxDepth levels.',
  'limit.alias_expansion': 'Aliases expand to more than maxAliasExpansion nodes (an alias bomb).',
  'limit.partial_count': 'More partials than maxPartials.',
  'limit.partial_bytes': 'A partial is larger than maxPartialBytes UTF-8 bytes.',
  'limit.partials_total_bytes': 'The partials together are larger than maxPartialsTotalBytes UTF-8 bytes.',
  'limit.file_count': 'A bundle holds more files than maxBundleFiles.',
  'limit.file_length': 'A bundle file is longer than maxFileLength characters.',
  'limit.path_length': 'A path is longer than maxPathLength characters.',
  'path.unsafe': 'A path could leave its directory: absolute, a .. segment, a drive prefix or a backslash.',
  'path.noncanonical': 'A path is not canonical: empty, an empty or . segment, a control character, or not NFC.',
  'partial.missing': 'A prompt include names a partial that is not among the partials given.',
  'partial.extra': 'The request carries a partial that no prompt includes.',
  'partial.duplicate': 'Two partials have the same path after NFC normalization and case folding.',
  'include.outside_partials': 'A legacy workflow includes a file outside .hub/workflows/partials/.',
  'bundle.hub_file_missing': 'A legacy bundle has no .hub/hub.yml.',
  'bundle.duplicate': 'Two bundle files have the same path after NFC normalization and case folding.',
  'bundle.workflow_extension': 'A workflow file ends in .yaml; workflows end in .yml.',
  'bundle.nested_workflow': 'A workflow file is in a subdirectory of .hub/workflows/.',
  'bundle.extra': 'A bundle file is neither the hub file, a workflow, nor a partial.',
  'schema.type': 'A value has the wrong type.',
  'schema.required': 'A required key is missing.',
  'schema.unknown_key': 'A key is not allowed here.',
  'schema.enum': 'A value is not one of the allowed values.',
  'schema.duration': 'A duration is not <integer><unit>… with units d, h, m, s in order, above zero.',
  'schema.name': 'A name does not match its pattern.',
  'schema.pattern': 'A string has a character it may not have.',
  'schema.too_few': 'A list, mapping or string is shorter than its minimum.',
  'schema.too_many': 'A list, mapping or string is longer than its maximum.',
  'schema.not_unique': 'A list that must hold unique values holds one twice.',
  'environment.duplicate_name': 'Two environments have the same name.',
  'trigger.duplicate_name': 'Two triggers have the same name.',
  'trigger.allowlist_required':
    'A trigger with manual.run, github.mention or github.label has no filters.from_users, or an empty one (schedule runs need none).',
  'trigger.inputs_declared_twice':
    "A trigger declares inputs under both manual.run and github.mention; they are the trigger's, declared once.",
  'step.duplicate_id': 'Two steps of one trigger have the same id.',
  'step.unknown_environment': 'A step names an environment that does not exist.',
  'step.unknown_agent': 'A legacy step names an agent that the hub file does not define.',
  'step.max_runtime_exceeds_trigger': "A step's max_runtime is longer than its trigger's.",
  'step.idle_timeout_exceeds_max_runtime': "A step's idle_timeout is longer than its max_runtime.",
  'duration.too_long': 'A duration is too long to be represented exactly in milliseconds.',
  'template.unknown_placeholder':
    'A prompt placeholder is not {{ prompt }}, {{ inputs.<declared name> }}, or an {{ event.<name> }} every kind of its trigger gives.',
  'input.default_not_in_enum': "An input's default is not one of its enum values.",
  'schedule.cron':
    "A schedule entry's cron is not five valid fields or a known nickname; the position is the field in error.",
  'schedule.timezone':
    "A schedule entry's timezone is not an IANA time zone name this runtime knows, written in its case.",
  'schedule.input': "A schedule entry's input misses a required input or gives a value outside an input's enum.",
  'schedule.organization_trigger':
    'An organization trigger has a schedule: it runs in the project each dispatch names, and a tick names none.',
  'github.organization_trigger':
    "An organization trigger has a GitHub kind: GitHub events are read against a project's active configuration only.",
  'input.required': 'A dispatch did not supply a required input.',
  'input.not_in_enum': "A dispatch supplied an input value outside the input's enum.",
  'resource.unknown_daemon': 'An environment names a daemon that is not enrolled in the organization.',
  'resource.unknown_runtime': 'The daemon does not advertise the agent provider.',
  'resource.unknown_mode': 'The daemon lists its modes for the provider, and the mode is not one of them.',
  'resource.unknown_model': 'The daemon lists its models for the provider, and the model is not one of them.',
  'environment.unused': 'Warning: no step runs in this environment.',
  'issues.truncated': 'More issues were found than maxIssues; the rest are not listed.',
} as const;

export type IssueCode = keyof typeof issueCodes;
