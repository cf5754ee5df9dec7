import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  resolveResources,
  type BundleInput,
  type CompileResult,
  type CompiledConfiguration,
  type ConfigurationInput,
  type Issue,
  type ResourceCatalog,
  type TriggerInput,
} from '@hub/compiler';

/** A document to compile, and the organization's resources to resolve what it names against. */
export type CompileTask = (
  | { kind: 'configuration'; input: ConfigurationInput }
  | { kind: 'bundle'; input: BundleInput }
  | { kind: 'trigger'; input: TriggerInput }
) & { catalog: ResourceCatalog };

/**
 * What comes back from a compile: the model already serialized, so that a large one crosses from
 * the worker as one string and is stored as it is, instead of being rebuilt as objects on the
 * thread that serves requests and serialized again there.
 */
export type TaskResult =
  { ok: true; model: string; triggerNames: string[] } | { ok: false; stage: 'compile' | 'resources'; issues: Issue[] };

export function runTask(task: CompileTask): TaskResult {
  const compiled = compile(task);
  if (!compiled.ok) return { ok: false, stage: 'compile', issues: compiled.issues };
  const issues = resolveResources(compiled.value, task.catalog);
  if (issues.length > 0) return { ok: false, stage: 'resources', issues };
  return {
    ok: true,
    model: JSON.stringify(compiled.value),
    triggerNames: compiled.value.triggers.map((trigger) => trigger.name),
  };
}

function compile(task: CompileTask): CompileResult<CompiledConfiguration> {
  switch (task.kind) {
    case 'configuration':
      return compileConfiguration(task.input);
    case 'bundle':
      return compileBundle(task.input);
    case 'trigger':
      return compileTrigger(task.input);
  }
}

/** Characters a task carries: what decides whether it is worth a worker thread. */
export function taskSize(task: CompileTask): number {
  const files =
    task.kind === 'configuration' ? (task.input.partials ?? []) : task.kind === 'bundle' ? task.input.files : [];
  let size = 'yaml' in task.input ? task.input.yaml.length : 0;
  for (const file of files) size += file.content.length + file.path.length;
  return size;
}
