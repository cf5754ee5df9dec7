export const SESSION_COOKIE = 'hub_session';

/** The value of one cookie in a `Cookie` header (the first of that name), or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0 || part.slice(0, index).trim() !== name) continue;
    let value = part.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      return decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The session cookie: HttpOnly, SameSite=Lax, Path=/, and Secure when the hub is served over https. */
export function sessionCookie(secret: string, publicUrl: string): string {
  return [`${SESSION_COOKIE}=${encodeURIComponent(secret)}`, ...cookieAttributes(publicUrl)].join('; ');
}

/** The same cookie, expired: the browser forgets it. */
export function clearedSessionCookie(publicUrl: string): string {
  return [`${SESSION_COOKIE}=`, 'Max-Age=0', ...cookieAttributes(publicUrl)].join('; ');
}

function cookieAttributes(publicUrl: string): string[] {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (publicUrl.startsWith('https:')) attributes.push('Secure');
  return attributes;
}
