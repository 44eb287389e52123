// JSON pointer reference tokens (RFC 6901): `~` and `/` inside a key are written `~0` and `~1`.

export function escapePointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function unescapePointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}
