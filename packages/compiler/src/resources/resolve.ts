import { closest } from '@hub/schemas';
import { IssueCollector, type Message } from '../issues/collect.js';
import type { IssueCode } from '../issues/codes.js';
import type { Issue } from '../issues/issue.js';
import { hint, listSome } from '../issues/suggest.js';
import { defaultLimits } from '../limits/limits.js';
import type { CompiledConfiguration, SourceRef } from '../model/types.js';

/** The organization's daemons and what each advertises, as plain data. */
export interface ResourceCatalog {
  daemons: {
    name: string;
    runtimes: { provider: string; modes?: string[]; models?: string[] }[];
  }[];
}

/**
 * Checks every step's daemon and agent against the catalog (DECISIONS.md, Resource
 * resolution). The compiler looks nothing up itself: the caller passes the catalog in.
 */
export function resolveResources(
  value: CompiledConfiguration,
  catalog: ResourceCatalog,
  maxIssues: number = defaultLimits.maxIssues,
): Issue[] {
  const issues = new IssueCollector();
  const add = (code: IssueCode, message: Message, at: SourceRef) =>
    issues.add(code, message, at.pointer, { file: at.file, line: at.line, column: at.column });
  // Plain data from the caller: anything missing counts as nothing advertised.
  const daemons = new Map(
    (Array.isArray(catalog?.daemons) ? catalog.daemons : [])
      .filter((daemon) => typeof daemon?.name === 'string')
      .map((daemon) => [
        daemon.name,
        {
          ...daemon,
          runtimes: Array.isArray(daemon.runtimes)
            ? daemon.runtimes.filter((r) => typeof r?.provider === 'string')
            : [],
        },
      ]),
  );
  const environments = new Map((value?.environments ?? []).map((environment) => [environment.name, environment]));
  const names = [...daemons.keys()];
  for (const environment of value?.environments ?? []) {
    if (daemons.has(environment.daemon)) continue;
    add(
      'resource.unknown_daemon',
      () => {
        const suggestion = closest(environment.daemon, names);
        return {
          message: `No daemon named "${environment.daemon}" is enrolled in the organization${hint(suggestion) || '.'}`,
          suggestion,
        };
      },
      environment.daemonSource,
    );
  }
  for (const trigger of value?.triggers ?? []) {
    for (const step of trigger.steps) {
      const daemon = daemons.get(environments.get(step.environment)?.daemon ?? '');
      if (daemon === undefined) continue;
      const { agent } = step;
      const runtime = daemon.runtimes.find((candidate) => candidate.provider === agent.provider);
      if (runtime === undefined) {
        const offered = daemon.runtimes.map((candidate) => candidate.provider);
        add(
          'resource.unknown_runtime',
          `The daemon "${daemon.name}" does not advertise the provider "${agent.provider}"${offered.length > 0 ? `; it advertises ${listSome(offered)}.` : '; it advertises none.'}`,
          agent.sources.provider,
        );
        continue;
      }
      if (
        agent.mode !== undefined &&
        Array.isArray(runtime.modes) &&
        runtime.modes.length > 0 &&
        !runtime.modes.includes(agent.mode)
      ) {
        add(
          'resource.unknown_mode',
          `The daemon "${daemon.name}" runs ${agent.provider} in the modes ${listSome(runtime.modes)}, not "${agent.mode}".`,
          agent.sources.mode ?? agent.sources.provider,
        );
      }
      if (
        agent.model !== undefined &&
        Array.isArray(runtime.models) &&
        runtime.models.length > 0 &&
        !runtime.models.includes(agent.model)
      ) {
        add(
          'resource.unknown_model',
          `The daemon "${daemon.name}" runs ${agent.provider} with the models ${listSome(runtime.models)}, not "${agent.model}".`,
          agent.sources.model ?? agent.sources.provider,
        );
      }
    }
  }
  return issues.finish(maxIssues);
}
