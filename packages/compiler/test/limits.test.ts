import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileBundle,
  compileConfiguration,
  compileTrigger,
  defaultLimits,
  type CompileResult,
  type CompiledConfiguration,
  type Limits,
} from '../src/index.js';
import { configurationWith, exampleBundle, exampleTrigger } from './support/documents.js';

const runs = { numRuns: 40 };

/** Characters of 1, 2, 3 and 4 UTF-8 bytes (the last is two UTF-16 units). */
const CHARS = ['a', 'é', '中', '😀'] as const;
const BYTES = new Map<string, number>([
  ['a', 1],
  ['é', 2],
  ['中', 3],
  ['😀', 4],
]);

const charMix = fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 8 });

/** Exactly `length` code points, cycling through `mix`. */
function codePoints(length: number, mix: readonly string[]): string {
  let out = '';
  for (let i = 0; i < length; i++) out += mix[i % mix.length];
  return out;
}

/** Exactly `bytes` UTF-8 bytes, using `mix` where it fits and 'a' to finish. */
function utf8Bytes(bytes: number, mix: readonly string[]): string {
  let out = '';
  let left = bytes;
  for (let i = 0; left > 0; i++) {
    const char = mix[i % mix.length] as string;
    const size = BYTES.get(char) as number;
    if (size <= left) {
      out += char;
      left -= size;
    } else {
      out += 'a';
      left -= 1;
    }
  }
  return out;
}

function codes(result: CompileResult<CompiledConfiguration>): string[] {
  return result.ok ? [] : result.issues.map((issue) => issue.code);
}

/** A configuration whose one step includes each of `paths`. */
function including(paths: string[]): string {
  const prompt = paths.map((path) => `          - include: ${JSON.stringify(path)}`).join('\n');
  return configurationWith({
    steps: `      - id: fix
        environment: laptop
        agent: { provider: claude }
        prompt:
${prompt}`,
  });
}

function atAndOver(
  check: (limit: number, over: boolean, mix: string[]) => string[],
  code: string,
  range: [number, number],
) {
  fc.assert(
    fc.property(fc.integer({ min: range[0], max: range[1] }), charMix, (limit, mix) => {
      expect(check(limit, false, mix)).not.toContain(code);
      expect(check(limit, true, mix)).toContain(code);
    }),
    runs,
  );
}

