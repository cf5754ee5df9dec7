import { _, Ajv2020, str, type KeywordCxt } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule.default;

/**
 * An ajv for the document. `allErrors` and `verbose` for the errors that become field issues;
 * without them, the quick pass that every request takes (the detailed one runs only on failure).
 */
export function documentAjv(detailed: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: detailed, verbose: detailed, validateFormats: true });
  addFormats(ajv);
  // maxLength and minLength count code points, which means reading the whole string: 2 ms for a
  // 1 MB YAML on every request. A string is never longer in code points than in UTF-16 units, so
  // `.length` decides most cases and the count runs only where it cannot.
  ajv.removeKeyword('maxLength');
  ajv.removeKeyword('minLength');
  ajv.addKeyword({
    keyword: ['maxLength', 'minLength'],
    type: 'string',
    schemaType: 'number',
    error: {
      message: ({ keyword, schemaCode }) =>
        str`must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${schemaCode} characters`,
      params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
    },
    code(cxt: KeywordCxt) {
      const { keyword, data, schemaCode, gen } = cxt;
      const count = _`${gen.scopeValue('func', { ref: codePoints })}(${data})`;
      cxt.fail(
        keyword === 'maxLength'
          ? _`${data}.length > ${schemaCode} && ${count} > ${schemaCode}`
          : _`${data}.length < ${schemaCode} || (${data}.length < 2 * ${schemaCode} && ${count} < ${schemaCode})`,
      );
    },
  });
  return ajv;
}

/** Unicode code points, as JSON Schema counts a string's length (a surrogate pair is one). */
function codePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    count++;
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
  }
  return count;
}
