import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  type BundleInput,
  type CompileResult,
  type CompiledConfiguration,
  type ConfigurationInput,
  type TriggerInput,
} from '@hub/compiler';

export type CompileTask =
  | { kind: 'configuration'; input: ConfigurationInput }
  | { kind: 'bundle'; input: BundleInput }
  | { kind: 'trigger'; input: TriggerInput };

export function runTask(task: CompileTask): CompileResult<CompiledConfiguration> {
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
  const files = task.kind === 'configuration' ? (task.input.partials ?? []) : task.kind === 'bundle' ? task.input.files : [];
  let size = 'yaml' in task.input ? task.input.yaml.length : 0;
  for (const file of files) size += file.content.length + file.path.length;
  return size;
}