describe('every limit passes exactly at the limit and fails one unit over', () => {
  it('maxYamlLength, in code points', () => {
    const base = configurationWith();
    atAndOver(
      (limit, over, mix) => {
        const padding = `# ${codePoints(limit - [...base].length - 3 + (over ? 1 : 0), mix)}\n`;
        const yaml = base + padding;
        expect([...yaml].length).toBe(limit + (over ? 1 : 0));
        const limits: Partial<Limits> = { maxYamlLength: limit };
        const result = codes(compileConfiguration({ yaml }, { limits }));
        expect(
          codes(
            compileTrigger(
              { yaml: exampleTrigger + padding },
              { limits: { maxYamlLength: [...exampleTrigger].length + [...padding].length - (over ? 1 : 0) } },
            ),
          ),
        ).toEqual(over ? ['limit.yaml_length'] : []);
        return result;
      },
      'limit.yaml_length',
      [[...base].length + 3, [...base].length + 200],
    );
  });

  it('maxPathLength, in code points', () => {
    atAndOver(
      (limit, over, mix) => {
        const path = `${codePoints(limit - 3 + (over ? 1 : 0), mix)}.md`;
        return codes(
          compileConfiguration(
            { yaml: including([path]), partials: [{ path, content: 'x' }] },
            { limits: { maxPathLength: limit } },
          ),
        );
      },
      'limit.path_length',
      [4, 600],
    );
  });

  it('maxPartials', () => {
    atAndOver(
      (limit, over) => {
        const paths = Array.from({ length: limit + (over ? 1 : 0) }, (_, i) => `p${i}.md`);
        return codes(
          compileConfiguration(
            { yaml: including(paths), partials: paths.map((path) => ({ path, content: 'x' })) },
            { limits: { maxPartials: limit } },
          ),
        );
      },
      'limit.partial_count',
      [1, 120],
    );
  });

  it('maxPartialBytes, in UTF-8 bytes', () => {
    atAndOver(
      (limit, over, mix) => {
        const content = utf8Bytes(limit + (over ? 1 : 0), mix);
        return codes(
          compileConfiguration(
            { yaml: including(['a.md']), partials: [{ path: 'a.md', content }] },
            { limits: { maxPartialBytes: limit } },
          ),
        );
      },
      'limit.partial_bytes',
      [1, 5000],
    );
  });

  it('maxPartialsTotalBytes, in UTF-8 bytes', () => {
    atAndOver(
      (limit, over, mix) => {
        const first = utf8Bytes(Math.floor(limit / 2), mix);
        const second = utf8Bytes(limit - Math.floor(limit / 2) + (over ? 1 : 0), mix);
        const partials = [
          { path: 'a.md', content: first },
          { path: 'b.md', content: second },
        ];
        return codes(
          compileConfiguration(
            { yaml: including(['a.md', 'b.md']), partials },
            { limits: { maxPartialsTotalBytes: limit } },
          ),
        );
      },
      'limit.partials_total_bytes',
      [2, 5000],
    );
  });

  it('maxBundleFiles', () => {
    const [hub, workflow] = exampleBundle as [{ path: string; content: string }, { path: string; content: string }];
    const partial = exampleBundle[2] as { path: string; content: string };
    atAndOver(
      (limit, over) => {
        const workflows = Array.from({ length: limit - 2 + (over ? 1 : 0) }, (_, i) => ({
          path: `.hub/workflows/w${i}.yml`,
          content: workflow.content.replace('name: review', `name: w${i}`),
        }));
        return codes(compileBundle({ files: [hub, partial, ...workflows] }, { limits: { maxBundleFiles: limit } }));
      },
      'limit.file_count',
      [3, 110],
    );
  });

  it('maxFileLength, in code points', () => {
    const [hub, workflow, partial] = exampleBundle as [
      { path: string; content: string },
      { path: string; content: string },
      { path: string; content: string },
    ];
    atAndOver(
      (limit, over, mix) => {
        const content = codePoints(limit + (over ? 1 : 0), mix);
        return codes(
          compileBundle({ files: [hub, workflow, { ...partial, content }] }, { limits: { maxFileLength: limit } }),
        );
      },
      'limit.file_length',
      [Math.max([...hub.content].length, [...workflow.content].length), 5000],
    );
  });

  it('maxDepth, counting the root mapping as level 1', () => {
    atAndOver(
      (limit, over) => {
        const depth = limit + (over ? 1 : 0);
        const yaml = `x: ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}\n`;
        return codes(compileConfiguration({ yaml }, { limits: { maxDepth: limit } }));
      },
      'limit.depth',
      [2, 150],
    );
  });

  it('maxDepth, after aliases are expanded', () => {
    const yaml = 'a: &a [[[1]]]\nb: &b [[[*a]]]\nc: [[[*b]]]\n';
    expect(codes(compileConfiguration({ yaml }, { limits: { maxDepth: 10 } }))).not.toContain('limit.depth');
    expect(codes(compileConfiguration({ yaml }, { limits: { maxDepth: 9 } }))).toContain('limit.depth');
  });

  it('maxAliasExpansion, in nodes the aliases produce', () => {
    atAndOver(
      (limit, over) => {
        const aliases = Array.from({ length: limit + (over ? 1 : 0) }, () => '*s').join(', ');
        return codes(
          compileConfiguration({ yaml: `a: &s x\nb: [${aliases}]\n` }, { limits: { maxAliasExpansion: limit } }),
        );
      },
      'limit.alias_expansion',
      [1, 3000],
    );
  });

  it('maxIssues', () => {
    atAndOver(
      (limit, over) => {
        const keys = Array.from({ length: limit + (over ? 1 : 0) }, (_, i) => `k${i}: 1`).join('\n');
        return codes(
          compileConfiguration({ yaml: `environments: []\ntriggers: []\n${keys}\n` }, { limits: { maxIssues: limit } }),
        );
      },
      'issues.truncated',
      [1, 200],
    );
  });
});

describe("the default limits are the specification's", () => {
  it('section 8', () => {
    expect(defaultLimits).toMatchObject({
      maxYamlLength: 1_000_000,
      maxPartials: 100,
      maxPathLength: 512,
      maxPartialBytes: 1_000_000,
      maxPartialsTotalBytes: 5_000_000,
      maxBundleFiles: 100,
      maxFileLength: 1_000_000,
    });
  });

  it('a YAML of 1,000,000 characters in astral code points (2,000,000 UTF-16 units) is not too long', () => {
    const base = configurationWith();
    const yaml = `${base}# ${'😀'.repeat(1_000_000 - [...base].length - 3)}\n`;
    expect([...yaml].length).toBe(1_000_000);
    expect(codes(compileConfiguration({ yaml }))).toEqual([]);
    expect(codes(compileConfiguration({ yaml: `${yaml} ` }))).toEqual(['limit.yaml_length']);
  });

  it('an alias bomb is an issue, not a hang', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      levels.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${prev}`).join(',')}]`,
      );
    }
    const yaml = `${levels.join('\n')}\n`;
    expect(yaml.length).toBeLessThan(1000);
    expect(codes(compileConfiguration({ yaml }))).toEqual(['limit.alias_expansion']);
  });
});
