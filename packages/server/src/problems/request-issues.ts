/**
 * Every issue code of a request problem (400): what the validator says of a body, a path or a
 * query parameter that the OpenAPI document does not allow. The compiler's codes (422) are the
 * others; `FieldIssue.code` in the document lists both, and a test holds it to these.
 */
export const requestIssueCodes = {
  'request.json': 'The body is not valid JSON.',
  'request.required': 'A required body field or parameter is missing (pointer "" for a missing body).',
  'request.type': 'A value has the wrong JSON type.',
  'request.unknown_field': 'The body has a field the operation does not take.',
  'request.shape': 'The body matches none of the shapes the operation takes (configurations: shape A or shape B).',
  'request.pattern': 'A string does not have the form its field needs.',
  'request.text': 'A string holds a NUL character or a lone surrogate, which the hub never stores.',
  'request.too_long': 'A string or list is longer than its field allows.',
  'request.too_short': 'A string or list is shorter than its field needs.',
  'request.enum': 'A value is not one of the values its field allows.',
  'request.format': 'A string is not in the format its field needs (a UUID, a date-time).',
  'request.range': 'A number is outside the range its field allows.',
} as const;

export type RequestIssueCode = keyof typeof requestIssueCodes;

/**
 * The hub's own content codes (422) outside the compiler's: a field of the right type whose value
 * the hub cannot take. `FieldIssue.code` lists them between the request codes and the compiler's.
 */
export const contentIssueCodes = {
  'repository.format': "A repository is not GitHub's `owner/name`.",
  'webhook.destination': 'A webhook URL is not `https://`, or its host is a private, loopback or link-local address.',
} as const;

export type ContentIssueCode = keyof typeof contentIssueCodes;
